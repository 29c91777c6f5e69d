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
 * The arbiter never sees a VL's credit limit go back: the credit agent publishes two successive FCCLs, the
 * arbiter reads the CL twice; once it saw the second, it never reads the first again (a CL moving back would
 * take away credit it already used, and a 12-bit distance can then read as "far ahead").
 * <p>
 * r1, r2 = the two CLs read (100 before anything, then 200, then 300).
 */
@JCStressTest
@Outcome(id = {"100, 100", "200, 200", "300, 300"}, expect = ACCEPTABLE, desc = "the same CL twice")
@Outcome(id = {"100, 200", "100, 300", "200, 300"}, expect = ACCEPTABLE_INTERESTING, desc = "moved forward in between")
@Outcome(expect = FORBIDDEN, desc = "the CL went back, or a value never published")
@State
public class CreditLimitsCoherence
{
    private static final int VL = 0;

    private final CreditLimits limits = new CreditLimits();

    public CreditLimitsCoherence()
    {
        limits.publish(VL, 100);
    }

    /** The credit agent: two FCPs in a row. */
    @Actor
    public void creditAgent()
    {
        limits.publish(VL, 200);
        limits.publish(VL, 300);
    }

    /** The arbiter: two credit checks in a row. */
    @Actor
    public void arbiter(final II_Result r)
    {
        r.r1 = limits.limit(VL);
        r.r2 = limits.limit(VL);
    }
}
