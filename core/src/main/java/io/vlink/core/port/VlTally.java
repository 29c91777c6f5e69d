package io.vlink.core.port;

import io.vlink.core.wire.LrhFlyweight;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Packets and bytes per VL counted in plain fields during one duty cycle and added to the VL's counters once at its
 * end: the same totals, readable live ({@code vlink stat}) a few microseconds later, for one write per counter of a
 * VL that moved something instead of a write per packet.
 * <p>
 * Owned by one thread; the counters it publishes to are written by that thread only.
 */
final class VlTally
{
    private static final int VL_SLOTS = LrhFlyweight.VL_COUNT;

    private final AtomicCounter[] packetCounters;
    private final AtomicCounter[] byteCounters;
    private final long[] packets = new long[VL_SLOTS];
    private final long[] bytes = new long[VL_SLOTS];
    private int vls;

    /**
     * @param packetCounters each VL's packet counter, indexed by VL (null where the port has no such VL).
     * @param byteCounters   each VL's byte counter, indexed by VL (null where the port has no such VL).
     */
    VlTally(final AtomicCounter[] packetCounters, final AtomicCounter[] byteCounters)
    {
        this.packetCounters = PortCounterSlots.perVl("packets", packetCounters);
        this.byteCounters = PortCounterSlots.perVl("bytes", byteCounters);
    }

    /**
     * @param vl   the VL of the packet.
     * @param size its size in bytes.
     */
    void add(final int vl, final int size)
    {
        packets[vl]++;
        bytes[vl] += size;
        vls |= 1 << vl;
    }

    /**
     * Adds what was counted since the last call to the counters (release, as the per-packet writes did).
     */
    void publish()
    {
        int pending = vls;
        vls = 0;
        while (0 != pending)
        {
            final int vl = Integer.numberOfTrailingZeros(pending);
            pending &= pending - 1;
            packetCounters[vl].getAndAddRelease(packets[vl]);
            byteCounters[vl].getAndAddRelease(bytes[vl]);
            packets[vl] = 0;
            bytes[vl] = 0;
        }
    }
}
