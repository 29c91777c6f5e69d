package io.vlink.stress;

import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import org.agrona.DirectBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Ring space is reused only after the receiver released it: the ring is full of eight 120-byte frames; the
 * receiver reads the first in place (its head, release, when the poll ends); the transmitter claims a 120-byte
 * frame, which fits only once the first frame's space was released (the head, acquire) and then lands on the same
 * bytes, and overwrites them. The receiver's in-place read never sees a byte of the new frame.
 * <p>
 * r1 = ints of the received frame holding its own value (30 = all), r2 = 1 if the transmitter got the space.
 */
@JCStressTest
@Outcome(id = "30, 0", expect = ACCEPTABLE, desc = "read its frame; the ring was still full for the next one")
@Outcome(id = "30, 1", expect = ACCEPTABLE_INTERESTING, desc = "read its frame; then the next one reused the space")
@Outcome(expect = FORBIDDEN, desc = "the receiver read bytes of a frame written into space it had not released")
@State
public class LoopbackFrameReuse implements FrameHandler
{
    private static final int FRAME = 120;
    private static final int OLD = 0x01D0_01D0;
    private static final int NEW = 0x0E0E_0E0E;

    private final LoopbackLink[] ends = Frames.pair();
    private int good = -1;

    public LoopbackFrameReuse()
    {
        for (int i = 0; i < Frames.CAPACITY / (FRAME + 8); i++)
        {
            Frames.send(ends[0], FRAME, OLD);
        }
    }

    /** The receive agent: reads the first frame in place; its space is released when the poll returns. */
    @Actor
    public void receive(final II_Result r)
    {
        ends[1].poll(this, 1);
        r.r1 = good;
    }

    /** The arbiter: the next frame, if there is room. */
    @Actor
    public void transmit(final II_Result r)
    {
        final LoopbackLink end = ends[0];
        final int at = end.tryClaim(Link.DATA_FRAME, FRAME);
        if (Link.BACK_PRESSURED == at)
        {
            r.r2 = 0;
            return;
        }
        Frames.fill(end.buffer(), at, FRAME, NEW);
        end.commit(at);
        r.r2 = 1;
    }

    @Override
    public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        good = Cells.count(buffer, offset, length, OLD);
    }
}
