package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import io.vlink.core.sched.SlScheduler;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.Sizes;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code vlink sched}: the host side of the transmit path (docs/injection.md).
 * <p>
 * {@code vlink sched simulate SCENARIO} runs the SL arbitration table with queue-pair tenure over a scenario
 * file and prints one line per packet, each SL's share of the bytes and the QP switches.
 */
@Command(
    name = "sched",
    mixinStandardHelpOptions = true,
    description = "Work scheduling: SL arbitration table with queue-pair tenure.")
public final class SchedCommand implements Runnable
{
    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "missing command");
    }

    /**
     * @param scenario the scenario file.
     * @return 0, or 1 when the scenario is malformed ({@code file:line: error: message} on stderr).
     */
    @Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        description = {
            "Simulate SL arbitration with QP tenure, one packet per step (docs/injection.md).",
            "Directives, one a line, '#' comments: slat SL:WEIGHT,... | tenure BYTES [PACKETS] | " +
                "mtu 256|512|1024|2048|4096 | qp QPN SL | message QPN BYTES [COUNT] | packets N.",
            "Defaults: mtu 2048; tenure one MTU of bytes, no packet limit; slat every SL that has a QP, " +
                "ascending, weight one MTU."})
    public int simulate(@Parameters(paramLabel = "SCENARIO", description = "the scenario file") final Path scenario)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final String file = scenario.toString();
        final Result<SchedScenario> read = TextLines.read(scenario, new SchedScenario.Parser(file));
        Diagnostics.print(err, read);
        if (!read.ok())
        {
            return Vlink.EXIT_FAILURE;
        }
        final SchedScenario parsed = read.value();

        final SlScheduler scheduler = parsed.scheduler();
        for (final Diagnostic warning : scheduler.check(file, parsed.firstQpLineOfSl()))
        {
            err.println(warning);
        }

        final long[] slPackets = new long[SlScheduler.SL_COUNT];
        final StringBuilder line = new StringBuilder(64);
        long produced = 0;
        while (produced < parsed.packetLimit())
        {
            final int bytes = scheduler.next();
            if (bytes == SlScheduler.NO_WORK)
            {
                break;
            }
            produced++;
            final int qp = scheduler.packetQp();
            if (scheduler.packetEndOfMessage())
            {
                parsed.topUp(qp);
            }
            slPackets[scheduler.packetSl()]++;
            line.setLength(0);
            line.append("packet ").append(produced)
                .append(" qp=").append(scheduler.qpNumber(qp))
                .append(" sl=").append(scheduler.packetSl())
                .append(" bytes=").append(bytes);
            out.println(line);
        }

        long total = 0;
        for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
        {
            total += scheduler.slBytes(sl);
        }
        for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
        {
            if (slPackets[sl] > 0)
            {
                final long bytes = scheduler.slBytes(sl);
                final double fraction = total == 0 ? 0.0 : (double)bytes / total;
                out.println(String.format(Locale.ROOT, "share sl=%d bytes=%d fraction=%.4f", sl, bytes, fraction));
            }
        }
        out.println("switches " + scheduler.switches());
        out.flush();
        return 0;
    }

    /** A parsed scenario: the scheduler with its QPs and messages queued, and the packet limit. */
    static final class SchedScenario
    {
        static final int DEFAULT_MTU = 2048;
        static final int MAX_QPN = BthFlyweight.MAX_QPN;

        static final int RING_CAPACITY = 64;
        /**
         * The most packets a run may print, a line each: a scenario whose messages could make more is refused at
         * the message line that crosses the limit, unless {@code packets N} stops it within the limit.
         */
        static final long MAX_PACKETS = 1_000_000;

        private final SlScheduler scheduler;
        private final long packetLimit;
        private final int[] firstQpLineOfSl;
        private final List<List<long[]>> pending;
        private long nextHandle;

        private SchedScenario(
            final SlScheduler scheduler,
            final long packetLimit,
            final int[] firstQpLineOfSl,
            final List<List<long[]>> pending)
        {
            this.scheduler = scheduler;
            this.packetLimit = packetLimit;
            this.firstQpLineOfSl = firstQpLineOfSl;
            this.pending = pending;
        }

        SlScheduler scheduler()
        {
            return scheduler;
        }

        long packetLimit()
        {
            return packetLimit;
        }

        int[] firstQpLineOfSl()
        {
            return firstQpLineOfSl;
        }

        /**
         * @param file  the name findings carry.
         * @param lines the scenario's lines.
         * @return the scenario, or every finding.
         */
        static Result<SchedScenario> parse(final String file, final List<String> lines)
        {
            final Parser parser = new Parser(file);
            for (int n = 0; n < lines.size(); n++)
            {
                parser.line(n + 1, lines.get(n));
            }
            return parser.finish();
        }

        /** The directives, a line at a time, then the scheduler they set up. */
        static final class Parser implements LineReader<SchedScenario>
        {
            private final String file;
            private final Findings findings = new Findings();
            private int[] slatSl;
            private int[] slatWeight;
            private int slatLine;
            private long tenureBytes;
            private int tenurePackets = SlScheduler.NO_PACKET_TENURE;
            private int tenureLine;
            private int mtu;
            private int mtuLine;
            private long packetLimit = Long.MAX_VALUE;
            private int packetsLine;
            private final List<int[]> qps = new ArrayList<>();          // {qpn, sl, line}
            private final List<long[]> messages = new ArrayList<>();    // {qp index, bytes, count, line}
            private final int[] firstQpLineOfSl = new int[SlScheduler.SL_COUNT];

            Parser(final String file)
            {
                this.file = file;
            }

            @Override
            public void line(final int lineNo, final String raw)
            {
                String text = raw;
                final int hash = text.indexOf('#');
                if (hash >= 0)
                {
                    text = text.substring(0, hash);
                }
                text = text.trim();
                if (text.isEmpty())
                {
                    return;
                }
                final String[] t = text.split("\\s+");
                try
                {
                    switch (t[0])
                    {
                        case "slat":
                        {
                            once(slatLine, "slat");
                            if (t.length < 2)
                            {
                                throw new Bad("slat needs SL:WEIGHT entries, e.g. 'slat 0:4096,1:2048'");
                            }
                            final String[] entries = String.join("", List.of(t).subList(1, t.length)).split(",", -1);
                            slatSl = new int[entries.length];
                            slatWeight = new int[entries.length];
                            for (int e = 0; e < entries.length; e++)
                            {
                                final String[] pair = entries[e].split(":", -1);
                                if (pair.length != 2)
                                {
                                    throw new Bad("slat entry " + (e + 1) + " '" + Diagnostic.excerpt(entries[e]) +
                                        "' is not SL:WEIGHT (e.g. 3:4096)");
                                }
                                slatSl[e] = number(pair[0], "slat SL", 0, SlScheduler.SL_COUNT - 1);
                                slatWeight[e] = number(pair[1], "slat weight (bytes)", 0, Integer.MAX_VALUE);
                            }
                            slatLine = lineNo;
                            break;
                        }
                        case "tenure":
                            once(tenureLine, "tenure");
                            arguments(t, 1, 2, "tenure BYTES [PACKETS]");
                            tenureBytes = number(t[1], "tenure bytes", 1, Integer.MAX_VALUE);
                            tenurePackets = t.length > 2 ? number(t[2], "tenure packets", 1, Integer.MAX_VALUE) :
                                SlScheduler.NO_PACKET_TENURE;
                            tenureLine = lineNo;
                            break;
                        case "mtu":
                            once(mtuLine, "mtu");
                            arguments(t, 1, 1, "mtu BYTES");
                            mtu = number(t[1], "mtu", 1, Integer.MAX_VALUE);
                            final String problem = Sizes.mtuProblem("mtu", mtu);
                            if (null != problem)
                            {
                                throw new Bad(problem);
                            }
                            mtuLine = lineNo;
                            break;
                        case "qp":
                        {
                            arguments(t, 2, 2, "qp QPN SL");
                            final int qpn = number(t[1], "QPN", 0, MAX_QPN);
                            final int sl = number(t[2], "SL", 0, SlScheduler.SL_COUNT - 1);
                            for (final int[] qp : qps)
                            {
                                if (qp[0] == qpn)
                                {
                                    throw new Bad("qp " + qpn + " is already created on line " + qp[2]);
                                }
                            }
                            qps.add(new int[] {qpn, sl, lineNo});
                            if (firstQpLineOfSl[sl] == 0)
                            {
                                firstQpLineOfSl[sl] = lineNo;
                            }
                            break;
                        }
                        case "message":
                        {
                            arguments(t, 2, 3, "message QPN BYTES [COUNT]");
                            final int qpn = number(t[1], "QPN", 0, MAX_QPN);
                            int index = -1;
                            for (int q = 0; q < qps.size(); q++)
                            {
                                if (qps.get(q)[0] == qpn)
                                {
                                    index = q;
                                }
                            }
                            if (index < 0)
                            {
                                throw new Bad("qp " + qpn + " is not created: declare 'qp " + qpn +
                                    " SL' before its messages");
                            }
                            final int bytes = number(t[2], "message bytes", 0, Integer.MAX_VALUE);
                            final int count = t.length > 3 ? number(t[3], "message count", 1, Integer.MAX_VALUE) : 1;
                            messages.add(new long[] {index, bytes, count, lineNo});
                            break;
                        }
                        case "packets":
                            once(packetsLine, "packets");
                            arguments(t, 1, 1, "packets N");
                            packetLimit = number(t[1], "packets", 0, Integer.MAX_VALUE);
                            packetsLine = lineNo;
                            break;
                        default:
                            throw new Bad("unknown directive '" + Diagnostic.excerpt(t[0]) +
                                "' (expected slat, tenure, mtu, qp, message or packets)");
                    }
                }
                catch (final Bad bad)
                {
                    findings.error(file, lineNo, 0, bad.getMessage());
                }
            }

            @Override
            public Result<SchedScenario> finish()
            {
                if (findings.hasErrors())
                {
                    return Result.of(null, findings);
                }

                if (mtu == 0)
                {
                    mtu = DEFAULT_MTU;
                }
                if (tenureLine == 0)
                {
                    tenureBytes = mtu;
                }
                if (packetLimit > MAX_PACKETS && !checkRunLength(file, messages, mtu, findings))
                {
                    return Result.of(null, findings);
                }
                if (slatSl == null)
                {
                    // default: every SL that has a QP, ascending, one MTU each (packet round robin among SLs)
                    int count = 0;
                    for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
                    {
                        count += firstQpLineOfSl[sl] != 0 ? 1 : 0;
                    }
                    if (count == 0)
                    {
                        slatSl = new int[] {0};
                        slatWeight = new int[] {mtu};
                    }
                    else
                    {
                        slatSl = new int[count];
                        slatWeight = new int[count];
                        int e = 0;
                        for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
                        {
                            if (firstQpLineOfSl[sl] != 0)
                            {
                                slatSl[e] = sl;
                                slatWeight[e++] = mtu;
                            }
                        }
                    }
                }

                // each QP's messages wait here in file order and are posted as the scheduler's ring has room: a small
                // ring whatever the counts, and the same schedule (a QP is topped up in the step its message ends)
                final int qpCount = Math.max(1, qps.size());
                final SlScheduler scheduler = new SlScheduler(
                    slatSl, slatWeight, mtu, tenureBytes, tenurePackets, qpCount, RING_CAPACITY);
                for (final int[] qp : qps)
                {
                    scheduler.createQp(qp[0], qp[1]);
                }
                final List<List<long[]>> pending = new ArrayList<>();
                for (int q = 0; q < qpCount; q++)
                {
                    pending.add(new ArrayList<>());
                }
                for (final long[] m : messages)
                {
                    pending.get((int)m[0]).add(new long[] {m[1], m[2]});
                }
                final SchedScenario parsed = new SchedScenario(scheduler, packetLimit, firstQpLineOfSl, pending);
                for (int q = 0; q < qps.size(); q++)
                {
                    parsed.topUp(q);
                }
                return Result.of(parsed, findings);
            }
        }


        /**
         * Post the QP's waiting messages while its ring has room.
         *
         * @param qp index.
         */
        void topUp(final int qp)
        {
            final List<long[]> runs = pending.get(qp);
            while (!runs.isEmpty())
            {
                final long[] run = runs.get(0);
                if (!scheduler.post(qp, (int)run[0], nextHandle))
                {
                    return;
                }
                nextHandle++;
                if (--run[1] == 0)
                {
                    runs.remove(0);
                }
            }
        }

        /**
         * A message of B bytes makes at most {@code max(1, ceil(B / mtu))} packets: refuse a run that could print
         * more than {@link #MAX_PACKETS} lines, at the message line where the count crosses the limit.
         */
        private static boolean checkRunLength(final String file, final List<long[]> messages, final int mtu,
            final Findings findings)
        {
            long packets = 0;
            for (final long[] m : messages)
            {
                packets += m[2] * Math.max(1, (m[1] + mtu - 1) / mtu);
                if (packets > MAX_PACKETS)
                {
                    findings.error(file, (int)m[3], 0, "the messages up to this line make up to " + packets +
                        " packets of MTU " + mtu + ", more than the simulator's " + MAX_PACKETS + ": it prints a line " +
                        "a packet, so lower the counts, or stop the run with 'packets N' (N up to " + MAX_PACKETS + ")");
                    return false;
                }
            }
            return true;
        }

        private static void once(final int previousLine, final String directive)
        {
            if (previousLine != 0)
            {
                throw new Bad(directive + " is already given on line " + previousLine + "; give it once");
            }
        }

        private static void arguments(final String[] t, final int min, final int max, final String usage)
        {
            final int n = t.length - 1;
            if (n < min || n > max)
            {
                throw new Bad("expected '" + usage + "', got " + n + " argument" + (n == 1 ? "" : "s"));
            }
        }

        private static int number(final String text, final String what, final int min, final int max)
        {
            long value;
            try
            {
                value = Long.parseLong(text);
            }
            catch (final NumberFormatException ex)
            {
                if (!text.matches("[-+]?[0-9]+"))
                {
                    throw new Bad(what + " '" + Diagnostic.excerpt(text) + "' is not a number");
                }
                value = text.startsWith("-") ? Long.MIN_VALUE : Long.MAX_VALUE;   // out of range, reported as written
            }
            if (value < min || value > max)
            {
                throw new Bad(what + " must be " + min + ".." + max + ", not " + Diagnostic.excerpt(text));
            }
            return (int)value;
        }
    }

    /** A malformed line; caught per line and turned into a diagnostic. */
    private static final class Bad extends RuntimeException
    {
        private static final long serialVersionUID = 1L;

        Bad(final String message)
        {
            super(message, null, false, false);
        }
    }
}
