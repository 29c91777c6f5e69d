package io.vlink.nic;

import io.vlink.core.wire.PacketHeader;
import io.vlink.nic.agent.PortDatapath;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.ring.ReceiveRings;
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
    int nextVl;
    PacketHandler handler;
    // packets taken out of the rings: equal to their stored count, every ring is empty
    long taken;
    // a poll is running: a handler that polls the port again is refused (a ring's poll holds its head across the call)
    boolean polling;
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
 * The fields a poll writes (the next VL, the handler, the header flyweight) live here, padded, and not among the
 * port's fields, which the engine's agents read every duty cycle: a thread that spins on {@link Port#poll} would
 * otherwise take the cache line holding them away from the engine's thread on every call. The header flyweight is
 * allocated right after this object and followed by a padding array, for the same reason.
 */
final class PortPoller extends PortPollerPad2 implements ReceiveRing.PacketConsumer
{
    private final PacketHeader header;
    // keeps the allocation after the header: whatever is allocated next is at least two cache lines from it
    @SuppressWarnings("unused")
    private final long[] trailer;

    PortPoller()
    {
        header = new PacketHeader();
        trailer = new long[16];
    }

    int poll(
        final ReceiveRings receiveRings,
        final int dataVls,
        final ApplicationCounters counters,
        final PacketHandler handler,
        final int limit)
    {
        if (polling)
        {
            throw new IllegalStateException("Port.poll called from its own handler: return from the handler first " +
                "(the packet in hand is taken when it returns; poll again after the outer poll returns)");
        }
        polling = true;
        this.handler = handler;
        try
        {
            return pollRings(receiveRings, dataVls, counters, limit);
        }
        finally
        {
            polling = false;
        }
    }

    private int pollRings(
        final ReceiveRings receiveRings,
        final int dataVls,
        final ApplicationCounters counters,
        final int limit)
    {
        final long stored = receiveRings.stored();
        if (stored == taken)
        {
            // every ring is empty (what was stored since the read waits for the next poll)
            return 0;
        }
        final ReceiveRing[] rings = receiveRings.rings();
        final int first = nextVl;
        int delivered = pollVl(rings, counters, PortDatapath.VL15, limit);
        for (int i = 0; i < dataVls && delivered < limit; i++)
        {
            if (stored - taken <= 0)
            {
                // every packet the count included is delivered: the rest of the rings are empty, and the turn starts
                // where a poll of every ring would have left it
                nextVl = first;
                break;
            }
            final int vl = nextVl;
            nextVl = vl + 1 == dataVls ? 0 : vl + 1;
            delivered += pollVl(rings, counters, vl, limit - delivered);
        }
        return delivered;
    }

    private int pollVl(
        final ReceiveRing[] rings,
        final ApplicationCounters counters,
        final int vl,
        final int limit)
    {
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
        // counted before the handler: its ring takes the packet out even if the handler throws
        taken++;
        handler.onPacket(header.wrap(buffer, offset, length));
    }
}
