package io.vlink.core.qos;

import io.vlink.core.qos.QosReader.Finding;
import io.vlink.core.qos.QosReader.Kind;
import io.vlink.core.qos.QosReader.Option;

import java.util.List;
import java.util.regex.Pattern;

/**
 * What OpenSM 3.3.23 programs on one port from the options {@link QosReader} read (osm_subnet.c's checks, then
 * osm_qos.c's {@code qos_build_config} and table updates, {@link OpenSmQos}), and every place where that differs from
 * what the file says: the findings {@link QosReader} turns into errors or warnings.
 */
final class QosProgram
{
    private static final Pattern SPACE_BEFORE_SEPARATOR = Pattern.compile("\\s[:,]");
    private static final Pattern OCTAL = Pattern.compile("(^|[^0-9A-Za-z])0[0-9]");

    private final PortType portType;
    private final QosPort port;
    private final Option[] typed;
    private final Option[] generic;
    private final Option maxOpVls;
    private final LowBurst lowBurst;
    private final boolean apply;
    private final List<Finding> found;
    private int operationalVls;
    private int mask;

    QosProgram(
        final PortType portType,
        final QosPort port,
        final Option[] typed,
        final Option[] generic,
        final Option maxOpVls,
        final LowBurst lowBurst,
        final boolean apply,
        final List<Finding> found)
    {
        this.portType = portType;
        this.port = port;
        this.typed = typed;
        this.generic = generic;
        this.maxOpVls = maxOpVls;
        this.lowBurst = lowBurst;
        this.apply = apply;
        this.found = found;
    }

    /**
     * @return the configuration OpenSM programs, or null when the file cannot be programmed at all.
     */
    QosConfig run()
    {
        int maxOp = QosConfig.DEFAULT_MAX_OP_VLS;
        if (null != maxOpVls)
        {
            maxOp = (int)(OpenSmQos.strtoul(maxOpVls.raw, 0, new OpenSmQos.Read()).value & 0xFF);
            if (maxOp == 0)
            {
                found.add(new Finding(maxOpVls.line, maxOpVls.column, Kind.HARD, "max_op_vls '" + maxOpVls.raw +
                    "' is 0 for OpenSM (a uint8): it would give every port 0 operational VLs; write 1..5 (1 = VL0, " +
                    "2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14)"));
                return null;
            }
        }
        operationalVls = port.operationalVls(maxOp);
        mask = OpenSmQos.mask(operationalVls);
        maxVls();
        final int highLimit = highLimit();
        final VlArbTable high = table(QosReader.VLARB_HIGH, QosConfig.DEFAULT_VLARB_HIGH, port.highCap(), "VLArbHighCap");
        final VlArbTable low = table(QosReader.VLARB_LOW, QosConfig.DEFAULT_VLARB_LOW, port.lowCap(), "VLArbLowCap");
        final int[] sl2vl = sl2vl();
        final QosConfig config = QosConfig.builder().dataVls(operationalVls).highLimit(highLimit).vlarbHigh(high)
            .vlarbLow(low).sl2vl(sl2vl).lowBurst(lowBurst).build();
        notes(config);
        return config;
    }

    /** OpenSM's effective string option: the port type's unless unset, else the generic one, else none. */
    private Option text(final int field)
    {
        final Option own = typed[field];
        if (null != own && !QosReader.UNSET.equals(own.raw))
        {
            return own;
        }
        final Option any = generic[field];
        return null != any && !QosReader.UNSET.equals(any.raw) ? any : null;
    }

    private String describe(final Option option, final int field)
    {
        if (null != option)
        {
            return option.key;
        }
        return "the default " + QosReader.FIELDS[field] + " (OpenSM's, as neither " + portType.prefix() +
            QosReader.FIELDS[field] + " nor qos_" + QosReader.FIELDS[field] + " is set)";
    }

    private String vlRange()
    {
        return operationalVls + " data VL" + (operationalVls == 1 ? " (VL0)" : "s (VL0-" + (operationalVls - 1) + ")");
    }

    private void change(final Option option, final int column, final String message)
    {
        found.add(new Finding(option.line, column, Kind.CHANGE, message));
    }

