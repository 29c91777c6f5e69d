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
 * A flush's drained generation ({@link FlushControl}), from the arbiter back to the injection agent: the arbiter
 * discarded the last packets of three messages of a queue pair (its plain count, {@code ringFlushed}), then publishes
 * that it drained generation 1 (release); the injection agent reads the drained generation (acquire), then the count,
 * and reports the queue pair's flushed messages once. Seeing the drain without the count would report too few, and
 * never the rest.
 * <p>
 * r1 = the drained generation seen, r2 = the count seen.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "not drained yet")
@Outcome(id = "0, 3", expect = ACCEPTABLE_INTERESTING, desc = "the count ahead of the drain: reported next cycle")
@Outcome(id = "1, 3", expect = ACCEPTABLE, desc = "the drain with its count")
@Outcome(expect = FORBIDDEN, desc = "the drain without the count written before it")
@State
public class FlushDrainedCount
{
    private final SendQueue qp = QueuePairs.queuePair(4);
    private final FlushControl flush = new FlushControl();

    /** The arbiter: three messages' last packets discarded, then the drained generation. */
    @Actor
    public void arbiter()
    {
        qp.ringFlushed += 3;
        flush.publishDrained(1);
    }

    /** The injection agent's duty cycle: the drained generation, then the count. */
    @Actor
    public void injectionAgent(final JJ_Result r)
    {
        r.r1 = flush.drained();
        r.r2 = qp.ringFlushed;
    }
}
