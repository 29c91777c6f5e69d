package io.vlink.core.fuzz;

import io.vlink.core.config.Diagnostic;

import org.agrona.IoUtil;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What every fuzz test of a text reader checks.
 */
public final class Fuzz
{
    private Fuzz()
    {
    }

    /**
     * @param capacity of the buffer.
     * @param choice   any int: even picks anywhere in the buffer, odd picks within the last {@code tail} bytes.
     * @param tail     bytes at the end of the buffer that odd choices pick from.
     * @return an offset from 0 to {@code capacity}.
     */
    public static int offset(final int capacity, final int choice, final int tail)
    {
        return (choice & 1) == 0 ? Math.floorMod(choice, capacity + 1) :
            Math.max(0, capacity - Math.floorMod(choice >> 1, tail));
    }

    /**
     * @param capacity of the buffer.
     * @param offset   from {@link #offset(int, int, int)}.
     * @param choice   any int.
     * @return a length from 0 to the end of the buffer.
     */
    public static int length(final int capacity, final int offset, final int choice)
    {
        return Math.floorMod(choice, capacity - offset + 1);
    }

    /**
     * @param prefix of the directory's name.
     * @return a new temporary directory, deleted (with the files left in it) when the JVM exits.
     */
    public static Path tempDir(final String prefix)
    {
        try
        {
            final Path dir = Files.createTempDirectory(prefix);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> IoUtil.delete(dir.toFile(), true)));
            return dir;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param bytes a file.
     * @return its lines as {@code Files.readAllLines(file, ISO_8859_1)} gives them: split at LF, CR or CRLF.
     */
    public static List<String> lines(final byte[] bytes)
    {
        final String text = new String(bytes, StandardCharsets.ISO_8859_1);
        final List<String> lines = new ArrayList<>();
        int start = 0;
        int i = 0;
        while (i < text.length())
        {
            final char c = text.charAt(i);
            if (c == '\n' || c == '\r')
            {
                lines.add(text.substring(start, i));
                i += c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n' ? 2 : 1;
                start = i;
            }
            else
            {
                i++;
            }
        }
        if (start < text.length())
        {
            lines.add(text.substring(start));
        }
        return lines;
    }

    /**
     * A diagnostic names the file, a line of it (0 for the whole file) and a column inside that line, or 0.
     *
     * @param d     the diagnostic.
     * @param file  the file name it must carry.
     * @param lines the file's lines.
     * @param input what to print if it fails.
     */
    public static void checkLocation(final Diagnostic d, final String file, final List<String> lines, final String input)
    {
        assertEquals(file, d.file(), input);
        assertTrue(d.line() >= 0 && d.line() <= lines.size(), input + ": " + d + " is outside " + lines.size() + " lines");
        if (d.line() == 0)
        {
            assertEquals(0, d.column(), input + ": " + d);
        }
        else
        {
            // a column may point just past the text (a missing value at the end of the line)
            final int length = lines.get(d.line() - 1).length();
            assertTrue(d.column() >= 0 && d.column() <= length + 1,
                input + ": " + d + " is outside line " + d.line() + " of " + length + " characters");
        }
        assertFalse(d.message().isBlank(), input);
        assertFalse(d.message().contains("Exception"), input + ": " + d);
    }
}
