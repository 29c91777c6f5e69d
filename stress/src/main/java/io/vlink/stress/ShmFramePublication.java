package io.vlink.stress;

import io.vlink.nic.link.Link;
import io.vlink.nic.link.ShmLink;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A frame from one process to the other through the shm link's mapped ring (two ends attached to one region stand
 * for the two processes): end A's transmitting thread claims 96 bytes (the record header, its session stamped in
 * it), writes them in place and commits (the tail, release); end B's receiving thread polls (the tail, acquire) and
 * reads the frame in place. Once the receiver sees the frame, it sees its header, the session it was stamped with
 * and every byte written before the commit; a frame is never lost.
 * <p>
 * r1 = the frame's type (0 = nothing received), r2 = its length, r3 = ints of the frame holding the written value
 * (-1 = no frame), r4 = frames a second poll received after both actors (the arbiter).
 */
@JCStressTest
@Outcome(id = "0, 0, -1, 1", expect = ACCEPTABLE, desc = "not committed yet at the poll; received by the next")
@Outcome(id = "1, 96, 24, 0", expect = ACCEPTABLE_INTERESTING, desc = "the frame: its type, length and every byte")
@Outcome(expect = FORBIDDEN, desc = "a frame torn, stale or lost (a stale session stamp drops it): the tail's release/acquire is broken")
@State
public class ShmFramePublication
{
    private static final int VALUE = 0x5A5A_0004;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);

    private final UnsafeBuffer region = Frames.region();
    private final ShmLink a = Frames.attached(region, ShmLink.Role.A);
    private final ShmLink b = Frames.attached(region, ShmLink.Role.B);
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    /** Process A's arbiter: claim, write in place, commit. */
    @Actor
    public void transmit()
    {
        final int at = a.tryClaim(Link.DATA_FRAME, Cells.PACKET_SIZE);
        a.buffer().putBytes(at, BODY, 0, Cells.PACKET_SIZE);
        a.commit(at);
    }

    /** Process B's receive agent: one poll. */
    @Actor
    public void receive(final IIII_Result r)
    {
        receiver.receive(b, r);
    }

    /** After both: the frames a second poll finds. */
    @Arbiter
    public void after(final IIII_Result r)
    {
        r.r4 = b.poll(receiver, 64);
    }
}
