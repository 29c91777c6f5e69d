package io.vlink.core.config;

import io.vlink.core.config.Diagnostic.Severity;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The one reader of vlink's text files ({@code opensm.conf}, the simulators' scenarios): byte for byte
 * (ISO-8859-1, so a byte that is not UTF-8 is no reason to refuse a file and is reported at its line), split at
 * {@code \n}, {@code \r\n} or a lone {@code \r}, and bounded. A line longer than {@link #MAX_LINE_BYTES} or a file
 * longer than {@link #MAX_FILE_BYTES} stops the reading at the first byte past the limit with an error pointing
 * there, so {@code /dev/zero}, a binary file or an endless pipe is refused after at most the limit's bytes, in a
 * buffer of the line limit, instead of growing one line until the heap runs out.
 * <p>
 * A file that cannot be read gives {@code FILE: error: cannot read: reason} ({@link Diagnostic#cannotRead}).
 */
public final class TextLines
{
    /** The longest line, in bytes, without its terminator. The longest line of a real opensm.conf is 132. */
    public static final int MAX_LINE_BYTES = 4096;
    /** The longest file, in bytes. A complete opensm.conf, every option with its comment, is about 56 KB. */
    public static final int MAX_FILE_BYTES = 1024 * 1024;

    private final List<String> lines;
    private final Diagnostic error;

    private TextLines(final List<String> lines, final Diagnostic error)
    {
        this.lines = lines;
        this.error = error;
    }

    /**
     * Reads a file within the default limits.
     *
     * @param path the file.
     * @return its lines, or the error that stopped the reading.
     */
    public static TextLines read(final Path path)
    {
        final String file = path.toString();
        if (Files.isDirectory(path))
        {
            return new TextLines(List.of(), Diagnostic.cannotRead(file, Diagnostic.IS_A_DIRECTORY));
        }
        try (InputStream in = Files.newInputStream(path))
        {
            return read(file, in, MAX_FILE_BYTES, MAX_LINE_BYTES);
        }
        catch (final IOException ex)
        {
            return new TextLines(List.of(), Diagnostic.cannotRead(file, ex));
        }
    }

    /**
     * Reads a stream up to its end or the first byte past a limit.
     *
     * @param file         the name diagnostics carry.
     * @param in           the bytes (not closed).
     * @param maxFileBytes the most bytes to take.
     * @param maxLineBytes the longest line, without its terminator.
     * @return its lines, or the error that stopped the reading.
     * @throws IOException if the stream cannot be read.
     */
    public static TextLines read(final String file, final InputStream in, final int maxFileBytes, final int maxLineBytes)
        throws IOException
    {
        Objects.requireNonNull(file, "file");
        final InputStream bytes = in instanceof BufferedInputStream ? in : new BufferedInputStream(in);
        final List<String> lines = new ArrayList<>();
        final byte[] line = new byte[maxLineBytes];
        int length = 0;
        long total = 0;
        boolean afterCr = false;
        int b;
        while ((b = bytes.read()) >= 0)
        {
            if (++total > maxFileBytes)
            {
                return new TextLines(List.of(), new Diagnostic(file, lines.size() + 1, length + 1, Severity.ERROR,
                    "file longer than " + maxFileBytes + " bytes; " + limits(maxFileBytes, maxLineBytes)));
            }
            if (b == '\n' && afterCr)
            {
                afterCr = false;
                continue;
            }
            afterCr = b == '\r';
            if (b == '\n' || b == '\r')
            {
                lines.add(new String(line, 0, length, StandardCharsets.ISO_8859_1));
                length = 0;
            }
            else if (length == maxLineBytes)
            {
                return new TextLines(List.of(), new Diagnostic(file, lines.size() + 1, length + 1, Severity.ERROR,
                    "line longer than " + maxLineBytes + " bytes; " + limits(maxFileBytes, maxLineBytes)));
            }
            else
            {
                line[length++] = (byte)b;
            }
        }
        if (length > 0)
        {
            lines.add(new String(line, 0, length, StandardCharsets.ISO_8859_1));
        }
        return new TextLines(lines, null);
    }

    private static String limits(final int maxFileBytes, final int maxLineBytes)
    {
        return "vlink reads text files of at most " + maxFileBytes + " bytes with lines of at most " + maxLineBytes +
            " bytes: check that this is the file you meant";
    }

    /**
     * @return the lines, without terminators (empty when {@link #error()} is set).
     */
    public List<String> lines()
    {
        return lines;
    }

    /**
     * @return why the file was not read (a limit, or a read error), or null.
     */
    public Diagnostic error()
    {
        return error;
    }
}
