package io.vlink.core.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Function;

/**
 * What reading a file gave, the one shape every reader of vlink returns (topologies, forwarding tables, peers, SL
 * maps, QoS configurations, the simulators' scenarios): the value, unless the file was refused, and its findings.
 * A file with an error is refused whole: {@link #value()} is null exactly when an error was found, and
 * {@link #orThrow()} throws a {@link ConfigException} carrying the findings. Warnings alone leave the value.
 * <p>
 * At most {@link Findings#MAX_KEPT} findings are kept; the others are counted ({@link #moreErrors()},
 * {@link #moreWarnings()}) and summed up by {@link #more()}, so a binary or endless file gives a bounded answer.
 *
 * @param <T> what the file holds.
 */
public final class Result<T>
{
    private final T value;
    private final List<Diagnostic> diagnostics;
    private final long errors;
    private final long moreErrors;
    private final long moreWarnings;
    private final boolean stopped;

    private Result(final T value, final List<Diagnostic> diagnostics, final long errors, final long moreErrors,
        final long moreWarnings, final boolean stopped)
    {
        this.stopped = stopped;
        this.value = value;
        this.diagnostics = List.copyOf(diagnostics);
        this.errors = errors;
        this.moreErrors = moreErrors;
        this.moreWarnings = moreWarnings;
    }

    /**
     * @param value    what the file holds; dropped when the findings hold an error, required otherwise.
     * @param findings everything found.
     * @param <T>      what the file holds.
     * @return the result.
     */
    public static <T> Result<T> of(final T value, final Findings findings)
    {
        if (!findings.hasErrors())
        {
            Objects.requireNonNull(value, "a value is required when no error was found");
        }
        return new Result<>(findings.hasErrors() ? null : value, findings.kept(), findings.errors(),
            findings.moreErrors(), findings.moreWarnings(), false);
    }

    /**
     * @param value       what the file holds; dropped when a finding is an error, required otherwise.
     * @param diagnostics everything found (the first {@link Findings#MAX_KEPT} are kept).
     * @param <T>         what the file holds.
     * @return the result.
     */
    public static <T> Result<T> of(final T value, final List<Diagnostic> diagnostics)
    {
        final Findings findings = new Findings();
        diagnostics.forEach(findings::add);
        return of(value, findings);
    }

    /**
     * A file refused before its lines were judged: it cannot be read, or its reading stopped at a limit
     * ({@link TextLines}). The one finding is the whole answer.
     *
     * @param error why.
     * @param <T>   what the file would hold.
     * @return a refusal with that one finding, {@link #stopped()}.
     */
    public static <T> Result<T> stopped(final Diagnostic error)
    {
        if (!error.isError())
        {
            throw new IllegalArgumentException("a refusal is an error: " + error);
        }
        return new Result<>(null, List.of(error), 1, 0, 0, true);
    }

    /**
     * @return whether the file was refused before its lines were judged ({@link #stopped(Diagnostic)}): its one
     * finding says why, and there is nothing to sum up.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /**
     * @return what the file holds, or null when it was refused.
     */
    public T value()
    {
        return value;
    }

    /**
     * @return the findings kept, at most {@link Findings#MAX_KEPT}, errors and warnings, in line order.
     */
    public List<Diagnostic> diagnostics()
    {
        return diagnostics;
    }

    /**
     * @return whether the file was accepted (no error).
     */
    public boolean ok()
    {
        return null != value;
    }

    /**
     * @return every error found, kept or only counted.
     */
    public long errors()
    {
        return errors;
    }

    /**
     * @return every warning found, kept or only counted.
     */
    public long warnings()
    {
        return diagnostics.stream().filter(d -> !d.isError()).count() + moreWarnings;
    }

    /**
     * @return errors found beyond the kept findings.
     */
    public long moreErrors()
    {
        return moreErrors;
    }

    /**
     * @return warnings found beyond the kept findings.
     */
    public long moreWarnings()
    {
        return moreWarnings;
    }

    /**
     * @return the line that follows the kept findings when some were only counted, as
     * {@code ... and 811,890 more errors and 2 more warnings}; null when every finding is kept.
     */
    public String more()
    {
        return more(moreErrors, moreWarnings);
    }

    /**
     * @return what the file holds.
     * @throws ConfigException with every finding kept (and the count of the others) when the file was refused.
     */
    public T orThrow()
    {
        if (null == value)
        {
            throw new ConfigException(diagnostics, moreErrors, moreWarnings, stopped);
        }
        return value;
    }

    /**
     * @param mapping what to make of the value (applied only when there is one).
     * @param <U>     what it makes.
     * @return the same findings with the value mapped.
     */
    public <U> Result<U> map(final Function<? super T, ? extends U> mapping)
    {
        return new Result<>(null == value ? null : Objects.requireNonNull(mapping.apply(value)), diagnostics, errors,
            moreErrors, moreWarnings, stopped);
    }

    static String more(final long moreErrors, final long moreWarnings)
    {
        if (moreErrors == 0 && moreWarnings == 0)
        {
            return null;
        }
        final StringBuilder sb = new StringBuilder("... and ");
        if (moreErrors > 0)
        {
            sb.append(String.format(Locale.ROOT, "%,d", moreErrors)).append(" more error").append(moreErrors == 1 ? "" : "s");
        }
        if (moreWarnings > 0)
        {
            sb.append(moreErrors > 0 ? " and " : "").append(String.format(Locale.ROOT, "%,d", moreWarnings))
                .append(" more warning").append(moreWarnings == 1 ? "" : "s");
        }
        return sb.toString();
    }

    @Override
    public String toString()
    {
        return (ok() ? "Result[" + value + "]" : "Result[refused]") + diagnostics + (null == more() ? "" : more());
    }
}
