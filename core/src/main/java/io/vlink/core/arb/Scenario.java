package io.vlink.core.arb;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Diagnostic.Severity;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import io.vlink.core.config.Words;
import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosReader;
import io.vlink.core.wire.Sizes;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A scenario of the deterministic arbitration simulator ({@code vlink arb simulate}; spec
 * docs/arbitration.md): the port's QoS options (read by the real {@link QosReader}), its traffic,
 * VL15 and flow-control arrivals and credits. {@link #run(Consumer)} drives the real {@link VlArbiter} over a
 * {@link SimulatedPort} and prints the spec's lines.
 */
public final class Scenario
{
    /**
     * The most slots a run may take. The simulator prints a line a slot for people to read, so a scenario whose
     * traffic and arrivals need more (say {@code packets 0 64 2147483647}) is refused at the line that crosses the
     * limit, unless {@code grants N} stops it within the limit. A run's slots are at most the packets it queues
     * (VL15 and flow-control packets included) plus the idle slots before its latest arrival.
     */
    public static final long MAX_SLOTS = 1_000_000;

    private static final String DIRECTIVES = "a qos_* option, max_op_vls, port_type, data_vls, low_burst, packets, " +
        "sl_packets, smp, fcp, credits or grants";
    private static final String SIZE_RULE = "a packet size is a multiple of 4 from 8 to 8188 bytes (4 * PktLen)";

    private final String file;
    private final QosConfig config;
    private final List<int[]> traffic;
    private final List<int[]> arrivals;
    private final long[] credits;
    private final long maxGrants;

    private Scenario(
        final String file,
        final QosConfig config,
        final List<int[]> traffic,
        final List<int[]> arrivals,
        final long[] credits,
        final long maxGrants)
    {
        this.file = file;
        this.config = config;
        this.traffic = traffic;
        this.arrivals = arrivals;
        this.credits = credits;
        this.maxGrants = maxGrants;
    }

    /**
     * @return the effective QoS settings of the scenario's port.
     */
    public QosConfig config()
    {
        return config;
    }

    /**
     * @return the file name the scenario was read from.
     */
    public String file()
    {
        return file;
    }

    /**
     * Reads a scenario file.
     *
     * @param file the scenario, read within {@link TextLines}' limits.
     * @return the scenario, or every finding.
     */
    public static Result<Scenario> read(final Path file)
    {
        return TextLines.read(file, reader(file.toString()));
    }

    /**
     * Parses a scenario's lines.
     *
     * @param file  the file name diagnostics carry.
     * @param lines the scenario's lines.
     * @return the scenario, or every finding.
     */
    public static Result<Scenario> parse(final String file, final List<String> lines)
    {
        final Parser parser = new Parser(file);
        for (int i = 0; i < lines.size(); i++)
        {
            parser.line(i + 1, lines.get(i));
        }
        return parser.finish();
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe).
     *
     * @param file the file name diagnostics carry.
     * @return a fresh reader of one scenario.
     */
    public static LineReader<Scenario> reader(final String file)
    {
        return new Parser(file);
    }

    /**
     * Runs the scenario and emits the spec's output lines: drops, one line per slot, shares.
     * <p>
     * A run that ends because nothing more can be sent (not because of {@code grants N}) while packets are still
     * queued on a data VL strands them: their credits do not cover the head packet, or no table entry of the VL has a
     * weight. Each such VL is reported, at its first traffic line: a warning when other traffic was sent, an error
     * when the scenario could send nothing at all.
     *
     * @param out receives each line, without a line terminator.
     * @return the stranded traffic, one finding per VL, ascending; empty when everything queued was sent or the
     * run was stopped by {@code grants N}.
     */
    public List<Diagnostic> run(final Consumer<String> out)
    {
        final SimulatedPort port = new SimulatedPort();
        final int dataVls = config.dataVls();
        for (final int[] t : traffic)
        {
            final boolean bySl = t[0] == Parser.SL_PACKETS;
            final int vl = bySl ? config.sl2vl(t[1]) : t[1];
            if (vl == 15 || vl >= dataVls)
            {
                out.accept("drop " + (bySl ? "sl=" + t[1] + " " : "") + "vl=" + vl + " packets=" + t[3]);
            }
            else
            {
                port.enqueue(vl, t[2], t[3]);
            }
        }
        for (int vl = 0; vl < 15; vl++)
        {
            if (credits[vl] >= 0)
            {
                port.credits(vl, credits[vl]);
            }
        }

        final VlArbiter arbiter = new VlArbiter(config, port);
        final boolean[] applied = new boolean[arrivals.size()];
        boolean stuck = false;
        for (long slot = 1; slot <= maxGrants; slot++)
        {
            boolean pending = false;
            for (int i = 0; i < arrivals.size(); i++)
            {
                final int[] a = arrivals.get(i);
                if (!applied[i] && a[3] <= slot)
                {
                    applied[i] = true;
                    if (a[0] == Parser.SMP)
                    {
                        port.enqueue(15, a[1], a[2]);
                    }
                    else
                    {
                        port.addFcp(a[2]);
                    }
                }
                pending |= !applied[i];
            }
            final int grant = arbiter.next();
            if (grant == VlArbiter.GRANT_NONE)
            {
                if (!pending)
                {
                    stuck = true;
                    break;
                }
                out.accept("grant " + slot + " idle");
                continue;
            }
            final int size = port.send(grant);
            if (grant == VlArbiter.GRANT_FCP)
            {
                out.accept("grant " + slot + " fcp bytes=" + size);
            }
            else
            {
                out.accept("grant " + slot + " vl=" + VlArbiter.vl(grant) + " bytes=" + size + " from=" +
                    VlArbiter.describe(grant));
            }
        }

        long total = 0;
        long sent = port.sentPackets(15) + port.sentFcps();
        for (int vl = 0; vl < dataVls; vl++)
        {
            total += port.sentBytes(vl);
            sent += port.sentPackets(vl);
        }
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (port.sentPackets(vl) > 0)
            {
                out.accept("share vl=" + vl + " packets=" + port.sentPackets(vl) + " bytes=" + port.sentBytes(vl) +
                    " fraction=" + String.format(Locale.ROOT, "%.4f", (double)port.sentBytes(vl) / total));
            }
        }
        return stuck ? stranded(port, sent == 0) : List.of();
    }

    private List<Diagnostic> stranded(final SimulatedPort port, final boolean nothingSent)
    {
        final List<Diagnostic> found = new ArrayList<>();
        for (int vl = 0; vl < config.dataVls(); vl++)
        {
            final long queued = port.queued(vl);
            if (queued == 0)
            {
                continue;
            }
            int line = 0;
            for (final int[] t : traffic)
            {
                final int tvl = t[0] == Parser.SL_PACKETS ? config.sl2vl(t[1]) : t[1];
                if (tvl == vl)
                {
                    line = t[4];
                    break;
                }
            }
            final int size = port.headSize(vl);
            final String why = port.canSend(vl, size) ?
                "no entry of VL" + vl + " has a non-zero weight in either table; give it one" :
                "its next packet (" + size + " bytes) needs " + Sizes.blocks(size) + " blocks of credit and " +
                (credits[vl] == 0 ? "the VL has none (credits " + vl + " 0)" : "the VL's " + credits[vl] +
                " blocks for the run are spent") + "; give the VL more credits";
            found.add(new Diagnostic(file, line, 0, nothingSent ? Severity.ERROR : Severity.WARNING,
                (nothingSent ? "nothing can be sent: " : "") + "vl=" + vl + ": " + queued + " packet" +
                (queued == 1 ? "" : "s") + " never sent: " + why));
        }
        return found;
    }

    private static final class Parser implements LineReader<Scenario>
    {
        static final int PACKETS = 0;
        static final int SL_PACKETS = 1;
        static final int SMP = 2;
        static final int FCP = 3;

        private final String file;
        private final QosReader qos;
        private final Findings findings = new Findings();
        private final List<int[]> traffic = new ArrayList<>();
        private final List<int[]> arrivals = new ArrayList<>();
        private final long[] credits = new long[VlArbiter.VL_COUNT];
        private PortType portType = PortType.CA;
        private int dataVls;
        private LowBurst lowBurst = LowBurst.WEIGHT;
        private long maxGrants = Long.MAX_VALUE;
        private int lineNumber;
        private String[] words;
        private int[] columns;

        Parser(final String file)
        {
            this.file = file;
            this.qos = new QosReader(file);
            Arrays.fill(credits, -1);
        }

        @Override
        public void line(final int number, final String text)
        {
            lineNumber = number;
            split(text);
            if (words.length == 0)
            {
                return;
            }
            if (QosReader.isQosKey(words[0]))
            {
                qos.line(lineNumber, text);
                return;
            }
            directive();
        }

        @Override
        public Result<Scenario> finish()
        {
            final Result<QosConfig> result = qos.finish(portType, dataVls, lowBurst, false);
            result.diagnostics().forEach(findings::add);
            findings.omitted(result.moreErrors(), result.moreWarnings());
            if (result.ok() && maxGrants > MAX_SLOTS)
            {
                checkRunLength(result.value());
            }
            findings.sort();
            return Result.of(findings.hasErrors() ? null :
                new Scenario(file, result.value(), traffic, arrivals, credits, maxGrants), findings);
        }

        private void directive()
        {
            final String name = words[0];
            switch (name)
            {
                case "port_type":
                    if (arguments(1, 1))
                    {
                        final PortType type = PortType.ofLabel(words[1]);
                        if (type == null)
                        {
                            error(1, "port_type '" + Diagnostic.excerpt(words[1]) + "' is not one of ca, swe, sw0, rtr, sw2sw");
                        }
                        else
                        {
                            portType = type;
                        }
                    }
                    break;
                case "data_vls":
                    if (arguments(1, 1))
                    {
                        final long n = number(1, 1, 15, "data VLs");
                        if (n > 0 && !QosConfig.isDataVlCount((int)n))
                        {
                            error(1, "data_vls " + Diagnostic.excerpt(words[1]) + ": a port has 1, 2, 4, 8 or 15 data VLs");
                        }
                        else if (n > 0)
                        {
                            dataVls = (int)n;
                        }
                    }
                    break;
                case "low_burst":
                    if (arguments(1, 1))
                    {
                        final LowBurst burst = LowBurst.ofLabel(words[1]);
                        if (burst == null)
                        {
                            error(1, "low_burst '" + Diagnostic.excerpt(words[1]) + "' is not weight or packet");
                        }
                        else
                        {
                            lowBurst = burst;
                        }
                    }
                    break;
                case "packets":
                case "sl_packets":
                    if (arguments(3, 3))
                    {
                        final boolean bySl = name.equals("sl_packets");
                        final long vlOrSl = number(1, 0, 15, bySl ? "SL" : "VL");
                        final long size = size(2);
                        final long count = number(3, 1, Integer.MAX_VALUE, "COUNT");
                        if (vlOrSl >= 0 && size > 0 && count > 0)
                        {
                            traffic.add(new int[] {
                                bySl ? SL_PACKETS : PACKETS, (int)vlOrSl, (int)size, (int)count, lineNumber, columns[3]});
                        }
                    }
                    break;
                case "smp":
                    if (arguments(2, 4))
                    {
                        final long size = size(1);
                        final long count = number(2, 1, Integer.MAX_VALUE, "COUNT");
                        final long before = before(3);
                        if (size > 0 && count > 0 && before > 0)
                        {
                            arrivals.add(new int[] {
                                SMP, (int)size, (int)count, (int)before, lineNumber, columns[2], beforeColumn(4)});
                        }
                    }
                    break;
                case "fcp":
                    if (arguments(1, 3))
                    {
                        final long count = number(1, 1, Integer.MAX_VALUE, "COUNT");
                        final long before = before(2);
                        if (count > 0 && before > 0)
                        {
                            arrivals.add(new int[] {
                                FCP, VlArbiter.FCP_SIZE, (int)count, (int)before, lineNumber, columns[1], beforeColumn(3)});
                        }
                    }
                    break;
                case "credits":
                    if (arguments(2, 2))
                    {
                        final long vl = number(1, 0, 14, "VL (credits apply to data VLs 0..14; VL15 is never credited)");
                        final long blocks = number(2, 0, Integer.MAX_VALUE, "BLOCKS");
                        if (vl >= 0 && blocks >= 0)
                        {
                            credits[(int)vl] = blocks;
                        }
                    }
                    break;
                case "grants":
                    if (arguments(1, 1))
                    {
                        final long n = number(1, 1, Integer.MAX_VALUE, "N");
                        if (n > 0)
                        {
                            maxGrants = n;
                        }
                    }
                    break;
                default:
                    error(0, "unknown directive '" + Diagnostic.excerpt(name) + "': expected " + DIRECTIVES);
            }
        }

        /**
         * Refuses a run longer than {@link #MAX_SLOTS}: each slot sends a packet, or idles while an arrival is
         * pending, so the slots are at most the packets queued plus the slots before the latest arrival. The error
         * goes to the line where that bound, summed in file order, first crosses the limit.
         */
        private void checkRunLength(final QosConfig config)
        {
            final List<int[]> lines = new ArrayList<>(traffic);
            lines.addAll(arrivals);
            lines.sort(Comparator.comparingInt(l -> l[4]));
            long packets = 0;
            long latestArrival = 1;
            for (final int[] l : lines)
            {
                final boolean isTraffic = l.length == 6;
                if (isTraffic)
                {
                    final int vl = l[0] == SL_PACKETS ? config.sl2vl(l[1]) : l[1];
                    packets += vl == 15 || vl >= config.dataVls() ? 0 : l[3];
                }
                else
                {
                    packets += l[2];
                    latestArrival = Math.max(latestArrival, l[3]);
                }
                final long slots = packets + latestArrival - 1;
                if (slots > MAX_SLOTS)
                {
                    // point at the COUNT, or at the G of 'before G' when the idle slots before it are the excess
                    final int column = !isTraffic && packets <= MAX_SLOTS && l[6] > 0 ? l[6] : l[5];
                    findings.error(file, l[4], column, "the run would take up to " + slots + " slots by this line, " +
                        "more than the simulator's " + MAX_SLOTS + ": it prints a line a slot, so lower the counts, " +
                        "or stop the run with 'grants N' (N up to " + MAX_SLOTS + ")");
                    return;
                }
            }
        }

        private int beforeColumn(final int index)
        {
            return index < columns.length ? columns[index] : 0;
        }

        private long before(final int index)
        {
            if (index >= words.length)
            {
                return 1;
            }
            if (!words[index].equals("before") || index + 1 >= words.length)
            {
                error(index, "expected 'before G' after the count, got '" + Diagnostic.excerpt(words[index]) + "'");
                return -1;
            }
            return number(index + 1, 1, Integer.MAX_VALUE, "slot G");
        }

        private long size(final int index)
        {
            final long size = number(index, 0, Long.MAX_VALUE, "SIZE");
            if (size < 0)
            {
                return -1;
            }
            if (size < Sizes.LRH_LENGTH || size > Sizes.MAX_SIZE || (size & 3) != 0)
            {
                error(index, "SIZE " + Diagnostic.excerpt(words[index]) + " is not a packet size: " + SIZE_RULE);
                return -1;
            }
            return size;
        }

        private long number(final int index, final long min, final long max, final String what)
        {
            final String word = words[index];
            long value = word.isEmpty() ? -1 : 0;
            for (int i = 0; i < word.length() && value >= 0; i++)
            {
                final char c = word.charAt(i);
                // a number of any length is a number: one too large for a long is out of range, as written
                value = c < '0' || c > '9' ? -1 : value > (Long.MAX_VALUE - 9) / 10 ? Long.MAX_VALUE : value * 10 + (c - '0');
            }
            if (value < 0)
            {
                error(index, what + " '" + Diagnostic.excerpt(word) + "' is not a number");
                return -1;
            }
            if (value < min || value > max)
            {
                error(index, what + " " + Diagnostic.excerpt(word) + " is out of range " + min + ".." + (max == Integer.MAX_VALUE ||
                    max == Long.MAX_VALUE ? "" : Long.toString(max)));
                return -1;
            }
            return value;
        }

        private boolean arguments(final int min, final int max)
        {
            final int given = words.length - 1;
            if (given < min || given > max)
            {
                final String usage;
                switch (words[0])
                {
                    case "packets":
                        usage = "packets VL SIZE COUNT";
                        break;
                    case "sl_packets":
                        usage = "sl_packets SL SIZE COUNT";
                        break;
                    case "smp":
                        usage = "smp SIZE COUNT [before G]";
                        break;
                    case "fcp":
                        usage = "fcp COUNT [before G]";
                        break;
                    case "credits":
                        usage = "credits VL BLOCKS";
                        break;
                    case "port_type":
                        usage = "port_type ca|swe|sw0|rtr|sw2sw";
                        break;
                    case "low_burst":
                        usage = "low_burst weight|packet";
                        break;
                    default:
                        usage = words[0] + " N";
                }
                error(0, words[0] + " takes " + (min == max ? Integer.toString(min) : min + " to " + max) +
                    " argument" + (max == 1 ? "" : "s") + ", got " + given + ": write '" + usage + "'");
                return false;
            }
            return true;
        }

        private void split(final String text)
        {
            final Words line = Words.of(text);
            words = line.words();
            columns = line.columns();
        }

        private void error(final int wordIndex, final String message)
        {
            findings.error(file, lineNumber, columns[Math.min(wordIndex, columns.length - 1)], message);
        }
    }
}
