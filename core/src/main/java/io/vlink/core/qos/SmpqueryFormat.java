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
     * @param table a table.
     * @return the default cap: the entry count rounded up to a multiple of 8, at least 8, at most 64.
     */
    public static int defaultCap(final VlArbTable table)
    {
        return Math.min(VlArbTable.MAX_ENTRIES, Math.max(8, (table.size() + 7) & ~7));
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
     * Appends {@code smpquery sl2vl}'s output for a channel adapter port.
     *
     * @param out    where to append.
     * @param config the configuration.
     * @param port   the port's name in the header.
     * @return {@code out}.
     */
    public static StringBuilder sl2vl(final StringBuilder out, final QosConfig config, final String port)
    {
        out.append("# SL2VL table: ").append(port).append('\n');
        out.append("#                 SL: ");
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            out.append('|').append(pad2(Integer.toString(sl), true));
        }
        out.append("|\n");
        out.append("ports: in  0, out  0: ");
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            out.append('|').append(pad2(Integer.toString(config.sl2vl(sl)), true));
        }
        return out.append("|\n");
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
