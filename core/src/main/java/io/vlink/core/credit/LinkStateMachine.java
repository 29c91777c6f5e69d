package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * The link state machine of one port: {@code Down -> Initialize -> Armed -> Active} (docs/flow-control.md,
 * "Link states"; IBA's LinkDown, LinkInitialize, LinkArm, LinkActive).
 * <p>
 * <b>Transitions.</b> Commands, as the physical layer and a subnet manager give them:
 * <ul>
 *   <li>{@link #up()}: Down -> Initialize (the physical link came up). Every credit counter starts from zero.</li>
 *   <li>{@link #arm()}: Initialize -> Armed (an SM's PortInfo Set to Armed).</li>
 *   <li>{@link #activate()}: Armed -> Active (an SM's PortInfo Set to Active).</li>
 *   <li>{@link #down()}: any state -> Down (on request or a fatal error).</li>
 * </ul>
 * Events, always on: the first data packet received in Armed moves the port to Active (IBA: the peer is Active,
 * so this side is too).
 * <p>
 * With {@code automatic} on (the default: two engines wired back to back have no SM), received FCPs also move the
 * port along, so both ends come up by themselves and neither can wait for the other forever. The link-training rule
 * (docs/flow-control.md, "Link training: a peer that starts again", rules 1 to 3) decides what may arm the port:
 * <ul>
 *   <li>Initialize -> Armed on the peer's init FCPs (Op 1) of every data VL since it last (re)started, or on one of its
 *   normal FCPs (Op 0: the peer is Armed already and sends no more init FCPs; the FCP itself is still discarded),
 *   but only once this port has sent the init FCP it owes ({@link #initOwed()}, {@link #onFcpSent}) and while it
 *   waits for no answer of the peer ({@link #await()}).</li>
 *   <li>Armed -> Active once a normal FCP has arrived for every data VL since this port was armed: the peer is
 *   Armed or Active, so it takes data. An init FCP while Armed (the peer initializes, still or again) starts the
 *   count again.</li>
 * </ul>
 * Only an Active port re-trains on the peer's init FCP ({@link #peerRestarted}).
 * <p>
 * Call {@link #onFcpReceived(int, int)} for every FCP with a good LPCRC, a defined Op and a VL the port has, and
 * {@link #onDataReceived()} for every data packet accepted. Single-threaded and allocation-free.
 * <p>
 * Not final for one reason: the model checker's test of itself runs the previous rule (a subclass in core's tests,
 * {@code PreviousTrainingRule}) inside a {@link CreditControl} and requires the checker to find that rule's
 * ping-pong. Nothing else extends it.
 */
public class LinkStateMachine
{
    /** {@link #peerOp()} before the peer has sent anything since this port entered Initialize. */
    public static final int PEER_UNKNOWN = -1;
    /** {@link #await()}: nothing to wait for. */
    public static final int AWAIT_NONE = 0;
    /** {@link #await()}: the peer's next init FCP ends the wait. */
    public static final int AWAIT_INIT = 1;
    /** {@link #await()}: only the peer initializing again (an init FCP after its normal ones) ends the wait. */
    public static final int AWAIT_RESTART = 2;

    private final int allVls;
    private final boolean automatic;
    private LinkState state = LinkState.DOWN;
    private int fcpVlsSeen;
    private boolean initOwed;
    private int peerOp = PEER_UNKNOWN;
    private int await;
    /** The peer sent a normal FCP while this port was Down (since it last went Down). */
    private boolean peerNormalWhileDown;
    private long ups;

    /**
     * @param dataVls   the port's data VLs: 1, 2, 4, 8 or 15.
     * @param automatic whether received FCPs arm and activate the port (see the class comment).
     */
    public LinkStateMachine(final int dataVls, final boolean automatic)
    {
        allVls = (1 << Credits.requireDataVls(dataVls)) - 1;
        this.automatic = automatic;
    }

    public LinkState state()
    {
        return state;
    }

    public boolean automatic()
    {
        return automatic;
    }

    /**
     * @return how many times the link has come up: a new value means every credit counter restarted from zero.
     */
    public long ups()
    {
        return ups;
    }

    /**
     * @return whether this port, in Initialize, still owes its peer an init FCP: from entering Initialize, and again
     * from each time the peer is seen to (re)start, until one goes out ({@link #onFcpSent}). It does not arm
     * meanwhile.
     */
    public boolean initOwed()
    {
        return initOwed;
    }

    /**
     * @return the Op of the last FCP the peer sent since this port entered Initialize ({@link Fcp#OP_INIT},
     * {@link Fcp#OP_NORMAL}: a data packet counts as normal), or {@link #PEER_UNKNOWN}.
     */
    public int peerOp()
    {
        return peerOp;
    }

    /**
     * @return whether this port has sent normal FCPs since it last heard its peer initialize while it initialized
     * itself: the peer may still hold it as Armed or Active and count in its previous incarnation, so it will answer
     * this port's init FCPs with its own, and until then its normal FCPs do not arm this port. Kept across
     * re-initializations.
     */
    public boolean awaitsPeerInit()
    {
        return await != AWAIT_NONE;
    }

    /**
     * @return what ends the wait: {@link #AWAIT_NONE}, {@link #AWAIT_INIT} or {@link #AWAIT_RESTART}.
     */
    public int await()
    {
        return await;
    }

    /**
     * The peer has been heard only in init FCPs, for rule 4's window and two rounds of every VL or for the wait limit,
     * while this port initialized and awaited its init (docs/flow-control.md, "Link training", rule 6): it is
     * initializing too, and holds nothing of this port's earlier incarnations. The wait ends.
     */
    public void peerInitializesToo()
    {
        if (state == LinkState.INITIALIZE)
        {
            await = AWAIT_NONE;
        }
    }

    /**
     * This port re-initialized because its peer sent only init FCPs for the silence limit while this port was Armed:
     * the peer took nothing of this port, and its next change of Op answers this port's new incarnation.
     */
    public void peerWaitedForInit()
    {
        if (state == LinkState.INITIALIZE)
        {
            await = AWAIT_INIT;
        }
    }

    /**
     * Down -> Initialize.
     *
     * @return true if the state changed.
     */
    public boolean up()
    {
        if (state == LinkState.DOWN)
        {
            ups++;
            return enter(LinkState.INITIALIZE);
        }
        return false;
    }

    /**
     * Initialize -> Armed.
     *
     * @return true if the state changed.
     */
    public boolean arm()
    {
        return state == LinkState.INITIALIZE && enter(LinkState.ARMED);
    }

    /**
     * Armed -> Active.
     *
     * @return true if the state changed.
     */
    public boolean activate()
    {
        return state == LinkState.ARMED && enter(LinkState.ACTIVE);
    }

    /**
     * Any state -> Down, on request or a fatal error.
     *
     * @return true if the state changed.
     */
    public boolean down()
    {
        return state != LinkState.DOWN && enter(LinkState.DOWN);
    }

    /**
     * Whether an FCP with this Op, arriving now, makes the port re-train: an init FCP while Active, after the peer's
     * normal FCPs (the peer went back to Initialize, and this port may have sent data counted against its previous
     * incarnation's credit). An automatic port is Active only after the peer's normal FCPs or data; a port a subnet
     * manager activated before it heard any takes the peer's init FCPs still on their way as Initialize takes them
     * (this port has had no credit but theirs). The caller
     * re-trains the port (a link error) and then hands the FCP to {@link #onFcpReceived} with {@code retrainedBy}. An
     * Armed port has sent no data: it applies the init FCP and arms again; in Initialize the same news only asks this
     * port for its init FCP again ({@link #initOwed()}): its counters are new already.
     *
     * @param op the FCP's Op.
     * @return true if the port must re-train.
     */
    public boolean peerRestarted(final int op)
    {
        return op == Fcp.OP_INIT && state == LinkState.ACTIVE && peerOp == Fcp.OP_NORMAL;
    }

    /**
     * An FCP arrived with a good LPCRC, a defined Op and a VL the port has (whether or not the state lets it be
     * applied), after {@link #peerRestarted} was acted on.
     *
     * @param vl the FCP's VL.
     * @param op the FCP's Op.
     * @return true if the state changed.
     */
    public boolean onFcpReceived(final int vl, final int op)
    {
        return onFcpReceived(vl, op, false);
    }

    /**
     * @param vl         the FCP's VL.
     * @param op         the FCP's Op.
     * @param retrainedBy whether this FCP made the port re-train just now ({@link #peerRestarted}): the peer sent it
     *                   before it could know this port's new incarnation, so it is no answer to wait for.
     * @return true if the state changed.
     */
    public boolean onFcpReceived(final int vl, final int op, final boolean retrainedBy)
    {
        if (state == LinkState.DOWN)
        {
            peerNormalWhileDown |= Fcp.OP_NORMAL == op;
            return false;
        }
        if (retrainedBy)
        {
            // The FCP that made this port re-train was sent before the peer could know of this port's new incarnation:
            // it tells nothing about what the peer will do with it (the re-training's entry owes the peer an init FCP).
            // The peer may arm on this port's normal FCPs sent before the re-training, and its init FCPs asked for
            // before it heard of this incarnation may still be on their way (behind a full link): only its own
            // re-initialization after its normal FCPs is an answer (docs/flow-control.md, rule 3).
            await = AWAIT_RESTART;
            return false;
        }
        final int previous = peerOp;
        peerOp = op;
        if (state == LinkState.INITIALIZE)
        {
            if (op == Fcp.OP_INIT && (previous == Fcp.OP_NORMAL || await == AWAIT_INIT ||
                PEER_UNKNOWN == previous && peerNormalWhileDown))
            {
                // the peer initialized again after its normal FCPs; or, if this port saw it Armed when it last announced
                // itself, the peer initializes: it re-trained on this port's init FCP, or it waits itself
                await = AWAIT_NONE;
            }
            if (op == Fcp.OP_INIT && previous != Fcp.OP_INIT)
            {
                // its first init FCP since this port entered Initialize, or one after its normal ones: it (re)started,
                // and this port's init FCPs sent so far may have reached its previous incarnation. Announce again;
                // the init FCPs seen before were its previous incarnation's.
                initOwed = true;
                fcpVlsSeen = 0;
            }
        }
        if (!automatic)
        {
            return false;
        }
        if (state == LinkState.INITIALIZE)
        {
            if (op == Fcp.OP_NORMAL)
            {
                // the peer is Armed or Active and waits for this port: it arms, unless the peer may be counting this
                // port's previous incarnation (it will initialize again on this port's init FCP and say so first)
                return !initOwed && AWAIT_NONE == await && enter(LinkState.ARMED);
            }
            fcpVlsSeen |= 1 << vl;
            return fcpVlsSeen == allVls && !initOwed && AWAIT_NONE == await && enter(LinkState.ARMED);
        }
        if (state == LinkState.ARMED && op == Fcp.OP_NORMAL)
        {
            fcpVlsSeen |= 1 << vl;
            return fcpVlsSeen == allVls && enter(LinkState.ACTIVE);
        }
        if (state == LinkState.ARMED)
        {
            // an init FCP: the peer (still or again) initializes, and must arm before this port goes Active
            fcpVlsSeen = 0;
        }
        return false;
    }

    /**
     * This port sent an FCP (the Op follows the state: 1 in Initialize, 0 in Armed and Active).
     *
     * @param op the FCP's Op.
     * @return true if the state changed: an init FCP was all an Initialize port that had the peer's init FCPs of every
     * VL still owed, and it arms.
     */
    public boolean onFcpSent(final int op)
    {
        if (op == Fcp.OP_NORMAL)
        {
            if (state == LinkState.ARMED || state == LinkState.ACTIVE)
            {
                // the peer may hold this incarnation as Armed from now on; if it has not armed yet, its arming will
                // answer this incarnation and tells a later one nothing
                await = Fcp.OP_NORMAL == peerOp ? AWAIT_INIT : AWAIT_RESTART;
            }
            return false;
        }
        if (state != LinkState.INITIALIZE)
        {
            return false;
        }
        initOwed = false;
        // armed on the peer's init FCPs of every VL, or on its normal FCP seen while the init FCP was owed
        return automatic && (fcpVlsSeen == allVls || Fcp.OP_NORMAL == peerOp) && AWAIT_NONE == await &&
            enter(LinkState.ARMED);
    }

    /**
     * A data packet was accepted: the peer is Active.
     *
     * @return true if the state changed (Armed -> Active).
     */
    public boolean onDataReceived()
    {
        if (state == LinkState.ARMED || state == LinkState.ACTIVE)
        {
            peerOp = Fcp.OP_NORMAL;
        }
        return state == LinkState.ARMED && enter(LinkState.ACTIVE);
    }

    private boolean enter(final LinkState next)
    {
        state = next;
        fcpVlsSeen = 0;
        if (next == LinkState.INITIALIZE || next == LinkState.DOWN)
        {
            initOwed = next == LinkState.INITIALIZE;
            peerOp = PEER_UNKNOWN;
            if (next == LinkState.DOWN)
            {
                peerNormalWhileDown = false;
            }
        }
        return true;
    }
}
