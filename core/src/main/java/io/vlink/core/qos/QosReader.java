package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Diagnostic.Severity;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Reads the QoS options of an OpenSM {@code opensm.conf} twice: as OpenSM 3.3.23 reads them, to know what it
 * programs on a port (docs/qos.md, {@link OpenSmQos}), and strictly, as the file says them, to report every place
 * where the two differ. {@code key value} lines, {@code #} comments anywhere, one pair of quotes removed, a later
 * line for a key wins, unset forms ({@code (null)}, {@code 0} for {@code *_max_vls}, a negative
 * {@code *_high_limit}), and per-field fallback {@code qos_<type>_X}, else {@code qos_X}, else OpenSM's default.
 * Keys that are not QoS keys are ignored, so a whole {@code opensm.conf} may be given.
 * <p>
 * Every problem is a {@link Diagnostic} pointing at the offending text ({@code FILE:LINE:COLUMN}, columns count
 * characters from 1, a tab is one column). What OpenSM would change without saying (a misread list, a folded VL or
 * weight, a VL masked to the port's operational VLs, an entry past the port's table, an ignored line) is an error in
 * {@link Mode#CHECK} and a warning in {@link Mode#APPLY}, where the configuration is exactly what OpenSM programs;
 * other warnings are applied as written; in strict mode every warning is an error.
 * <p>
 * Use {@link #read(Path, PortType, QosPort, Mode, boolean)} for a file, or feed lines one by one with
 * {@link #line(int, String)} and then {@link #finish(PortType, QosPort, Mode, LowBurst, boolean)} (the arbitration
 * simulator does this for the {@code qos_*} lines of its scenarios).
 */
public final class QosReader
{
    /** How the differences between the file and what OpenSM programs count. */
    public enum Mode
    {
        /** {@code vlink qos check}: each is an error, so an operator learns of it before OpenSM changes it. */
        CHECK,
        /** {@code vlink qos show} and the engine: the configuration OpenSM programs, each difference a warning. */
        APPLY
    }

    static final String[] FIELDS = {"max_vls", "high_limit", "vlarb_high", "vlarb_low", "sl2vl"};
    static final int MAX_VLS = 0;
    static final int HIGH_LIMIT = 1;
    static final int VLARB_HIGH = 2;
    static final int VLARB_LOW = 3;
    static final int SL2VL = 4;
    static final int FIELD_COUNT = FIELDS.length;
    /** Prefix 0 is the generic {@code qos_}, prefix 1 + ordinal is a port type's. */
    private static final int PREFIX_COUNT = 1 + PortType.values().length;
    static final String MAX_OP_VLS = "max_op_vls";
    static final String UNSET = "(null)";
    /** QoS keys that upstream or NVIDIA OpenSM define and the port configuration does not use. */
    private static final String[] ACCEPTED_UNUSED = {"qos", "qos_policy_file", "qos_config_vl_enabled"};
    /** Section keywords of OpenSM's QoS policy file (qos-policy.conf), never opensm.conf options. */
    private static final String[] POLICY_KEYWORDS = {
        "port-groups", "end-port-groups", "port-group", "end-port-group", "qos-setup", "end-qos-setup",
        "qos-levels", "end-qos-levels", "qos-level", "end-qos-level", "qos-ulps", "end-qos-ulps",
        "qos-match-rules", "end-qos-match-rules", "qos-match-rule", "end-qos-match-rule", "vlarb-tables",
        "end-vlarb-tables", "sl2vl-tables", "end-sl2vl-tables", "vlarb-scope", "sl2vl-scope"};
    private static final List<String> KNOWN_KEYS = knownKeys();

    /** What a finding is, before the mode and strictness decide its severity. */
    enum Kind
    {
        /** Refused whatever the mode: the file cannot be what OpenSM reads. */
        HARD,
        /** OpenSM would change what the file says without saying so. */
        CHANGE,
        /** Applied as written, worth knowing. */
        NOTE
    }

    /** A finding before its severity is decided. */
    record Finding(int line, int column, Kind kind, String message)
    {
    }

    /** One option line: OpenSM's stored value and the strict reading of it. */
    static final class Option
    {
        final String key;
        /** The value as OpenSM stores it ({@code clean_val}); {@link #UNSET} for {@code (null)}. */
        final String raw;
        final int line;
        /** The column the value starts at. */
        final int column;
        /** The column the key starts at. */
        int keyColumn;
        /** The strict reading: Integer, VlArbTable or int[] (SL2VL); null when unset or refused. */
        Object value;
        /** Whether the strict reading found no problem (an unset form included). */
        boolean valid = true;
        int[] itemColumns = new int[0];

        Option(final String key, final String raw, final int line, final int column)
        {
            this.key = key;
            this.raw = raw;
            this.line = line;
            this.column = column;
        }
    }

    private final String file;
    /** The first {@link Findings#MAX_KEPT} findings; the rest are counted by kind in {@link #omitted}. */
    private final List<Finding> findings = new ArrayList<>();
    private final long[] omitted = new long[Kind.values().length];
    /** Every finding of the lines, kept or counted. */
    private long found;
    private final Option[] options = new Option[PREFIX_COUNT * FIELD_COUNT];
    private Option maxOpVls;
    private String qosFlag;
    private int qosFlagLine;
    private boolean policyFile;
    private boolean qosOption;
    private boolean noted;

    /**
     * @param file the file name diagnostics carry.
     */
    public QosReader(final String file)
    {
        this.file = Objects.requireNonNull(file, "file");
    }

    /**
     * Reads a whole file for one port type on a vlink port ({@link QosPort#vlink()}), as OpenSM programs it.
     *
     * @param path     the file.
     * @param portType which {@code qos_<type>_} options apply.
     * @param strict   whether every warning is an error.
     * @return the configuration (null when refused) and every finding.
     */
    public static Result<QosConfig> read(final Path path, final PortType portType, final boolean strict)
    {
        return read(path, portType, QosPort.vlink(), Mode.APPLY, strict);
    }

    /**
     * Reads a whole file for one port type.
     *
     * @param path     the file.
     * @param portType which {@code qos_<type>_} options apply.
     * @param port     the port OpenSM programs: its VL capability, its neighbour's, its tables' capacity.
     * @param mode     whether what OpenSM would change is an error ({@link Mode#CHECK}) or applied ({@link Mode#APPLY}).
     * @param strict   whether every warning is an error.
     * @return the configuration (null when refused) and every finding.
     */
    public static Result<QosConfig> read(final Path path, final PortType portType, final QosPort port,
        final Mode mode, final boolean strict)
    {
        return TextLines.read(path, reader(path.toString(), portType, port, mode, strict));
    }

    /**
     * A reader of a whole file, as {@link #read(Path, PortType, QosPort, Mode, boolean)}, to feed any source of lines
     * through {@link TextLines} (a stream, a pipe).
     *
     * @param file     the name findings are reported against.
     * @param portType which {@code qos_<type>_} options apply.
     * @param port     the port OpenSM programs.
     * @param mode     whether what OpenSM would change is an error or applied.
     * @param strict   whether every warning is an error.
     * @return a fresh reader of one file.
     */
    public static LineReader<QosConfig> reader(final String file, final PortType portType, final QosPort port,
        final Mode mode, final boolean strict)
    {
        final QosReader reader = new QosReader(file);
        return new LineReader<>()
        {
            @Override
            public void line(final int number, final String line)
            {
                reader.line(number, line);
            }

            @Override
            public Result<QosConfig> finish()
            {
                return reader.finishFile(portType, port, mode, strict);
            }
        };
    }

    /**
     * Reads a whole file once for several port types (a fabric's CA and switch ports), each as
     * {@link #read(Path, PortType, QosPort, Mode, boolean)} reads it.
     *
     * @param path      the file.
     * @param portTypes which port types, in order.
     * @param port      the port OpenSM programs.
     * @param mode      whether what OpenSM would change is an error or applied.
     * @param strict    whether every warning is an error.
     * @return each port type's configuration, in the order given, or every finding (a finding the port types share
     * once), refused when any port type's is.
     */
    public static Result<Map<PortType, QosConfig>> read(final Path path, final List<PortType> portTypes,
        final QosPort port, final Mode mode, final boolean strict)
    {
        final QosReader reader = new QosReader(path.toString());
        return TextLines.read(path, new LineReader<>()
        {
            @Override
            public void line(final int number, final String line)
            {
                reader.line(number, line);
            }

            @Override
            public Result<Map<PortType, QosConfig>> finish()
            {
                final Map<PortType, QosConfig> configs = new EnumMap<>(PortType.class);
                final Set<Diagnostic> seen = new LinkedHashSet<>();
                final Findings findings = new Findings();
                long moreErrors = 0;
                long moreWarnings = 0;
                for (final PortType type : portTypes)
                {
                    final Result<QosConfig> result = reader.finishFile(type, port, mode, strict);
                    configs.put(type, result.value());
                    seen.addAll(result.diagnostics());
                    moreErrors = Math.max(moreErrors, result.moreErrors());
                    moreWarnings = Math.max(moreWarnings, result.moreWarnings());
                }
                seen.forEach(findings::add);
                findings.omitted(moreErrors, moreWarnings);
                findings.sort();
                return Result.of(configs.containsValue(null) ? null : configs, findings);
            }
        });
    }

    private Result<QosConfig> finishFile(final PortType portType, final QosPort port, final Mode mode,
        final boolean strict)
    {
        if (!noted)
        {
            noted = true;
            notes();
        }
        return finish(portType, port, mode, LowBurst.WEIGHT, strict);
    }

    /** What the file as a whole says: OpenSM ignores its options without {@code qos TRUE}, or it has none. */
    private void notes()
    {
        if (qosOption && !policyFile && !"TRUE".equals(qosFlag))
        {
            note(qosFlagLine, 0, (qosFlag == null ? "no 'qos TRUE' in the file" : "qos is '" +
                Diagnostic.excerpt(qosFlag) + "', not TRUE") + ": OpenSM programs none of these QoS options " +
                "unless it runs with 'qos TRUE' (or opensm -Q)");
        }
        if (!qosOption && !policyFile)
        {
            note(0, 0, "no qos_* option in the file: the port gets OpenSM's defaults (vlink qos show prints " +
                "them); set qos_max_vls, qos_high_limit, qos_vlarb_high, qos_vlarb_low and qos_sl2vl (or their " +
                "qos_<type>_ forms), or check that this is the opensm.conf you meant");
        }
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
     * @param line       the line, without its line terminator.
     */
    public void line(final int lineNumber, final String line)
    {
        if (policyFile)
        {
            return;
        }
        String text = line;
        if (text.length() > OpenSmQos.MAX_LINE)
        {
            change(lineNumber, OpenSmQos.MAX_LINE + 1, "line longer than " + OpenSmQos.MAX_LINE + " characters: " +
                "OpenSM reads a line in pieces of " + OpenSmQos.MAX_LINE + " and takes the rest as a line of its own; " +
                "split the option or shorten it");
            text = text.substring(0, OpenSmQos.MAX_LINE);
        }
        final int hash = text.indexOf('#');
        final int end = QosSyntax.trimEnd(text, 0, hash < 0 ? text.length() : hash);
        final int keyStart = QosSyntax.skipSpace(text, 0, end);
        if (keyStart == end)
        {
            return;
        }
        int keyEnd = keyStart;
        while (keyEnd < end && text.charAt(keyEnd) != ' ' && text.charAt(keyEnd) != '\t')
        {
            keyEnd++;
        }
        final String word = text.substring(keyStart, keyEnd);
        final int equals = word.indexOf('=');
        final String key = equals < 0 ? word : word.substring(0, equals);
        if (isPolicyKeyword(key) || key.startsWith("qos-") || key.startsWith("end-qos-"))
        {
            policyFile = true;
            add(new Finding(lineNumber, keyStart + 1, Kind.HARD, "'" + Diagnostic.excerpt(key) + "' starts " +
                "a section of an OpenSM QoS policy file (qos-policy.conf: port-groups, qos-setup, qos-levels, " +
                "qos-ulps, qos-match-rules), not opensm.conf options: vlink reads the port QoS options of opensm.conf " +
                "(qos_max_vls, qos_high_limit, qos_vlarb_high, qos_vlarb_low, qos_sl2vl and their qos_<type>_ forms); " +
                "give vlink the opensm.conf (OpenSM reads this policy file through its qos_policy_file option)"));
            return;
        }
        if (!key.startsWith("qos") && !key.equals(MAX_OP_VLS))
        {
            return;
        }
        qosOption |= key.startsWith("qos_");
        final int valueStart = QosSyntax.skipSpace(text, Math.min(keyEnd + 1, end), end);
        if (equals >= 0 || (valueStart < end && text.charAt(valueStart) == '='))
        {
            final int equalsColumn = equals >= 0 ? keyStart + equals + 1 : valueStart + 1;
            final String after = equals >= 0 ? text.substring(keyStart + equals + 1, end).trim() :
                text.substring(valueStart + 1, end).trim();
            change(lineNumber, equalsColumn, "'" + Diagnostic.excerpt(text.substring(keyStart, end)) + "' uses '=': " +
                "opensm.conf separates key and value with a space: write '" + Diagnostic.excerpt(key + " " + after) +
                "'" + (equals >= 0 ? " (OpenSM ignores the line: it reads '" + Diagnostic.excerpt(word) +
                "' as the key)" : " (OpenSM reads '= " + Diagnostic.excerpt(after) + "' as the value)"));
            if (equals >= 0)
            {
                return;
            }
        }
        if (key.equals("qos"))
        {
            qosFlag = OpenSmQos.clean(text.substring(Math.min(keyEnd + 1, end), end));
            qosFlagLine = lineNumber;
            return;
        }
        final int slot = slotOf(key);
        if (slot < 0 && !key.equals(MAX_OP_VLS))
        {
            if (!isAcceptedUnused(key) && key.startsWith("qos_"))
            {
                change(lineNumber, keyStart + 1, "unknown QoS option '" + Diagnostic.excerpt(key) + "': did you mean '" +
                    nearestKey(key) + "'? (OpenSM ignores the line)");
            }
            return;
        }
        final Option option = new Option(key, OpenSmQos.clean(text.substring(Math.min(keyEnd + 1, end), end)),
            lineNumber, valueStart + 1);
        option.keyColumn = keyStart + 1;
        if (equals < 0 && valueStart < end && text.charAt(valueStart) == '=')
        {
            option.valid = false;   // reported above; OpenSM takes '= ...' as the value
        }
        else
        {
            strict(option, text.substring(valueStart, end), slot);
        }
        if (slot >= 0)
        {
            options[slot] = option;
        }
        else
        {
            maxOpVls = option;
        }
    }

    /** The strict reading of one option's value: every problem a {@link Kind#CHANGE} at its column. */
    private void strict(final Option option, final String text, final int slot)
    {
        int valueStart = 0;
        int valueEnd = text.length();
        if (valueEnd - valueStart >= 2 && (text.charAt(valueStart) == '"' && text.charAt(valueEnd - 1) == '"' ||
            text.charAt(valueStart) == '\'' && text.charAt(valueEnd - 1) == '\''))
        {
            valueStart++;
            valueEnd--;
        }
        final String value = text.substring(valueStart, valueEnd);
        final int column = option.column + valueStart;
        final int field = slot < 0 ? -1 : slot % FIELD_COUNT;
        final long before = found;
        if (value.isEmpty())
        {
            change(option.line, option.keyColumn, option.key + " has no value: write '" + option.key + " " + example(field) +
                "', or (null) to leave it unset (OpenSM reads an empty value as " + (field == VLARB_HIGH ||
                field == VLARB_LOW ? "a table of 0:0 entries" : field == SL2VL ? "every SL on VL0" : "0") + ")");
        }
        else if (!value.equals(UNSET))
        {
            final QosSyntax.Problems problems = (offset, message) -> change(option.line, column + offset, message);
            switch (field)
            {
                case VLARB_HIGH, VLARB_LOW ->
                {
                    final int[] offsets = new int[VlArbTable.MAX_ENTRIES];
                    option.value = QosSyntax.table(option.key, value, problems, offsets);
                    option.itemColumns = columns(offsets, column);
                }
                case SL2VL ->
                {
                    final int[] offsets = new int[QosConfig.SL_COUNT];
                    option.value = QosSyntax.sl2vl(option.key, value, problems, offsets);
                    option.itemColumns = columns(offsets, column);
                }
                default -> option.value = number(option, field, value, column);
            }
        }
        option.valid = found == before;
    }

    private Integer number(final Option option, final int field, final String value, final int column)
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
            change(option.line, column, option.key + ": '" + Diagnostic.excerpt(value) + "' is not a number: write " +
                range + " (OpenSM reads " + osmNumber(field, option.raw) + ")");
            return null;
        }
        if (!unset && !inRange)
        {
            change(option.line, column, option.key + ": " + Diagnostic.excerpt(value) + " is out of range: write " + range +
                (field == HIGH_LIMIT ? " (OpenSM leaves it unset and falls back)" : field == MAX_VLS ?
                " (OpenSM leaves it unset)" : ""));
            return null;
        }
        return unset ? null : (int)n;
    }

    private static String osmNumber(final int field, final String raw)
    {
        return Long.toString(field == HIGH_LIMIT ? (int)OpenSmQos.strtol(raw) :
            OpenSmQos.strtoul(raw, 0, new OpenSmQos.Read()).value & (field == MAX_VLS ? 0xFFFFFFFFL : 0xFF));
    }

    /**
     * Resolves the effective settings of one port type, as OpenSM programs them on a vlink port's data VLs given
     * here, with tables of 64 entries: the arbitration simulator's port.
     *
     * @param portType        which {@code qos_<type>_} options apply.
     * @param dataVlsOverride 0 to derive the data VLs from {@code max_op_vls} on a vlink port, else the port's
     *                        operational VLs (1, 2, 4, 8 or 15).
     * @param lowBurst        the low-table burst policy to build with.
     * @param strict          whether every warning is an error.
     * @return the configuration (null when refused) and every finding, in line order.
     */
    public Result<QosConfig> finish(final PortType portType, final int dataVlsOverride, final LowBurst lowBurst, final boolean strict)
    {
        final QosPort port = dataVlsOverride > 0 ?
            QosPort.vlink().vlCap(dataVlsOverride).peerVlCap(dataVlsOverride).caps(QosPort.MAX_CAP, QosPort.MAX_CAP) :
            QosPort.vlink().caps(QosPort.MAX_CAP, QosPort.MAX_CAP);
        return finish(portType, port, Mode.APPLY, lowBurst, strict);
    }

    /**
     * Resolves what OpenSM programs on one port and checks it against what the file says.
     *
     * @param portType which {@code qos_<type>_} options apply.
     * @param port     the port OpenSM programs.
     * @param mode     whether what OpenSM would change is an error or applied.
     * @param lowBurst the low-table burst policy to build with.
     * @param strict   whether every warning is an error.
     * @return the configuration (null when refused) and every finding, in line order.
     */
    public Result<QosConfig> finish(
        final PortType portType, final QosPort port, final Mode mode, final LowBurst lowBurst, final boolean strict)
    {
        final List<Finding> all = new ArrayList<>(findings);
        QosConfig config = null;
        if (omitted[Kind.HARD.ordinal()] == 0 && all.stream().noneMatch(f -> f.kind == Kind.HARD))
        {
            final int prefix = 1 + portType.ordinal();
            final Option[] typed = new Option[FIELD_COUNT];
            final Option[] generic = new Option[FIELD_COUNT];
            for (int f = 0; f < FIELD_COUNT; f++)
            {
                typed[f] = options[prefix * FIELD_COUNT + f];
                generic[f] = options[f];
            }
            config = new QosProgram(portType, port, typed, generic, maxOpVls, lowBurst, mode == Mode.APPLY, all)
                .run();
        }
        final Findings result = new Findings();
        for (final Finding finding : all)
        {
            result.add(new Diagnostic(file, finding.line, finding.column,
                isError(finding.kind, mode, strict) ? Severity.ERROR : Severity.WARNING, finding.message));
        }
        long moreErrors = 0;
        long moreWarnings = 0;
        for (final Kind kind : Kind.values())
        {
            if (isError(kind, mode, strict))
            {
                moreErrors += omitted[kind.ordinal()];
            }
            else
            {
                moreWarnings += omitted[kind.ordinal()];
            }
        }
        result.omitted(moreErrors, moreWarnings);
        result.sort();
        return Result.of(config, result);
    }

    private static boolean isError(final Kind kind, final Mode mode, final boolean strict)
    {
        return strict || kind == Kind.HARD || (kind == Kind.CHANGE && mode == Mode.CHECK);
    }

    private void add(final Finding finding)
    {
        found++;
        if (findings.size() < Findings.MAX_KEPT)
        {
            findings.add(finding);
        }
        else
        {
            omitted[finding.kind.ordinal()]++;
        }
    }

    private void change(final int line, final int column, final String message)
    {
        add(new Finding(line, column, Kind.CHANGE, message));
    }

    private void note(final int line, final int column, final String message)
    {
        add(new Finding(line, column, Kind.NOTE, message));
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

    private static String example(final int field)
    {
        switch (field)
        {
            case MAX_VLS:
                return "8";
            case HIGH_LIMIT:
                return "6";
            case SL2VL:
                return "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7";
            case VLARB_HIGH:
            case VLARB_LOW:
                return "0:4,1:64";
            default:
                return "4";
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
}
