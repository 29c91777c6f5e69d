package io.vlink.tools.fabric;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Fabric;
import io.vlink.nic.Switch;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.PortCounters;
import io.vlink.tools.JsonWriter;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.File;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * {@code vlink fabric soak} (docs/fabric.md): every node of a topology in this process ({@link Fabric}), each CA port
 * sending to destinations its pattern chooses, on the SLs given or by the path SL policy; a live line each second;
 * then the drain, the end-to-end invariants and a summary per CA port and per switch port. A progress watch finds
 * deadlocks: packets queued and no packet moved for the stall time, then the credit loop the switches hold.
 * <p>
 * The whole fabric runs on the calling thread: on a small machine that beats a thread per node.
 */
public final class FabricSoak
{
    /** Every invariant held. */
    public static final int EXIT_OK = 0;
    /** An invariant failed. */
    public static final int EXIT_FAILED = 1;
    /** The fabric deadlocked. */
    public static final int EXIT_DEADLOCK = 3;

    /** How long the links get to come up. */
    private static final long BRING_UP_NS = 10_000_000_000L;
    /** How long the drain may take once the offered traffic stops, besides the stall watch. */
    private static final long DRAIN_NS = 30_000_000_000L;
    /** How long the credits get to come back once idle (many FCP periods). */
    private static final long CREDIT_SETTLE_NS = 2_000_000_000L;
    /** Packets each CA port may post per round. */
    private static final int POSTS_PER_ROUND = 32;
    /**
     * Duty cycles of the whole fabric without progress before a stall counts, besides the stall time: a process the
     * machine starved for longer than the stall time has not deadlocked, it has not run.
     */
    private static final long STALL_CYCLES = 20_000;
    /** How often the progress watch reads the switches' counters. */
    private static final long WATCH_INTERVAL_NS = 1_000_000;

    /** Traffic patterns. */
    public enum Pattern
    {
        /** Each packet to a destination drawn uniformly (seeded) among the other CA ports. */
        UNIFORM("uniform"),
        /** Each CA port to one other, a seeded permutation without fixed points. */
        PERMUTATION("permutation"),
        /** Every CA port to the first; the first sends nothing. */
        ALL_TO_ONE("all-to-one"),
        /** CA port i to port (i + n/2) mod n, in file order. */
        SHIFT("shift");

        private final String label;

        Pattern(final String label)
        {
            this.label = label;
        }

        /**
         * @return the option's word.
         */
        public String label()
        {
            return label;
        }

        /**
         * @param word an option's word.
         * @return the pattern, or null.
         */
        public static Pattern of(final String word)
        {
            for (final Pattern p : values())
            {
                if (p.label.equals(word))
                {
                    return p;
                }
            }
            return null;
        }
    }

    /** What to run. */
    public static final class Options
    {
        public Topology topology;
        public Routes routes;
        public QosConfig ca = QosConfig.opensmDefaults(8);
        public QosConfig external = QosConfig.opensmDefaults(8);
        public QosConfig management = QosConfig.opensmDefaults(8);
        public Pattern pattern = Pattern.UNIFORM;
        public double seconds = 10;
        public long packets;
        public int size = 256;
        public int[] sls = {0};
        public long seed = 1;
        public long stallMs = 1000;
        /** The dateline cable, or null: SL 1 for paths crossing it, SL 0 for the rest. */
        public Topology.Node datelineSwitch;
        public int datelinePort;
        public PathSl slMap;
        public int vlBufferBlocks;
        public File directory;
        public String name = "fabric";
        /** What the summary calls the topology (its file). */
        public String label = "";
        public NanoClock clock = SystemNanoClock.INSTANCE;
    }

    private final Options options;
    private final PrintWriter out;
    private Fabric fabric;
    private FabricTraffic traffic;
    private int n;
    private int[] slOf;
    private long elapsedNs;
    private List<Fabric.Buffer> cycle = List.of();
    private long stalledQueued;
    private boolean drained;
    private List<String> unrecovered = List.of();
    private final Map<String, Boolean> invariants = new LinkedHashMap<>();
    private String summaryText = "";
    private String jsonText = "";

    /**
     * @param options what to run.
     * @param out     where the live lines go.
     */
    public FabricSoak(final Options options, final PrintWriter out)
    {
        this.options = options;
        this.out = out;
    }

