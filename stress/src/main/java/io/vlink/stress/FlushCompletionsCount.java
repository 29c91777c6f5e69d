package io.vlink.stress;

import io.vlink.tools.soak.FlushCompletions;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The soak's flush-error completions (docs/concurrency.md row 28): engine A's injection agent adds each completion's
 * count to its SL's word ({@code FlushCompletions.add}: read by its one writer, stored with release); the soak's
 * thread reads the word ({@code FlushCompletions.packets}, acquire). Two completions of 3 and 4 packets: a reader sees
 * 0, 3 or 7, never a count that goes back, and never a value no completion left.
 * <p>
 * r1, r2 = two reads of the SL's count, in order.
 */
@JCStressTest
@Outcome(id = {"0, 0", "3, 3", "7, 7"}, expect = ACCEPTABLE, desc = "the same count twice")
@Outcome(id = {"0, 3", "0, 7", "3, 7"}, expect = ACCEPTABLE_INTERESTING, desc = "the count grew between the reads")
@Outcome(expect = FORBIDDEN, desc = "a count that went back, or one no completion left")
@State
public class FlushCompletionsCount
{
    private static final int SL = 3;

    private final FlushCompletions completions = new FlushCompletions();

    /** Engine A's injection agent: two completions on one SL. */
    @Actor
    public void complete()
    {
        completions.add(SL, 3);
        completions.add(SL, 4);
    }

    /** The soak's thread: the count, twice. */
    @Actor
    public void read(final JJ_Result r)
    {
        r.r1 = completions.packets(SL);
        r.r2 = completions.packets(SL);
    }
}
