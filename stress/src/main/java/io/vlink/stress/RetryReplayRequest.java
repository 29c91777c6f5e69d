package io.vlink.stress;

import io.vlink.nic.link.RetryLink;
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
 * A peer's replay request, from the receiving thread that reads it to the transmitting thread that acts on it
 * (hand-off 29): the link sent frames 0 to 3; the peer received 0 and 1 and asks for everything from 2 again. The
 * receiving thread polls the request and publishes its acknowledgement (2, release), then the request count
 * (release); the transmitting thread's {@code flush} reads the count (acquire), then the acknowledgement (acquire),
 * releases what the peer holds and rewinds to 2. A request is never acted on with an older acknowledgement: the link
 * would send frames the peer has (0 and 1) and hold them again.
 * <p>
 * r1 = frames still held after the transmitting thread's flush (4: nothing seen; 2: 0 and 1 released), r2 = the
 * first frame it sent again (-1: none), r3 = frames it sent again.
 */
@JCStressTest
@Outcome(id = "4, -1, 0", expect = ACCEPTABLE, desc = "the flush ran before the request was read")
@Outcome(id = "2, -1, 0", expect = ACCEPTABLE_INTERESTING, desc = "the acknowledgement seen, the request not yet")
@Outcome(id = "2, 2, 2", expect = ACCEPTABLE_INTERESTING, desc = "both: 2 and 3 again")
@Outcome(id = "4, 0, 4", expect = FORBIDDEN, desc = "the request acted on without its acknowledgement: 0 and 1 again")
@Outcome(expect = FORBIDDEN, desc = "anything else")
@State
public class RetryReplayRequest
{
    private final RetryFrames frames = new RetryFrames();

    public RetryReplayRequest()
    {
        frames.send(4);
        frames.sent(new int[4], new long[1]);
        frames.peer(RetryLink.KIND_ACK, RetryLink.FLAG_ACK | RetryLink.FLAG_REPLAY, 0, 2);
    }

    /** The receive agent: one poll takes the request. */
    @Actor
    public void receive()
    {
        frames.link.poll((type, buffer, offset, length) -> { }, 4);
    }

    /** The arbiter: one duty cycle's flush. */
    @Actor
    public void transmit(final III_Result r)
    {
        frames.link.flush();
        r.r1 = (int)frames.link.unacknowledged();
    }

    /** What went on the wire again. */
    @Arbiter
    public void wire(final III_Result r)
    {
        final int[] sent = new int[4];
        r.r3 = frames.sent(sent, new long[1]);
        r.r2 = 0 == r.r3 ? -1 : sent[0];
    }
}
