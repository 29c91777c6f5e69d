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
 * port along, so both ends come up by themselves and neither can wait for the other forever:
 * <ul>
 *   <li>Initialize -> Armed once this port has sent its own init FCP (Op 1) on every data VL
 *   ({@link #onInitFcpSent(int)}) and either an init FCP has arrived for every data VL (the transmitter now holds the
 *   peer's credit limit for each VL), or a normal FCP (Op 0) has arrived after this port's first init FCP: the peer
 *   is already Armed and will send no more init FCPs. That FCP itself is still discarded, as Initialize takes only
 *   init FCPs. The init FCPs must go first, on every VL: a port taken down and up again while its peer stayed Armed
 *   or Active would otherwise be armed by the peer's next FCPs, and the peer would never learn that this port's
 *   counters started again from zero; the init FCP, arriving after the peer has had normal ones from this port,
 *   tells it so, and the peer re-trains as well. A port armed by a normal FCP awaits that re-training's answer
 *   ({@link #awaitsPeerAnswer()}).</li>
 *   <li>Armed -> Active once a normal FCP has arrived for every data VL since this port was armed: the peer is
 *   Armed or Active, so it takes data.</li>
 * </ul>
 * Call {@link #onFcpReceived(int, int)} for every FCP with a good LPCRC, a defined Op and a VL the port has, and
 * {@link #onDataReceived()} for every data packet accepted. Single-threaded and allocation-free.
 */
public final class LinkStateMachine
{
    private final int allVls;
    private final boolean automatic;
    private LinkState state = LinkState.DOWN;
    private int fcpVlsSeen;
    // in Initialize: the VLs this port sent an init FCP on, and whether a normal FCP of the peer came after the first
    private int initVlsSent;
    private boolean normalFcpSeen;
    // armed by a normal FCP after this port's own init FCP, since it last entered Initialize: the peer may re-train on
    // that init FCP, and its init FCPs would then be its answer
    private boolean awaitsPeerAnswer;
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
     * An FCP arrived with a good LPCRC, a defined Op and a VL the port has (whether or not the state lets it be
     * applied).
     *
     * @param vl the FCP's VL.
     * @param op the FCP's Op.
     * @return true if the state changed.
     */
    public boolean onFcpReceived(final int vl, final int op)
    {
        if (!automatic)
        {
            return false;
        }
        if (state == LinkState.INITIALIZE)
        {
            if (op == Fcp.OP_NORMAL)
            {
                if (0 == initVlsSent)
                {
                    return false;
                }
                normalFcpSeen = true;
            }
            else
            {
                fcpVlsSeen |= 1 << vl;
            }
            return armIfAnnounced();
        }
        if (state == LinkState.ARMED && op == Fcp.OP_NORMAL)
        {
            fcpVlsSeen |= 1 << vl;
            return fcpVlsSeen == allVls && enter(LinkState.ACTIVE);
        }
        return false;
    }

    /**
     * This port sent an init FCP for a VL (the FCP's Op follows the state: Op 1 only in Initialize). Until it has,
     * since it last entered Initialize, a normal FCP from the peer does not arm it; and until it has sent one for
     * every data VL, nothing arms it: every initialization is announced on every VL before this port's FCPs turn
     * normal, so a peer that still counts this port's previous incarnation learns of the new one on each VL.
     *
     * @param vl the FCP's VL.
     * @return true if the state changed (Initialize -> Armed: the peer's FCPs that arm it had arrived first).
     */
    public boolean onInitFcpSent(final int vl)
    {
        if (state == LinkState.INITIALIZE)
        {
            initVlsSent |= 1 << vl;
            return automatic && armIfAnnounced();
        }
        return false;
    }

    /**
     * Initialize -> Armed once this port's init FCPs went out on every VL and either the peer's init FCPs arrived on
     * every VL, or one of its normal FCPs did after this port's first init FCP (the shortcut: the peer is Armed
     * already, and the port then awaits its answer, {@link #awaitsPeerAnswer()}).
     */
    private boolean armIfAnnounced()
    {
        if (initVlsSent != allVls)
        {
            return false;
        }
        if (fcpVlsSeen == allVls)
        {
            return enter(LinkState.ARMED);
        }
        if (normalFcpSeen)
        {
            enter(LinkState.ARMED);
            awaitsPeerAnswer = true;
            return true;
        }
        return false;
    }

    /**
     * Whether this port was armed by a normal FCP that arrived after its own init FCP (not by the peer's init FCPs),
     * since it last entered Initialize, and has not had the peer's answer yet. Such a normal FCP may come from a peer
     * that still counts this port's previous incarnation: the init FCP this port sent makes that peer re-train, and
     * the init FCPs the peer then sends are its answer, not a sign that it initialized once more.
     *
     * @return true until {@link #onPeerAnswer()} or the next Initialize.
     */
    public boolean awaitsPeerAnswer()
    {
        return awaitsPeerAnswer;
    }

    /**
     * The peer's answer arrived (see {@link #awaitsPeerAnswer()}): an init FCP from the peer is again a sign that it
     * initialized.
     */
    public void onPeerAnswer()
    {
        awaitsPeerAnswer = false;
    }

    /**
     * A data packet was accepted.
     *
     * @return true if the state changed (Armed -> Active).
     */
    public boolean onDataReceived()
    {
        return state == LinkState.ARMED && enter(LinkState.ACTIVE);
    }

    private boolean enter(final LinkState next)
    {
        state = next;
        fcpVlsSeen = 0;
        initVlsSent = 0;
        normalFcpSeen = false;
        if (LinkState.DOWN == next || LinkState.INITIALIZE == next)
        {
            awaitsPeerAnswer = false;
        }
        return true;
    }
}