    private void note(final Option option, final int column, final String message)
    {
        found.add(new Finding(null == option ? 0 : option.line, null == option ? 0 : column, Kind.NOTE, message));
    }

    /** OpenSM never uses {@code max_vls}: a file that asks for fewer VLs than the port operates is not obeyed. */
    private void maxVls()
    {
        Option option = null;
        for (final Option candidate : new Option[]{typed[QosReader.MAX_VLS], generic[QosReader.MAX_VLS]})
        {
            if (null == option && null != candidate)
            {
                final long v = OpenSmQos.strtoul(candidate.raw, 0, new OpenSmQos.Read()).value & 0xFFFFFFFFL;
                option = v >= 1 && v <= 15 ? candidate : null;
            }
        }
        if (null != option && option.valid && option.value instanceof Integer && (Integer)option.value < operationalVls)
        {
            change(option, option.column, option.key + " " + option.value + ": OpenSM does not use qos_*max_vls; the " +
                "port operates " + vlRange() + ", the lower of both ends' VL capability and max_op_vls: set max_op_vls " +
                "to limit the VLs");
        }
    }

    /** OpenSM's VLHighLimit: a value out of 0..255 (as strtol reads it into an int) is unset, and falls back. */
    private int highLimit()
    {
        for (final Option option : new Option[]{typed[QosReader.HIGH_LIMIT], generic[QosReader.HIGH_LIMIT]})
        {
            if (null == option)
            {
                continue;
            }
            final int v = (int)OpenSmQos.strtol(option.raw);
            if (v >= 0 && v <= QosConfig.HIGH_LIMIT_UNBOUNDED)
            {
                if (option.valid && option.value instanceof Integer && (Integer)option.value != v)
                {
                    change(option, option.column, option.key + " " + option.raw + ": OpenSM reads it as " + v +
                        hint(option.raw) + "; write the number in decimal or 0x hexadecimal");
                }
                return v;
            }
        }
        return QosConfig.DEFAULT_HIGH_LIMIT;
    }

    /** A programmed table as a message quotes it: every entry of a short table, else up to its last that is not 0:0. */
    private static String text(final VlArbTable table)
    {
        if (table.size() <= 16)
        {
            return table.toString();
        }
        int last = 0;
        for (int i = 0; i < table.size(); i++)
        {
            last = table.vl(i) != 0 || table.weight(i) != 0 ? i : last;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i <= last; i++)
        {
            sb.append(i == 0 ? "" : ",").append(table.vl(i)).append(':').append(table.weight(i));
        }
        return sb.append(" (then 0:0 up to entry ").append(table.size()).append(')').toString();
    }

    private static String hint(final String raw)
    {
        if (SPACE_BEFORE_SEPARATOR.matcher(raw).find())
        {
            return " (a space before ':' or ',' ends the number there, and what follows shifts)";
        }
        if (OCTAL.matcher(raw).find())
        {
            return " (a number with a leading 0 is octal: 010 is 8, and 08 is 0 followed by the text 8)";
        }
        return "";
    }

