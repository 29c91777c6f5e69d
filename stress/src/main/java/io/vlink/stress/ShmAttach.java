package io.vlink.stress;

import io.vlink.nic.link.ShmLink;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * An end attaching while its peer transmits: end B is attached; process A attaches its end ({@code takeEnd}: its
 * receive head moved past everything B sent before, then its incarnation, last); B's transmitting thread sends a
 * frame as soon as it sees A's incarnation (the session of both), and back-pressures before. A frame sent for the new
 * session is never skipped by the attaching end's head: a receiver that skipped it would never see it.
 * <p>
 * r1 = 1 if B's frame was sent (B saw A's incarnation), r2 = frames A received after both actors (the arbiter).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "B did not see A yet: back-pressured, nothing sent")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "B saw A, sent, and A received the frame")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "sent for the new session and skipped: the incarnation was published before the head")
@Outcome(expect = FORBIDDEN, desc = "a frame received that was never sent")
@State
public class ShmAttach
{
    private static final int VALUE = 0x5A5A_0005;

    private final UnsafeBuffer region = Frames.region();
    private final ShmLink b = Frames.attached(region, ShmLink.Role.B);
    private final ShmLink a = Frames.end(region, ShmLink.Role.A);
    private final Frames.Receiver receiver = new Frames.Receiver(VALUE);

    /** Process A: attaches. */
    @Actor
    public void attach()
    {
        a.takeEnd();
    }

    /** Process B's arbiter: a frame, if the peer is there. */
    @Actor
    public void transmit(final II_Result r)
    {
        r.r1 = Frames.trySend(b, Cells.PACKET_SIZE, VALUE) ? 1 : 0;
    }

    /** After both: what A receives. */
    @Arbiter
    public void after(final II_Result r)
    {
        r.r2 = a.poll(receiver, 64);
    }
}
