package io.vlink.stress;

import io.vlink.nic.ring.ReceiveRing;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Received packets into a VL's receive buffer ({@code nic}'s {@link ReceiveRing}): the receive agent offers a
 * 96-byte packet (the bytes, then the descriptor with release); the application polls (the descriptor at its head
 * with acquire) and reads the packet in place. A packet handed to the application is whole.
 * <p>
 * r1 = the size handed over (0 = none yet), r2 = ints of the packet holding the written value (-1 = none).
 */
@JCStressTest
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "nothing received yet")
@Outcome(id = "96, 24", expect = ACCEPTABLE_INTERESTING, desc = "the packet, whole")
@Outcome(expect = FORBIDDEN, desc = "a packet handed over torn, stale or with a wrong size")
@State
public class ReceiveRingDelivery implements ReceiveRing.PacketConsumer
{
    private static final int VALUE = 0x0B0B_0B0B;
    private static final UnsafeBuffer PACKET = Cells.body(VALUE);

    private final ReceiveRing ring = new ReceiveRing(4, 128);
    private int size;
    private int good = -1;

    /** The receive agent. */
    @Actor
    public void receiveAgent()
    {
        ring.offer(PACKET, 0, Cells.PACKET_SIZE);
    }

    /** The application. */
    @Actor
    public void application(final II_Result r)
    {
        ring.poll(this, 1);
        r.r1 = size;
        r.r2 = good;
    }

    /** The application's handler: reads the packet in place. */
    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        size = length;
        good = Cells.count(buffer, offset, length, VALUE);
    }
}
