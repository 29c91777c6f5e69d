package io.vlink.stress;

import io.vlink.nic.link.LoopbackLink;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A frame that wraps around the end of the loopback ring: after two laps of older frames (every byte of the ring
 * written once, the tail 64 bytes before the end), the transmitter sends a 96-byte frame, which does not fit in
 * those 64 bytes: {@code tryClaim} writes a padding record to the end of the ring and the frame at its start, and
 * the one commit publishes both. The receiver skips the padding and reads the frame; neither the padding record nor
 * the frame may be seen stale (the older frames' bytes are still there: a stale padding header reads as a frame of
 * type and length {@code 0x0B0B0B0B}, a stale frame header as the 112-byte frame of the second lap).
 * <p>
 * r1 = the frame's type (0 = nothing received), r2 = its length, r3 = ints of the frame holding the written value
 * (-1 = no frame).
 */
@JCStressTest
@Outcome(id = "0, 0, -1", expect = ACCEPTABLE, desc = "not committed yet: nothing received")
@Outcome(id = "1, 96, 24", expect = ACCEPTABLE_INTERESTING, desc = "the padding skipped, the frame whole")
@Outcome(expect = FORBIDDEN, desc = "a stale padding record or frame: the wrap-around is not published with the frame")
@State
public class LoopbackFrameWrap
{
    private static final int OLD = 0x0B0B_0B0B;
    private static final int VALUE = 0x5A5A_0003;

    private final LoopbackLink[] ends = Frames.pair();
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    public LoopbackFrameWrap()
    {
        // lap 1: eight 128-byte records fill the ring; lap 2: eight 120-byte records leave the tail 64 bytes
        // before the end, where the last frame of lap 1 still is
        for (int i = 0; i < 8; i++)
        {
            Frames.send(ends[0], 120, OLD);
        }
        Frames.drain(ends[1]);
        for (int i = 0; i < 8; i++)
        {
            Frames.send(ends[0], 112, OLD);
        }
        Frames.drain(ends[1]);
    }

    /** The arbiter: a frame that pads the end of the ring and starts at its beginning. */
    @Actor
    public void transmit()
    {
        Frames.send(ends[0], Cells.PACKET_SIZE, VALUE);
    }

    /** The receive agent: one poll. */
    @Actor
    public void receive(final III_Result r)
    {
        receiver.receive(ends[1], r);
    }
}
