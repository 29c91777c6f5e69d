package io.vlink.stress;

import io.vlink.nic.agent.SendQueue;
import io.vlink.nic.agent.FlushControl;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A link error's flush epoch ({@link FlushControl}), from the credit agent to the injection agent: the credit agent
 * marks a queue pair that holds two posted messages ({@link SendQueue#markFlush()}, a plain store), then publishes
 * epoch 1 (release); the injection agent reads the epoch (acquire), then the mark. An injection agent that sees the
 * new epoch with the old mark (0) would keep the two messages the flush discards, and send them to the peer's next
 * incarnation.
 * <p>
 * r1 = the epoch seen, r2 = the mark seen.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "no flush seen yet")
@Outcome(id = "0, 2", expect = ACCEPTABLE_INTERESTING, desc = "the mark ahead of the epoch: the next duty cycle flushes")
@Outcome(id = "1, 2", expect = ACCEPTABLE, desc = "the epoch with its mark")
@Outcome(expect = FORBIDDEN, desc = "the new epoch with the mark from before it")
@State
public class FlushEpochMark
{
    private final SendQueue qp = QueuePairs.queuePair(4);
    private final FlushControl flush = new FlushControl();

    public FlushEpochMark()
    {
        qp.offerInline(Cells.body(1), 0, Cells.PACKET_SIZE);
        qp.offerInline(Cells.body(2), 0, Cells.PACKET_SIZE);
    }

    /** The credit agent at a link error: the mark, then the epoch. */
    @Actor
    public void creditAgent()
    {
        qp.markFlush();
        flush.publishEpoch(1);
    }

    /** The injection agent's duty cycle: the epoch, then the mark. */
    @Actor
    public void injectionAgent(final JJ_Result r)
    {
        r.r1 = flush.epoch();
        r.r2 = qp.flushMark();
    }
}
