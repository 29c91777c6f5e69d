package io.vlink.stress;

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
 * The first frame of a new session: end A is attached and polling; process B attaches its end (its incarnation
 * published) and sends a frame stamped with the session of both incarnations. A's receiver reads the tail first
 * (acquire), then B's incarnation (acquire): a frame it sees came with the incarnation published before it, so the
 * frame is delivered, never dropped as another session's.
 * <p>
 * r1 = the frame's type at A's poll (0 = nothing), r2 = its length, r3 = ints holding the value (-1 = no frame),
 * r4 = frames a second poll received after both actors (the arbiter).
 */
@JCStressTest
@Outcome(id = "0, 0, -1, 1", expect = ACCEPTABLE, desc = "not committed yet at the poll; received by the next")
@Outcome(id = "1, 96, 24, 0", expect = ACCEPTABLE_INTERESTING, desc = "the first frame of the session, whole")
@Outcome(id = "0, 0, -1, 0", expect = FORBIDDEN, desc = "the frame dropped as another session's: the incarnation was read before the tail")
@Outcome(expect = FORBIDDEN, desc = "a frame torn or received twice")
@State
public class ShmSessionFirstFrame
{
    private static final int VALUE = 0x5A5A_0006;

    private final UnsafeBuffer region = Frames.region();
    private final ShmLink a = Frames.attached(region, ShmLink.Role.A);
    private final ShmLink b = Frames.end(region, ShmLink.Role.B);
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    /** Process B: attaches, then its arbiter sends a frame (A is there: the session exists). */
    @Actor
    public void attachAndSend()
    {
        b.takeEnd();
        Frames.send(b, Cells.PACKET_SIZE, VALUE);
    }

    /** Process A's receive agent: one poll. */
    @Actor
    public void receive(final IIII_Result r)
    {
        receiver.receive(a, r);
    }

    /** After both: what a second poll finds. */
    @Arbiter
    public void after(final IIII_Result r)
    {
        r.r4 = a.poll(receiver, 64);
    }
}
