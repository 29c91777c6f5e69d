package io.vlink.tools;

import io.vlink.core.config.Diagnostic;

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

    static String count(final long n, final String noun)
    {
        return n + " " + noun + (n == 1 ? "" : "s");
    }
}
