package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VlinkTest
{
    @Test
    void helpListsTheCommandsOnStdout()
    {
        final Cli cli = Cli.run("--help");
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.contains("Usage: vlink"), cli::toString);
        assertTrue(cli.out.contains("Commands:"), cli::toString);
    }

    @Test
    void noCommandIsAUsageErrorOnStderr()
    {
        final Cli cli = Cli.run();
        assertNotEquals(0, cli.exitCode);
        assertEquals("vlink: missing command\nsee 'vlink --help'\n", cli.err);
        assertEquals("", cli.out);
    }

    @Test
    void unknownCommandIsAUsageError()
    {
        final Cli cli = Cli.run("frobnicate");
        assertEquals(2, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains("frobnicate"), cli::toString);
    }

    @TempDir
    Path dir;

    /** {@code java -cp ... Vlink ARGS} with only the given JVM flags: what {@code java -jar vlink.jar} meets. */
    private static String[] vlink(final List<String> flags, final String... args) throws Exception
    {
        final List<String> command = new ArrayList<>();
        command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Vlink.class.getName()));
        command.addAll(List.of(args));
        final Process process = new ProcessBuilder(command).start();
        final String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        final String err = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        return new String[] {Integer.toString(process.exitValue()), out, err};
    }

    @Test
    void withoutTheJvmFlagsACommandSaysWhichOneAndWhereItGoesInOneLine() throws Exception
    {
        String[] run = vlink(List.of(), "soak", "--seconds", "1", "--dir", dir.toString());
        assertEquals("1", run[0], run[2]);
        assertEquals("", run[1]);
        assertEquals("vlink: the JVM lacks --add-exports java.base/jdk.internal.misc=ALL-UNNAMED, which Agrona " +
            "needs to reach jdk.internal.misc.Unsafe: add it to the JVM's command line before -jar or the main class " +
            "(or to JDK_JAVA_OPTIONS, or to the JVM options of your build's test and exec plugins); the README lists " +
            "them under \"Using vlink as a library\"; the ./vlink launcher adds them\n", run[2]);
        run = vlink(List.of(), "soak", "--help");
        assertEquals("0", run[0], "help needs no flag: " + run[2]);

        // a capture without Chronicle's flags: refused before the run, one line, no file
        final Path capture = dir.resolve("soak.pcap");
        run = vlink(List.of("--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"), "soak", "--seconds", "1",
            "--dir", dir.toString(), "--capture", capture.toString());
        assertEquals("1", run[0], run[2]);
        assertEquals("", run[1]);
        assertTrue(run[2].startsWith("vlink soak: --capture " + capture + ": a capture needs JVM flags this JVM " +
            "lacks, for Chronicle Bytes, which maps the capture file: --add-opens java.base/java.lang=ALL-UNNAMED "),
            run[2]);
        assertEquals(1, run[2].lines().count(), run[2]);
        assertFalse(Files.exists(capture));
    }
}
