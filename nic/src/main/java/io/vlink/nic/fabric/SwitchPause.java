package io.vlink.nic.fabric;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The pause hand-off between a fabric's caller and its switch thread (docs/concurrency.md, docs/fabric.md): the caller
 * asks ({@link #pause()}), the switch thread sees the request at the top of its next duty cycle ({@link #hold()}),
 * runs no duty cycle while it stands and acknowledges it; once the caller saw the acknowledgement
 * ({@link #acknowledged()}) it may read and change the switches' state as if it were their thread, then lets the
 * switch thread go on ({@link #resume()}).
 * <p>
 * Two words, each with one writer: the request (the caller's, a count: odd while a pause is wanted, so that a new pause
 * is never taken for an old acknowledgement) and the acknowledgement (the switch thread's: the request it holds for).
 * Both are stored with release and loaded with acquire, so what the switch thread wrote in its duty cycles before the
 * acknowledgement is visible to the caller that saw it, and what the caller wrote before {@link #resume()} is visible
 * to the switch thread's next duty cycle.
 */
public final class SwitchPause
{
    private static final VarHandle REQUEST;
    private static final VarHandle ACKNOWLEDGED;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            REQUEST = lookup.findVarHandle(SwitchPause.class, "request", long.class);
            ACKNOWLEDGED = lookup.findVarHandle(SwitchPause.class, "acknowledged", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** The caller's: odd while a pause is wanted. */
    private long request;
    /** The switch thread's: the request it holds for. */
    private long acknowledged;

    /**
     * The caller asks the switch thread to stop after its current duty cycle. The caller's thread only.
     *
     * @throws IllegalStateException when a pause already stands.
     */
    public void pause()
    {
        if ((request & 1) != 0)
        {
            throw new IllegalStateException("the switches are paused already");
        }
        REQUEST.setRelease(this, request + 1);
    }

    /**
     * @return whether the switch thread holds for the standing pause: it runs no duty cycle until {@link #resume()},
     * and everything its duty cycles wrote is visible to the caller. The caller's thread only.
     */
    public boolean acknowledged()
    {
        return (long)ACKNOWLEDGED.getAcquire(this) == request;
    }

    /**
     * The caller lets the switch thread go on; what the caller wrote meanwhile is visible to its next duty cycle. The
     * caller's thread only.
     *
     * @throws IllegalStateException when no pause stands.
     */
    public void resume()
    {
        if ((request & 1) == 0)
        {
            throw new IllegalStateException("the switches are not paused");
        }
        REQUEST.setRelease(this, request + 1);
    }

    /**
     * At the top of each duty cycle, on the switch thread: whether a pause stands (acknowledged on first sight), in
     * which case the duty cycle does nothing.
     *
     * @return true to skip the duty cycle.
     */
    public boolean hold()
    {
        final long wanted = (long)REQUEST.getAcquire(this);
        if ((wanted & 1) == 0)
        {
            return false;
        }
        if (acknowledged != wanted)
        {
            ACKNOWLEDGED.setRelease(this, wanted);
        }
        return true;
    }
}
