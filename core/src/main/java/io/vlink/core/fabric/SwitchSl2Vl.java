package io.vlink.core.fabric;

import io.vlink.core.qos.QosConfig;

/**
 * A switch's SL-to-VL map per (input port, output port) pair, from OpenSM's switch options: {@code qos_swe_sl2vl}
 * for every pair whose output is an external port, {@code qos_sw0_sl2vl} when the output is port 0. A packet whose SL
 * maps to VL15, or to a VL the output port does not operate, is discarded ({@link #DISCARD}); the switch counts it
 * as {@code discards_sl2vl}.
 * <p>
 * The map is a table of bytes indexed by (input, output, SL), so a lookup is one load whatever the pair.
 */
public final class SwitchSl2Vl
{
    /** The packet cannot go out: its SL maps to VL15 or to a VL the output port does not operate. */
    public static final int DISCARD = -1;

    private final int ports;
    private final byte[] vl;

    /**
     * @param ports       the switch's ports, port 0 included (N + 1).
     * @param external    the QoS of external ports ({@code qos_swe_*}).
     * @param management  the QoS of port 0 ({@code qos_sw0_*}).
     * @param operational the data VLs each output port operates (index: port).
     */
    public SwitchSl2Vl(final int ports, final QosConfig external, final QosConfig management, final int[] operational)
    {
        if (operational.length != ports)
        {
            throw new IllegalArgumentException("operational VLs for " + operational.length + " ports, expected " + ports);
        }
        this.ports = ports;
        this.vl = new byte[ports * ports * QosConfig.SL_COUNT];
        for (int in = 0; in < ports; in++)
        {
            for (int out = 0; out < ports; out++)
            {
                final QosConfig qos = out == 0 ? management : external;
                for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
                {
                    final int mapped = qos.sl2vl(sl);
                    vl[(in * ports + out) * QosConfig.SL_COUNT + sl] =
                        (byte)(mapped >= operational[out] ? DISCARD : mapped);
                }
            }
        }
    }

    /**
     * @param in  the input port.
     * @param out the output port the forwarding table chose.
     * @param sl  the packet's SL (LRH).
     * @return the VL it leaves on, or {@link #DISCARD}.
     */
    public int map(final int in, final int out, final int sl)
    {
        return vl[(in * ports + out) * QosConfig.SL_COUNT + sl];
    }
}
