package io.vlink.core.credit;

import io.vlink.core.wire.LrhFlyweight;

/**
 * Whether a data packet whose CRCs were good may enter its VL's receive buffer, by the link state and the port's
 * VLs (docs/flow-control.md): the rule every receiving port applies, a CA port's receive agent and a switch's input
 * port alike. Whether the buffer has room is the buffer's answer ({@link DiscardReason#DATA_OVERFLOW},
 * {@link DiscardReason#VL15_FULL}).
 */
public final class DataCheck
{
    /** {@link #admit} result: store the packet. */
    public static final int STORE = -1;
    /** The management VL: never credited. */
    public static final int VL15 = LrhFlyweight.VL15;

    private DataCheck()
    {
    }

    /**
     * @param state   the port's link state.
     * @param vl      the packet's LRH VL.
     * @param dataVls the port's data VLs.
     * @return {@link #STORE}, or the {@link DiscardReason#id()} to count: an SMP while Down ({@code VL15_STATE}), a
     * VL the port lacks ({@code DATA_MISSING_VL}), data before Armed ({@code DATA_STATE}).
     */
    public static int admit(final LinkState state, final int vl, final int dataVls)
    {
        if (VL15 == vl)
        {
            return state.isUp() ? STORE : DiscardReason.VL15_STATE.id();
        }
        if (vl >= dataVls)
        {
            return DiscardReason.DATA_MISSING_VL.id();
        }
        return state.mayReceiveData() ? STORE : DiscardReason.DATA_STATE.id();
    }
}
