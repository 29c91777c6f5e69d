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
 * A peer that sends and closes: A's receiver has seen B attached; process B sends a frame, then closes its end (its incarnation cleared after the
 * commit). A's receiver, polling meanwhile, tells the link layer the peer closed only once every frame B committed
 * was delivered: seeing the incarnation cleared, it reads the tail again (acquire) and compares it with its head.
 * The frame is delivered once, before the one notice.
 * <p>
 * r1 = frames A's poll delivered, r2 = its peer-closed notices, r3 = frames a second poll after both actors
 * delivered (the arbiter), r4 = its notices.
 */
@JCStressTest
@Outcome(id = "0, 0, 1, 1", expect = ACCEPTABLE, desc = "nothing yet at the poll; the frame, then the notice, after")
@Outcome(id = "1, 0, 0, 1", expect = ACCEPTABLE_INTERESTING, desc = "the frame at the poll (B still attached); the notice after")
@Outcome(id = "1, 1, 0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the frame and then the notice in one poll")
@Outcome(id = "0, 1, 1, 0", expect = FORBIDDEN, desc = "the notice before the frame B committed before closing: the tail was not read again")
@Outcome(expect = FORBIDDEN, desc = "a frame lost or delivered twice, a notice lost or given twice")
@State
public class ShmDetachDrain
{
    private static final int VALUE = 0x5A5A_0007;

    private final UnsafeBuffer region = Frames.region();
    private final ShmLink a = Frames.attached(region, ShmLink.Role.A);
    private final ShmLink b = Frames.attached(region, ShmLink.Role.B);
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    public ShmDetachDrain()
    {
        a.poll(receiver, 64); // A's receiver has seen B attached: a notice is due once B closes
    }

    /** Process B: its arbiter's last frame, then its end closed. */
    @Actor
    public void sendAndClose()
    {
        Frames.send(b, Cells.PACKET_SIZE, VALUE);
        b.close();
    }

    /** Process A's receive agent: one poll. */
    @Actor
    public void receive(final IIII_Result r)
    {
        a.poll(receiver, 64);
        r.r1 = receiver.frames;
        r.r2 = receiver.closed;
    }

    /** After both: a second poll. */
    @Arbiter
    public void after(final IIII_Result r)
    {
        a.poll(receiver, 64);
        r.r3 = receiver.frames - r.r1;
        r.r4 = receiver.closed - r.r2;
    }
}
