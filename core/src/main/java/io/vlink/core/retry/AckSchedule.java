package io.vlink.core.retry;

/**
 * When a link with retry acknowledges what it received (docs/engine.md, "Link-level retry"). Every frame it sends
 * carries its latest cumulative acknowledgement for free ({@link #stamped}); an acknowledgement of its own goes only
 * when the one last sent is behind by {@code batch} frames, or has been behind for {@code delayNs} (a peer with
 * nothing to send back still frees its sender's window in time). A duplicate or a gap asks for one at once; that is
 * the caller's.
 * <p>
 * Single-threaded (the transmitting thread, which sends every frame of its end), allocation-free; the clock is
 * passed in.
 */
public final class AckSchedule
{
    private final int batch;
    private final long delayNs;
    private int lastSent;
    private boolean behind;
    private long behindSinceNs;

    /**
     * @param batch   frames received that make an acknowledgement due at once: 1 or more.
     * @param delayNs the longest an acknowledgement waits for a frame to ride on: 0 or more.
     * @param initial the acknowledgement of a session that has received nothing (the peer's initial sequence).
     */
    public AckSchedule(final int batch, final long delayNs, final int initial)
    {
        if (batch < 1)
        {
            throw new IllegalArgumentException("acknowledgement batch " + batch + ": must be 1 or more");
        }
        if (delayNs < 0)
        {
            throw new IllegalArgumentException("acknowledgement delay " + delayNs + " ns: must not be negative");
        }
        this.batch = batch;
        this.delayNs = delayNs;
        reset(initial);
    }

    /**
     * A new session.
     *
     * @param initial the acknowledgement that says nothing was received.
     */
    public void reset(final int initial)
    {
        lastSent = initial;
        behind = false;
    }

    /**
     * An acknowledgement went out (on a frame or on its own).
     *
     * @param ack its value.
     */
    public void stamped(final int ack)
    {
        lastSent = ack;
        behind = false;
    }

    /**
     * @param ack   the acknowledgement the receiving side would send now.
     * @param nowNs the time.
     * @return whether an acknowledgement of its own is due.
     */
    public boolean due(final int ack, final long nowNs)
    {
        final int unacknowledged = ack - lastSent;
        if (unacknowledged <= 0)
        {
            behind = false;
            return false;
        }
        if (!behind)
        {
            behind = true;
            behindSinceNs = nowNs;
        }
        return unacknowledged >= batch || nowNs - behindSinceNs >= delayNs;
    }
}
