package io.vlink.stress;

import io.vlink.nic.fabric.Switch;
import io.vlink.nic.fabric.SwitchPause;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The pause's end ({@link SwitchPause}): the switches are paused and the pause acknowledged; the caller changes a
 * switch's state (a plain field written, as {@code Switch.down} would), then resumes; the switch thread looks at the
 * request at the top of a duty cycle and, when it may run, reads the field. A duty cycle that runs after the pause
 * sees everything the caller wrote during it; while the pause stands, none runs.
 * <p>
 * r1 = the switch thread held (1) or ran its duty cycle (0); r2 = the field its duty cycle read (-1 when it held).
 */
@JCStressTest
@Outcome(id = "1, -1", expect = ACCEPTABLE, desc = "still paused: no duty cycle")
@Outcome(id = "0, 1027", expect = ACCEPTABLE_INTERESTING, desc = "resumed: the duty cycle sees the caller's write")
@Outcome(expect = FORBIDDEN, desc = "a duty cycle without the caller's write made during the pause")
@State
public class SwitchPauseResume
{
    private final SwitchPause pause = new SwitchPause();
    private int switchState;

    public SwitchPauseResume()
    {
        pause.pause();
        pause.hold();
    }

    /** The caller, with the pause acknowledged: act on the switch, then resume. */
    @Actor
    public void caller()
    {
        switchState = 1027;
        pause.resume();
    }

    /** The switch thread: the top of a duty cycle, then the duty cycle reads the switch's state. */
    @Actor
    public void switchThread(final II_Result r)
    {
        if (pause.hold())
        {
            r.r1 = 1;
            r.r2 = -1;
        }
        else
        {
            r.r1 = 0;
            r.r2 = switchState;
        }
    }
}