    private VlArbTable table(final int field, final String defaultText, final int cap, final String capName)
    {
        final Option option = text(field);
        final String raw = null == option ? defaultText : option.raw;
        final int[] vls = new int[OpenSmQos.TABLE_ENTRIES];
        final int[] weights = new int[OpenSmQos.TABLE_ENTRIES];
        final int[] starts = new int[OpenSmQos.TABLE_ENTRIES];
        OpenSmQos.table(raw, vls, weights, starts);
        final VlArbTable programmed = OpenSmQos.program(vls, weights, cap, mask);
        final String key = describe(option, field);
        if (null == option)
        {
            final StringBuilder masked = new StringBuilder();
            for (int i = 0; i < cap; i++)
            {
                if (weights[i] != 0 && (vls[i] & mask) != vls[i] && OpenSmQos.programs(cap, i))
                {
                    masked.append(masked.length() == 0 ? "" : ", ").append(vls[i]).append(':').append(weights[i])
                        .append(" as ").append(vls[i] & mask).append(':').append(weights[i]);
                }
            }
            if (masked.length() > 0)
            {
                note(null, 0, key + " is programmed with every VL masked to the port's " + vlRange() + ": " + masked);
            }
            return programmed;
        }
        if (!(option.value instanceof VlArbTable))
        {
            if (apply && !QosReader.UNSET.equals(option.raw))
            {
                note(option, option.column, option.key + ": OpenSM programs " + text(programmed) + " on this port");
            }
            return programmed;
        }
        final VlArbTable written = (VlArbTable)option.value;
        for (int i = 0; i < OpenSmQos.TABLE_ENTRIES; i++)
        {
            final int vl = i < written.size() ? written.vl(i) : 0;
            final int weight = i < written.size() ? written.weight(i) : 0;
            if (vl != vls[i] || weight != weights[i])
            {
                change(option, option.itemColumns[Math.min(i, written.size() - 1)], option.key +
                    ": OpenSM does not read this list as written" + hint(option.raw) + ": it programs " + text(programmed) +
                    " on this port; separate entries with ',' and VL from weight with ':', without spaces before them");
                return programmed;
            }
        }
        final StringBuilder lost = new StringBuilder();
        int firstLost = -1;
        final StringBuilder masked = new StringBuilder();
        int firstMasked = -1;
        for (int i = 0; i < written.size(); i++)
        {
            if (written.weight(i) == 0)
            {
                continue;
            }
            if (i >= cap || !OpenSmQos.programs(cap, i))
            {
                lost.append(lost.length() == 0 ? "" : ", ").append(written.vl(i)).append(':').append(written.weight(i));
                firstLost = firstLost < 0 ? i : firstLost;
            }
            else if ((written.vl(i) & mask) != written.vl(i))
            {
                masked.append(masked.length() == 0 ? "" : ", ").append(written.vl(i)).append(':')
                    .append(written.weight(i)).append(" as ").append(written.vl(i) & mask).append(':')
                    .append(written.weight(i));
                firstMasked = firstMasked < 0 ? i : firstMasked;
            }
        }
        if (firstLost >= 0)
        {
            change(option, option.itemColumns[firstLost], key + " has " + written.size() + " entries but the port's " +
                "table holds " + cap + " (" + capName + ")" + (cap == QosPort.MAX_CAP ? ", and OpenSM 3.3.23 programs " +
                "entries 32-63 of a 64-entry table as 0:0 (it sends 64 % 32 = 0 entries of the second block)" : "") +
                ": OpenSM does not program " + lost + "; give at most " + (cap == QosPort.MAX_CAP ? 32 : cap) +
                " entries");
        }
        if (firstMasked >= 0)
        {
            change(option, option.itemColumns[firstMasked], key + ": the port operates " + vlRange() + " and OpenSM " +
                "masks every VL to them: it programs " + masked + "; use VLs below " + operationalVls +
                " (or allow more with max_op_vls)");
        }
        return programmed;
    }

