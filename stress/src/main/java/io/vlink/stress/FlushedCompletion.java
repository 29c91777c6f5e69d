package io.vlink.stress;

import io.vlink.nic.agent.SendQueue;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A queue pair's flushed count, from the injection agent to the application: a flush completes the two messages it
 * discarded (the completion word, release), and the report then adds them to {@link SendQueue#flushed()} (release);
 * the application reads {@code flushed()} (acquire), then {@code completed()}. Once it sees the flushed messages
 * counted, their slots and memory are free: it must see them completed.
 * <p>
 * r1 = flushed, r2 = completed.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "nothing flushed yet")
@Outcome(id = "0, 2", expect = ACCEPTABLE_INTERESTING, desc = "completed, not reported yet")
@Outcome(id = "2, 2", expect = ACCEPTABLE, desc = "reported and completed")
@Outcome(expect = FORBIDDEN, desc = "flushed messages counted but not completed")
@State
public class FlushedCompletion
{
    private final SendQueue qp = QueuePairs.queuePair(4);

    public FlushedCompletion()
    {
        qp.offerInline(Cells.body(1), 0, Cells.PACKET_SIZE);
        qp.offerInline(Cells.body(2), 0, Cells.PACKET_SIZE);
    }

    /** The injection agent: the flush completes both, the report counts them. */
    @Actor
    public void injectionAgent()
    {
        qp.complete(1);
        qp.addFlushed(2);
    }

    /** The application: flushed, then completed. */
    @Actor
    public void application(final JJ_Result r)
    {
        r.r1 = qp.flushed();
        r.r2 = qp.completed();
    }
}
