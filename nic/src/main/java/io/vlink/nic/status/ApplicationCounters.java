package io.vlink.nic.status;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * What the application's calls on a port count ({@link PortCounterSet#application()}): packets delivered to its
 * receive handler per VL (the polling thread's, release stores), and posts refused for a full transmit path (any
 * posting thread's, with an atomic add: the one counter with more than one writer, bumped on a path that already
 * refuses the post). A switch counts what its SMA takes on port 0's.
 */
public final class ApplicationCounters
{
    private final AtomicCounter[] deliveredPackets;
    private final AtomicCounter postBackPressure;

    ApplicationCounters(final AtomicCounter[] deliveredPackets, final AtomicCounter postBackPressure)
    {
        this.deliveredPackets = deliveredPackets.clone();
        this.postBackPressure = postBackPressure;
    }

    /**
     * @param vl a data VL or 15.
     * @return packets delivered on it ({@code delivered_packets}).
     */
    public AtomicCounter deliveredPackets(final int vl)
    {
        return deliveredPackets[vl];
    }

    /** @return posts refused ({@code post_back_pressure}). */
    public AtomicCounter postBackPressure()
    {
        return postBackPressure;
    }
}
