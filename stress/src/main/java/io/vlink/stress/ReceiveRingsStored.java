package io.vlink.stress;

import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.ring.ReceiveRings;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JI_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The receive rings' stored count, which tells the application's poll that every ring is empty (the count equals the
 * packets it took out) without looking at each: the receive agent stores a 96-byte packet on VL 2 of a port's
 * {@link ReceiveRings}; the application reads {@link ReceiveRings#stored()}, then polls VL 2's ring, as
 * {@code Port.poll} does. A count that includes the packet must come with the packet in its ring: otherwise a poll,
 * knowing a packet is there, would poll the rings before the packet is in one.
 * <p>
 * r1 = the count read, r2 = the size of the packet polled (0 = the ring looked empty).
 */
@JCStressTest
@Outcome(id = {"0, 0", "1, 96"}, expect = ACCEPTABLE, desc = "nothing yet, or the count and the packet")
@Outcome(id = "0, 96", expect = ACCEPTABLE_INTERESTING,
    desc = "the packet ahead of the count (the next poll sees the count move and looks)")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the count without the packet")
@Outcome(expect = FORBIDDEN, desc = "a count or a packet never stored")
@State
public class ReceiveRingsStored implements ReceiveRing.PacketConsumer
{
    private static final int VL = 2;
    private static final UnsafeBuffer PACKET = Cells.body(0x0B0B_0B0B);

    private final ReceiveRings rings = new ReceiveRings(new ReceiveRing[]{
        new ReceiveRing(4, 128), new ReceiveRing(4, 128), new ReceiveRing(4, 128) });
    private int size;

    /** The receive agent. */
    @Actor
    public void receiveAgent()
    {
        rings.store(VL, PACKET, 0, Cells.PACKET_SIZE);
    }

    /** The application. */
    @Actor
    public void application(final JI_Result r)
    {
        r.r1 = rings.stored();
        rings.rings()[VL].poll(this, 1);
        r.r2 = size;
    }

    /** The application's handler. */
    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        size = length;
    }
}
