package io.vlink.nic.status;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.errors.DistinctErrorLog;

import java.io.PrintStream;

/**
 * The engine's error handler: records each exception in the {@link DistinctErrorLog} of the counters file (each
 * distinct error once, then only counted, so an error storm cannot fill memory), and falls back to a print
 * stream only when the log is full. The agents' runners count the errors.
 */
public final class ErrorLogHandler implements ErrorHandler
{
    private final DistinctErrorLog log;
    private final PrintStream fallback;

    /**
     * @param log      where errors are recorded.
     * @param fallback where errors go when the log is full (typically {@code System.err}).
     */
    public ErrorLogHandler(final DistinctErrorLog log, final PrintStream fallback)
    {
        this.log = log;
        this.fallback = fallback;
    }

    @Override
    public void onError(final Throwable throwable)
    {
        if (!log.record(throwable))
        {
            fallback.println("vlink: error log full; error not recorded:");
            throwable.printStackTrace(fallback);
        }
    }
}
