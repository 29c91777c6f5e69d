package io.vlink.stress;

import io.vlink.nic.agent.RingBuffers;
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
 * The receive agent's count of stored packets ({@code nic}'s {@link RingBuffers}), which the application's poller in
 * invoker mode reads before it looks at any ring: the receive agent stores a 96-byte packet in VL 0's ring (the
 * bytes, the descriptor with release) and then counts it (release); the application reads the count (acquire), then
 * polls the ring. A packet counted is in its ring, whole: a poller that trusts the count never skips a packet.
 * <p>
 * r1 = the count read, r2 = the size the poll after it handed over (0 = none), r3 = ints of the packet holding the
 * written value (-1 = none).
 */
@JCStressTest
@Outcome(id = "0, 0, -1", expect = ACCEPTABLE, desc = "nothing stored yet")
@Outcome(id = "0, 96, 24", expect = ACCEPTABLE_INTERESTING, desc = "stored, not yet counted: the poll finds it")
@Outcome(id = "1, 96, 24", expect = ACCEPTABLE, desc = "counted, and the poll finds it whole")
@Outcome(expect = FORBIDDEN, desc = "counted but not in the ring (a poller trusting the count would skip it), or torn")
@State
public class ReceiveStoredCount implements ReceiveRing.PacketConsumer
{
    private static final int VALUE = 0x0C0C_0C0C;
    private static final UnsafeBuffer PACKET = Cells.body(VALUE);

    private final ReceiveRing ring = new ReceiveRing(4, 128);
    private final RingBuffers buffers = new RingBuffers(rings(ring));
    private int size;
    private int good = -1;

    private static ReceiveRing[] rings(final ReceiveRing vl0)
    {
        final ReceiveRing[] rings = new ReceiveRing[16];
        rings[0] = vl0;
        return rings;
    }

    /** The receive agent. */
    @Actor
    public void receiveAgent()
    {
        buffers.store(0, PACKET, 0, Cells.PACKET_SIZE);
    }

    /** The application's poller. */
    @Actor
    public void application(final III_Result r)
    {
        r.r1 = (int)buffers.stored();
        ring.poll(this, 1);
        r.r2 = size;
        r.r3 = good;
    }

    /** The application's handler: reads the packet in place. */
    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
        size = length;
        good = Cells.count(buffer, offset, length, VALUE);
    }
}
