package io.vlink.stress;

import io.vlink.nic.fabric.SwitchPause;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The pause's acknowledgement ({@link SwitchPause}): the switch thread runs a duty cycle (a plain field written), then
 * looks at the request at the top of its next; the caller asks for a pause, then looks for the acknowledgement and,
 * when it saw it, reads the field. A caller that saw the acknowledgement sees everything the duty cycles before it
 * wrote, and an acknowledgement is never made up.
 * <p>
 * r1 = the switch thread held (1) or ran its duty cycle (0); r2 = the caller saw the acknowledgement; r3 = the field
 * the caller read.
 */
@JCStressTest
@Outcome(id = {"0, 0, 0", "0, 0, 1027", "1, 0, 0", "1, 0, 1027"}, expect = ACCEPTABLE,
    desc = "not acknowledged yet: the caller waits (whatever it read is not used)")
@Outcome(id = "1, 1, 1027", expect = ACCEPTABLE_INTERESTING,
    desc = "held and acknowledged, the duty cycle's write seen")
@Outcome(expect = FORBIDDEN, desc = "acknowledged without the duty cycle's write, or without the switch thread holding")
@State
public class SwitchPauseAcknowledge
{
    private final SwitchPause pause = new SwitchPause();
    private int switchState;

    /** The switch thread: a duty cycle, then the top of the next. */
    @Actor
    public void switchThread(final III_Result r)
    {
        switchState = 1027;
        r.r1 = pause.hold() ? 1 : 0;
    }

    /** The caller: pause, then inspect once acknowledged. */
    @Actor
    public void caller(final III_Result r)
    {
        pause.pause();
        r.r2 = pause.acknowledged() ? 1 : 0;
        r.r3 = switchState;
    }
}
