package io.vlink.stress;

import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.ShmLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The shm link's write-ahead at the edge of a full ring: after each commit the transmitting side writes a zero into
 * each line of the next 128 bytes of free space, never past the receiver's head a ring ahead. The 1,024-byte ring
 * (64-byte records) went round once and holds seven frames the receiver has not read, the first at the ring's start;
 * A's transmitting thread commits one more, which leaves 64 bytes free before that first frame, and writes ahead;
 * B's receiving thread polls meanwhile. Every frame arrives whole: a write-ahead past the head would zero the first
 * unread frame's header, and the receiver would drop it with everything after it.
 * <p>
 * r1 = whole frames the receiver's poll delivered, r2 = whole frames a poll after both actors delivered (the arbiter),
 * r3 = frames delivered torn.
 */
@JCStressTest
@Outcome(id = "7, 1, 0", expect = ACCEPTABLE, desc = "the last frame not yet committed at the poll; the next poll has it")
@Outcome(id = "8, 0, 0", expect = ACCEPTABLE_INTERESTING, desc = "every frame, whole, in one poll")
@Outcome(expect = FORBIDDEN, desc = "a frame lost or torn: the write-ahead wrote into a record the receiver had not read")
@State
public class ShmWriteAhead implements FrameHandler
{
    private static final int VALUE = 0x5A5A_0011;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);
    private static final int SMALL = 40;

    private final UnsafeBuffer region = Frames.region();
    private final ShmLink a = Frames.attached(region, ShmLink.Role.A);
    private final ShmLink b = Frames.attached(region, ShmLink.Role.B);
    private int good;
    private int torn;

    /** The ring once round, read; then six frames of 96 bytes and one of 40, not read: 64 bytes left free. */
    public ShmWriteAhead()
    {
        for (int i = 0; i < Frames.CAPACITY / 128; i++)
        {
            send(Cells.PACKET_SIZE);
        }
        b.poll(this, 64);
        for (int i = 0; i < 6; i++)
        {
            send(Cells.PACKET_SIZE);
        }
        send(SMALL);
        good = 0;
        torn = 0;
    }

    private void send(final int length)
    {
        final int at = a.tryClaim(Link.DATA_FRAME, length);
        if (at < 0)
        {
            throw new IllegalStateException("the ring refused a frame the test makes room for");
        }
        a.buffer().putBytes(at, BODY, 0, length);
        a.commit(at);
    }

    /** Process A's arbiter: the frame that leaves 64 bytes free, then its write-ahead. */
    @Actor
    public void transmit()
    {
        send(Cells.PACKET_SIZE);
    }

    /** Process B's receive agent: one poll. */
    @Actor
    public void receive(final III_Result r)
    {
        b.poll(this, 64);
        r.r1 = good;
    }

    /** After both: what a second poll finds. */
    @Arbiter
    public void after(final III_Result r)
    {
        final int before = good;
        b.poll(this, 64);
        r.r2 = good - before;
        r.r3 = torn;
    }

    @Override
    public void onFrame(final int type, final DirectBuffer buffer, final int offset, final int length)
    {
        if (Link.DATA_FRAME == type && (Cells.PACKET_SIZE == length || SMALL == length) &&
            Cells.count(buffer, offset, length, VALUE) == length / Integer.BYTES)
        {
            good++;
        }
        else
        {
            torn++;
        }
    }
}
