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
 * Receive-buffer space is reused only after the application released it ({@code nic}'s {@link ReceiveRing}): a
 * full two-block buffer holds one packet; the application reads it in place; the receive agent offers the next
 * packet, which fits only once the first one's blocks were released and then lands on the same blocks. The
 * application's in-place read never sees a byte of the next packet.
 * <p>
 * r1 = ints of the application's packet holding its own value (24 = all), r2 = 1 if the next packet was stored.
 */
@JCStressTest
@Outcome(id = "24, 0", expect = ACCEPTABLE, desc = "read its packet; the buffer was still full for the next one")
@Outcome(id = "24, 1", expect = ACCEPTABLE_INTERESTING, desc = "read its packet; then the next one reused the space")
@Outcome(expect = FORBIDDEN, desc = "the application read bytes of a packet stored into space it had not released")
@State
public class ReceiveRingReuse implements ReceiveRing.PacketConsumer
{
    private static final int OLD = 0x01D0_01D0;
    private static final int NEW = 0x0E0E_0E0E;
    private static final UnsafeBuffer OLD_PACKET = Cells.body(OLD);
    private static final UnsafeBuffer NEW_PACKET = Cells.body(NEW);

    private final ReceiveRing ring = new ReceiveRing(2, Cells.PACKET_SIZE);
    private int good = -1;

    public ReceiveRingReuse()
    {
        ring.offer(OLD_PACKET, 0, Cells.PACKET_SIZE);
    }

    /** The application: reads the packet in place; its blocks are released when the handler returns. */
    @Actor
    public void application(final II_Result r)
    {
        ring.poll(this, 1);
        r.r1 = good;
    }

    /** The receive agent: the next packet, if there is room. */
    @Actor
    public void receiveAgent(final II_Result r)
    {
        r.r2 = ring.offer(NEW_PACKET, 0, Cells.PACKET_SIZE) ? 1 : 0;
    }

    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        good = Cells.count(buffer, offset, length, OLD);
    }
}
