package io.vlink.core.credit;

/**
 * The link layer's states (spec {@code flow-control.md}, "Link states"): {@code Down -> Initialize -> Armed ->
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
    DOWN(0),
    INITIALIZE(1),
    ARMED(2),
    ACTIVE(3);

    private static final LinkState[] BY_CODE = values();

    private final int code;

    LinkState(final int code)
    {
        this.code = code;
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
        switch (this)
        {
            case INITIALIZE:
                return FcpWord.OP_INIT;
            case ARMED:
            case ACTIVE:
                return FcpWord.OP_NORMAL;
            default:
                return -1;
        }
    }

    public boolean maySendData()
    {
        return this == ACTIVE;
    }

    public boolean mayReceiveData()
    {
        return this == ARMED || this == ACTIVE;
    }

    /**
     * @return true for VL15 in both directions and for sending FCPs: every state but Down.
     */
    public boolean isUp()
    {
        return this != DOWN;
    }

    /**
     * @param op a defined FCP Op (0 or 1).
     * @return true if an FCP with this Op may be received: init FCPs in every state but Down (a peer still in
     * Initialize sends them while this port is already Armed), normal FCPs in Armed and Active.
     */
    public boolean mayReceiveFcp(final int op)
    {
        return this == INITIALIZE ? op == FcpWord.OP_INIT : this != DOWN;
    }
}
