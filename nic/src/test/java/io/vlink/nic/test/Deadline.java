package io.vlink.nic.test;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waits for a condition with a deadline, never sleeping on a guess: tests poll (yielding) until the condition
 * holds or fail with a message when the deadline passes.
 */
public final class Deadline
{
    private Deadline()
    {
    }

    /**
     * @param seconds   the most to wait.
     * @param what      what is awaited, for the failure message.
     * @param condition polled until true.
     * @param work      run between polls (e.g. driving an invoker); may be null.
     */
    public static void await(final long seconds, final String what, final BooleanSupplier condition, final Runnable work)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("timed out after " + seconds + " s waiting for " + what);
            }
            if (null != work)
            {
                work.run();
            }
            else
            {
                Thread.onSpinWait();
                Thread.yield();
            }
        }
    }

    /**
     * @param seconds   the most to wait.
     * @param what      what is awaited.
     * @param condition polled until true.
     */
    public static void await(final long seconds, final String what, final BooleanSupplier condition)
    {
        await(seconds, what, condition, null);
    }
}
