package io.vlink.tools.fabric;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.status.PortCounters;
import io.vlink.tools.json.JsonWriter;
import io.vlink.tools.soak.FaultKind;
import io.vlink.tools.soak.FaultSpec;
import io.vlink.tools.soak.FaultyLink;
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
    static final long CREDIT_SETTLE_NS = 2_000_000_000L;
    /**
     * ...and, with a switch thread, how many of its duty cycles (each applies what waits on its links): time alone
     * cannot tell credits that do not come back from a switch thread the machine starved through that time.
     */
    static final long CREDIT_SETTLE_SWITCH_CYCLES = 2_000;
    /** The most the credits get, however starved the switch thread. */
    static final long CREDIT_SETTLE_CAP_NS = 30_000_000_000L;
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
    static final Set<DiscardReason> BOUNCE_DISCARDS = java.util.EnumSet.of(DiscardReason.DATA_STATE,
        DiscardReason.FCP_STATE, DiscardReason.FCP_STALE, DiscardReason.VL15_STATE);
    /** How long a fault's steps get (tables applied, a bounced link down and up again). */
    static final long FAULT_DEADLINE_NS = 5_000_000_000L;
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

    /** One damaged end of a cable: the port that receives through it. */
    record FaultyEnd(Topology.Node node, int port, FaultyLink link)
    {
    }

    final Options options;
    private final PrintWriter out;
    Fabric fabric;
    FabricTraffic traffic;
    /** Every CA port of the topology: the traffic's numbering (file order). */
    int n;
    String[] names;
    /** The CA ports run here: their numbers, and each number's endpoint (null when it runs elsewhere). */
    int[] local;
    Fabric.Endpoint[] endpointAt;
    boolean partial;
    boolean stopped;
    /** The ports of this process whose cables lead to other processes' nodes, and their port numbers. */
    private final List<Topology.Node> remoteNodes = new ArrayList<>();
    private final List<Integer> remotePorts = new ArrayList<>();
    /** Since when each of {@link #remotePorts} has been down (0: up). */
    private long[] remoteDownSinceNs = new long[0];
    /** Why the run ended early: the peers that went away, or null. */
    String peerGone;
    /** Whether a link to another process is down now (its peer may be gone: no deadlock is declared meanwhile). */
    private boolean remoteDown;
    final List<FaultyEnd> faultyEnds = new ArrayList<>();
    /** The CA ports the timed faults act on: the fault cable's CA end, or every CA port. */
    final List<Fabric.Endpoint> faultCas = new ArrayList<>();
    final long[] timedInjected = new long[FaultKind.values().length];
    final long[] timedDetected = new long[FaultKind.values().length];
    long stalls;
    long stallUntilNs;
    long stallsAtStallStart;
    int retables;
    int bounces;
    long floods;
    /** Per CA port in {@link #faultCas}: its flood SMPs (vlink soak's, to its switch's LID or directed-route). */
    SoakTraffic[] smpSources;
    /** Per CA port in {@link #faultCas}: its switch, the switch port's counters, and what a flood counts there. */
    Switch[] floodSwitch;
    PortCounters[] floodPort;
    long[] floodPosted;
    long[] floodAccountedBefore;
    long[] floodDropsBefore;
    /** Flood SMPs sent that their switch port neither stored nor dropped (nor discarded) by the flood's deadline. */
    long floodUnaccounted;
    private int[] slOf;
    long elapsedNs;
    // the rate after warm-up: packets delivered from the end of the warm-up to the end of the offers, and that time
    private long warmupEndNs;
    private long warmupDelivered = -1;
    private long steadyDelivered = -1;
    private long steadyNs;
    List<Fabric.Buffer> cycle = List.of();
    long stalledQueued;
    boolean drained;
    List<String> unrecovered = List.of();
    final Map<String, Boolean> invariants = new LinkedHashMap<>();
    String summaryText = "";
    private String jsonText = "";
    final FabricSoakFaults faults = new FabricSoakFaults(this);
    final FabricSoakReport report = new FabricSoakReport(this);

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
            settings.linkWrapper(faults::faulty);
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
                faults.floodTargets();
            }
            slOf = assignSls();
            bringUp();
            deadlocked = !stopped && drive();
            if (!deadlocked && !stopped && null == peerGone)
            {
                report.settleCredits();
            }
            // the reports read the nodes' counters, which close with the fabric; the switches hold still meanwhile
            try (Fabric.Paused paused = f.pauseSwitches())
            {
                exit = report.verdict(deadlocked);
                final java.io.StringWriter text = new java.io.StringWriter();
                report.summary(new PrintWriter(text));
                summaryText = text.toString();
                json = report.json(exit);
            }
            if (partial && !stopped && null == peerGone)
            {
                linger();
            }
        }
        // the fabric is closed: the baseline has the machine to itself
        if (null != options.baselineThreading && !stopped && !deadlocked)
        {
            exit = report.baseline(exit, json);
        }
        jsonText = json.endObject().toString();
        return exit;
    }

    /**
     * @return the run's threads: 2 with a switch thread, else 1.
     */
    int threads()
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
    double warmupSeconds()
    {
        return Math.min(options.warmupSeconds, options.seconds / 2);
    }

    /**
     * @return packets delivered a second from the end of the warm-up to the end of the offers (0 when the run was
     * stopped before the offers ended).
     */
    double steadyRate()
    {
        return steadyNs > 0 ? steadyDelivered / (steadyNs / 1e9) : 0;
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
    boolean peerGone(final long nowNs)
    {
        boolean any = false;
        remoteDown = false;
        for (int i = 0; i < remotePorts.size(); i++)
        {
            if (faults.linkState(remoteNodes.get(i), remotePorts.get(i)).maySendData())
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
            "<h1>vlink fabric soak: exit " + exit + "</h1><pre>" + FabricSoakReport.escape(summaryText) + "</pre>" +
            "<h2>JSON</h2><pre>" + FabricSoakReport.escape(jsonText) + "</pre></body></html>\n";
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
        faults.armFaults(true);
        while (true)
        {
            final long now = clock.nanoTime();
            if (options.stop.getAsBoolean())
            {
                stopped = true;
                faults.armFaults(false);
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
                    faults.armFaults(false);
                    faults.endStall();
                    drainEnd = now + DRAIN_NS;
                }
                else
                {
                    faults.timedFaults(now, now - start, offerEnd - start);
                    offer(fixed, pick, nextSl, now);
                }
            }
            final int work = fabric.invoke();
            cyclesSinceProgress++;
            if (0 != stallUntilNs && now - stallUntilNs >= 0)
            {
                faults.endStall();
            }
            poll();
            if (partial && 0 == work && !offering)
            {
                idle.idle();
            }
            if (!partial && !offering && traffic.receivedTotal == traffic.sentTotal - faults.faultLost())
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
                    faults.armFaults(false);
                    elapsedNs = now - start;
                    return false;
                }
                queued = partial ? switchQueued() :
                    traffic.sentTotal - traffic.receivedTotal - switchDiscards() - faults.faultLost();
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
    void poll()
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
                moved += FabricSoakReport.sum(c, c::txPackets);
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

    /**
     * @return the credit loop found at a deadlock, in waiting order (empty otherwise).
     */
    public List<Fabric.Buffer> cycle()
    {
        return cycle;
    }
}