    /**
     * Run the soak.
     *
     * @return {@link #EXIT_OK}, {@link #EXIT_FAILED} or {@link #EXIT_DEADLOCK}.
     */
    public int run()
    {
        final Fabric.Settings settings = new Fabric.Settings().name(options.name)
            .qos(options.ca, options.external, options.management)
            .clocks(options.clock, SystemEpochClock.INSTANCE);
        if (null != options.directory)
        {
            settings.directory(options.directory);
        }
        if (options.vlBufferBlocks > 0)
        {
            settings.vlBufferBlocks(options.vlBufferBlocks);
        }
        try (Fabric f = Fabric.build(options.topology, options.routes, settings))
        {
            fabric = f;
            n = f.endpoints().size();
            if (n < 2)
            {
                throw new IllegalArgumentException("the topology has " + n + " CA port(s) cabled to switches; a " +
                    "soak needs at least 2");
            }
            final int[] lids = new int[n];
            for (int i = 0; i < n; i++)
            {
                lids[i] = f.endpoints().get(i).lid();
            }
            traffic = new FabricTraffic(lids, options.size, options.seed, options.clock);
            slOf = assignSls();
            bringUp();
            final boolean deadlocked = drive();
            if (!deadlocked)
            {
                settleCredits();
            }
            final int exit = verdict(deadlocked);
            // the reports read the nodes' counters, which close with the fabric
            final java.io.StringWriter text = new java.io.StringWriter();
            summary(new PrintWriter(text));
            summaryText = text.toString();
            jsonText = json(exit);
            return exit;
        }
    }

    /**
     * @return the summary of the run: per CA port, per switch port, the invariants, and at a deadlock the credit
     * loop.
     */
    public String summaryText()
    {
        return summaryText;
    }

    /**
     * @return the JSON summary of the run.
     */
    public String jsonText()
    {
        return jsonText;
    }

    /**
     * @param exit the run's exit code.
     * @return a self-contained HTML page of the run's summary.
     */
    public String html(final int exit)
    {
        return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>vlink fabric soak</title>" +
            "<style>body{font-family:sans-serif}pre{background:#f6f6f6;padding:1em}</style></head><body>" +
            "<h1>vlink fabric soak: exit " + exit + "</h1><pre>" + escape(summaryText) + "</pre>" +
            "<h2>JSON</h2><pre>" + escape(jsonText) + "</pre></body></html>\n";
    }

    private void bringUp()
    {
        final long deadline = options.clock.nanoTime() + BRING_UP_NS;
        while (!fabric.isActive())
        {
            if (options.clock.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException("the fabric's links did not all come up in " +
                    BRING_UP_NS / 1_000_000_000 + " s");
            }
            fabric.invoke();
        }
    }

    /** Per (source, destination): the SL by --sl-map or the dateline, or -1 to take --sls in turn. */
    private int[] assignSls()
    {
        final int[] sl = new int[n * n];
        java.util.Arrays.fill(sl, -1);
        for (int s = 0; s < n; s++)
        {
            final Fabric.Endpoint src = fabric.endpoints().get(s);
            for (int d = 0; d < n; d++)
            {
                final int dlid = fabric.endpoints().get(d).lid();
                if (null != options.slMap && PathSl.NONE != options.slMap.sl(src.lid(), dlid))
                {
                    sl[s * n + d] = options.slMap.sl(src.lid(), dlid);
                }
                else if (null != options.datelineSwitch)
                {
                    sl[s * n + d] = PathSl.crosses(options.routes, src.node(), src.portNumber(), dlid,
                        options.datelineSwitch, options.datelinePort) ? 1 : 0;
                }
            }
        }
        return sl;
    }

    private int[] destinations(final SplittableRandom random)
    {
        final int[] dst = new int[n];
        switch (options.pattern)
        {
            case PERMUTATION:
                // a seeded permutation without fixed points: shuffle, then rotate any fixed point away
                final int[] order = new int[n];
                for (int i = 0; i < n; i++)
                {
                    order[i] = i;
                }
                for (int i = n - 1; i > 0; i--)
                {
                    final int j = random.nextInt(i + 1);
                    final int t = order[i];
                    order[i] = order[j];
                    order[j] = t;
                }
                for (int i = 0; i < n; i++)
                {
                    dst[order[i]] = order[(i + 1) % n];
                }
                return dst;
            case ALL_TO_ONE:
                dst[0] = -1;
                return dst;
            case SHIFT:
                for (int i = 0; i < n; i++)
                {
                    dst[i] = (i + n / 2) % n;
                }
                return dst;
            default:
                return null;
        }
    }

