package io.vlink.nic.example;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The example in {@code docs/engine.md} is exactly {@link ReadmeExample}'s {@code main}, and it runs.
 */
class ReadmeExampleTest
{
    @Test
    void theDocumentedExampleIsThisCode() throws Exception
    {
        final String doc = Files.readString(Path.of("..", "docs", "engine.md"));
        final String start = "<!-- example: nic/src/test/java/io/vlink/nic/example/ReadmeExample.java -->\n```java\n";
        final int from = doc.indexOf(start);
        assertTrue(from >= 0, "docs/engine.md has the example block");
        final String block = doc.substring(from + start.length(), doc.indexOf("```\n", from + start.length()));
        final String source = Files.readString(
            Path.of("src", "test", "java", "io", "vlink", "nic", "example", "ReadmeExample.java"));
        final String body = source.substring(source.indexOf("import io.vlink.core"));
        assertEquals(body, block);
    }

    @Test
    @Timeout(60)
    void theExampleRuns()
    {
        final PrintStream out = System.out;
        final ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try
        {
            ReadmeExample.main(new String[0]);
        }
        finally
        {
            System.setOut(out);
        }
        assertEquals("VL3 QP 9 PSN 0: 64 bytes: hello, vlink\nsent on VL3: 1 packet(s)\n",
            captured.toString(StandardCharsets.UTF_8).replace(System.lineSeparator(), "\n"));
    }
}
