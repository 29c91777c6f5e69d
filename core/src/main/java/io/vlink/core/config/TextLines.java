package io.vlink.core.config;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The one reader of vlink's text files, bounded: every reader ({@link LineReader}) is fed through it a line at a
 * time, and no file is held whole.
 * <ul>
 *     <li><b>Limits</b>: lines of at most {@link #MAX_LINE_BYTES} (4 KiB), and files of at most
 *     {@link #MAX_FILE_BYTES} (1 MiB: configurations, keys, peers, SL maps, scenarios) or {@link #MAX_TABLE_BYTES}
 *     (64 MiB: what a tool dumps of a whole fabric, topologies and forwarding tables), far above any real file
 *     (docs/cli.md, "Input limits"). A regular file's size is checked before it is read; a device, a pipe or
 *     standard input is read in chunks of {@value #CHUNK_BYTES} bytes and stopped at the first byte past a limit.
 *     A NUL byte stops the reading too: no text file vlink reads holds one, and {@code /dev/zero},
 *     {@code /dev/urandom} and binary files do, at once. Reading stops with one error at the byte that stopped it,
 *     and the reader's own findings are dropped: the answer to the wrong file is one line, in bounded memory and
 *     time. A reader keeps what the lines mean, never the lines, so its memory is bounded by the file limit.</li>
 *     <li><b>Lines</b> end at {@code \n}, {@code \r\n} or a lone {@code \r}; a leading UTF-8 byte-order mark is
 *     skipped.</li>
 *     <li><b>Characters</b>: a line that is valid UTF-8 is decoded as UTF-8, any other line byte for byte
 *     (ISO-8859-1), so a byte that is not UTF-8 is no reason to refuse a file and is reported at its line. Columns
 *     count characters; a limit's column counts bytes.</li>
 * </ul>
 * A file that cannot be read gives {@code FILE: error: cannot read: reason} ({@link Diagnostic#cannotRead}).
 */
public final class TextLines
{
    /** The longest configuration, key, peers, SL map or scenario, in bytes: 1 MiB (a full opensm.conf is 56 KB). */
    public static final int MAX_FILE_BYTES = 1 << 20;
    /** The longest topology or forwarding-table dump, in bytes: 64 MiB (a fabric of thousands of nodes is megabytes). */
    public static final int MAX_TABLE_BYTES = 64 << 20;
    /** The longest line, in bytes, without its terminator: 4 KiB. A real line is at most a few hundred bytes. */
    public static final int MAX_LINE_BYTES = 4 << 10;
    /** The most bytes taken from the input at a time. */
    static final int CHUNK_BYTES = 64 << 10;
    private static final String CHECK = "check that this is the file you meant";

    private TextLines()
    {
    }

    /**
     * Reads a file within the limits.
     *
     * @param path   the file.
     * @param reader what makes sense of its lines.
     * @param <T>    what the file holds.
     * @return the reader's result, or the one error that stopped the reading.
     */
    public static <T> Result<T> read(final Path path, final LineReader<T> reader)
    {
        return read(path, MAX_FILE_BYTES, MAX_LINE_BYTES, reader);
    }

    /**
     * Reads a file within given limits.
     *
     * @param path         the file.
     * @param maxFileBytes the most bytes to take.
     * @param maxLineBytes the longest line, without its terminator.
     * @param reader       what makes sense of its lines.
     * @param <T>          what the file holds.
     * @return the reader's result, or the one error that stopped the reading.
     */
    public static <T> Result<T> read(final Path path, final int maxFileBytes, final int maxLineBytes,
        final LineReader<T> reader)
    {
        final String file = path.toString();
        if (Files.isDirectory(path))
        {
            return Result.stopped(Diagnostic.cannotRead(file, Diagnostic.IS_A_DIRECTORY));
        }
        try (InputStream in = Files.newInputStream(path))
        {
            if (Files.isRegularFile(path))
            {
                final long size = Files.size(path);
                if (size > maxFileBytes)
                {
                    return Result.stopped(new Diagnostic(file, 0, 0, Diagnostic.Severity.ERROR, "file of " + size +
                        " bytes, longer than the " + maxFileBytes + " vlink reads (lines up to " + maxLineBytes +
                        " bytes): " + CHECK));
                }
            }
            return read(file, in, maxFileBytes, maxLineBytes, reader);
        }
        catch (final IOException ex)
        {
            return Result.stopped(Diagnostic.cannotRead(file, ex));
        }
    }

    /**
     * Reads a stream up to its end or the first byte past a limit, {@value #CHUNK_BYTES} bytes at a time.
     *
     * @param file         the name findings carry.
     * @param in           the bytes (not closed).
     * @param maxFileBytes the most bytes to take.
     * @param maxLineBytes the longest line, without its terminator.
     * @param reader       what makes sense of its lines.
     * @param <T>          what the file holds.
     * @return the reader's result, or the one error that stopped the reading (a read error included).
     */
    public static <T> Result<T> read(final String file, final InputStream in, final int maxFileBytes,
        final int maxLineBytes, final LineReader<T> reader)
    {
        Objects.requireNonNull(file, "file");
        if (maxFileBytes < 0 || maxLineBytes < 1)
        {
            throw new IllegalArgumentException("limits must be >= 0 and >= 1: " + maxFileBytes + ", " + maxLineBytes);
        }
        final Diagnostic stop;
        try
        {
            stop = split(file, in, maxFileBytes, maxLineBytes, reader);
        }
        catch (final IOException ex)
        {
            return Result.stopped(Diagnostic.cannotRead(file, ex));
        }
        return null == stop ? reader.finish() : Result.stopped(stop);
    }

    /**
     * Reads text already in memory the same way, within the default limits (its UTF-8 bytes are what is limited).
     *
     * @param file   the name findings carry.
     * @param text   the file's text.
     * @param reader what makes sense of its lines.
     * @param <T>    what the file holds.
     * @return the reader's result, or the one error that stopped the reading.
     */
    public static <T> Result<T> parse(final String file, final String text, final LineReader<T> reader)
    {
        return parse(file, text, MAX_FILE_BYTES, reader);
    }

    /**
     * Reads text already in memory the same way, with lines of at most {@link #MAX_LINE_BYTES}.
     *
     * @param file         the name findings carry.
     * @param text         the file's text.
     * @param maxFileBytes the most UTF-8 bytes to take ({@link #MAX_FILE_BYTES} or {@link #MAX_TABLE_BYTES}).
     * @param reader       what makes sense of its lines.
     * @param <T>          what the file holds.
     * @return the reader's result, or the one error that stopped the reading.
     */
    public static <T> Result<T> parse(final String file, final String text, final int maxFileBytes,
        final LineReader<T> reader)
    {
        return read(file, new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), maxFileBytes,
            MAX_LINE_BYTES, reader);
    }

    private static Diagnostic split(final String file, final InputStream in, final int maxFileBytes,
        final int maxLineBytes, final LineReader<?> reader) throws IOException
    {
        final byte[] chunk = new byte[CHUNK_BYTES];
        final byte[] line = new byte[maxLineBytes];
        int length = 0;
        long total = 0;
        int number = 1;
        boolean afterCr = false;
        int n;
        while ((n = in.read(chunk, 0, chunk.length)) >= 0)
        {
            for (int i = 0; i < n; i++)
            {
                if (++total > maxFileBytes)
                {
                    return stop(file, number, length + 1, "file longer than " + maxFileBytes + " bytes, the most " +
                        "vlink reads (lines up to " + maxLineBytes + " bytes): " + CHECK);
                }
                final byte b = chunk[i];
                if (b == '\n' && afterCr)
                {
                    afterCr = false;
                    continue;
                }
                afterCr = b == '\r';
                if (b == '\n' || b == '\r')
                {
                    reader.line(number, decode(line, length, number));
                    number++;
                    length = 0;
                }
                else if (b == 0)
                {
                    return stop(file, number, length + 1, "a NUL byte: binary data, not a text file: " + CHECK);
                }
                else if (length == maxLineBytes)
                {
                    return stop(file, number, length + 1, "line longer than " + maxLineBytes + " bytes, the most " +
                        "vlink reads (files up to " + maxFileBytes + " bytes): " + CHECK);
                }
                else
                {
                    line[length++] = b;
                }
            }
        }
        if (length > 0)
        {
            reader.line(number, decode(line, length, number));
        }
        return null;
    }

    private static Diagnostic stop(final String file, final int line, final int column, final String message)
    {
        return new Diagnostic(file, line, column, Diagnostic.Severity.ERROR, message);
    }

    /** UTF-8 when the line is valid UTF-8, else byte for byte; a first line's byte-order mark is left out. */
    private static String decode(final byte[] line, final int length, final int number)
    {
        final int from = number == 1 && length >= 3 && line[0] == (byte)0xEF && line[1] == (byte)0xBB &&
            line[2] == (byte)0xBF ? 3 : 0;
        for (int i = from; i < length; i++)
        {
            if (line[i] < 0)
            {
                try
                {
                    return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(line, from, length - from))
                        .toString();
                }
                catch (final CharacterCodingException notUtf8)
                {
                    break;
                }
            }
        }
        return new String(line, from, length - from, StandardCharsets.ISO_8859_1);
    }
}
