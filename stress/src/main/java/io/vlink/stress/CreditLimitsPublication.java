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
 * Credit limits from the credit agent to the arbiter: the credit agent stores plain data (here the FCTBS of the FCP
 * it applied, in a plain field) and then publishes the VL's CL with release; the arbiter reads the CL with
 * acquire and then the data. Seeing the new CL implies seeing what was written before it.
 * <p>
 * r1 = the CL the arbiter saw, r2 = the plain data it saw after.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "nothing published yet")
@Outcome(id = "0, 1027", expect = ACCEPTABLE_INTERESTING, desc = "the data raced ahead of the CL: allowed")
@Outcome(id = "3073, 1027", expect = ACCEPTABLE, desc = "the CL and everything before it")
@Outcome(expect = FORBIDDEN, desc = "the new CL without the data written before it, or a torn CL")
@State
public class CreditLimitsPublication
{
    private static final int VL = 5;

    private final CreditLimits limits = new CreditLimits();
    private int data;

    /** The credit agent: plain data, then the CL (release). */
    @Actor
    public void creditAgent()
    {
        data = 1027;
        limits.publish(VL, 3073);
    }

    /** The arbiter: the CL (acquire), then the data. */
    @Actor
    public void arbiter(final II_Result r)
    {
        r.r1 = limits.limit(VL);
        r.r2 = data;
    }
}
