package io.vlink.nic;

import io.vlink.core.wire.PacketHeader;
import io.vlink.nic.agent.PortDatapath;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.ApplicationCounters;
import org.agrona.DirectBuffer;

/**
 * An int for the gap after the object header (so that no field of a subclass is placed there, next to whatever
 * precedes this object), then two cache lines.
 */
abstract class PortPollerPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The application's polling state: written on every poll, by the polling thread only.
 */
abstract class PortPollerFields extends PortPollerPad1
{
    // packets taken from the rings, every VL together (one each, as it is handed over)
    long taken;
    int nextVl;
    PacketHandler handler;
}

/**
 * Two cache lines after the polling state.
 */
abstract class PortPollerPad2 extends PortPollerFields
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A port's receive side as the application polls it: VL15 first, then the data VLs round-robin from where the last
 * poll stopped, each packet handed over in place with its header.
 * <p>
 * In invoker mode, where the application's thread runs the receive agent just before it polls, a poll first compares
 * the receive agent's count of packets stored ({@link PortDatapath#storedPackets()}, acquire) with the packets it
 * has taken: equal, every ring is empty and the poll returns at once; otherwise it stops as soon as it has taken
 * them all, and the next poll starts at the same VL, as after a scan that found the rest empty. A poll that finds
 * nothing then costs one comparison instead of a look at each of up to 16 rings, and a packet's poll does not go on
 * through the empty rings after it. With the application polling on a thread of its own (the other modes), that count
 * would be one more cache line crossing from the receive thread before each packet, so those polls look at each ring.
 * <p>
 * The fields a poll writes (the next VL, the handler, the count taken, the header flyweight) live here, padded, and
 * not among the port's fields, which the engine's agents read every duty cycle: a thread that spins on
 * {@link Port#poll} would otherwise take the cache line holding them away from the engine's thread on every call. The
 * header flyweight is allocated right after this object and followed by a padding array, for the same reason.
 */
final class PortPoller extends PortPollerPad2 implements ReceiveRing.PacketConsumer
{
    private final PacketHeader header;
    private final boolean counted;
    // keeps the allocation after the header: whatever is allocated next is at least two cache lines from it
    @SuppressWarnings("unused")
    private final long[] trailer;

    /**
     * @param counted whether polls skip the rings once they have taken every packet the receive agent stored (the
     *                application polls on the thread that runs the receive agent: invoker mode).
     */
    PortPoller(final boolean counted)
    {
        this.counted = counted;
        header = new PacketHeader();
        trailer = new long[16];
    }

    int poll(
        final PortDatapath datapath,
        final int dataVls,
        final ApplicationCounters counters,
        final PacketHandler handler,
        final int limit)
    {
        final ReceiveRing[] rings = datapath.rxRings();
        if (!counted)
        {
            int delivered = pollVl(rings, counters, handler, PortDatapath.VL15, limit);
            for (int i = 0; i < dataVls && delivered < limit; i++)
            {
                final int vl = nextVl;
                nextVl = vl + 1 == dataVls ? 0 : vl + 1;
                delivered += pollVl(rings, counters, handler, vl, limit - delivered);
            }
            return delivered;
        }
        // every packet counted here is in its ring (acquire); one taken but not yet counted makes taken run ahead
        final long stored = datapath.storedPackets();
        if (taken - stored >= 0)
        {
            return 0;
        }
        int delivered = pollVl(rings, counters, handler, PortDatapath.VL15, limit);
        final int first = nextVl;
        for (int i = 0; i < dataVls && delivered < limit; i++)
        {
            if (taken - stored >= 0)
            {
                // every ring is empty of what was counted: start here next time, as a scan to the end would
                nextVl = first;
                break;
            }
            final int vl = nextVl;
            nextVl = vl + 1 == dataVls ? 0 : vl + 1;
            delivered += pollVl(rings, counters, handler, vl, limit - delivered);
        }
        return delivered;
    }

    private int pollVl(
        final ReceiveRing[] rings,
        final ApplicationCounters counters,
        final PacketHandler handler,
        final int vl,
        final int limit)
    {
        // set for each VL: a handler that polls this port again (with a handler of its own) leaves it changed
        this.handler = handler;
        final int count = rings[vl].poll(this, limit);
        if (count > 0)
        {
            counters.deliveredPackets(vl).getAndAddRelease(count);
        }
        return count;
    }

    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        // counted before the handler runs: the ring consumes the packet even when the handler throws
        taken++;
        handler.onPacket(header.wrap(buffer, offset, length));
    }
}
