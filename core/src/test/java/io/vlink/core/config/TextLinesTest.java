package io.vlink.core.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class TextLinesTest
{
    private static final String CHECK = "check that this is the file you meant";

    @TempDir
    Path dir;

    /** Keeps every line with its number; finishes with a warning, so a stop is told apart from a finish. */
    static final class Collect implements LineReader<List<String>>
    {
        final List<String> lines = new ArrayList<>();
        int finished;

        @Override
        public void line(final int number, final String line)
        {
            assertEquals(lines.size() + 1, number, "lines are numbered from 1, one after the other");
            lines.add(line);
        }

        @Override
        public Result<List<String>> finish()
        {
            finished++;
            final Findings findings = new Findings();
            findings.warning("f", 1, 0, "read");
            return Result.of(List.copyOf(lines), findings);
        }
    }

    private static Result<List<String>> read(final byte[] bytes, final int maxFile, final int maxLine)
    {
        return TextLines.read("f", new ByteArrayInputStream(bytes), maxFile, maxLine, new Collect());
    }

    private static Result<List<String>> read(final String text, final int maxFile, final int maxLine)
    {
        return read(text.getBytes(StandardCharsets.ISO_8859_1), maxFile, maxLine);
    }

    private static List<String> lines(final String text)
    {
        final Result<List<String>> result = read(text, 100, 10);
        assertFalse(result.stopped(), result::toString);
        return result.value();
    }

    @Test
    void splitsAtEveryTerminatorAsFilesReadAllLinesDoes()
    {
        assertEquals(List.of("a", "b", "c", "d", "", "e"), lines("a\nb\r\nc\rd\n\ne"));
        assertEquals(List.of("x"), lines("x\n"));
        assertEquals(List.of("x", ""), lines("x\r\r"));
        assertEquals(List.of(), lines(""));
        assertEquals(List.of("", ""), lines("\r\n\n"));
    }

    @Test
    void aFileWithCarriageReturnsAloneHasItsLines()
    {
        assertEquals(List.of("one", "two", "three"), lines("one\rtwo\rthree\r"));
        // a CR at the end of one chunk and an LF at the start of the next are one terminator
        final byte[] bytes = new byte[TextLines.CHUNK_BYTES + 2];
        Arrays.fill(bytes, (byte)'a');
        bytes[TextLines.CHUNK_BYTES - 1] = '\r';
        bytes[TextLines.CHUNK_BYTES] = '\n';
        final Result<List<String>> result = read(bytes, bytes.length, TextLines.CHUNK_BYTES);
        assertEquals(List.of("a".repeat(TextLines.CHUNK_BYTES - 1), "a"), result.value());
    }

    @Test
    void aValidUtf8LineIsUtf8AndAnyOtherByteForByte()
    {
        final byte[] bytes = {'q', (byte)0xE9, (byte)0x9B, '\n', 'n', (byte)0xC3, (byte)0xA9, '\n', (byte)0xEF, (byte)0xBB,
            (byte)0xBF, '\n'};
        assertEquals(List.of("q\u00e9\u009b", "n\u00e9", "\ufeff"), read(bytes, 100, 10).value());
        final byte[] bom = {(byte)0xEF, (byte)0xBB, (byte)0xBF, 'k', (byte)0xC3, (byte)0xA9, '\n', 'x'};
        assertEquals(List.of("k\u00e9", "x"), read(bom, 100, 10).value(), "a first line's byte-order mark is left out");
        assertEquals(List.of("\u00ef\u00bb"), read(new byte[] {(byte)0xEF, (byte)0xBB}, 100, 10).value());
    }

    @Test
    void aLineOfExactlyTheLimitIsRead()
    {
        assertEquals(List.of("0123456789", "0123456789"), lines("0123456789\n0123456789"));
    }

    @Test
    void theFirstByteOfALinePastTheLimitStopsTheReadingAndIsTheOneFinding()
    {
        final Collect reader = new Collect();
        final Result<List<String>> result = TextLines.read("f", new ByteArrayInputStream(
            "ok\n01234567890\nnever read".getBytes(StandardCharsets.US_ASCII)), 100, 10, reader);
        assertTrue(result.stopped());
        assertFalse(result.ok());
        assertEquals(0, reader.finished, "a stopped file is not finished: its findings are not the answer");
        assertEquals(List.of("ok"), reader.lines);
        assertEquals(List.of("f:2:11: error: line longer than 10 bytes, the most vlink reads (files up to 100 bytes): " +
            CHECK), strings(result));
    }

    @Test
    void theFirstBytePastTheFileLimitStops()
    {
        assertTrue(read("0123\n5678\n", 10, 10).ok());
        assertEquals(List.of("f:3:2: error: file longer than 11 bytes, the most vlink reads (lines up to 10 bytes): " +
            CHECK), strings(read("0123\n5678\nab", 11, 10)));
        assertEquals(List.of("f:1:1: error: file longer than 0 bytes, the most vlink reads (lines up to 10 bytes): " +
            CHECK), strings(read("x", 0, 10)));
    }

    @Test
    void aNulByteStopsTheReadingAtItsPlace()
    {
        assertEquals(List.of("f:2:3: error: a NUL byte: binary data, not a text file: " + CHECK),
            strings(read("ok\nab\0cd\n", 100, 10)));
    }

    private static List<String> strings(final Result<?> result)
    {
        final List<String> found = new ArrayList<>();
        result.diagnostics().forEach(d -> found.add(d.toString()));
        return found;
    }

    /** An endless stream of one byte, counting what is taken. */
    static final class Endless extends InputStream
    {
        private final byte value;
        long taken;

        Endless(final int value)
        {
            this.value = (byte)value;
        }

        @Override
        public int read()
        {
            taken++;
            return value & 0xFF;
        }

        @Override
        public int read(final byte[] b, final int off, final int len)
        {
            Arrays.fill(b, off, off + len, value);
            taken += len;
            return len;
        }
    }

    @Test
    void anEndlessStreamStopsAtTheLimitAChunkAtATime()
    {
        final Endless letters = new Endless('y');
        final Result<List<String>> line = TextLines.read("yes", letters, TextLines.MAX_FILE_BYTES,
            TextLines.MAX_LINE_BYTES, new Collect());
        assertTrue(line.diagnostics().get(0).toString().startsWith("yes:1:4097: error: line longer than 4096 bytes"),
            line::toString);
        assertTrue(letters.taken <= TextLines.MAX_LINE_BYTES + TextLines.CHUNK_BYTES, () -> letters.taken + " bytes taken");

        final Endless newlines = new Endless('\n');
        final Result<List<String>> file = TextLines.read("nl", newlines, 1 << 20, 16, new LineReader<Void>()
        {
            @Override
            public void line(final int number, final String text)
            {
                assertEquals("", text);
            }

            @Override
            public Result<Void> finish()
            {
                throw new AssertionError("an endless stream has no end");
            }
        }).map(v -> List.of());
        assertEquals(List.of("nl:1048577:1: error: file longer than 1048576 bytes, the most vlink reads (lines up to 16 " +
            "bytes): " + CHECK), strings(file));
        assertTrue(newlines.taken <= (1 << 20) + TextLines.CHUNK_BYTES, () -> newlines.taken + " bytes taken");
    }

    @Test
    void devZeroAndDevUrandomStopAtTheirFirstNul()
    {
        final Path zero = Path.of("/dev/zero");
        assumeTrue(Files.isReadable(zero), "no /dev/zero on this system");
        assertEquals(List.of("/dev/zero:1:1: error: a NUL byte: binary data, not a text file: " + CHECK),
            strings(TextLines.read(zero, new Collect())));
        final Result<List<String>> random = TextLines.read(Path.of("/dev/urandom"), new Collect());
        assertTrue(random.stopped());
        assertTrue(random.diagnostics().get(0).message().startsWith("a NUL byte"), random::toString);
    }

    @Test
    void aRegularFileLargerThanTheLimitIsRefusedBeforeItIsRead() throws IOException
    {
        final Path big = dir.resolve("big.conf");
        try (RandomAccessFile file = new RandomAccessFile(big.toFile(), "rw"))
        {
            file.setLength(TextLines.MAX_FILE_BYTES + 1L);   // sparse: nothing written, all NUL if it were read
        }
        final Collect reader = new Collect();
        assertEquals(List.of(big + ": error: file of 1048577 bytes, longer than the 1048576 vlink reads (lines up to " +
            "4096 bytes): " + CHECK), strings(TextLines.read(big, reader)));
        assertEquals(List.of(), reader.lines);
    }

    @Test
    void aFileAtTheLimitIsRead() throws IOException
    {
        final Path file = dir.resolve("many.conf");
        final byte[] bytes = new byte[1 << 16];
        Arrays.fill(bytes, (byte)'\n');
        Files.write(file, bytes);
        assertEquals(1 << 16, TextLines.read(file, 1 << 16, 1, new Collect()).value().size());
        assertTrue(TextLines.read(file, (1 << 16) - 1, 1, new Collect()).stopped());
    }

    @Test
    void readErrorsSayWhyWithoutClassNames() throws IOException
    {
        assertEquals(List.of(dir + ": error: cannot read: is a directory"), strings(TextLines.read(dir, new Collect())));
        final Path none = dir.resolve("none.conf");
        assertEquals(List.of(none + ": error: cannot read: no such file"), strings(TextLines.read(none, new Collect())));
        final Path file = Files.writeString(dir.resolve("f.conf"), "x\n");
        assertEquals(List.of(file.resolve("below") + ": error: cannot read: not a directory"),
            strings(TextLines.read(file.resolve("below"), new Collect())));
        final InputStream failing = new InputStream()
        {
            @Override
            public int read() throws IOException
            {
                throw new IOException("Input/output error");
            }
        };
        assertEquals(List.of("f: error: cannot read: input/output error"),
            strings(TextLines.read("f", failing, 10, 10, new Collect())));
    }

    @Test
    void textInMemoryIsReadTheSameWay()
    {
        assertEquals(List.of("a", "\u00e9", "b"), TextLines.parse("t", "a\r\u00e9\r\nb", new Collect()).value());
        assertTrue(TextLines.parse("t", "x".repeat(TextLines.MAX_LINE_BYTES + 1), new Collect()).stopped());
        assertThrows(IllegalArgumentException.class, () -> read("x", -1, 10));
        assertThrows(IllegalArgumentException.class, () -> read("x", 10, 0));
    }
}
