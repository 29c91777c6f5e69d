package io.vlink.stress;

import io.vlink.nic.ring.ReceiveRing;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Receive-buffer release as the engine does it ({@code nic}'s {@link ReceiveRing}): the buffer holds a one-block
 * and a two-block packet; the application takes them one by one (each release is a release store of the block
 * head); the credit agent reads {@link ReceiveRing#releasedBlocks()} (acquire) twice and turns the difference into
 * {@code free += NP}. The count is monotonic and only ever a whole number of packets: 0, 1 or 3 blocks, never 2
 * (a partial packet), never more than was released.
 * <p>
 * r1, r2 = the released blocks the credit agent read.
 */
@JCStressTest
@Outcome(id = {"0, 0", "1, 1", "3, 3"}, expect = ACCEPTABLE, desc = "the same count twice")
@Outcome(id = {"0, 1", "0, 3", "1, 3"}, expect = ACCEPTABLE_INTERESTING, desc = "a release seen in between")
@Outcome(expect = FORBIDDEN, desc = "over-counted, partial, or a count that went back")
@State
public class ReceiveRingRelease implements ReceiveRing.PacketConsumer
{
    private static final UnsafeBuffer PACKETS = Cells.body(1);

    private final ReceiveRing ring = new ReceiveRing(4, 128);

    public ReceiveRingRelease()
    {
        ring.offer(PACKETS, 0, 64);
        ring.offer(PACKETS, 0, Cells.PACKET_SIZE);
    }

    /** The application: two packets taken out, one at a time. */
    @Actor
    public void application()
    {
        ring.poll(this, 1);
        ring.poll(this, 1);
    }

    /** The credit agent: two duty cycles. */
    @Actor
    public void creditAgent(final JJ_Result r)
    {
        r.r1 = ring.releasedBlocks();
        r.r2 = ring.releasedBlocks();
    }

    @Override
    public void onPacket(final DirectBuffer buffer, final int offset, final int length)
    {
    }
}
