package io.vlink.core.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TextLinesTest
{
    @TempDir
    Path dir;

    private static TextLines read(final String text, final int maxFile, final int maxLine) throws IOException
    {
        return TextLines.read("f", new ByteArrayInputStream(text.getBytes(StandardCharsets.ISO_8859_1)), maxFile, maxLine);
    }

    @Test
    void splitsAtEveryTerminatorAsFilesReadAllLinesDoes() throws IOException
    {
        final TextLines text = read("a\nb\r\nc\rd\n\ne", 100, 10);
        assertNull(text.error());
        assertEquals(List.of("a", "b", "c", "d", "", "e"), text.lines());
        assertEquals(List.of("x"), read("x\n", 100, 10).lines());
        assertEquals(List.of("x", ""), read("x\r\r", 100, 10).lines());
        assertEquals(List.of(), read("", 100, 10).lines());
    }

    @Test
    void readsBytesAsLatin1()
    {
        final TextLines text = assertRead(new byte[] {'q', (byte)0xE9, (byte)0x9B, '\n'});
        assertEquals("q\u00e9\u009b", text.lines().get(0));
    }

    private static TextLines assertRead(final byte[] bytes)
    {
        try
        {
            final TextLines text = TextLines.read("f", new ByteArrayInputStream(bytes), 100, 10);
            assertNull(text.error());
            return text;
        }
        catch (final IOException ex)
        {
            throw new AssertionError(ex);
        }
    }

    @Test
    void aLineOfExactlyTheLimitIsRead() throws IOException
    {
        final TextLines text = read("0123456789\n0123456789", 100, 10);
        assertNull(text.error());
        assertEquals(List.of("0123456789", "0123456789"), text.lines());
    }

    @Test
    void theFirstByteOfALinePastTheLimitIsTheError() throws IOException
    {
        final TextLines text = read("ok\n01234567890\nnever read", 100, 10);
        assertEquals(List.of(), text.lines());
        assertEquals("f:2:11: error: line longer than 10 bytes; vlink reads text files of at most 100 bytes with " +
            "lines of at most 10 bytes: check that this is the file you meant", text.error().toString());
    }

    @Test
    void theFirstBytePastTheFileLimitIsTheError() throws IOException
    {
        assertNull(read("0123\n5678\n", 10, 10).error());
        final TextLines text = read("0123\n5678\nab", 11, 10);
        assertEquals("f:3:2: error: file longer than 11 bytes; vlink reads text files of at most 11 bytes with " +
            "lines of at most 10 bytes: check that this is the file you meant", text.error().toString());
        assertEquals(List.of(), text.lines());
    }

    @Test
    void anEndlessStreamStopsAtTheLimit() throws IOException
    {
        final long[] taken = new long[1];
        final InputStream zeros = new InputStream()
        {
            @Override
            public int read()
            {
                taken[0]++;
                return 0;
            }

            @Override
            public int read(final byte[] b, final int off, final int len)
            {
                Arrays.fill(b, off, off + len, (byte)0);
                taken[0] += len;
                return len;
            }
        };
        final TextLines text = TextLines.read("zeros", zeros, TextLines.MAX_FILE_BYTES, TextLines.MAX_LINE_BYTES);
        assertTrue(text.error().toString().startsWith("zeros:1:4097: error: line longer than 4096 bytes; "),
            text.error()::toString);
        assertTrue(taken[0] <= 2 * 8192 + TextLines.MAX_LINE_BYTES, () -> taken[0] + " bytes taken");
    }

    @Test
    void devZero()
    {
        final Path zero = Path.of("/dev/zero");
        assumeTrue(Files.isReadable(zero), "no /dev/zero on this system");
        final TextLines text = TextLines.read(zero);
        assertEquals("/dev/zero:1:4097: error: line longer than 4096 bytes; vlink reads text files of at most " +
            "1048576 bytes with lines of at most 4096 bytes: check that this is the file you meant",
            text.error().toString());
    }

    @Test
    void aFileOfManyShortLinesPastTheLimit() throws IOException
    {
        final Path big = dir.resolve("big.conf");
        final byte[] bytes = new byte[TextLines.MAX_FILE_BYTES + 1];
        Arrays.fill(bytes, (byte)'\n');
        Files.write(big, bytes);
        assertEquals(big + ":1048577:1: error: file longer than 1048576 bytes; vlink reads text files of at most " +
            "1048576 bytes with lines of at most 4096 bytes: check that this is the file you meant",
            TextLines.read(big).error().toString());
        Files.write(big, Arrays.copyOf(bytes, TextLines.MAX_FILE_BYTES));
        assertEquals(TextLines.MAX_FILE_BYTES, TextLines.read(big).lines().size());
    }

    @Test
    void readErrorsSayWhyWithoutClassNames() throws IOException
    {
        assertEquals(dir + ": error: cannot read: is a directory", TextLines.read(dir).error().toString());
        final Path none = dir.resolve("none.conf");
        assertEquals(none + ": error: cannot read: no such file", TextLines.read(none).error().toString());
        final Path file = Files.writeString(dir.resolve("f.conf"), "x\n");
        assertEquals(file.resolve("below") + ": error: cannot read: not a directory",
            TextLines.read(file.resolve("below")).error().toString());
    }
}
