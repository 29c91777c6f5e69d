package io.vlink.core.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The findings a reader collects while it reads a file, bounded: the first {@value #MAX_KEPT} are kept, the rest only
 * counted, so a file of a million bad lines costs a counter, not a million messages. Every reader collects into one
 * and hands it to {@link Result#of(Object, Findings)}.
 */
public final class Findings
{
    /** The most findings kept (and printed); the others are counted. */
    public static final int MAX_KEPT = 100;

    private static final Comparator<Diagnostic> IN_FILE_ORDER =
        Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column);

    private final List<Diagnostic> kept = new ArrayList<>();
    private long errors;
    private long moreErrors;
    private long moreWarnings;

    /**
     * @param diagnostic a finding: kept while fewer than {@link #MAX_KEPT} are, counted always.
     */
    public void add(final Diagnostic diagnostic)
    {
        if (diagnostic.isError())
        {
            errors++;
        }
        if (kept.size() < MAX_KEPT)
        {
            kept.add(diagnostic);
        }
        else if (diagnostic.isError())
        {
            moreErrors++;
        }
        else
        {
            moreWarnings++;
        }
    }

    /**
     * @param file    the file.
     * @param line    its line, from 1 (0 for the whole file).
     * @param column  its column, from 1 (0 for the whole line).
     * @param message what is wrong and how to fix it.
     */
    public void error(final String file, final int line, final int column, final String message)
    {
        add(new Diagnostic(file, line, column, Diagnostic.Severity.ERROR, message));
    }

    /**
     * @param file    the file.
     * @param line    its line, from 1 (0 for the whole file).
     * @param column  its column, from 1 (0 for the whole line).
     * @param message what is worth knowing.
     */
    public void warning(final String file, final int line, final int column, final String message)
    {
        add(new Diagnostic(file, line, column, Diagnostic.Severity.WARNING, message));
    }

    /**
     * Counts findings a reader left out before they became diagnostics (it kept its own bounded list).
     *
     * @param errors   errors left out.
     * @param warnings warnings left out.
     */
    public void omitted(final long errors, final long warnings)
    {
        this.errors += errors;
        moreErrors += errors;
        moreWarnings += warnings;
    }

    /**
     * Sorts the kept findings by line, then column (a stable sort: findings at one place keep their order).
     */
    public void sort()
    {
        kept.sort(IN_FILE_ORDER);
    }

    /**
     * @return the kept findings, at most {@link #MAX_KEPT}.
     */
    public List<Diagnostic> kept()
    {
        return Collections.unmodifiableList(kept);
    }

    /**
     * @return every error counted, kept or not.
     */
    public long errors()
    {
        return errors;
    }

    /**
     * @return whether any error was found.
     */
    public boolean hasErrors()
    {
        return errors > 0;
    }

    /**
     * @return errors counted but not kept.
     */
    public long moreErrors()
    {
        return moreErrors;
    }

    /**
     * @return warnings counted but not kept.
     */
    public long moreWarnings()
    {
        return moreWarnings;
    }
}
