package io.vlink.stress;

import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
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
 * A frame from the transmitting thread (the arbiter) to the receiving thread (the receive agent) through the
 * loopback link's own ring: the transmitter claims 96 bytes, writes them in place and commits (the tail, release);
 * the receiver polls (the tail, acquire) and reads the frame in place. Once the receiver sees the frame, it sees
 * its header (type and length) and every byte written before the commit.
 * <p>
 * r1 = the frame's type (0 = nothing received), r2 = its length, r3 = ints of the frame holding the written value
 * (-1 = no frame).
 */
@JCStressTest
@Outcome(id = "0, 0, -1", expect = ACCEPTABLE, desc = "not committed yet: nothing received")
@Outcome(id = "1, 96, 24", expect = ACCEPTABLE_INTERESTING, desc = "the frame: its type, length and every byte")
@Outcome(expect = FORBIDDEN, desc = "a frame received with a stale header or stale bytes: the tail's release/acquire is broken")
@State
public class LoopbackFramePublication
{
    private static final int VALUE = 0x5A5A_0002;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);

    private final LoopbackLink[] ends = Frames.pair();
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    /** The arbiter: claim, write in place, commit. */
    @Actor
    public void transmit()
    {
        final LoopbackLink end = ends[0];
        final int at = end.tryClaim(Link.DATA_FRAME, Cells.PACKET_SIZE);
        end.buffer().putBytes(at, BODY, 0, Cells.PACKET_SIZE);
        end.commit(at);
    }

    /** The receive agent: one poll. */
    @Actor
    public void receive(final III_Result r)
    {
        receiver.receive(ends[1], r);
    }
}
