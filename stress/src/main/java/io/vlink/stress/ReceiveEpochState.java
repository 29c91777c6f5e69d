package io.vlink.stress;

import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.LinkControl;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A re-training seen by the receive agent, which marks each report of stored blocks with the credit epoch it read
 * before the link state it admitted them by (docs/flow-control.md, "Link training", rule 6): the credit agent, Active,
 * publishes Down, then the new epoch ({@link CreditLimits#reset}), then Initialize; the receive agent reads the epoch,
 * then the state. A new epoch is never read with the Active state from before the re-training: blocks admitted by
 * that state would be counted in the new ABR.
 * <p>
 * r1 = the epoch seen, r2 = the state seen (0 Down, 1 Initialize, 3 Active).
 */
@JCStressTest
@Outcome(id = "0, 3", expect = ACCEPTABLE, desc = "the re-training not visible yet")
@Outcome(id = {"0, 0", "0, 1"}, expect = ACCEPTABLE_INTERESTING,
    desc = "the old epoch, then a state after it: admits nothing (Down and Initialize take no data)")
@Outcome(id = {"1, 0", "1, 1"}, expect = ACCEPTABLE, desc = "the new epoch with a state of the re-training")
@Outcome(expect = FORBIDDEN, desc = "the new epoch with the Active state from before it")
@State
public class ReceiveEpochState
{
    private final CreditLimits limits = new CreditLimits();
    private final LinkControl control = new LinkControl();

    public ReceiveEpochState()
    {
        control.publishState(LinkState.ACTIVE.code());
    }

    /** The credit agent re-trains: Down, the new credit epoch, Initialize. */
    @Actor
    public void creditAgent()
    {
        control.publishState(LinkState.DOWN.code());
        limits.reset();
        control.publishState(LinkState.INITIALIZE.code());
    }

    /** The receive agent's duty cycle: the epoch first, then the state. */
    @Actor
    public void receiveAgent(final II_Result r)
    {
        r.r1 = limits.epoch();
        r.r2 = control.state();
    }
}
