package io.vlink.core.qos;

import java.util.Locale;

/**
 * Prints effective QoS tables exactly as {@code smpquery vlarb} and {@code smpquery sl2vl} print a port's
 * (docs/qos.md), so operators can compare them with what real hardware reports.
 */
public final class SmpqueryFormat
{
    /** smpquery prints a table in blocks of 32 entries. */
    private static final int BLOCK_ENTRIES = 32;

    private SmpqueryFormat()
    {
    }

    /**
     * Appends {@code smpquery vlarb}'s output for tables as OpenSM programmed them: each table's size is the port's
     * capacity for it (LowCap, HighCap).
     *
     * @param out    where to append.
     * @param config the configuration.
     * @param port   what smpquery names in the header: {@code Lid 2 port 1}.
     * @return {@code out}.
     */
    public static StringBuilder vlarb(final StringBuilder out, final QosConfig config, final String port)
    {
        return vlarb(out, config, port, config.low().size(), config.high().size());
    }

    /**
     * Appends {@code smpquery vlarb}'s output.
     *
     * @param out     where to append.
     * @param config  the configuration.
     * @param port    the port's name in the header (smpquery prints the LID and port there).
     * @param lowCap  entries of the low table to show (at least its entry count, at most 64).
     * @param highCap entries of the high table to show (at least its entry count, at most 64).
     * @return {@code out}.
     */
    public static StringBuilder vlarb(
        final StringBuilder out, final QosConfig config, final String port, final int lowCap, final int highCap)
    {
        checkCap(config.low(), lowCap, "low");
        checkCap(config.high(), highCap, "high");
        out.append("# VLArbitration tables: ").append(port).append(" LowCap ").append(lowCap)
            .append(" HighCap ").append(highCap).append('\n');
        table(out, "Low", config.low(), lowCap);
        table(out, "High", config.high(), highCap);
        return out;
    }

    /**
     * Appends {@code smpquery sl2vl}'s output for a channel adapter port: one row, {@code in 0, out 0}.
     *
     * @param out    where to append.
     * @param config the configuration.
     * @param port   the port's name in the header.
     * @return {@code out}.
     */
    public static StringBuilder sl2vl(final StringBuilder out, final QosConfig config, final String port)
    {
        return sl2vl(out, config, port, 0, 0);
    }

    /**
     * Appends {@code smpquery sl2vl}'s output for a switch's output port: a row per input port 0..N, each the table
     * OpenSM programs for that (input, output) pair (one table for every pair, masked to the output port's VLs).
     *
     * @param out     where to append.
     * @param config  the output port's configuration.
     * @param header  what smpquery names in the header: {@code Lid 1}.
     * @param inPorts the highest input port N (0 for a channel adapter).
     * @param outPort the output port.
     * @return {@code out}.
     */
    public static StringBuilder sl2vl(
        final StringBuilder out, final QosConfig config, final String header, final int inPorts, final int outPort)
    {
        out.append("# SL2VL table: ").append(header).append('\n');
        out.append("#                 SL: ");
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            out.append('|').append(pad2(Integer.toString(sl), true));
        }
        out.append("|\n");
        for (int in = 0; in <= inPorts; in++)
        {
            out.append("ports: in ").append(pad2(Integer.toString(in), true)).append(", out ")
                .append(pad2(Integer.toString(outPort), true)).append(": ");
            for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
            {
                out.append('|').append(pad2(Integer.toString(config.sl2vl(sl)), true));
            }
            out.append("|\n");
        }
        return out;
    }

    private static void checkCap(final VlArbTable table, final int cap, final String name)
    {
        if (cap < table.size() || cap > VlArbTable.MAX_ENTRIES)
        {
            throw new IllegalArgumentException("the " + name + " table has " + table.size() + " entries: its cap must " +
                "be " + table.size() + ".." + VlArbTable.MAX_ENTRIES + ", got " + cap);
        }
    }

    private static void table(final StringBuilder out, final String name, final VlArbTable table, final int cap)
    {
        out.append("# ").append(name).append(" priority VL Arbitration Table:\n");
        for (int block = 0; block * BLOCK_ENTRIES < cap; block++)
        {
            if (block > 0)
            {
                out.append('\n');
            }
            final int from = block * BLOCK_ENTRIES;
            final int to = Math.min(cap, from + BLOCK_ENTRIES);
            out.append("VL    : ");
            for (int i = from; i < to; i++)
            {
                out.append("|0x").append(pad2(i < table.size() ? hex(table.vl(i)) : "0", false));
            }
            out.append("|\nWEIGHT: ");
            for (int i = from; i < to; i++)
            {
                out.append("|0x").append(pad2(i < table.size() ? hex(table.weight(i)) : "0", false));
            }
            out.append("|\n");
        }
    }

    private static String hex(final int value)
    {
        return Integer.toHexString(value).toUpperCase(Locale.ROOT);
    }

    private static String pad2(final String text, final boolean right)
    {
        if (text.length() >= 2)
        {
            return text;
        }
        return right ? " " + text : text + " ";
    }
}
