package io.vlink.core.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * A configuration or scenario that cannot be applied. Carries every finding kept (errors and the warnings seen with
 * them, at most {@link Findings#MAX_KEPT}) and the count of the others, so a user fixes a file in one pass rather
 * than one error per run. Nothing of a refused configuration is applied.
 */
public class ConfigException extends RuntimeException
{
    private final List<Diagnostic> diagnostics;
    private final long moreErrors;
    private final long moreWarnings;
    private final boolean stopped;

    public ConfigException(final List<Diagnostic> diagnostics)
    {
        this(diagnostics, 0, 0);
    }

    public ConfigException(final Diagnostic diagnostic)
    {
        this(List.of(diagnostic));
    }

    /**
     * @param diagnostics  the findings kept.
     * @param moreErrors   errors found beyond them.
     * @param moreWarnings warnings found beyond them.
     */
    public ConfigException(final List<Diagnostic> diagnostics, final long moreErrors, final long moreWarnings)
    {
        this(diagnostics, moreErrors, moreWarnings, false);
    }

    ConfigException(final List<Diagnostic> diagnostics, final long moreErrors, final long moreWarnings,
        final boolean stopped)
    {
        super(message(diagnostics, Result.more(moreErrors, moreWarnings)));
        this.diagnostics = List.copyOf(diagnostics);
        this.moreErrors = moreErrors;
        this.moreWarnings = moreWarnings;
        this.stopped = stopped;
    }

    private static String message(final List<Diagnostic> diagnostics, final String more)
    {
        final String kept = diagnostics.stream().map(Diagnostic::toString).collect(Collectors.joining(System.lineSeparator()));
        return null == more ? kept : kept + System.lineSeparator() + more;
    }

    public List<Diagnostic> diagnostics()
    {
        return diagnostics;
    }

    /**
     * @return errors found beyond {@link #diagnostics()}.
     */
    public long moreErrors()
    {
        return moreErrors;
    }

    /**
     * @return whether the file was refused before its lines were judged ({@link Result#stopped()}): it cannot be
     * read, or a limit stopped the reading; the one finding says which.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /**
     * @return warnings found beyond {@link #diagnostics()}.
     */
    public long moreWarnings()
    {
        return moreWarnings;
    }
}