    private int[] sl2vl()
    {
        final Option option = text(QosReader.SL2VL);
        final String raw = null == option ? QosConfig.DEFAULT_SL2VL : option.raw;
        final int[] vls = new int[QosConfig.SL_COUNT];
        final int[] starts = new int[QosConfig.SL_COUNT];
        OpenSmQos.sl2vl(raw, vls, starts);
        final int[] programmed = new int[QosConfig.SL_COUNT];
        final StringBuilder text = new StringBuilder();
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            programmed[sl] = OpenSmQos.programSl2Vl(vls[sl], mask);
            text.append(sl == 0 ? "" : ",").append(programmed[sl]);
        }
        final StringBuilder masked = new StringBuilder();
        int firstMasked = -1;
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            if (programmed[sl] != vls[sl])
            {
                masked.append(masked.length() == 0 ? "" : ", ").append("SL").append(sl).append("->VL").append(vls[sl])
                    .append(" as VL").append(programmed[sl]);
                firstMasked = firstMasked < 0 ? sl : firstMasked;
            }
        }
        if (null == option)
        {
            if (firstMasked >= 0)
            {
                note(null, 0, describe(null, QosReader.SL2VL) + " is programmed with every VL but 15 masked to the " +
                    "port's " + vlRange() + ": " + masked);
            }
            return programmed;
        }
        if (!(option.value instanceof int[]))
        {
            if (apply && !QosReader.UNSET.equals(option.raw))
            {
                note(option, option.column, option.key + ": OpenSM programs " + text + " on this port");
            }
            return programmed;
        }
        final int[] written = (int[])option.value;
        for (int sl = 0; sl < written.length; sl++)
        {
            if (written[sl] != vls[sl])
            {
                change(option, option.itemColumns[sl], option.key + ": OpenSM does not read this list as written" +
                    hint(option.raw) + ": it programs " + text + " on this port; separate the VLs with ',' without " +
                    "spaces before it");
                return programmed;
            }
        }
        if (written.length < QosConfig.SL_COUNT)
        {
            change(option, option.column, option.key + " lists " + written.length + " VL" +
                (written.length == 1 ? "" : "s") + ": " + (written.length == 15 ? "SL15 maps" : "SL" + written.length +
                "..SL15 map") + " to VL0 (OpenSM reads the missing values as 0); list all 16 SLs to say what you mean");
        }
        if (firstMasked >= 0)
        {
            change(option, option.itemColumns[firstMasked], option.key + ": the port operates " + vlRange() +
                " and OpenSM masks every VL but 15 to them: it programs " + masked + "; map the SLs to VLs below " +
                operationalVls + " (or allow more with max_op_vls)");
        }
        return programmed;
    }

    private static boolean serves(final VlArbTable table, final int vl)
    {
        for (int i = 0; i < table.size(); i++)
        {
            if (table.vl(i) == vl && table.weight(i) != 0)
            {
                return true;
            }
        }
        return false;
    }

    /** What is programmed as OpenSM would, but worth knowing: VLs that never send, SLs dropped, a starved table. */
    private void notes(final QosConfig config)
    {
        final Option high = text(QosReader.VLARB_HIGH);
        final Option low = text(QosReader.VLARB_LOW);
        final Option sl2vl = text(QosReader.SL2VL);
        if (operationalVls > 1 && (null != high || null != low))
        {
            final StringBuilder neither = new StringBuilder();
            int count = 0;
            for (int vl = 0; vl < operationalVls; vl++)
            {
                if (!serves(config.high(), vl) && !serves(config.low(), vl))
                {
                    neither.append(count++ == 0 ? "" : ", ").append(vl);
                }
            }
            if (count > 0)
            {
                final Option where = null != low ? low : high;
                note(where, null == where ? 0 : where.column, "data VL" + (count == 1 ? " " : "s ") + neither +
                    (count == 1 ? " has" : " have") + " no entry with a non-zero weight in either table as programmed (" +
                    describe(high, QosReader.VLARB_HIGH) + ", " + describe(low, QosReader.VLARB_LOW) + ", tables of " +
                    port.highCap() + " and " + port.lowCap() + " entries): " + (count == 1 ? "it" : "they") +
                    " will never send; give each data VL a weight in one of the tables, or map no SL to it");
            }
        }
        if (operationalVls > 1)
        {
            if (config.highLimit() == QosConfig.HIGH_LIMIT_UNBOUNDED && config.low().hasValidEntry(operationalVls))
            {
                final Option limit = null != typed[QosReader.HIGH_LIMIT] ? typed[QosReader.HIGH_LIMIT] :
                    generic[QosReader.HIGH_LIMIT];
                note(limit, null == limit ? 0 : limit.column, (null == limit ? "the high limit" : limit.key) +
                    " 255 makes the high table unbounded while " + describe(low, QosReader.VLARB_LOW) + " has " +
                    "entries that can send: the low table may starve (OpenSM's manual); use 0..254 to bound the high " +
                    "table");
            }
        }
        final StringBuilder dropped = new StringBuilder();
        int first = -1;
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            if (config.sl2vl(sl) == 15)
            {
                dropped.append(dropped.length() == 0 ? "" : ", ").append("SL").append(sl).append("->VL15");
                first = first < 0 ? sl : first;
            }
        }
        if (first >= 0)
        {
            final int column = null == sl2vl ? 0 : first < sl2vl.itemColumns.length ? sl2vl.itemColumns[first] :
                sl2vl.column;
            note(sl2vl, column, describe(sl2vl, QosReader.SL2VL) + " maps " + dropped + ": VL15 is for subnet " +
                "management, so those SLs' packets are dropped; map them to a data VL below " + operationalVls);
        }
    }
}
