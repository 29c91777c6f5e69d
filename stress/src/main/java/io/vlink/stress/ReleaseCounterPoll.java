package io.vlink.stress;

import io.vlink.core.credit.ReleaseCounter;
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
 * Receive-buffer release: the application releases two packets (3 and 5 blocks) on a VL while the credit agent
 * polls twice; a last poll after both takes the rest. Every poll hands over a whole number of releases, in order
 * (never a negative or partial amount), and the polls add up to exactly 8 blocks: nothing over-counted, nothing
 * lost.
 * <p>
 * r1, r2 = the credit agent's polls, r3 = the final poll.
 */
@JCStressTest
@Outcome(id = {"0, 0, 8", "8, 0, 0"}, expect = ACCEPTABLE, desc = "all at once, after or before the polls")
@Outcome(id = {"0, 3, 5", "0, 8, 0", "3, 0, 5", "3, 5, 0"}, expect = ACCEPTABLE_INTERESTING,
    desc = "the releases seen one by one")
@Outcome(expect = FORBIDDEN, desc = "over-counted, lost, or a count that went back")
@State
public class ReleaseCounterPoll
{
    private static final int VL = 2;

    private final ReleaseCounter released = new ReleaseCounter();

    /** The application: two packets taken out of the receive buffer. */
    @Actor
    public void application()
    {
        released.release(VL, 3);
        released.release(VL, 5);
    }

    /** The credit agent: two duty cycles. */
    @Actor
    public void creditAgent(final III_Result r)
    {
        r.r1 = released.poll(VL);
        r.r2 = released.poll(VL);
    }

    /** The credit agent's next duty cycle, after both. */
    @Arbiter
    public void last(final III_Result r)
    {
        r.r3 = released.poll(VL);
    }
}
