package io.vlink.core.qos;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Diagnostic.Severity;
import io.vlink.core.config.TextLines;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Reads the QoS options of an OpenSM {@code opensm.conf} the way OpenSM does, but strictly (spec
 * docs/qos.md, OpenSM's manual): {@code key value} lines, {@code #} comments anywhere, one pair of
 * quotes removed, a later line for a key wins, unset forms ({@code (null)}, {@code 0} for
 * {@code *_max_vls}, a negative {@code *_high_limit}), and per-field fallback {@code qos_<type>_X}, else
 * {@code qos_X}, else OpenSM's default. Keys that are not QoS keys are ignored, so a whole
 * {@code opensm.conf} may be given.
 * <p>
 * Every problem is a {@link Diagnostic} pointing at the offending text ({@code FILE:LINE:COLUMN}, columns
 * count characters from 1, a tab is one column). Errors refuse the whole configuration; warnings are applied
 * as written; in strict mode every warning is an error. No value is ever folded into range.
 * <p>
 * Use {@link #read(Path, PortType, boolean)} for a file, or feed lines one by one with {@link #line(int, String)}
 * and then {@link #finish(PortType, int, LowBurst, boolean)} (the arbitration simulator does this for the
 * {@code qos_*} lines of its scenarios).
 */
public final class QosReader
{
    private static final String[] FIELDS = {"max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl"};
    private static final int MAX_VLS = 0;
    private static final int HIGH_LIMIT = 1;
    private static final int VLARB_HIGH = 2;
    private static final int VLARB_LOW = 3;
    private static final int SL2VL = 4;
    private static final int FIELD_COUNT = FIELDS.length;
    /** Prefix 0 is the generic {@code qos_}, prefix 1 + ordinal is a port type's. */
    private static final int PREFIX_COUNT = 1 + PortType.values().length;
    private static final String MAX_OP_VLS = "max_op_vls";
    private static final String UNSET = "(null)";
    /** QoS keys that upstream or NVIDIA OpenSM define and the port configuration does not use. */
    private static final String[] ACCEPTED_UNUSED = {"qos", "qos_policy_file", "qos_config_vl_enabled"};
    /** Section keywords of OpenSM's QoS policy file (qos-policy.conf), never opensm.conf options. */
    private static final String[] POLICY_KEYWORDS = {
        "port-groups", "end-port-groups", "port-group", "end-port-group", "qos-setup", "end-qos-setup",
        "qos-levels", "end-qos-levels", "qos-level", "end-qos-level", "qos-ulps", "end-qos-ulps",
        "qos-match-rules", "end-qos-match-rules", "qos-match-rule", "end-qos-match-rule", "vlarb-tables",
        "end-vlarb-tables", "sl2vl-tables", "end-sl2vl-tables", "vlarb-scope", "sl2vl-scope"};
    private static final List<String> KNOWN_KEYS = knownKeys();

    private final String file;
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final Option[] options = new Option[PREFIX_COUNT * FIELD_COUNT];
    private Option maxOpVls;
    private boolean policyFile;
    private boolean qosOption;

    /**
     * @param file the file name diagnostics carry.
     */
    public QosReader(final String file)
    {
        this.file = Objects.requireNonNull(file, "file");
    }

    /**
     * Reads a whole file for one port type.
     *
     * @param path     the file.
     * @param portType which {@code qos_<type>_} options apply.
     * @param strict   whether every warning is an error.
     * @return the configuration (null when refused) and every finding.
     */
    public static Result read(final Path path, final PortType portType, final boolean strict)
    {
        final TextLines text = TextLines.read(path);
        if (text.error() != null)
        {
            return new Result(null, List.of(text.error()));
        }
        final QosReader reader = new QosReader(path.toString());
        final List<String> lines = text.lines();
        for (int i = 0; i < lines.size(); i++)
        {
            reader.line(i + 1, lines.get(i));
        }
        if (!reader.qosOption && !reader.policyFile)
        {
            reader.diagnostics.add(new Diagnostic(reader.file, 0, 0, Severity.WARNING, "no qos_* option in the file: " +
                "the port gets OpenSM's defaults (vlink qos show prints them); set qos_max_vls, qos_high_limit, " +
                "qos_vlarb_high, qos_vlarb_low and qos_sl2vl (or their qos_<type>_ forms), or check that this is the " +
                "opensm.conf you meant"));
        }
        return reader.finish(portType, 0, LowBurst.WEIGHT, strict);
    }

    /**
     * @param word the first word of a line.
     * @return whether the word is (or tries to be) a QoS option this reader must see: {@code qos...} or
     * {@code max_op_vls}, or a QoS policy file keyword.
     */
    public static boolean isQosKey(final String word)
    {
        final int equals = word.indexOf('=');
        final String key = equals < 0 ? word : word.substring(0, equals);
        return key.startsWith("qos") || key.equals(MAX_OP_VLS) || isPolicyKeyword(key) || key.startsWith("end-qos-");
    }

    /**
     * Takes one line of the file. Lines that are blank, comments or non-QoS options are ignored.
     *
     * @param lineNumber the line's number, from 1.
     * @param text       the line, without its line terminator.
     */
    public void line(final int lineNumber, final String text)
    {
        if (policyFile)
        {
            return;
        }
        final int hash = text.indexOf('#');
        final int end = QosSyntax.trimEnd(text, 0, hash < 0 ? text.length() : hash);
        final int keyStart = QosSyntax.skipSpace(text, 0, end);
        if (keyStart == end)
        {
            return;
        }
        int keyEnd = keyStart;
        while (keyEnd < end && !Character.isWhitespace(text.charAt(keyEnd)))
        {
            keyEnd++;
        }
        final String word = text.substring(keyStart, keyEnd);
        final int equals = word.indexOf('=');
        final String key = equals < 0 ? word : word.substring(0, equals);
        if (isPolicyKeyword(key) || key.startsWith("qos-") || key.startsWith("end-qos-"))
        {
            policyFile = true;
            error(lineNumber, keyStart + 1, "'" + Diagnostic.excerpt(key) + "' starts a section of an OpenSM QoS policy file " +
                "(qos-policy.conf: port-groups, qos-setup, qos-levels, qos-ulps, qos-match-rules), not opensm.conf " +
                "options: vlink reads the port QoS options of opensm.conf (qos_max_vls, qos_high_limit, " +
                "qos_vlarb_high, qos_vlarb_low, qos_sl2vl and their qos_<type>_ forms); give vlink the opensm.conf " +
                "(OpenSM reads this policy file through its qos_policy_file option)");
            return;
        }
        if (!key.startsWith("qos") && !key.equals(MAX_OP_VLS))
        {
            return;
        }
        qosOption |= key.startsWith("qos_");
        int valueStart = QosSyntax.skipSpace(text, keyEnd, end);
        if (equals >= 0 || (valueStart < end && text.charAt(valueStart) == '='))
        {
            final int equalsColumn = equals >= 0 ? keyStart + equals + 1 : valueStart + 1;
            final String after = equals >= 0 ? text.substring(keyStart + equals + 1, end).trim() :
                text.substring(valueStart + 1, end).trim();
            error(lineNumber, equalsColumn, "'" + Diagnostic.excerpt(text.substring(keyStart, end)) + "' uses '=': " +
                "opensm.conf separates key and value with a space: write '" + Diagnostic.excerpt(key + " " + after) +
                "'");
            return;
        }
        final int slot = slotOf(key);
        final boolean known = slot >= 0 || key.equals(MAX_OP_VLS);
        if (!known)
        {
            if (!isAcceptedUnused(key) && key.startsWith("qos_"))
            {
                error(lineNumber, keyStart + 1, "unknown QoS option '" + Diagnostic.excerpt(key) + "': did you mean '" + nearestKey(key) +
                    "'?");
            }
            return;
        }
        int valueEnd = end;
        if (valueEnd - valueStart >= 2 && text.charAt(valueStart) == '"' && text.charAt(valueEnd - 1) == '"')
        {
            valueStart++;
            valueEnd--;
        }
        final String value = text.substring(valueStart, valueEnd);
        if (value.isEmpty())
        {
            error(lineNumber, keyStart + 1, key + " has no value: write '" + key + " " + example(slot) +
                "', or (null) to leave it unset");
            return;
        }
        final Option option = parse(key, slot, value, lineNumber, valueStart + 1);
        if (slot >= 0)
        {
            options[slot] = option;
        }
        else
        {
            maxOpVls = option;
        }
    }

    /**
     * Resolves the effective settings of one port type and checks them.
     *
     * @param portType         which {@code qos_<type>_} options apply.
     * @param dataVlsOverride  0 to derive the data VLs from {@code max_op_vls} and {@code max_vls}, else
     *                         the port's data VLs (1, 2, 4, 8 or 15).
     * @param lowBurst         the low-table burst policy to build with.
     * @param strict           whether every warning is an error.
     * @return the configuration (null when refused) and every finding, in line order.
     */
    public Result finish(final PortType portType, final int dataVlsOverride, final LowBurst lowBurst, final boolean strict)
    {
        final List<Diagnostic> found = new ArrayList<>(diagnostics);
        final boolean parsedOk = found.stream().noneMatch(Diagnostic::isError);
        QosConfig config = null;
        if (parsedOk)
        {
            final int prefix = 1 + portType.ordinal();
            final Option maxVls = effective(prefix, MAX_VLS);
            final Option highLimit = effective(prefix, HIGH_LIMIT);
            final Option high = effective(prefix, VLARB_HIGH);
            final Option low = effective(prefix, VLARB_LOW);
            final Option sl2vl = effective(prefix, SL2VL);
            final int opVls = maxOpVls == null ? QosConfig.vlsOfMaxOpVls(QosConfig.DEFAULT_MAX_OP_VLS) :
                QosConfig.vlsOfMaxOpVls((Integer)maxOpVls.value);
            final int dataVls = dataVlsOverride > 0 ? dataVlsOverride :
                QosConfig.dataVlsFor(maxVls == null ? QosConfig.DEFAULT_MAX_VLS : (Integer)maxVls.value, opVls);

            final QosConfig.Builder builder = QosConfig.builder().dataVls(dataVls).lowBurst(lowBurst);
            if (highLimit != null)
            {
                builder.highLimit((Integer)highLimit.value);
            }
            if (high != null)
            {
                builder.vlarbHigh((VlArbTable)high.value);
            }
            if (low != null)
            {
                builder.vlarbLow((VlArbTable)low.value);
            }
            if (sl2vl != null)
            {
                builder.sl2vl((int[])sl2vl.value);
            }
            config = builder.build();
            checkEffective(config, portType, highLimit, high, low, sl2vl, found);
        }
        final List<Diagnostic> result = new ArrayList<>(found.size());
        for (final Diagnostic diagnostic : found)
        {
            result.add(strict ? diagnostic.asError() : diagnostic);
        }
        result.sort(Comparator.comparingInt(Diagnostic::line).thenComparingInt(Diagnostic::column));
        final boolean refused = result.stream().anyMatch(Diagnostic::isError);
        return new Result(refused ? null : config, result);
    }

    private void checkEffective(
        final QosConfig config,
        final PortType portType,
        final Option highLimit,
        final Option high,
        final Option low,
        final Option sl2vl,
        final List<Diagnostic> found)
    {
        final int dataVls = config.dataVls();
        final String vlRange = dataVls + " data VL" + (dataVls == 1 ? " (VL0)" : "s (VL0-" + (dataVls - 1) + ")");
        if (dataVls > 1)
        {
            missingVlEntries(config.high(), high, portType, VLARB_HIGH, dataVls, vlRange, found);
            missingVlEntries(config.low(), low, portType, VLARB_LOW, dataVls, vlRange, found);

            final StringBuilder neither = new StringBuilder();
            int count = 0;
            for (int vl = 0; vl < dataVls; vl++)
            {
                if (!servesVl(config.high(), vl) && !servesVl(config.low(), vl))
                {
                    neither.append(count++ == 0 ? "" : ", ").append(vl);
                }
            }
            if (count > 0)
            {
                final Option where = low != null ? low : high;
                found.add(warning(where, where == null ? 0 : where.column,
                    "data VL" + (count == 1 ? " " : "s ") + neither + (count == 1 ? " has" : " have") +
                    " no entry with a non-zero weight in either table (" + describe(high, portType, VLARB_HIGH) + ", " +
                    describe(low, portType, VLARB_LOW) + "): " + (count == 1 ? "it" : "they") + " will never send; " +
                    "give each data VL a weight in one of the tables, or map no SL to it"));
            }
            if (config.highLimit() == QosConfig.HIGH_LIMIT_UNBOUNDED && config.low().hasValidEntry(dataVls))
            {
                found.add(warning(highLimit, highLimit == null ? 0 : highLimit.column,
                    describe(highLimit, portType, HIGH_LIMIT) + " 255 makes the high table unbounded while " +
                    describe(low, portType, VLARB_LOW) + " has entries that can send: the low table may starve " +
                    "(OpenSM's manual); use 0..254 to bound the high table"));
            }
        }

        if (sl2vl != null && ((int[])sl2vl.value).length < QosConfig.SL_COUNT)
        {
            final int given = ((int[])sl2vl.value).length;
            found.add(warning(sl2vl, sl2vl.column, sl2vl.key + " lists " + given + " VL" + (given == 1 ? "" : "s") +
                ": " + (given == 15 ? "SL15 maps" : "SL" + given + "..SL15 map") + " to VL0 (as in OpenSM); list all " +
                "16 SLs to say what you mean"));
        }

        final StringBuilder dropped = new StringBuilder();
        int firstDropped = -1;
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            final int vl = config.sl2vl(sl);
            if (vl >= dataVls)
            {
                dropped.append(dropped.length() == 0 ? "" : ", ").append("SL").append(sl).append("->VL").append(vl);
                if (firstDropped < 0)
                {
                    firstDropped = sl;
                }
            }
        }
        if (firstDropped >= 0)
        {
            final int column = sl2vl == null ? 0 :
                firstDropped < sl2vl.itemColumns.length ? sl2vl.itemColumns[firstDropped] : sl2vl.column;
            found.add(warning(sl2vl, column, describe(sl2vl, portType, SL2VL) + " maps " + dropped + ", but the port " +
                "has " + vlRange + " and VL15 is for subnet management: those SLs' packets are dropped; map them " +
                "to a data VL below " + dataVls));
        }
    }

    private void missingVlEntries(
        final VlArbTable table,
        final Option option,
        final PortType portType,
        final int field,
        final int dataVls,
        final String vlRange,
        final List<Diagnostic> found)
    {
        final StringBuilder vls = new StringBuilder();
        int first = -1;
        for (int i = 0; i < table.size(); i++)
        {
            if (table.weight(i) != 0 && table.vl(i) >= dataVls)
            {
                vls.append(first < 0 ? "" : ", ").append(table.vl(i)).append(':').append(table.weight(i));
                if (first < 0)
                {
                    first = i;
                }
            }
        }
        if (first >= 0)
        {
            found.add(warning(option, option == null ? 0 : option.itemColumns[first],
                describe(option, portType, field) + " has entries " + vls + " for VLs the port does not have (" +
                vlRange + "): the arbiter skips them; remove them or raise the port's VLs"));
        }
    }

    private static boolean servesVl(final VlArbTable table, final int vl)
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

    private String describe(final Option option, final PortType portType, final int field)
    {
        if (option != null)
        {
            return option.key;
        }
        return "the default " + FIELDS[field] + " (OpenSM's, as neither " + portType.prefix() + FIELDS[field] +
            " nor qos_" + FIELDS[field] + " is set)";
    }

    private Diagnostic warning(final Option option, final int column, final String message)
    {
        return new Diagnostic(file, option == null ? 0 : option.line, column, Severity.WARNING, message);
    }

    private Option effective(final int prefix, final int field)
    {
        final Option typed = options[prefix * FIELD_COUNT + field];
        return typed != null ? typed : options[field];
    }

    private Option parse(final String key, final int slot, final String value, final int lineNumber, final int column)
    {
        final int field = slot < 0 ? -1 : slot % FIELD_COUNT;
        if (value.equals(UNSET))
        {
            return null;
        }
        final QosSyntax.Problems problems = (offset, message) -> error(lineNumber, column + offset, message);
        switch (field)
        {
            case VLARB_HIGH:
            case VLARB_LOW:
            {
                final int[] offsets = new int[VlArbTable.MAX_ENTRIES];
                final VlArbTable table = QosSyntax.table(key, value, problems, offsets);
                return table == null ? null : new Option(key, table, lineNumber, column, columns(offsets, column));
            }
            case SL2VL:
            {
                final int[] offsets = new int[QosConfig.SL_COUNT];
                final int[] vls = QosSyntax.sl2vl(key, value, problems, offsets);
                if (vls == null)
                {
                    return null;
                }
                return new Option(key, vls, lineNumber, column, columns(offsets, column));
            }
            default:
                return parseNumber(key, field, value, lineNumber, column);
        }
    }

    private Option parseNumber(final String key, final int field, final String value, final int lineNumber, final int column)
    {
        final long n = QosSyntax.number(value);
        final String range;
        final boolean unset;
        final boolean inRange;
        if (field == MAX_VLS)
        {
            range = "1..15, or 0 to leave it unset";
            unset = n == 0;
            inRange = n >= 1 && n <= 15;
        }
        else if (field == HIGH_LIMIT)
        {
            range = "0..255 (4 KB units; 255 = unbounded, 0 = one packet), or a negative number to leave it unset";
            unset = n < 0 && n != QosSyntax.NOT_A_NUMBER;
            inRange = n >= 0 && n <= QosConfig.HIGH_LIMIT_UNBOUNDED;
        }
        else
        {
            range = "1..5 (1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14)";
            unset = false;
            inRange = n >= 1 && n <= 5;
        }
        if (n == QosSyntax.NOT_A_NUMBER)
        {
            error(lineNumber, column, key + ": '" + Diagnostic.excerpt(value) + "' is not a number: write " + range);
            return null;
        }
        if (unset)
        {
            return null;
        }
        if (!inRange)
        {
            error(lineNumber, column, key + ": " + value + " is out of range: write " + range);
            return null;
        }
        return new Option(key, (int)n, lineNumber, column, new int[0]);
    }

    private static int[] columns(final int[] offsets, final int column)
    {
        final int[] columns = new int[offsets.length];
        for (int i = 0; i < offsets.length; i++)
        {
            columns[i] = column + offsets[i];
        }
        return columns;
    }

    private void error(final int lineNumber, final int column, final String message)
    {
        diagnostics.add(new Diagnostic(file, lineNumber, column, Severity.ERROR, message));
    }

    private static String example(final int slot)
    {
        if (slot < 0)
        {
            return "5";
        }
        switch (slot % FIELD_COUNT)
        {
            case MAX_VLS:
                return "8";
            case HIGH_LIMIT:
                return "6";
            case SL2VL:
                return "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7";
            default:
                return "0:4,1:64";
        }
    }

    private static int slotOf(final String key)
    {
        if (!key.startsWith("qos_"))
        {
            return -1;
        }
        for (int field = 0; field < FIELD_COUNT; field++)
        {
            if (key.equals("qos_" + FIELDS[field]))
            {
                return field;
            }
            for (final PortType type : PortType.values())
            {
                if (key.equals(type.prefix() + FIELDS[field]))
                {
                    return (1 + type.ordinal()) * FIELD_COUNT + field;
                }
            }
        }
        return -1;
    }

    private static boolean isAcceptedUnused(final String key)
    {
        for (final String accepted : ACCEPTED_UNUSED)
        {
            if (accepted.equals(key))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean isPolicyKeyword(final String key)
    {
        for (final String keyword : POLICY_KEYWORDS)
        {
            if (keyword.equals(key))
            {
                return true;
            }
        }
        return false;
    }

    private static List<String> knownKeys()
    {
        final List<String> keys = new ArrayList<>();
        for (final String field : FIELDS)
        {
            keys.add("qos_" + field);
        }
        for (final PortType type : PortType.values())
        {
            for (final String field : FIELDS)
            {
                keys.add(type.prefix() + field);
            }
        }
        keys.add(MAX_OP_VLS);
        keys.addAll(List.of(ACCEPTED_UNUSED));
        return List.copyOf(keys);
    }

    /**
     * @param key an unknown key.
     * @return the real QoS key nearest to it by edit distance (the first of equally near ones).
     */
    static String nearestKey(final String key)
    {
        String best = KNOWN_KEYS.get(0);
        int bestDistance = Integer.MAX_VALUE;
        for (final String candidate : KNOWN_KEYS)
        {
            final int distance = editDistance(key, candidate);
            if (distance < bestDistance)
            {
                bestDistance = distance;
                best = candidate;
            }
        }
        return best;
    }

    static int editDistance(final String a, final String b)
    {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++)
        {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++)
        {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++)
            {
                final int substitute = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitute, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            final int[] swap = previous;
            previous = current;
            current = swap;
        }
        return previous[b.length()];
    }

    private static final class Option
    {
        final String key;
        final Object value;
        final int line;
        final int column;
        final int[] itemColumns;

        Option(final String key, final Object value, final int line, final int column, final int[] itemColumns)
        {
            this.key = key;
            this.value = value;
            this.line = line;
            this.column = column;
            this.itemColumns = itemColumns;
        }
    }

    /**
     * What reading a configuration gave: the configuration, unless refused, and every finding.
     */
    public static final class Result
    {
        private final QosConfig config;
        private final List<Diagnostic> diagnostics;

        Result(final QosConfig config, final List<Diagnostic> diagnostics)
        {
            this.config = config;
            this.diagnostics = List.copyOf(diagnostics);
        }

        /**
         * @return the effective configuration, or null when it was refused.
         */
        public QosConfig config()
        {
            return config;
        }

        /**
         * @return every error and warning, in line order.
         */
        public List<Diagnostic> diagnostics()
        {
            return diagnostics;
        }

        /**
         * @return whether the configuration can be applied (no errors).
         */
        public boolean ok()
        {
            return config != null;
        }

        /**
         * @return the configuration.
         * @throws ConfigException carrying every finding when it was refused.
         */
        public QosConfig orThrow()
        {
            if (config == null)
            {
                throw new ConfigException(diagnostics);
            }
            return config;
        }
    }
}
