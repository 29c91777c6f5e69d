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
 *   <li>Initialize -> Armed once an init FCP (Op 1) has arrived for every data VL (the transmitter now holds the
 *   peer's credit limit for each VL), or as soon as a normal FCP (Op 0) arrives after this port has sent an init FCP
 *   of its own ({@link #onInitFcpSent()}): the peer is already Armed and will send no more init FCPs. That FCP itself
 *   is still discarded, as Initialize takes only init FCPs. The init FCP must go first: a port taken down and up
 *   again while its peer stayed Armed or Active would otherwise be armed by the peer's next normal FCP, and the peer
 *   would never learn that this port's counters started again from zero; the init FCP, arriving after the peer has
 *   had normal ones from this port, tells it so, and the peer re-trains as well.</li>
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
    private boolean initFcpSent;
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
                return initFcpSent && enter(LinkState.ARMED);
            }
            fcpVlsSeen |= 1 << vl;
            return fcpVlsSeen == allVls && enter(LinkState.ARMED);
        }
        if (state == LinkState.ARMED && op == Fcp.OP_NORMAL)
        {
            fcpVlsSeen |= 1 << vl;
            return fcpVlsSeen == allVls && enter(LinkState.ACTIVE);
        }
        return false;
    }

    /**
     * This port sent an init FCP (the FCP's Op follows the state: Op 1 only in Initialize). Until it has, since it last
     * entered Initialize, a normal FCP from the peer does not arm it.
     */
    public void onInitFcpSent()
    {
        if (state == LinkState.INITIALIZE)
        {
            initFcpSent = true;
        }
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
        initFcpSent = false;
        return true;
    }
}