    /**
     * Offer traffic, then drain, watching for progress.
     *
     * @return whether the fabric deadlocked.
     */
    private boolean drive()
    {
        final SplittableRandom random = new SplittableRandom(options.seed);
        final int[] fixed = destinations(random.split());
        final SplittableRandom pick = random.split();
        final int[] nextSl = new int[n];
        final NanoClock clock = options.clock;
        final long start = clock.nanoTime();
        final long offerEnd = start + (long)(options.seconds * 1e9);
        final long stallNs = options.stallMs * 1_000_000L;
        long nextLine = start + 1_000_000_000L;
        long nextWatch = start;
        long lastProgress = start;
        long lastMoved = -1;
        long cyclesSinceProgress = 0;
        long queued = 0;
        long lastLineReceived = 0;
        long drainEnd = Long.MAX_VALUE;
        boolean offering = true;
        while (true)
        {
            final long now = clock.nanoTime();
            if (offering)
            {
                if (now - offerEnd >= 0 || (options.packets > 0 && traffic.sentTotal >= options.packets))
                {
                    offering = false;
                    drainEnd = now + DRAIN_NS;
                }
                else
                {
                    offer(fixed, pick, nextSl, now);
                }
            }
            fabric.invoke();
            cyclesSinceProgress++;
            for (int i = 0; i < n; i++)
            {
                traffic.receiver = i;
                fabric.endpoints().get(i).port().poll(traffic, 1024);
            }
            if (!offering && traffic.receivedTotal == traffic.sentTotal)
            {
                drained = true;
                elapsedNs = now - start;
                return false;
            }
            if (now - nextWatch >= 0)
            {
                // the switches' counters are read at the watch's pace, not every duty cycle
                nextWatch = now + WATCH_INTERVAL_NS;
                queued = traffic.sentTotal - traffic.receivedTotal - switchDiscards();
                if (!offering && queued <= 0)
                {
                    drained = queued == 0;
                    elapsedNs = now - start;
                    return false;
                }
                final long moved = moved();
                if (moved != lastMoved)
                {
                    lastMoved = moved;
                    lastProgress = now;
                    cyclesSinceProgress = 0;
                }
                else if (queued > 0 && now - lastProgress > stallNs && cyclesSinceProgress >= STALL_CYCLES)
                {
                    elapsedNs = now - start;
                    stalledQueued = queued;
                    cycle = fabric.creditLoop();
                    return true;
                }
            }
            if (now - nextLine >= 0)
            {
                final long received = traffic.receivedTotal;
                out.println(String.format(Locale.ROOT, "%6.1f s  sent %,d  delivered %,d  %,d pkt/s  queued %,d",
                    (now - start) / 1e9, traffic.sentTotal, received, received - lastLineReceived, queued));
                out.flush();
                lastLineReceived = received;
                nextLine += 1_000_000_000L;
            }
            if (!offering && now - drainEnd > 0)
            {
                elapsedNs = now - start;
                return false;
            }
        }
    }

    private void offer(final int[] fixed, final SplittableRandom pick, final int[] nextSl, final long now)
    {
        for (int s = 0; s < n; s++)
        {
            for (int k = 0; k < POSTS_PER_ROUND; k++)
            {
                if (options.packets > 0 && traffic.sentTotal >= options.packets)
                {
                    return;
                }
                int d;
                if (null == fixed)
                {
                    d = pick.nextInt(n - 1);
                    d = d >= s ? d + 1 : d;
                }
                else
                {
                    d = fixed[s];
                }
                if (d < 0 || d == s)
                {
                    break;
                }
                int sl = slOf[s * n + d];
                if (sl < 0)
                {
                    sl = options.sls[nextSl[s]];
                }
                final int length = traffic.prepare(s, d, sl, now);
                if (fabric.endpoints().get(s).port().postPacket(sl, traffic.buffer(s), 0, length) < 0)
                {
                    break;
                }
                traffic.accepted(s, d, sl);
                if (slOf[s * n + d] < 0)
                {
                    nextSl[s] = nextSl[s] + 1 == options.sls.length ? 0 : nextSl[s] + 1;
                }
            }
        }
    }

    /** @return packets every switch port has sent, and every CA port delivered: what moved. */
    private long moved()
    {
        long moved = traffic.receivedTotal;
        for (final Switch sw : fabric.switches())
        {
            for (int p = 1; p <= sw.ports(); p++)
            {
                final PortCounters c = sw.counters(p);
                moved += sum(c, c::txPackets);
            }
        }
        return moved;
    }

    private long switchDiscards()
    {
        long total = 0;
        for (final Switch sw : fabric.switches())
        {
            for (int p = 0; p <= sw.ports(); p++)
            {
                final PortCounters c = sw.counters(p);
                total += c.discards(DiscardReason.NO_ROUTE.id()).get() +
                    c.discards(DiscardReason.SL2VL_UNMAPPED.id()).get() +
                    c.discards(DiscardReason.HOQ_LIFETIME.id()).get();
            }
        }
        return total;
    }

