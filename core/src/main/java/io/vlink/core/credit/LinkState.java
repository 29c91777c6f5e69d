package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * The link layer's states (docs/flow-control.md, "Link states"): {@code Down -> Initialize -> Armed ->
 * Active}, and what each lets through.
 * <table>
 *   <caption>What passes in each state</caption>
 *   <tr><th>state</th><th>sends</th><th>receives</th></tr>
 *   <tr><td>DOWN</td><td>nothing</td><td>nothing</td></tr>
 *   <tr><td>INITIALIZE</td><td>VL15, init FCPs (Op 1)</td><td>VL15, init FCPs</td></tr>
 *   <tr><td>ARMED</td><td>VL15, normal FCPs (Op 0)</td><td>VL15, FCPs, data</td></tr>
 *   <tr><td>ACTIVE</td><td>everything (normal FCPs)</td><td>everything</td></tr>
 * </table>
 */
public enum LinkState
{
    DOWN(0, -1, false, false),
    INITIALIZE(1, Fcp.OP_INIT, false, false),
    ARMED(2, Fcp.OP_NORMAL, false, true),
    ACTIVE(3, Fcp.OP_NORMAL, true, true);

    private static final LinkState[] BY_CODE = values();

    private final int code;
    private final int fcpOp;
    private final boolean maySendData;
    private final boolean mayReceiveData;

    LinkState(final int code, final int fcpOp, final boolean maySendData, final boolean mayReceiveData)
    {
        this.code = code;
        this.fcpOp = fcpOp;
        this.maySendData = maySendData;
        this.mayReceiveData = mayReceiveData;
    }

    /**
     * @return a stable code for counters and shared memory: 0 Down, 1 Initialize, 2 Armed, 3 Active.
     */
    public int code()
    {
        return code;
    }

    /**
     * @param code a {@link #code()}.
     * @return the state.
     */
    public static LinkState get(final int code)
    {
        return BY_CODE[code];
    }

    /**
     * @return the Op of the FCPs this state sends: 1 in Initialize, 0 in Armed and Active, -1 when Down (none).
     */
    public int fcpOp()
    {
        return fcpOp;
    }

    public boolean maySendData()
    {
        return maySendData;
    }

    public boolean mayReceiveData()
    {
        return mayReceiveData;
    }

    /**
     * @return true for VL15 in both directions and for sending FCPs: every state but Down.
     */
    public boolean isUp()
    {
        return fcpOp >= 0;
    }

    /**
     * @param op a defined FCP Op (0 or 1).
     * @return true if an FCP with this Op may be received: init FCPs in every state but Down (a peer still in
     * Initialize sends them while this port is already Armed), normal FCPs in Armed and Active.
     */
    public boolean mayReceiveFcp(final int op)
    {
        return fcpOp == Fcp.OP_NORMAL || (fcpOp == Fcp.OP_INIT && op == Fcp.OP_INIT);
    }
}
