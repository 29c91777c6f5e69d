package io.vlink.stress;

import io.vlink.nic.ring.ReceiveRing;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A reused descriptor slot of a VL's receive buffer ({@code nic}'s {@link ReceiveRing}): a two-block buffer has one
 * descriptor slot per block, and two one-block packets went through it, so the slot of packet 2 still holds
 * packet 0's descriptor. The receive agent offers a 96-byte packet 2 (the bytes, then the descriptor with its lap's
 * tag, release); the application polls (the descriptor at its head with acquire: a descriptor of the previous lap
 * is no packet). It never takes packet 0's descriptor for packet 2, nor reads packet 2 torn.
 * <p>
 * r1 = the size handed over (0 = none yet), r2 = ints of the packet holding the new value (-1 = none),
 * r3 = packets handed over.
 */
@JCStressTest
@Outcome(id = "0, -1, 0", expect = ACCEPTABLE, desc = "nothing received yet")
@Outcome(id = "96, 24, 1", expect = ACCEPTABLE_INTERESTING, desc = "the packet, whole")
@Outcome(expect = FORBIDDEN, desc = "the previous lap's descriptor taken for a packet, or a packet handed over torn")
@State
public class ReceiveRingLap implements ReceiveRing.PacketConsumer
{
    private static final int OLD = 0x01D0_01D0;
    private static final int VALUE = 0x0B0B_0B0B;
    private static final UnsafeBuffer OLD_PACKET = Cells.body(OLD);
    private static final UnsafeBuffer PACKET = Cells.body(VALUE);

    private final ReceiveRing ring = new ReceiveRing(2, Cells.PACKET_SIZE);
    private int size;
    private int good = -1;

    public ReceiveRingLap()
    {
        ring.offer(OLD_PACKET, 0, Cells.CELL_SIZE);
        ring.offer(OLD_PACKET, 0, Cells.CELL_SIZE);
        ring.poll((buffer, offset, length) -> { }, 2);
    }

    /** The receive agent. */
    @Actor
    public void receiveAgent()
    {
        ring.offer(PACKET, 0, Cells.PACKET_SIZE);
    }

    /** The application. */
    @Actor
    public void application(final III_Result r)
    {
        r.r3 = ring.poll(this, 2);
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
