package io.vlink.tools.fabric;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.Fabric;
import io.vlink.nic.FabricConfiguration;
import io.vlink.nic.QueuePair;
import io.vlink.nic.Switch;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.status.CreditRecovery;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.status.ReadableCounter;
import io.vlink.tools.JsonWriter;
import io.vlink.tools.soak.FaultKind;
import io.vlink.tools.soak.FaultSpec;
import io.vlink.tools.soak.FaultyLink;
import io.vlink.tools.soak.LatencyRecorder;
import io.vlink.tools.soak.SoakFaults;
import io.vlink.tools.soak.SoakResult;
import io.vlink.tools.soak.SoakRunner;
import io.vlink.tools.soak.SoakTimeline;
import io.vlink.tools.soak.SoakTraffic;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.File;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.BooleanSupplier;

/**
 * {@code vlink fabric soak} (docs/fabric.md): every node of a topology in this process ({@link Fabric}), each CA port
 * sending to destinations its pattern chooses, on the SLs given or by the path SL policy; a live line each second;
 * then the drain, the end-to-end invariants and a summary per CA port and per switch port. A progress watch finds
 * deadlocks: packets queued and no packet moved for the stall time, then the credit loop the switches hold.
 * <p>
 * The whole fabric runs on the calling thread ({@link Options#switchThread} false), or the switches on a second
 * thread and the CA ports on the calling one: on a small machine that beats a thread per node. Every CA port's soak
 * state (what it sent, received, the checks) has the calling thread as its one writer either way; the switches' state
 * is read from their published counters, or while they are paused (the credit loop at a deadlock, the end of the
 * run's checks). {@link Options#baselineThreading} runs {@code vlink soak}'s two back-to-back ports after the fabric,
 * with the same packet size and time, for the ratio of the two rates in one run.
 * <p>
 * {@code vlink fabric run} runs the same with only some nodes in this process ({@link Options#nodes}): cables to the
 * others are the links {@link Options#remoteLinks} makes, the CA ports here send to destinations wherever they run,
 * and what is checked is what one process can see (docs/fabric.md, "Across processes"). With wire faults
 * ({@link Options#faults}) the cables chosen damage what they carry, and every loss and discard must be explained by
 * them.
 */
public final class FabricSoak
{
    /** Every invariant held. */
    public static final int EXIT_OK = 0;
    /** An invariant failed. */
    public static final int EXIT_FAILED = 1;
    /** The fabric deadlocked. */
    public static final int EXIT_DEADLOCK = 3;
    /**
     * A process of a fabric run whose peer went away mid-run (its links to the peer went down and stayed down): the
     * failure it is, named with the peer's address, not the deadlock its queued packets look like.
     */
    public static final int EXIT_PEER_GONE = EXIT_FAILED;
    /**
     * How long a link to another process stays down, after its link timeout took it down, before its peer counts as
     * gone: a live peer re-trains within milliseconds.
     */
    static final long PEER_GONE_NS = 1_000_000_000L;