    private void settleCredits()
    {
        final long deadline = options.clock.nanoTime() + CREDIT_SETTLE_NS;
        do
        {
            for (int i = 0; i < 64; i++)
            {
                fabric.invoke();
            }
            unrecovered = fabric.unrecoveredCredits();
        }
        while (!unrecovered.isEmpty() && options.clock.nanoTime() - deadline < 0);
    }

    private int verdict(final boolean deadlocked)
    {
        long lost = 0;
        long outOfOrder = 0;
        long damaged = 0;
        for (int i = 0; i < n; i++)
        {
            lost += traffic.sentTo[i] - traffic.received[i];
            outOfOrder += traffic.outOfOrder[i];
            damaged += traffic.damaged[i];
        }
        invariants.put("no_deadlock", !deadlocked);
        invariants.put("no_loss", !deadlocked && lost == 0);
        invariants.put("fifo", outOfOrder == 0);
        invariants.put("no_damage", damaged == 0);
        invariants.put("discards_explained", unexplainedDiscards().isEmpty());
        invariants.put("credits_recovered", !deadlocked && unrecovered.isEmpty());
        if (deadlocked)
        {
            return EXIT_DEADLOCK;
        }
        return invariants.containsValue(false) ? EXIT_FAILED : EXIT_OK;
    }

