package io.vlink.stress;

import io.vlink.nic.link.RetryLink;
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
 * What the link acknowledges, from the receiving thread that delivers frames to the transmitting thread that sends
 * every acknowledgement (hand-off 30): the peer sent frames 0 and 2 (1 was lost). The receiving thread delivers 0 and
 * publishes what it expects next (1, release), then finds the gap and asks for a replay (the request count, release);
 * the transmitting thread's {@code flush} reads the requests (acquire), then what to acknowledge (acquire), and sends
 * an acknowledgement of its own: a replay request from 1, or (the delivery seen, the request not yet) a plain
 * acknowledgement of 1, which the schedule makes due at once here. A replay request never asks for a frame already
 * delivered.
 * <p>
 * r1 = the acknowledgement sent (-1: none), r2 = 1 if it was a replay request.
 */
@JCStressTest
@Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "the flush ran before the delivery was published")
@Outcome(id = "1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the delivery seen, the request not yet: an acknowledgement")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "a replay request from 1")
@Outcome(id = "0, 1", expect = FORBIDDEN, desc = "a replay request for frame 0, which was delivered")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class RetryAckRequest
{
    private final RetryFrames frames = new RetryFrames();

    public RetryAckRequest()
    {
        frames.peer(RetryLink.KIND_LINK, RetryLink.FLAG_OLDEST, 0, 0);
        frames.peer(RetryLink.KIND_LINK, 0, 2, 0);
    }

    /** The receive agent: one poll delivers 0 and finds the gap at 1. */
    @Actor
    public void receive()
    {
        frames.link.poll((type, buffer, offset, length) -> { }, 4);
    }

    /** The arbiter: one duty cycle's flush. */
    @Actor
    public void transmit()
    {
        frames.link.flush();
    }

    /** The acknowledgement on the wire. */
    @Arbiter
    public void wire(final II_Result r)
    {
        final long[] ack = new long[1];
        frames.sent(new int[4], ack);
        r.r1 = ack[0] < 0 ? -1 : (int)ack[0];
        r.r2 = ack[0] < 0 ? 0 : (int)((ack[0] >>> 32) & RetryLink.FLAG_REPLAY) / RetryLink.FLAG_REPLAY;
    }
}
