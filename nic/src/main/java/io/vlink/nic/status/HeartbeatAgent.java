package io.vlink.nic.status;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

/**
 * Writes the counters file's heartbeat about once a second, so that {@code vlink stat} can tell a running engine
 * from a stuck one. Composed with another agent; it reports no work, so it never keeps a thread from idling.
 * <p>
 * It paces itself on the duty cycle's clock (which the thread has read already) and reads the epoch clock only to
 * stamp a heartbeat, once a second: an idle duty cycle pays a comparison, not a clock read.
 */
public final class HeartbeatAgent implements Agent
{
    /** How often the heartbeat is written. */
    public static final long HEARTBEAT_INTERVAL_MS = 1_000;
    private static final long HEARTBEAT_INTERVAL_NS = HEARTBEAT_INTERVAL_MS * 1_000_000L;

    private final CountersFile countersFile;
    private final NanoClock pace;
    private final EpochClock stamp;
    private boolean beaten;
    private long lastBeatNs;

    /**
     * @param countersFile the file whose heartbeat to write.
     * @param pace         the clock that paces the heartbeat (the thread's duty-cycle clock).
     * @param stamp        the epoch clock the heartbeat records.
     */
    public HeartbeatAgent(final CountersFile countersFile, final NanoClock pace, final EpochClock stamp)
    {
        this.countersFile = countersFile;
        this.pace = pace;
        this.stamp = stamp;
    }

    @Override
    public int doWork()
    {
        beat(pace.nanoTime());
        return 0;
    }

    /**
     * Write the heartbeat if none was written in the last second (the first call always writes one).
     *
     * @param nowNs the pacing clock's time, read by the caller for its duty cycle.
     */
    public void beat(final long nowNs)
    {
        if (!beaten || nowNs - lastBeatNs >= HEARTBEAT_INTERVAL_NS)
        {
            beaten = true;
            lastBeatNs = nowNs;
            countersFile.heartbeat(stamp.time());
        }
    }

    @Override
    public String roleName()
    {
        return "heartbeat";
    }
}