    /** @return discards no fault explains: anything but a bring-up's FCP_STATE (at most 2 per port). */
    private List<String> unexplainedDiscards()
    {
        final List<String> unexplained = new ArrayList<>();
        for (final Topology.Node node : options.topology.nodes())
        {
            for (int p = node.isSwitch() ? 0 : 1; p <= node.portCount(); p++)
            {
                final PortCounters c = fabric.counters(node, p);
                if (null == c)
                {
                    continue;
                }
                for (final DiscardReason reason : DiscardReason.values())
                {
                    final long count = c.discards(reason.id()).get();
                    if (count > 0 && !(DiscardReason.FCP_STATE == reason && count <= 2))
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count);
                    }
                }
            }
        }
        return unexplained;
    }

    /**
     * @return the credit loop found at a deadlock, in waiting order (empty otherwise).
     */
    public List<Fabric.Buffer> cycle()
    {
        return cycle;
    }

    private void summary(final PrintWriter text)
    {
        final double seconds = elapsedNs / 1e9;
        text.println(String.format(Locale.ROOT, "fabric soak: %s, pattern %s, %d CA ports, %d switches, %.1f s: " +
            "sent %,d, delivered %,d (%,.0f pkt/s)", options.label,
            options.pattern.label(), n, fabric.switches().size(), seconds, traffic.sentTotal, traffic.receivedTotal,
            seconds > 0 ? traffic.receivedTotal / seconds : 0.0));
        text.println(String.format(Locale.ROOT, "%-24s %6s %12s %12s %8s %8s %10s %10s", "CA port", "lid", "sent",
            "received", "lost", "order", "p50 us", "p99 us"));
        for (int i = 0; i < n; i++)
        {
            final Fabric.Endpoint e = fabric.endpoints().get(i);
            text.println(String.format(Locale.ROOT, "%-24s %6d %12d %12d %8d %8d %10.1f %10.1f", e.name(), e.lid(),
                traffic.sent[i], traffic.received[i], traffic.sentTo[i] - traffic.received[i], traffic.outOfOrder[i],
                percentile(i, 50), percentile(i, 99)));
        }
        text.println(String.format(Locale.ROOT, "%-24s %-20s %12s %8s %8s  %s", "switch port", "to", "tx packets",
            "util", "stalls", "discards"));
        for (final PortRow row : portRows(seconds))
        {
            text.println(String.format(Locale.ROOT, "%-24s %-20s %12d %7.3f%% %8d  %s", row.port, row.remote,
                row.txPackets, 100 * row.utilization, row.stalls, row.discards));
        }
        if (!cycle.isEmpty() || stalledQueued > 0)
        {
            text.println("deadlock: no packet moved for " + options.stallMs + " ms with " + stalledQueued +
                " packets queued; credit loop: " + (cycle.isEmpty() ? "none found (a stalled receiver?)" :
                cycleText()));
        }
        for (final Map.Entry<String, Boolean> inv : invariants.entrySet())
        {
            text.println("invariant " + inv.getKey() + ": " + (inv.getValue() ? "held" : "FAILED"));
        }
        for (final String end : unrecovered)
        {
            text.println("credits not recovered: " + end);
        }
        for (final String d : unexplainedDiscards())
        {
            text.println("unexplained discards: " + d);
        }
        text.flush();
    }

    private String cycleText()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Fabric.Buffer b : cycle)
        {
            sb.append(b).append(" -> ");
        }
        return sb.append(cycle.get(0)).toString();
    }

    private double percentile(final int i, final double p)
    {
        return traffic.latency[i].getTotalCount() == 0 ? 0 : traffic.latency[i].getValueAtPercentile(p) / 1e3;
    }

    /** A cabled switch port's line of the summary. */
    private record PortRow(
        String switchId, int number, String port, String remote, long txPackets, double utilization, long stalls,
        Map<String, Long> discards)
    {
    }

    private List<PortRow> portRows(final double seconds)
    {
        final List<PortRow> rows = new ArrayList<>();
        for (final Topology.Node node : options.topology.switches())
        {
            final Switch sw = fabric.switchOf(node);
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link cable = node.link(p);
                if (null == cable)
                {
                    continue;
                }
                final PortCounters c = sw.counters(p);
                final long bytes = sum(c, c::txBytes);
                rows.add(new PortRow(node.id(), p, node.id() + "[" + p + "]",
                    cable.remote().id() + "[" + cable.remotePort() + "]", sum(c, c::txPackets),
                    seconds > 0 ? bytes * 8.0 / (seconds * cable.rate().dataBitsPerSecond()) : 0, sum(c, c::creditStalls),
                    discards(c)));
            }
        }
        return rows;
    }

    /** @return a per-VL counter summed over the port's data VLs. */
    private static long sum(final PortCounters c, final java.util.function.IntFunction<AtomicCounter> perVl)
    {
        long total = 0;
        for (int vl = 0; vl < c.dataVls(); vl++)
        {
            total += perVl.apply(vl).get();
        }
        return total;
    }

    private static Map<String, Long> discards(final PortCounters c)
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final DiscardReason reason : DiscardReason.values())
        {
            final long count = c.discards(reason.id()).get();
            if (count > 0)
            {
                map.put(DiscardReasons.name(reason.id()), count);
            }
        }
        return map;
    }

    private String json(final int exit)
    {
        final double seconds = elapsedNs / 1e9;
        final JsonWriter json = new JsonWriter().beginObject()
            .field("topology", options.label)
            .field("pattern", options.pattern.label())
            .field("seconds", seconds)
            .field("size", options.size)
            .field("seed", options.seed)
            .field("sent", traffic.sentTotal)
            .field("delivered", traffic.receivedTotal)
            .field("packets_per_second", seconds > 0 ? traffic.receivedTotal / seconds : 0.0)
            .field("drained", drained)
            .field("exit", exit);
        json.name("cas").beginArray();
        for (int i = 0; i < n; i++)
        {
            final Fabric.Endpoint e = fabric.endpoints().get(i);
            json.beginObject().field("name", e.name()).field("lid", e.lid()).field("sent", traffic.sent[i])
                .field("received", traffic.received[i]).field("lost", traffic.sentTo[i] - traffic.received[i])
                .field("out_of_order", traffic.outOfOrder[i]).field("damaged", traffic.damaged[i])
                .field("latency_p50_us", percentile(i, 50)).field("latency_p99_us", percentile(i, 99)).endObject();
        }
        json.endArray();
        json.name("switch_ports").beginArray();
        for (final PortRow row : portRows(seconds))
        {
            json.beginObject().field("switch", row.switchId).field("port", row.number).field("remote", row.remote)
                .field("tx_packets", row.txPackets).field("utilization", row.utilization)
                .field("credit_stalls", row.stalls);
            json.name("discards").beginObject();
            for (final Map.Entry<String, Long> d : row.discards.entrySet())
            {
                json.field(d.getKey(), d.getValue());
            }
            json.endObject().endObject();
        }
        json.endArray();
        json.name("invariants").beginObject();
        for (final Map.Entry<String, Boolean> inv : invariants.entrySet())
        {
            json.field(inv.getKey(), inv.getValue());
        }
        json.endObject();
        json.name("deadlock");
        if (cycle.isEmpty() && stalledQueued == 0)
        {
            json.value((String)null);
        }
        else
        {
            json.beginObject().field("stall_ms", options.stallMs).field("queued", stalledQueued);
            json.name("cycle").beginArray();
            for (final Fabric.Buffer b : cycle)
            {
                json.beginObject().field("switch", b.switchId()).field("port", b.port()).field("vl", b.vl())
                    .endObject();
            }
            json.endArray().endObject();
        }
        return json.endObject().toString();
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
