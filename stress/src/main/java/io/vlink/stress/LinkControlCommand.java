package io.vlink.stress;

import io.vlink.nic.agent.LinkControl;
import io.vlink.nic.agent.PortDatapath;
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
 * The command word ({@link Port#up}, {@link Port#down}): the application asks the link up, then down; the credit
 * agent takes commands twice meanwhile, and once more after both. The latest command (down) is taken exactly once
 * and nothing after it; up is taken at most once, before down; a command is never made up.
 * <p>
 * r1, r2 = the credit agent's takes, r3 = the take after both (0 = none, 1 = up, 2 = down).
 */
@JCStressTest
@Outcome(id = {"0, 0, 2", "0, 2, 0", "2, 0, 0"}, expect = ACCEPTABLE, desc = "down taken once (up overwritten before any take)")
@Outcome(id = {"1, 0, 2", "1, 2, 0", "0, 1, 2"}, expect = ACCEPTABLE_INTERESTING, desc = "up taken, then down, once each")
@Outcome(expect = FORBIDDEN, desc = "a command lost, taken twice, taken out of order or made up")
@State
public class LinkControlCommand
{
    private final LinkControl control = new LinkControl();

    /** The application. */
    @Actor
    public void application()
    {
        control.command(PortDatapath.COMMAND_UP);
        control.command(PortDatapath.COMMAND_DOWN);
    }

    /** The credit agent: two duty cycles. */
    @Actor
    public void creditAgent(final III_Result r)
    {
        r.r1 = control.takeCommand();
        r.r2 = control.takeCommand();
    }

    /** The credit agent's next duty cycle, after both. */
    @Arbiter
    public void after(final III_Result r)
    {
        r.r3 = control.takeCommand();
    }
}