    /** How long the links get to come up, by default. */
    public static final long BRING_UP_NS = 10_000_000_000L;
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
    /**
     * Duty cycles of the switch thread without progress before a stall counts, besides the stall time and
     * {@link #STALL_CYCLES} of the calling thread: a switch thread the machine starved has not deadlocked, and one that
     * ran this many duty cycles and moved nothing has had its chance.
     */
    private static final long SWITCH_STALL_CYCLES = 1_000;
    /** What a port whose link bounced discards: packets and FCPs of the link's previous incarnation or state. */
    private static final Set<DiscardReason> BOUNCE_DISCARDS = java.util.EnumSet.of(DiscardReason.DATA_STATE,
        DiscardReason.FCP_STATE, DiscardReason.FCP_STALE, DiscardReason.VL15_STATE);
    /** How long a fault's steps get (tables applied, a bounced link down and up again). */
    private static final long FAULT_DEADLINE_NS = 5_000_000_000L;
    /**
     * Every port's link timeout when the switches have a thread of their own (unless one is given): on a busy machine
     * the scheduler can leave one of the two threads off the CPU for longer than the engine's 200 ms while the other
     * runs (docs/performance.md, "Switch and fabric"), which would take the peers on the other thread for gone. On
     * one thread every node stops together and none hears the others' silence.
     */
    public static final long SWITCH_THREAD_LINK_TIMEOUT_NS = 2_000_000_000L;
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
        /** What the summary calls the run. */
        public String title = "fabric soak";
        public NanoClock clock = SystemNanoClock.INSTANCE;
        /** The IDs of the nodes run in this process, or null for every node. */
        public Set<String> nodes;
        /** Makes the links of cables to nodes not in {@link #nodes}. */
        public Fabric.RemoteLinks remoteLinks;
        /** With {@link #remoteLinks}: a node's address ({@code HOST:PORT} of the peers file), to name a peer gone. */
        public java.util.function.Function<Topology.Node, String> peerAddress = node -> "?";
        /** How long every link gets to come up (the peers to appear). */
        public long bringUpNs = BRING_UP_NS;
        /** Every port's link timeout, or 0 for the engine's. */
        public long linkTimeoutNs;
        /** With {@link #nodes}: how long nothing moves before this process's part of the run is over. */
        public long quietNs = 2_000_000_000L;
        /** Asked every duty cycle: true stops the run where it is (Ctrl-C); the summary follows. */
        public BooleanSupplier stop = () -> false;
        /** The wire's faults, on {@link #faultNode}'s cable or on every cable. */
        public FaultSpec faults = FaultSpec.none();
        /** The node and port whose cable gets the faults, or null for every cable. */
        public Topology.Node faultNode;
        public int faultPort;
        /**
         * Whether the switches run on a thread of their own, the CA ports on the calling thread (not with
         * {@link #faults}: a fault acts on the switches mid-run).
         */
        public boolean switchThread;
        /**
         * After the fabric: {@code vlink soak}'s two ports back to back in this threading mode, with the same packet
         * size, time and seed, for the fabric/baseline ratio; null for none.
         */
        public ThreadingMode baselineThreading;
        /**
         * Seconds at the start of the run that the rate after warm-up leaves out (the JIT's, and on two threads the
         * time its compiler threads wait for a core); a run shorter than twice this leaves out its first half.
         */
        public double warmupSeconds = 2.0;
    }

    /**
     * {@code vlink soak}'s two ports back to back, run after the fabric.
     *
     * @param threads         its threading mode, as {@code vlink soak --threads} names it.
     * @param packetsPerSecond data packets delivered a second (every VL), while traffic was offered.
     * @param steadyPacketsPerSecond the same over its whole seconds after the fabric's warm-up.
     * @param ok              whether every invariant of the soak held.
     */
    private record Baseline(String threads, double packetsPerSecond, double steadyPacketsPerSecond, boolean ok)
    {
    }

    /** One damaged end of a cable: the port that receives through it. */
    private record FaultyEnd(Topology.Node node, int port, FaultyLink link)
    {
    }

    private final Options options;
    private final PrintWriter out;
    private Fabric fabric;
    private FabricTraffic traffic;
    /** Every CA port of the topology: the traffic's numbering (file order). */
    private int n;
    private String[] names;
    /** The CA ports run here: their numbers, and each number's endpoint (null when it runs elsewhere). */
    private int[] local;
    private Fabric.Endpoint[] endpointAt;
    private boolean partial;
    private boolean stopped;
    /** The ports of this process whose cables lead to other processes' nodes, and their port numbers. */
    private final List<Topology.Node> remoteNodes = new ArrayList<>();
    private final List<Integer> remotePorts = new ArrayList<>();
    /** Since when each of {@link #remotePorts} has been down (0: up). */
    private long[] remoteDownSinceNs = new long[0];
    /** Why the run ended early: the peers that went away, or null. */
    private String peerGone;
    /** Whether a link to another process is down now (its peer may be gone: no deadlock is declared meanwhile). */
    private boolean remoteDown;
    private final List<FaultyEnd> faultyEnds = new ArrayList<>();
    /** The CA ports the timed faults act on: the fault cable's CA end, or every CA port. */
    private final List<Fabric.Endpoint> faultCas = new ArrayList<>();
    private final long[] timedInjected = new long[FaultKind.values().length];
    private final long[] timedDetected = new long[FaultKind.values().length];
    private long stalls;
    private long stallUntilNs;
    private long stallsAtStallStart;
    private int retables;
    private int bounces;
    private long floods;
    /** Per CA port in {@link #faultCas}: its flood SMPs (vlink soak's, to its switch's LID or directed-route). */
    private SoakTraffic[] smpSources;
    /** Per CA port in {@link #faultCas}: its switch, the switch port's counters, and what a flood counts there. */
    private Switch[] floodSwitch;
    private PortCounters[] floodPort;
    private long[] floodPosted;
    private long[] floodAccountedBefore;
    private long[] floodDropsBefore;
    /** Per CA port in {@link #faultCas}: the flood SMPs its switch port dropped (the VL15_FULL discards explained). */
    private long[] floodDropped;
    /** Flood SMPs sent that their switch port neither stored nor dropped (nor discarded) by the flood's deadline. */
    private long floodUnaccounted;
    private int[] slOf;
    private long elapsedNs;
    // the rate after warm-up: packets delivered from the end of the warm-up to the end of the offers, and that time
    private long warmupEndNs;
    private long warmupDelivered = -1;
    private long steadyDelivered = -1;
    private long steadyNs;
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
        final FabricConfiguration.Builder settings = Fabric.builder().name(options.name)
            .qos(options.ca, options.external, options.management)
            .clocks(options.clock, SystemEpochClock.INSTANCE);
        if (null != options.nodes)
        {
            settings.local(node -> options.nodes.contains(node.id()), options.remoteLinks);
        }
        if (options.linkTimeoutNs > 0)
        {
            settings.linkTimeoutNs(options.linkTimeoutNs);
        }
        else if (options.switchThread)
        {
            settings.linkTimeoutNs(SWITCH_THREAD_LINK_TIMEOUT_NS);
        }
        if (options.faults.any())
        {
            if (options.switchThread)
            {
                throw new IllegalArgumentException("faults act on the switches mid-run: run them on the calling " +
                    "thread (one thread)");
            }
            settings.linkWrapper(this::faulty);
        }
        settings.switchThread(options.switchThread);
        if (null != options.directory)
        {
            settings.directory(options.directory);
        }
        if (options.vlBufferBlocks > 0)
        {
            settings.vlBufferBlocks(options.vlBufferBlocks);
        }
        int exit;
        final JsonWriter json;
        final boolean deadlocked;
        try (Fabric f = settings.build(options.topology, options.routes))
        {
            fabric = f;
            number(f);
            if (n < 2)
            {
                throw new IllegalArgumentException("the topology has " + n + " CA port(s) cabled to switches; a " +
                    "soak needs at least 2");
            }
            final int[] lids = new int[n];
            final List<int[]> caPorts = Fabric.caPorts(options.topology);
            for (int i = 0; i < n; i++)
            {
                lids[i] = options.topology.nodes().get(caPorts.get(i)[0]).baseLid(caPorts.get(i)[1]);
            }
            traffic = new FabricTraffic(lids, options.size, options.seed, options.clock);
            for (final Fabric.Endpoint e : f.endpoints())
            {
                final Topology.Link cable = null == options.faultNode ? null :
                    options.faultNode.link(options.faultPort);
                if (null == cable || (e.node() == options.faultNode && e.portNumber() == options.faultPort) ||
                    (e.node() == cable.remote() && e.portNumber() == cable.remotePort()))
                {
                    faultCas.add(e);
                }
            }
            if (options.faults.isOn(FaultKind.VL15_FLOOD))
            {
                floodTargets();
            }
            slOf = assignSls();
            bringUp();
            deadlocked = !stopped && drive();
            if (!deadlocked && !stopped && null == peerGone)
            {
                settleCredits();
            }
            // the reports read the nodes' counters, which close with the fabric; the switches hold still meanwhile
            try (Fabric.Paused paused = f.pauseSwitches())
            {
                exit = verdict(deadlocked);
                final java.io.StringWriter text = new java.io.StringWriter();
                summary(new PrintWriter(text));
                summaryText = text.toString();
                json = json(exit);
            }
            if (partial && !stopped && null == peerGone)
            {
                linger();
            }
        }
        // the fabric is closed: the baseline has the machine to itself
        if (null != options.baselineThreading && !stopped && !deadlocked)
        {
            exit = baseline(exit, json);
        }
        jsonText = json.endObject().toString();
        return exit;
    }

    /**
     * @return the run's threads: 2 with a switch thread, else 1.
     */
    private int threads()
    {
        return options.switchThread ? 2 : 1;
    }

    /**
     * {@code vlink soak}'s two ports back to back (its default QoS, traffic on every VL), the same packet size, time
     * and seed, once the fabric is closed: its rate and the fabric's ratio to it go into the summary and the JSON.
     *
     * @return the exit code: a baseline whose invariants failed turns a passing run into a failed one.
     */
    /**
     * @return the seconds the rate after warm-up leaves out: {@link Options#warmupSeconds}, or half of a shorter run.
     */
    private double warmupSeconds()
    {
        return Math.min(options.warmupSeconds, options.seconds / 2);
    }

    /**
     * @return packets delivered a second from the end of the warm-up to the end of the offers (0 when the run was
     * stopped before the offers ended).
     */
    private double steadyRate()
    {
        return steadyNs > 0 ? steadyDelivered / (steadyNs / 1e9) : 0;
    }

    private int baseline(final int exit, final JsonWriter json)
    {
        final SoakRunner.Options soak = new SoakRunner.Options();
        soak.seconds = options.seconds;
        soak.sizeMin = options.size;
        soak.sizeMax = options.size;
        soak.seed = options.seed;
        soak.threading = options.baselineThreading;
        soak.directory = options.directory;
        soak.clock = options.clock;
        soak.stop = options.stop;
        final SoakRunner.Outcome outcome = SoakRunner.run(soak, null);
        final SoakResult result = outcome.result;
        long delivered = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            delivered += vl.receivedPackets;
        }
        stopped |= result.interrupted;
        final double fabricRate = elapsedNs > 0 ? traffic.receivedTotal / (elapsedNs / 1e9) : 0;
        // the soak's timeline has each whole second's bytes: the seconds from the end of the same warm-up on
        final SoakTimeline timeline = outcome.timeline;
        final int from = (int)Math.ceil(warmupSeconds());
        final int to = Math.min(timeline.seconds(), (int)Math.floor(options.seconds));
        long steadyBytes = 0;
        for (int second = from; second < to; second++)
        {
            steadyBytes += timeline.totalBytes(second);
        }
        final double wholeRate = result.seconds > 0 ? delivered / result.seconds : 0;
        final Baseline baseline = new Baseline(options.baselineThreading.name().toLowerCase(Locale.ROOT), wholeRate,
            to > from ? steadyBytes / (double)options.size / (to - from) : wholeRate, result.ok());
        final double ratio = baseline.steadyPacketsPerSecond() > 0 ?
            steadyRate() / baseline.steadyPacketsPerSecond() : 0;
        final double wholeRatio = baseline.packetsPerSecond() > 0 ? fabricRate / baseline.packetsPerSecond() : 0;
        summaryText += String.format(Locale.ROOT, "baseline: vlink soak, 2 ports back to back, threads %s: %,.0f " +
            "pkt/s after the warm-up (%,.0f over the run); fabric/baseline %.2f after the warm-up (%.2f over the " +
            "runs)%s%n", baseline.threads(), baseline.steadyPacketsPerSecond(), baseline.packetsPerSecond(), ratio,
            wholeRatio, baseline.ok() ? "" : " (the baseline soak FAILED an invariant: " + result.violations + ")");
        json.field("baseline_pkt_s", baseline.packetsPerSecond())
            .field("baseline_pkt_s_after_warmup", baseline.steadyPacketsPerSecond())
            .field("baseline_threads", baseline.threads())
            .field("baseline_ok", baseline.ok()).field("ratio", ratio).field("ratio_whole_run", wholeRatio);
        return EXIT_OK == exit && !baseline.ok() ? EXIT_FAILED : exit;
    }

    /**
     * @return whether the run was stopped ({@link Options#stop}) before it ended by itself.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /** Number every CA port of the topology in file order, and find those this process runs. */
    private void number(final Fabric f)
    {
        final List<int[]> caPorts = Fabric.caPorts(options.topology);
        n = caPorts.size();
        names = new String[n];
        endpointAt = new Fabric.Endpoint[n];
        local = new int[f.endpoints().size()];
        int next = 0;
        for (int i = 0; i < n; i++)
        {
            final Topology.Node node = options.topology.nodes().get(caPorts.get(i)[0]);
            names[i] = Fabric.caPortName(node, caPorts.get(i)[1]);
            for (final Fabric.Endpoint e : f.endpoints())
            {
                if (e.node() == node && e.portNumber() == caPorts.get(i)[1])
                {
                    endpointAt[i] = e;
                    local[next++] = i;
                }
            }
        }
        for (final Topology.Node node : options.topology.nodes())
        {
            partial |= !f.isLocal(node);
            for (int port = 1; f.isLocal(node) && port <= node.portCount(); port++)
            {
                if (null != node.link(port) && !f.isLocal(node.link(port).remote()))
                {
                    remoteNodes.add(node);
                    remotePorts.add(port);
                }
            }
        }
        remoteDownSinceNs = new long[remotePorts.size()];
    }

    /**
     * A process of a fabric run: whether a link to another process went down and stayed down for
     * {@link #PEER_GONE_NS} (its peer's process killed or stopped: a live one re-trains at once); if so,
     * {@link #peerGone} says which peers, where, and through which links.
     *
     * @param nowNs the run's time.
     * @return whether a peer is gone.
     */
    private boolean peerGone(final long nowNs)
    {
        boolean any = false;
        remoteDown = false;
        for (int i = 0; i < remotePorts.size(); i++)
        {
            if (linkState(remoteNodes.get(i), remotePorts.get(i)).maySendData())
            {
                remoteDownSinceNs[i] = 0;
                continue;
            }
            remoteDown = true;
            if (0 == remoteDownSinceNs[i])
            {
                remoteDownSinceNs[i] = nowNs | 1;
            }
            any |= 0 != remoteDownSinceNs[i] && nowNs - remoteDownSinceNs[i] >= PEER_GONE_NS;
        }
        if (!any)
        {
            return false;
        }
        final java.util.Map<String, List<String>> gone = new java.util.LinkedHashMap<>();
        for (int i = 0; i < remotePorts.size(); i++)
        {
            final Topology.Node node = remoteNodes.get(i);
            final int port = remotePorts.get(i);
            if (0 != remoteDownSinceNs[i] && nowNs - remoteDownSinceNs[i] >= PEER_GONE_NS)
            {
                final Topology.Link cable = node.link(port);
                gone.computeIfAbsent(cable.remote().id() + " at " + options.peerAddress.apply(cable.remote()),
                    peer -> new ArrayList<>()).add(node.id() + "[" + port + "] - " + cable.remote().id() + "[" +
                    cable.remotePort() + "]");
            }
        }
        final StringBuilder text = new StringBuilder();
        gone.forEach((peer, links) -> text.append(text.length() == 0 ? "" : "; ").append("the peer ").append(peer)
            .append(" went away: ").append(links.size() == 1 ? "the link " : "the links ")
            .append(String.join(", ", links)).append(links.size() == 1 ? " is" : " are")
            .append(" down (its process is gone or stopped: it answered nothing for the link timeout)"));
        peerGone = text.toString();
        return true;
    }

    /**
     * @return why a process of a fabric run ended early: the peers that went away, with their addresses and links;
     * null when none did.
     */
    public String peerGone()
    {
        return peerGone;
    }

    /** The fabric's link wrapper with faults: both ends of each chosen cable damage what they receive. */
    private io.vlink.nic.link.Link faulty(final Topology.Node node, final int port, final io.vlink.nic.link.Link link)
    {
        final Topology.Link cable = node.link(port);
        final boolean chosen = null == options.faultNode ||
            (options.faultNode == node && options.faultPort == port) ||
            (options.faultNode == cable.remote() && options.faultPort == cable.remotePort());
        if (!chosen)
        {
            return link;
        }
        final FaultyLink faulty = new FaultyLink(link, options.faults, options.seed, node.index() * 256 + port);
        faultyEnds.add(new FaultyEnd(node, port, faulty));
        return faulty;
    }

    private void armFaults(final boolean armed)
    {
        for (final FaultyEnd end : faultyEnds)
        {
            end.link.arm(armed);
        }
    }

    /**
     * This process's part is over: keep its links up (FCPs flowing) for the quiet time more, so that the processes
     * whose traffic ended a little later can check their credits on the cables to this one before it goes.
     */
    private void linger()
    {
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long end = options.clock.nanoTime() + options.quietNs;
        while (options.clock.nanoTime() - end < 0 && !options.stop.getAsBoolean())
        {
            idle.idle(fabric.invoke());
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
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long deadline = options.clock.nanoTime() + options.bringUpNs;
        while (!fabric.isActive())
        {
            if (options.stop.getAsBoolean())
            {
                stopped = true;
                return;
            }
            if (options.clock.nanoTime() - deadline > 0)
            {
                throw new IllegalStateException(notUp());
            }
            idle.idle(fabric.invoke());
        }
    }

    /** @return why the bring-up failed: the peers that never appeared and the ports whose links are not up. */
    private String notUp()
    {
        final List<String> ports = fabric.portsNotActive();
        final Set<String> peers = new java.util.LinkedHashSet<>();
        for (final String port : ports)
        {
            final Topology.Node node = options.topology.node(port.substring(0, port.lastIndexOf('[')));
            final Topology.Link cable = node.link(Integer.parseInt(port.substring(port.lastIndexOf('[') + 1,
                port.length() - 1)));
            if (!fabric.isLocal(cable.remote()))
            {
                peers.add(cable.remote().id());
            }
        }
        final String seconds = options.bringUpNs / 1_000_000_000 + " s";
        return peers.isEmpty() ? "the fabric's links did not all come up in " + seconds + ": " + ports :
            "peers never appeared in " + seconds + ": " + String.join(", ", peers) + " (links not up: " +
            String.join(", ", ports) + ")";
    }

    /** Per (source, destination): the SL by --sl-map or the dateline, or -1 to take --sls in turn. */
    private int[] assignSls()
    {
        final int[] sl = new int[n * n];
        java.util.Arrays.fill(sl, -1);
        final List<int[]> caPorts = Fabric.caPorts(options.topology);
        for (int s = 0; s < n; s++)
        {
            final Topology.Node src = options.topology.nodes().get(caPorts.get(s)[0]);
            final int srcPort = caPorts.get(s)[1];
            final int slid = src.baseLid(srcPort);
            for (int d = 0; d < n; d++)
            {
                final int dlid = options.topology.nodes().get(caPorts.get(d)[0]).baseLid(caPorts.get(d)[1]);
                if (null != options.slMap && PathSl.NONE != options.slMap.sl(slid, dlid))
                {
                    sl[s * n + d] = options.slMap.sl(slid, dlid);
                }
                else if (null != options.datelineSwitch)
                {
                    sl[s * n + d] = PathSl.crosses(options.routes, src, srcPort, dlid,
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
     * Offer traffic, then drain, watching for progress. A whole fabric has drained when every packet sent was
     * received; a process that runs part of one when nothing moved through it for the quiet time after it stopped
     * offering (the other processes' traffic ends at about the same time, and passes through it until then).
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
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long start = clock.nanoTime();
        final long offerEnd = start + (long)(options.seconds * 1e9);
        final long warmupEnd = start + (long)(warmupSeconds() * 1e9);
        final long stallNs = options.stallMs * 1_000_000L;
        long nextLine = start + 1_000_000_000L;
        long nextWatch = start;
        long lastProgress = start;
        long lastMoved = -1;
        long cyclesSinceProgress = 0;
        long switchCyclesAtProgress = fabric.switchDutyCycles();
        long queued = 0;
        long lastLineReceived = 0;
        long drainEnd = Long.MAX_VALUE;
        boolean offering = true;
        armFaults(true);
        while (true)
        {
            final long now = clock.nanoTime();
            if (options.stop.getAsBoolean())
            {
                stopped = true;
                armFaults(false);
                elapsedNs = now - start;
                return false;
            }
            if (offering)
            {
                if (warmupDelivered < 0 && now - warmupEnd >= 0)
                {
                    warmupDelivered = traffic.receivedTotal;
                    warmupEndNs = now;
                }
                if (now - offerEnd >= 0 || (options.packets > 0 && traffic.sentTotal >= options.packets))
                {
                    offering = false;
                    // the rate after warm-up (the whole offering time when it ended first: --packets)
                    steadyDelivered = traffic.receivedTotal - Math.max(0, warmupDelivered);
                    steadyNs = now - (warmupDelivered < 0 ? start : warmupEndNs);
                    armFaults(false);
                    endStall();
                    drainEnd = now + DRAIN_NS;
                }
                else
                {
                    timedFaults(now, now - start, offerEnd - start);
                    offer(fixed, pick, nextSl, now);
                }
            }
            final int work = fabric.invoke();
            cyclesSinceProgress++;
            if (0 != stallUntilNs && now - stallUntilNs >= 0)
            {
                endStall();
            }
            poll();
            if (partial && 0 == work && !offering)
            {
                idle.idle();
            }
            if (!partial && !offering && traffic.receivedTotal == traffic.sentTotal - faultLost())
            {
                drained = true;
                elapsedNs = now - start;
                return false;
            }
            if (now - nextWatch >= 0)
            {
                // the switches' counters are read at the watch's pace, not every duty cycle
                nextWatch = now + WATCH_INTERVAL_NS;
                // a process of a fabric run: a peer that went away while this one still offers ends the run
                final boolean gone = partial && peerGone(now);
                if (gone && offering)
                {
                    armFaults(false);
                    elapsedNs = now - start;
                    return false;
                }
                queued = partial ? switchQueued() :
                    traffic.sentTotal - traffic.receivedTotal - switchDiscards() - faultLost();
                if (!partial && !offering && queued <= 0)
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
                    switchCyclesAtProgress = fabric.switchDutyCycles();
                }
                else if (partial && !offering && queued == 0 && now - lastProgress > options.quietNs)
                {
                    drained = true;
                    elapsedNs = now - start;
                    return false;
                }
                else if (gone && queued > 0 && now - lastProgress > stallNs)
                {
                    // what waits is for the peer that went away: not a credit loop
                    elapsedNs = now - start;
                    return false;
                }
                else if (queued > 0 && now - lastProgress > stallNs && cyclesSinceProgress >= STALL_CYCLES &&
                    fabric.switchDutyCycles() - switchCyclesAtProgress >= SWITCH_STALL_CYCLES && !remoteDown)
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

    /** Every local CA port's application takes what it received, but those a receiver stall holds. */
    private void poll()
    {
        for (final int i : local)
        {
            if (0 != stallUntilNs && faultCas.contains(endpointAt[i]))
            {
                continue;
            }
            traffic.receiver = i;
            endpointAt[i].port().poll(traffic, 1024);
        }
    }

    /**
     * The timed faults that act on CA ports, as {@code vlink soak} schedules them: a VL15 flood once a second (at
     * +0.25 s), a receiver stall once a second (at +0.5 s), table replacements N times a run at k/(N+1) of it (of its
     * packets with --packets, of its time otherwise).
     */
    private void timedFaults(final long nowNs, final long sinceNs, final long lengthNs)
    {
        final FaultSpec faults = options.faults;
        final long retableCount = faults.count(FaultKind.RETABLE);
        if (retables < retableCount && (options.packets > 0 ?
            traffic.sentTotal >= (retables + 1) * options.packets / (retableCount + 1) :
            sinceNs >= (retables + 1) * lengthNs / (retableCount + 1)))
        {
            retable(retables++);
        }
        final long bounceCount = faults.count(FaultKind.LINK_BOUNCE);
        if (bounces < bounceCount && (options.packets > 0 ?
            traffic.sentTotal >= (2L * bounces + 1) * options.packets / (2 * bounceCount) :
            sinceNs >= (2L * bounces + 1) * lengthNs / (2 * bounceCount)))
        {
            bounces++;
            bounce();
        }
        final long flood = SoakFaults.occurrence(sinceNs, SoakFaults.FLOOD_OFFSET_NS);
        if (faults.isOn(FaultKind.VL15_FLOOD) && flood >= floods)
        {
            floods = flood + 1;
            vl15Flood((int)faults.count(FaultKind.VL15_FLOOD));
        }
        final long stall = SoakFaults.occurrence(sinceNs, SoakFaults.STALL_OFFSET_NS);
        if (faults.isOn(FaultKind.STALL_RECEIVER) && 0 == stallUntilNs && stall >= stalls)
        {
            stalls = stall + 1;
            timedInjected[FaultKind.STALL_RECEIVER.ordinal()]++;
            stallsAtStallStart = stallsInto();
            stallUntilNs = nowNs + faults.count(FaultKind.STALL_RECEIVER) * 1_000_000L;
        }
    }

    /** The switch each flooding CA port is cabled to, the port its SMPs arrive at, and their source. */
    private void floodTargets()
    {
        final int count = faultCas.size();
        smpSources = new SoakTraffic[count];
        floodSwitch = new Switch[count];
        floodPort = new PortCounters[count];
        floodPosted = new long[count];
        floodAccountedBefore = new long[count];
        floodDropsBefore = new long[count];
        floodDropped = new long[count];
        for (int i = 0; i < count; i++)
        {
            final Fabric.Endpoint e = faultCas.get(i);
            final Topology.Link cable = e.node().link(e.portNumber());
            floodSwitch[i] = fabric.switchOf(cable.remote());
            floodPort[i] = fabric.counters(cable.remote(), cable.remotePort());
            // vlink soak's SMPs (its data packets are not used): Get NodeInfo and PortInfo, LID-routed to the switch
            // and directed-route in turn, padded to the largest packet
            smpSources[i] = new SoakTraffic(options.size, options.size, options.seed + i, e.lid(),
                floodSwitch[i].lid(), new LatencyRecorder(FAULT_DEADLINE_NS), options.clock);
        }
    }

    /**
     * A VL15 flood, as {@code vlink soak}'s: each flooding CA port sends 4 + {@code extra} SMPs of the largest size to
     * its switch while the switch's SMA is held ({@link Switch#holdManagement}), so the input's VL15 buffer (4 largest
     * packets) fills and the rest are dropped and counted ({@code vl15_drops}); then the SMA takes what waited. Every
     * SMP is accounted for (stored or dropped at the switch port) before the hold ends. Injected: the SMPs beyond the
     * buffer; detected: the switch port's VL15 drops meanwhile. Data VLs go on throughout.
     */
    private void vl15Flood(final int extra)
    {
        final int count = faultCas.size();
        // the fabric's switches keep the default VL15 buffer: that many largest packets
        final int buffer = EngineConfiguration.DEFAULT_VL15_PACKETS;
        final int total = buffer + extra;
        for (int i = 0; i < count; i++)
        {
            floodSwitch[i].holdManagement(true);
            floodPosted[i] = 0;
            floodAccountedBefore[i] = vl15Accounted(floodPort[i]);
            floodDropsBefore[i] = floodPort[i].vl15Drops().get();
        }
        final long deadline = options.clock.nanoTime() + FAULT_DEADLINE_NS;
        boolean posting = true;
        while (posting && options.clock.nanoTime() - deadline < 0)
        {
            posting = false;
            for (int i = 0; i < count; i++)
            {
                final SoakTraffic source = smpSources[i];
                if (floodPosted[i] < total && faultCas.get(i).port().postSmp(source.smp(), 0,
                    source.prepareSmp(true)) != QueuePair.BACK_PRESSURED)
                {
                    floodPosted[i]++;
                    source.smpAccepted();
                }
                posting |= floodPosted[i] < total;
            }
            fabric.invoke();
            poll();
        }
        await(() ->
        {
            boolean accounted = true;
            for (int i = 0; i < count; i++)
            {
                accounted &= vl15Accounted(floodPort[i]) - floodAccountedBefore[i] == floodPosted[i];
            }
            return accounted;
        });
        for (int i = 0; i < count; i++)
        {
            final long dropped = floodPort[i].vl15Drops().get() - floodDropsBefore[i];
            floodUnaccounted += floodPosted[i] - (vl15Accounted(floodPort[i]) - floodAccountedBefore[i]);
            timedInjected[FaultKind.VL15_FLOOD.ordinal()] += Math.max(0, floodPosted[i] - buffer);
            timedDetected[FaultKind.VL15_FLOOD.ordinal()] += dropped;
            floodDropped[i] += dropped;
            floodSwitch[i].holdManagement(false);
        }
    }

    /** @return SMPs a switch port stored, dropped for a full VL15 buffer, or discarded for its link state. */
    private static long vl15Accounted(final PortCounters c)
    {
        return c.rxPackets(Switch.VL15).get() + c.vl15Drops().get() + c.discards(DiscardReason.VL15_STATE.id()).get();
    }

    /**
     * @return the flood SMPs the switch port dropped for a full VL15 buffer, or -1 when no CA port floods into it.
     */
    private long floodDropped(final Topology.Node node, final int port)
    {
        for (int i = 0; null != floodPort && i < floodPort.length; i++)
        {
            if (fabric.counters(node, port) == floodPort[i])
            {
                return floodDropped[i];
            }
        }
        return -1;
    }

    /** A receiver stall ends: detected when a port sending to a stalled CA port ran out of credit meanwhile. */
    private void endStall()
    {
        if (0 != stallUntilNs)
        {
            stallUntilNs = 0;
            if (stallsInto() > stallsAtStallStart)
            {
                timedDetected[FaultKind.STALL_RECEIVER.ordinal()]++;
            }
        }
    }

    /** @return credit stalls of the switch ports that send to the CA ports the timed faults act on. */
    private long stallsInto()
    {
        long total = 0;
        for (final Fabric.Endpoint e : faultCas)
        {
            final Topology.Link cable = e.node().link(e.portNumber());
            final PortCounters c = fabric.counters(cable.remote(), cable.remotePort());
            total += null == c ? 0 : sum(c, c::creditStalls);
        }
        return total;
    }

    /**
     * A link bounce of the fault cable: both ends go down and come back up through Initialize; the wire is cut (loses
     * every data packet, counted) from the down request until both are Active again, as a physical link loses what
     * is on it. Before they come up, each end's receiver has found the wire empty once: whatever an end sent before
     * it went down (an FCP of the old link, say) is gone, as a physical link's symbols are long gone when it has
     * trained again, and no port that comes up reads it as its peer's.
     */
    private void bounce()
    {
        final Topology.Node a = options.faultNode;
        final int pa = options.faultPort;
        final Topology.Node b = a.link(pa).remote();
        final int pb = a.link(pa).remotePort();
        timedInjected[FaultKind.LINK_BOUNCE.ordinal()]++;
        cut(true);
        down(a, pa);
        down(b, pb);
        if (await(() -> LinkState.DOWN == linkState(a, pa) && LinkState.DOWN == linkState(b, pb)) &&
            await(wireEmptied()))
        {
            up(a, pa);
            up(b, pb);
            if (await(() -> LinkState.ACTIVE == linkState(a, pa) && LinkState.ACTIVE == linkState(b, pb)))
            {
                timedDetected[FaultKind.LINK_BOUNCE.ordinal()]++;
            }
        }
        cut(false);
    }

    /**
     * @return true once every faulty end (with link-bounce, the bounced cable's ends this process runs) has found the
     * wire empty since this call.
     */
    private BooleanSupplier wireEmptied()
    {
        final long[] before = new long[faultyEnds.size()];
        for (int i = 0; i < before.length; i++)
        {
            before[i] = faultyEnds.get(i).link.emptyPolls();
        }
        return () ->
        {
            for (int i = 0; i < before.length; i++)
            {
                if (faultyEnds.get(i).link.emptyPolls() == before[i])
                {
                    return false;
                }
            }
            return true;
        };
    }

    private void cut(final boolean cut)
    {
        for (final FaultyEnd end : faultyEnds)
        {
            end.link.cut(cut);
        }
    }

    private LinkState linkState(final Topology.Node node, final int port)
    {
        return node.isSwitch() ? fabric.switchOf(node).linkState(port) : endpoint(node, port).port().linkState();
    }

    private void down(final Topology.Node node, final int port)
    {
        if (node.isSwitch())
        {
            fabric.switchOf(node).down(port);
        }
        else
        {
            endpoint(node, port).port().down();
        }
    }

    private void up(final Topology.Node node, final int port)
    {
        if (node.isSwitch())
        {
            fabric.switchOf(node).up(port);
        }
        else
        {
            endpoint(node, port).port().up();
        }
    }

    private Fabric.Endpoint endpoint(final Topology.Node node, final int port)
    {
        for (final Fabric.Endpoint e : fabric.endpoints())
        {
            if (e.node() == node && e.portNumber() == port)
            {
                return e;
            }
        }
        throw new IllegalStateException(node.id() + "[" + port + "] does not run here");
    }

    /** Run the fabric (and the receivers) until the condition holds, for up to a fault's deadline. */
    private boolean await(final BooleanSupplier condition)
    {
        final long deadline = options.clock.nanoTime() + FAULT_DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            if (options.clock.nanoTime() - deadline > 0)
            {
                return false;
            }
            fabric.invoke();
            poll();
        }
        return true;
    }

    /** @return whether the port is an end of the cable a link bounce takes down. */
    private boolean bounced(final Topology.Node node, final int port)
    {
        if (0 == timedInjected[FaultKind.LINK_BOUNCE.ordinal()])
        {
            return false;
        }
        final Topology.Link cable = options.faultNode.link(options.faultPort);
        return (node == options.faultNode && port == options.faultPort) ||
            (node == cable.remote() && port == cable.remotePort());
    }

    /** Replace the CA ports' arbitration tables: the variant, then the configured ones, in turn. */
    private void retable(final int index)
    {
        final QosConfig replacement = index % 2 == 0 ? SoakFaults.variantOf(options.ca) : options.ca;
        for (final Fabric.Endpoint e : faultCas)
        {
            e.port().replaceQos(replacement);
            timedInjected[FaultKind.RETABLE.ordinal()]++;
        }
        await(() ->
        {
            boolean applied = true;
            for (final Fabric.Endpoint e : faultCas)
            {
                applied &= e.port().currentQos() == replacement;
            }
            return applied;
        });
        for (final Fabric.Endpoint e : faultCas)
        {
            if (e.port().currentQos() == replacement)
            {
                timedDetected[FaultKind.RETABLE.ordinal()]++;
            }
        }
    }

    private void offer(final int[] fixed, final SplittableRandom pick, final int[] nextSl, final long now)
    {
        for (final int s : local)
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
                if (endpointAt[s].port().postPacket(sl, traffic.buffer(s), 0, length) < 0)
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

    /** @return packets the switches here hold in their input FIFOs. */
    private long switchQueued()
    {
        long queued = 0;
        for (final Switch sw : fabric.switches())
        {
            for (int p = 1; p <= sw.ports(); p++)
            {
                for (int vl = 0; vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
                {
                    queued += sw.queued(p, vl);
                }
            }
        }
        return queued;
    }

    /**
     * @return packets every switch port has sent, and every CA port delivered: what moved (with part of a fabric
     * here, what its CA ports sent too).
     */
    private long moved()
    {
        long moved = traffic.receivedTotal + (partial ? traffic.sentTotal : 0);
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
            final long cycles = fabric.switchDutyCycles();
            for (int i = 0; i < 64; i++)
            {
                fabric.invoke();
            }
            // a switch thread must run between two checks (each pauses it): without this, a caller that pauses it
            // again at once can starve it of every duty cycle, and the FCPs waiting on its links are never applied
            while (fabric.switchDutyCycles() - cycles < 2 && options.clock.nanoTime() - deadline < 0)
            {
                fabric.invoke();
            }
            try (Fabric.Paused paused = fabric.pauseSwitches())
            {
                unrecovered = CreditRecovery.unrecovered(fabric.topology(), fabric::counters,
                    fabric.configuration().portSettings().vlBufferBlocks());
            }
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
        if (!partial)
        {
            // with faults, every packet lost was lost or corrupted (and discarded) on a faulty wire
            // and every flood SMP was stored or dropped (and counted) at the switch port it was sent to
            invariants.put("no_loss", !deadlocked && lost == faultLost() && 0 == floodUnaccounted);
        }
        invariants.put("fifo", outOfOrder == 0);
        invariants.put("no_damage", damaged == 0);
        invariants.put("discards_explained", unexplainedDiscards().isEmpty());
        if (!stopped && null == peerGone)
        {
            // a run stopped where it was has packets and credits in flight: not checked
            invariants.put("credits_recovered", !deadlocked && unrecovered.isEmpty());
        }
        if (deadlocked)
        {
            return EXIT_DEADLOCK;
        }
        if (null != peerGone)
        {
            return EXIT_PEER_GONE;
        }
        return invariants.containsValue(false) ? EXIT_FAILED : EXIT_OK;
    }

    /**
     * @return data packets the faults destroyed: lost or damaged on a faulty wire (a damaged one is discarded at the
     * next port), lost on the wire while a bounce cut it, or discarded for the link state at a bounced port.
     */
    private long faultLost()
    {
        long lost = 0;
        for (final FaultyEnd end : faultyEnds)
        {
            for (int vl = 0; vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
            {
                lost += end.link.droppedData(vl) + end.link.corruptedData(vl) + end.link.bounceLost(vl);
            }
            if (bounced(end.node, end.port))
            {
                lost += fabric.counters(end.node, end.port).discards(DiscardReason.DATA_STATE.id()).get();
            }
        }
        return lost;
    }

    /**
     * @return what the faulty wire into a port damaged, by the discard reason that must count it: data packets
     * (discarded at that port, the first hop, for their VCRC) and FCPs (for their LPCRC).
     */
    private long faultDamaged(final Topology.Node node, final int port, final DiscardReason reason)
    {
        long damaged = 0;
        for (final FaultyEnd end : faultyEnds)
        {
            if (end.node == node && end.port == port)
            {
                if (DiscardReason.FCP_BAD_LPCRC == reason)
                {
                    damaged += end.link.corruptedFcps();
                }
                for (int vl = 0; DiscardReason.DATA_BAD_CRC == reason && vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
                {
                    damaged += end.link.corruptedData(vl);
                }
            }
        }
        return damaged;
    }

    /**
     * @return discards no fault explains: anything but a bring-up's FCP_STATE (at most 2 per port) and, on a port
     * behind a faulty wire, exactly the data packets and FCPs the wire damaged discarded for their CRCs.
     */
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
                    final boolean crc = DiscardReason.DATA_BAD_CRC == reason || DiscardReason.FCP_BAD_LPCRC == reason;
                    final long damaged = crc ? faultDamaged(node, p, reason) : 0;
                    final long flooded = DiscardReason.VL15_FULL == reason ? floodDropped(node, p) : -1;
                    if (crc && count != damaged)
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count +
                            ", the wire into it damaged " + damaged);
                    }
                    else if (flooded >= 0 && count != flooded)
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count +
                            ", the floods into it dropped " + flooded);
                    }
                    else if (!crc && flooded < 0 && count > 0 && !(DiscardReason.FCP_STATE == reason && count <= 2) &&
                        !(bounced(node, p) && BOUNCE_DISCARDS.contains(reason)))
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
        text.println(String.format(Locale.ROOT, "%s: %s, pattern %s, %d CA ports%s, %d switch%s%s, %.1f s: " +
            "sent %,d, delivered %,d (%,.0f pkt/s; %,.0f pkt/s after a %.1f s warm-up)", options.title, options.label,
            options.pattern.label(), n, partial ? " (" + local.length + " here)" : "", fabric.switches().size(),
            fabric.switches().size() == 1 ? "" : "es", partial ? " here" : "", seconds, traffic.sentTotal, traffic.receivedTotal,
            seconds > 0 ? traffic.receivedTotal / seconds : 0.0, steadyRate(), warmupSeconds()));
        text.println(String.format(Locale.ROOT, "%-24s %6s %12s %12s %8s %8s %10s %10s", "CA port", "lid", "sent",
            "received", "lost", "order", "p50 us", "p99 us"));
        for (final int i : local)
        {
            final Fabric.Endpoint e = endpointAt[i];
            text.println(String.format(Locale.ROOT, "%-24s %6d %12d %12d %8s %8d %10.1f %10.1f", e.name(), e.lid(),
                traffic.sent[i], traffic.received[i],
                partial ? "-" : Long.toString(traffic.sentTo[i] - traffic.received[i]), traffic.outOfOrder[i],
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
        if (options.faults.any())
        {
            final StringBuilder line = new StringBuilder("faults (injected/detected) on ")
                .append(null == options.faultNode ? "every cable" :
                    options.faultNode.id() + "[" + options.faultPort + "]").append(':');
            faultCounts().forEach((kind, counts) -> line.append(' ').append(kind.label()).append(' ')
                .append(counts[0]).append('/').append(counts[1] < 0 ? "-" : Long.toString(counts[1])));
            text.println(line);
        }
        for (final Map.Entry<String, Boolean> inv : invariants.entrySet())
        {
            text.println("invariant " + inv.getKey() + ": " + (inv.getValue() ? "held" : "FAILED"));
        }
        if (partial && !stopped)
        {
            text.println("end-to-end loss: every process's JSON lists sent_to and received_from per CA port; their " +
                "sums over the processes must match (docs/fabric.md)");
        }
        if (stopped)
        {
            text.println("stopped before the end: the invariants hold for what ran");
        }
        if (null != peerGone)
        {
            text.println("ended early: " + peerGone + "; the invariants hold for what ran");
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

    /**
     * @return per fault kind given: {injected, detected}, detected -1 where nothing can detect it (a lost FCP).
     * A lost data packet is detected as one its destination never received, a damaged one as a discard for its CRC
     * at the port behind the wire (the first hop), a damaged FCP as one discarded for its LPCRC.
     */
    private Map<FaultKind, long[]> faultCounts()
    {
        long droppedData = 0;
        long corruptedData = 0;
        long droppedFcps = 0;
        long corruptedFcps = 0;
        long badCrc = 0;
        long badLpcrc = 0;
        for (final FaultyEnd end : faultyEnds)
        {
            for (int vl = 0; vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
            {
                droppedData += end.link.droppedData(vl);
                corruptedData += end.link.corruptedData(vl);
            }
            droppedFcps += end.link.droppedFcps();
            corruptedFcps += end.link.corruptedFcps();
            final PortCounters c = fabric.counters(end.node, end.port);
            badCrc += c.discards(DiscardReason.DATA_BAD_CRC.id()).get();
            badLpcrc += c.discards(DiscardReason.FCP_BAD_LPCRC.id()).get();
        }
        long lost = 0;
        for (int i = 0; i < n; i++)
        {
            lost += traffic.sentTo[i] - traffic.received[i];
        }
        final Map<FaultKind, long[]> counts = new LinkedHashMap<>();
        final long[][] values = {
            {droppedData, partial ? -1 : Math.max(0, lost - badCrc - (faultLost() - droppedData - corruptedData))}, {corruptedData, badCrc}, {droppedFcps, -1},
            {corruptedFcps, badLpcrc}};
        final FaultKind[] kinds = {FaultKind.DROP_DATA, FaultKind.CORRUPT_DATA, FaultKind.DROP_FCP,
            FaultKind.CORRUPT_FCP};
        for (int k = 0; k < kinds.length; k++)
        {
            if (options.faults.isOn(kinds[k]))
            {
                counts.put(kinds[k], values[k]);
            }
        }
        for (final FaultKind kind : new FaultKind[]{FaultKind.STALL_RECEIVER, FaultKind.VL15_FLOOD, FaultKind.RETABLE,
            FaultKind.LINK_BOUNCE})
        {
            if (options.faults.isOn(kind))
            {
                counts.put(kind, new long[]{timedInjected[kind.ordinal()], timedDetected[kind.ordinal()]});
            }
        }
        return counts;
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
            if (null == sw)
            {
                continue;
            }
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
    private static long sum(final PortCounters c, final java.util.function.IntFunction<ReadableCounter> perVl)
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

    /** @return the JSON summary of the fabric, its object left open for the baseline's fields. */
    private JsonWriter json(final int exit)
    {
        final double seconds = elapsedNs / 1e9;
        final JsonWriter json = new JsonWriter().beginObject()
            .field("ok", EXIT_OK == exit)
            .field("topology", options.label)
            .field("pattern", options.pattern.label())
            .field("seconds", seconds)
            .field("size", options.size)
            .field("seed", options.seed)
            .field("sent", traffic.sentTotal)
            .field("delivered", traffic.receivedTotal)
            .field("packets_per_second", seconds > 0 ? traffic.receivedTotal / seconds : 0.0)
            .field("warmup_seconds", warmupSeconds())
            .field("packets_per_second_after_warmup", steadyRate())
            .field("drained", drained)
            .field("threads", threads())
            .field("exit", exit);
        json.field("stopped", stopped);
        json.field("peer_gone", peerGone);
        json.name("nodes").beginArray();
        for (final Topology.Node node : options.topology.nodes())
        {
            if (fabric.isLocal(node))
            {
                json.value(node.id());
            }
        }
        json.endArray();
        json.name("cas").beginArray();
        for (final int i : local)
        {
            final Fabric.Endpoint e = endpointAt[i];
            json.beginObject().field("name", e.name()).field("lid", e.lid()).field("sent", traffic.sent[i])
                .field("received", traffic.received[i]);
            if (!partial)
            {
                json.field("lost", traffic.sentTo[i] - traffic.received[i]);
            }
            json.field("out_of_order", traffic.outOfOrder[i]).field("damaged", traffic.damaged[i])
                .field("latency_p50_us", percentile(i, 50)).field("latency_p99_us", percentile(i, 99));
            json.name("sent_to").beginObject();
            for (int d = 0; d < n; d++)
            {
                if (traffic.pairSent[i * n + d] > 0)
                {
                    json.field(names[d], traffic.pairSent[i * n + d]);
                }
            }
            json.endObject().name("received_from").beginObject();
            for (int src = 0; src < n; src++)
            {
                if (traffic.pairReceived[src * n + i] > 0)
                {
                    json.field(names[src], traffic.pairReceived[src * n + i]);
                }
            }
            json.endObject().endObject();
        }
        json.endArray();
        if (options.faults.any())
        {
            json.name("faults").beginObject().field("cable", null == options.faultNode ? null :
                options.faultNode.id() + "[" + options.faultPort + "]");
            final Map<FaultKind, long[]> counts = faultCounts();
            json.name("injected").beginObject();
            counts.forEach((kind, c) -> json.field(kind.label(), c[0]));
            json.endObject().name("detected").beginObject();
            counts.forEach((kind, c) ->
            {
                if (c[1] >= 0)
                {
                    json.field(kind.label(), c[1]);
                }
            });
            json.endObject().endObject();
        }
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
        return json;
    }

    private static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
