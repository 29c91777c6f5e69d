package io.vlink.stress;

import io.vlink.core.credit.CreditLimits;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A link re-initialization between the credit agent and the arbiter: the credit agent resets (every CL to 0,
 * then the epoch + 1) and applies the first FCP of the new epoch (CL 2048); the arbiter reads the epoch, then the
 * CL. An arbiter that sees the new epoch restarts FCTBS from 0 and must never see a CL from before the reset
 * (3000 here): checked against FCTBS 0 it would send into space the peer never granted in this epoch.
 * <p>
 * r1 = the epoch seen, r2 = the CL seen.
 */
@JCStressTest
@Outcome(id = "0, 3000", expect = ACCEPTABLE, desc = "old epoch, old CL: the reset is not visible yet")
@Outcome(id = {"0, 0", "0, 2048"}, expect = ACCEPTABLE_INTERESTING,
    desc = "old epoch read before the reset, a new CL after: the next duty cycle sees the new epoch")
@Outcome(id = {"1, 0", "1, 2048"}, expect = ACCEPTABLE, desc = "new epoch with a CL of the new epoch")
@Outcome(expect = FORBIDDEN, desc = "new epoch with the CL from before the reset")
@State
public class CreditLimitsEpoch
{
    private static final int VL = 3;

    private final CreditLimits limits = new CreditLimits();

    public CreditLimitsEpoch()
    {
        limits.publish(VL, 3000);
    }

    /** The credit agent: the link comes up again, then the peer's first FCP. */
    @Actor
    public void creditAgent()
    {
        limits.reset();
        limits.publish(VL, 2048);
    }

    /** The arbiter's duty cycle: epoch first, then the CL. */
    @Actor
    public void arbiter(final II_Result r)
    {
        r.r1 = limits.epoch();
        r.r2 = limits.limit(VL);
    }
}
