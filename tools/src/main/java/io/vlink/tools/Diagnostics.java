package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.Result;

import java.io.PrintWriter;
import java.util.List;

/**
 * Prints configuration findings the way the commands report them.
 */
final class Diagnostics
{
    private Diagnostics()
    {
    }

    /**
     * Prints every finding in its full form {@code FILE:LINE:COLUMN: error|warning: message}.
     *
     * @param err         where to print.
     * @param diagnostics the findings.
     * @return how many were errors.
     */
    static int print(final PrintWriter err, final List<Diagnostic> diagnostics)
    {
        int errors = 0;
        for (final Diagnostic diagnostic : diagnostics)
        {
            err.println(diagnostic);
            errors += diagnostic.isError() ? 1 : 0;
        }
        return errors;
    }

    /**
     * Prints the findings a reader kept (at most {@link Findings#MAX_KEPT}), then {@code ... and N more errors}
     * when it found more.
     *
     * @param err    where to print.
     * @param result what a reader gave.
     */
    static void print(final PrintWriter err, final Result<?> result)
    {
        print(err, result.diagnostics());
        if (null != result.more())
        {
            err.println(result.more());
        }
    }

    /**
     * Prints a reader's findings and, when the file was refused, the line that sums them up,
     * {@code FILE: refused: N errors, M warnings; CONSEQUENCE} (warnings when there are some). A file refused before
     * its lines were judged ({@link Result#stopped()}: it cannot be read, or a limit stopped it) is its one line.
     *
     * @param err         where to print.
     * @param file        the file.
     * @param result      what the reader gave.
     * @param consequence what a refusal means, e.g. {@code nothing runs}.
     * @return whether the file was refused.
     */
    static boolean refused(final PrintWriter err, final Object file, final Result<?> result, final String consequence)
    {
        print(err, result);
        if (result.ok())
        {
            return false;
        }
        final long warnings = result.warnings();
        if (!result.stopped())
        {
            err.println(file + ": refused: " + count(result.errors(), "error") +
                (warnings > 0 ? ", " + count(warnings, "warning") : "") + "; " + consequence);
        }
        err.flush();
        return true;
    }

    static String count(final long n, final String noun)
    {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
