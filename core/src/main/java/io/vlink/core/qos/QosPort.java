package io.vlink.core.qos;

/**
 * What OpenSM reads from a port before it programs the port's QoS tables (docs/qos.md): the port's VL capability
 * ({@code VLCap}), its neighbour's, and how many entries its two VLArbitration tables hold ({@code VLArbLowCap},
 * {@code VLArbHighCap}). Immutable.
 * <p>
 * {@link #vlink()} is a vlink port: 15 data VLs, tables of 8 entries (what ConnectX adapters and ibsim's ports
 * report), its neighbour a vlink port too.
 */
public final class QosPort
{
    /** The most entries a VLArbitration table holds. */
    public static final int MAX_CAP = 64;

    private static final int[] VL_COUNTS = {1, 2, 4, 8, 15};

    private final int vlCap;
    private final int peerVlCap;
    private final int lowCap;
    private final int highCap;

    private QosPort(final int vlCap, final int peerVlCap, final int lowCap, final int highCap)
    {
        this.vlCap = checkVls(vlCap, "VL capability");
        this.peerVlCap = checkVls(peerVlCap, "neighbour's VL capability");
        this.lowCap = checkCap(lowCap, "VLArbLowCap");
        this.highCap = checkCap(highCap, "VLArbHighCap");
    }

    /**
     * @return a vlink port: VLCap 15 (VL0-14), a neighbour of the same, tables of 8 entries.
     */
    public static QosPort vlink()
    {
        return new QosPort(15, 15, 8, 8);
    }

    /**
     * @param vls the port's VL capability: 1, 2, 4, 8 or 15 data VLs.
     * @return this port with that capability.
     */
    public QosPort vlCap(final int vls)
    {
        return new QosPort(vls, peerVlCap, lowCap, highCap);
    }

    /**
     * @param vls the neighbour's VL capability: 1, 2, 4, 8 or 15 data VLs.
     * @return this port with that neighbour.
     */
    public QosPort peerVlCap(final int vls)
    {
        return new QosPort(vlCap, vls, lowCap, highCap);
    }

    /**
     * @param low  entries of the low-priority table, 1..64.
     * @param high entries of the high-priority table, 1..64.
     * @return this port with those capacities.
     */
    public QosPort caps(final int low, final int high)
    {
        return new QosPort(vlCap, peerVlCap, low, high);
    }

    public int vlCap()
    {
        return vlCap;
    }

    public int peerVlCap()
    {
        return peerVlCap;
    }

    public int lowCap()
    {
        return lowCap;
    }

    public int highCap()
    {
        return highCap;
    }

    /**
     * OpenSM's {@code osm_physp_calc_link_op_vls}: the lower of the two ends' VL capability, then no more than
     * {@code max_op_vls} (both as PortInfo codes: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14).
     *
     * @param maxOpVls OpenSM's {@code max_op_vls}, 1..255 (above 5 it limits nothing).
     * @return the operational data VLs: 1, 2, 4, 8 or 15.
     */
    public int operationalVls(final int maxOpVls)
    {
        final int code = Math.max(1, Math.min(Math.min(code(vlCap), code(peerVlCap)), maxOpVls));
        return VL_COUNTS[code - 1];
    }

    /**
     * @param vls 1, 2, 4, 8 or 15.
     * @return its PortInfo code (OperationalVLs, VLCap): 1..5.
     */
    static int code(final int vls)
    {
        for (int i = 0; i < VL_COUNTS.length; i++)
        {
            if (VL_COUNTS[i] == vls)
            {
                return i + 1;
            }
        }
        throw new IllegalArgumentException("a port has 1, 2, 4, 8 or 15 data VLs, got " + vls);
    }

    private static int checkVls(final int vls, final String what)
    {
        if (!QosConfig.isDataVlCount(vls))
        {
            throw new IllegalArgumentException(what + " must be 1, 2, 4, 8 or 15 data VLs, got " + vls);
        }
        return vls;
    }

    private static int checkCap(final int cap, final String what)
    {
        if (cap < 1 || cap > MAX_CAP)
        {
            throw new IllegalArgumentException(what + " must be 1.." + MAX_CAP + ", got " + cap);
        }
        return cap;
    }

    @Override
    public String toString()
    {
        return "QosPort{vlCap=" + vlCap + ", peerVlCap=" + peerVlCap + ", lowCap=" + lowCap + ", highCap=" + highCap + '}';
    }
}
