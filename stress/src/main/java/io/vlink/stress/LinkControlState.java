package io.vlink.stress;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.Port;
import io.vlink.nic.agent.LinkControl;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The link-state word ({@link Port#linkState}): the credit agent enters Initialize (it first changes what the
 * state's entry changes: here a plain field, in the engine the credit epoch) and publishes it, then Armed; a
 * reader (the arbiter, the receive agent, the application) reads the state twice, then the field. It sees only
 * states the writer published, in order, and once it saw a state, what was written before its publication.
 * <p>
 * r1, r2 = the states read (0 Down, 1 Initialize, 2 Armed), r3 = the field (1027 = written).
 */
@JCStressTest
@Outcome(id = {"0, 0, 0", "0, 0, 1027"}, expect = ACCEPTABLE, desc = "Down still (the field may be seen early)")
@Outcome(id = {"0, 1, 1027", "0, 2, 1027", "1, 1, 1027", "1, 2, 1027", "2, 2, 1027"}, expect = ACCEPTABLE_INTERESTING,
    desc = "states published, in order, with what came before them")
@Outcome(expect = FORBIDDEN, desc = "a state without what was written before it, a state going back or never published")
@State
public class LinkControlState
{
    private final LinkControl control = new LinkControl();
    private int entered;

    /** The credit agent: enter Initialize, then Armed. */
    @Actor
    public void creditAgent()
    {
        entered = 1027;
        control.publishState(LinkState.INITIALIZE.code());
        control.publishState(LinkState.ARMED.code());
    }

    /** A reader: the state twice, then the field. */
    @Actor
    public void reader(final III_Result r)
    {
        r.r1 = control.state();
        r.r2 = control.state();
        r.r3 = entered;
    }
}
