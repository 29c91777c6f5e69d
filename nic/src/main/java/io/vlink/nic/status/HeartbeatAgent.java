package io.vlink.nic.status;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochClock;

/**
 * Writes the counters file's heartbeat about once a second, so that {@code vlink stat} can tell a running engine
 * from a stuck one. Composed with another agent; it reports no work, so it never keeps a thread from idling.
 */
public final class HeartbeatAgent implements Agent
{
    /** How often the heartbeat is written. */
    public static final long HEARTBEAT_INTERVAL_MS = 1_000;

    private final CountersFile countersFile;
    private final EpochClock clock;
    private long lastHeartbeatMs;

    /**
     * @param countersFile the file whose heartbeat to write.
     * @param clock        the epoch clock.
     */
    public HeartbeatAgent(final CountersFile countersFile, final EpochClock clock)
    {
        this.countersFile = countersFile;
        this.clock = clock;
    }

    @Override
    public int doWork()
    {
        final long nowMs = clock.time();
        if (nowMs - lastHeartbeatMs >= HEARTBEAT_INTERVAL_MS)
        {
            lastHeartbeatMs = nowMs;
            countersFile.heartbeat(nowMs);
        }
        return 0;
    }

    @Override
    public String roleName()
    {
        return "heartbeat";
    }
}
