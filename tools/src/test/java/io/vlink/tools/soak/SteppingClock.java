package io.vlink.tools.soak;

import org.agrona.concurrent.NanoClock;

/**
 * A clock for runs that are the same every time: each read moves it on by a fixed step, and once, at a given read,
 * it can jump (a process paused or descheduled). Single-threaded, for {@code ThreadingMode.INVOKER}.
 */
final class SteppingClock implements NanoClock
{
    private final long stepNs;
    private long nowNs = 1_000_000_000L;
    private long reads;
    private long jumpAtRead = -1;
    private long jumpNs;

    SteppingClock(final long stepNs)
    {
        this.stepNs = stepNs;
    }

    /**
     * @param atRead the read at which the clock jumps.
     * @param byNs   how far.
     * @return this.
     */
    SteppingClock jump(final long atRead, final long byNs)
    {
        this.jumpAtRead = atRead;
        this.jumpNs = byNs;
        return this;
    }

    long reads()
    {
        return reads;
    }

    @Override
    public long nanoTime()
    {
        if (reads++ == jumpAtRead)
        {
            nowNs += jumpNs;
        }
        nowNs += stepNs;
        return nowNs;
    }
}
