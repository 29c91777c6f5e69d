package io.vlink.core.config;

import java.util.ArrayList;
import java.util.List;

/**
 * The words of one line of a directive file (the simulators' scenarios): whitespace-separated, up to a {@code #}
 * comment, each with its 1-based column so that a {@link Diagnostic} can point at it.
 */
public final class Words
{
    private final String[] words;
    private final int[] columns;

    private Words(final String[] words, final int[] columns)
    {
        this.words = words;
        this.columns = columns;
    }

    /**
     * @param line a line of the file, without its terminator.
     * @return its words before any {@code #}.
     */
    public static Words of(final String line)
    {
        final int hash = line.indexOf('#');
        final String body = hash < 0 ? line : line.substring(0, hash);
        final List<String> found = new ArrayList<>();
        final List<Integer> at = new ArrayList<>();
        int i = 0;
        while (i < body.length())
        {
            while (i < body.length() && Character.isWhitespace(body.charAt(i)))
            {
                i++;
            }
            final int start = i;
            while (i < body.length() && !Character.isWhitespace(body.charAt(i)))
            {
                i++;
            }
            if (i > start)
            {
                found.add(body.substring(start, i));
                at.add(start + 1);
            }
        }
        return new Words(found.toArray(new String[0]), at.stream().mapToInt(Integer::intValue).toArray());
    }

    /** @return the words, in order (empty for a blank or comment line). */
    public String[] words()
    {
        return words;
    }

    /** @return each word's 1-based column. */
    public int[] columns()
    {
        return columns;
    }
}
