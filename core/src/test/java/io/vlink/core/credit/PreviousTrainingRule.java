package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * The link-training rule before issue 27's (docs/flow-control.md, "Link training: a peer that starts again"), as a
 * {@link LinkStateMachine} the checker puts inside a real {@link CreditControl} ({@link LinkTrainingConfig#previousRule}),
 * so that {@code LinkTrainingCheckTest} can require the checker to find that rule's ping-pong:
 * <ul>
 *   <li>an init FCP after a normal FCP was applied (Armed or Active) re-trains the port, Armed included;</li>
 *   <li>Initialize arms on the peer's init FCPs of every VL at once (whether or not this port has sent its own), or on
 *   a normal FCP once this port has sent an init FCP;</li>
 *   <li>nothing is owed and nothing is awaited: no init FCP is sent again for a peer that (re)starts, and a normal FCP
 *   arms a port that was Armed before as it arms any other.</li>
 * </ul>
 * The old rule's CreditControl kept "a normal FCP was applied" itself; here it is the normal FCPs this state machine
 * sees while Armed or Active (a stale one included, which the old code did not count). The wait-limit fallback of
 * today's CreditControl for an Armed port that hears only init FCPs (rule 4) still runs around it: it acts only after
 * the wait limit, long after the ping-pong.
 */
final class PreviousTrainingRule extends LinkStateMachine
{
    private final int everyVl;
    /** In Initialize the VLs whose init FCP arrived, in Armed those whose normal FCP arrived, since the state began. */
    private int vlsHeard;
    private boolean initFcpSent;
    private boolean peerArmed;

    PreviousTrainingRule(final int dataVls)
    {
        super(dataVls, true);
        everyVl = (1 << dataVls) - 1;
    }

    @Override
    public boolean up()
    {
        return entered(super.up());
    }

    @Override
    public boolean arm()
    {
        return entered(super.arm());
    }

    @Override
    public boolean activate()
    {
        return entered(super.activate());
    }

    @Override
    public boolean down()
    {
        return entered(super.down());
    }

    private boolean entered(final boolean moved)
    {
        if (moved)
        {
            vlsHeard = 0;
            initFcpSent = false;
            peerArmed &= state() == LinkState.ARMED || state() == LinkState.ACTIVE;
        }
        return moved;
    }

    @Override
    public boolean initOwed()
    {
        return false;
    }

    @Override
    public boolean peerRestarted(final int op)
    {
        return op == Fcp.OP_INIT && peerArmed;
    }

    @Override
    public boolean onFcpReceived(final int vl, final int op, final boolean retrainedBy)
    {
        final LinkState state = state();
        if (op == Fcp.OP_NORMAL && (state == LinkState.ARMED || state == LinkState.ACTIVE))
        {
            peerArmed = true;
        }
        if (state == LinkState.INITIALIZE)
        {
            if (op == Fcp.OP_NORMAL)
            {
                return initFcpSent && arm();
            }
            vlsHeard |= 1 << vl;
            return vlsHeard == everyVl && arm();
        }
        if (state == LinkState.ARMED && op == Fcp.OP_NORMAL)
        {
            vlsHeard |= 1 << vl;
            return vlsHeard == everyVl && activate();
        }
        return false;
    }

    @Override
    public boolean onFcpSent(final int op)
    {
        initFcpSent |= op == Fcp.OP_INIT && state() == LinkState.INITIALIZE;
        return false;
    }

    @Override
    public boolean onDataReceived()
    {
        return state() == LinkState.ARMED && activate();
    }
}
