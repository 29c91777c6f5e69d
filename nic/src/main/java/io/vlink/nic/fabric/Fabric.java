package io.vlink.nic.fabric;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.LinkState;
import io.vlink.core.fabric.CreditLoop;
import io.vlink.core.fabric.Crossbar;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.agent.AgentGroup;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounters;
import org.agrona.CloseHelper;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Every node of a topology in one process (docs/fabric.md, "Running a fabric"): a {@link Switch} per switch, an
 * {@link Engine} of one port per connected CA port, and an in-process {@link LoopbackLink} per cable, switch to CA
 * and switch to switch. Each switch forwards by its table from {@link Routes}; every port runs the same link layer
 * as a CA port, so credits, FCPs and link states hold on every hop.
 * <p>
 * The fabric runs on its caller's thread: {@link #invoke()} is one duty cycle of every node (the engines in invoker
 * mode), which on a small machine beats a thread per node; a test or a soak calls it in a loop. With
 * {@link FabricConfiguration#switchThread} the switches run on a thread of their own instead (each switch is its own hardware)
 * and {@link #invoke()} runs the CA engines only; whatever the caller does to a switch's state then runs while the
 * switch thread is paused ({@link #pauseSwitches()}), and what it reads otherwise are the published counters.
 * <p>
 * A fabric may run only some of its nodes ({@link FabricConfiguration#local}): a cable whose other end runs in another process is
 * the link {@link FabricConfiguration#remoteLinks} makes (a {@code UdpLink} for {@code vlink fabric run}); the rest of the
 * topology is known (routes, LIDs) but not run here.
 * <p>
 * What is not run: routers, and cables between two CAs (the engine's own loopback is that).
 */
public final class Fabric implements AutoCloseable
{
    private final Topology topology;
    private final List<Switch> switches = new ArrayList<>();
    private final List<Topology.Node> switchNodes = new ArrayList<>();
    private final Switch[] switchOfNode;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private Predicate<Topology.Node> local = node -> true;
    private FabricConfiguration config;
    private final SwitchPause pause = new SwitchPause();
    private final Paused paused = new Paused();
    /** Nested pauses of the caller: the switch thread resumes when the outermost ends. */
    private int pauseDepth;
    /** The switch thread's duty cycles when the last pause ended (-1: none yet), so the next waits for one more. */
    private long cyclesAtResume = -1;
    private final IdleStrategy pauseIdle = IdleStrategies.backoff();
    private SwitchDuty duty;
    /** The switch thread, or null when the switches run on the caller's thread. */
    private AgentGroup switchThread;

    /**
     * Wraps one end of a cable as it is made: the wrapped link is what the node's port uses (a test checks frames,
     * a soak injects faults).
     */
    @FunctionalInterface
    public interface LinkWrapper
    {
        /**
         * @param node the node whose port uses the link.
         * @param port the port.
         * @param link the end of the cable.
         * @return the link the port uses.
         */
        Link wrap(Topology.Node node, int port, Link link);
    }

    /**
     * Makes the link of a cable whose other end runs in another process.
     */
    @FunctionalInterface
    public interface RemoteLinks
    {
        /**
         * @param node     the local node.
         * @param port     its port.
         * @param counters the counters the port's link writes (its frames and drops).
         * @return the port's end of the cable.
         */
        Link link(Topology.Node node, int port, LinkCounters counters);
    }

    /**
     * A CA port of the fabric: its engine, of one port.
     */
    public static final class Endpoint
    {
        private final Topology.Node node;
        private final int portNumber;
        private final int lid;
        private final Engine engine;

        Endpoint(final Topology.Node node, final int portNumber, final int lid, final Engine engine)
        {
            this.node = node;
            this.portNumber = portNumber;
            this.lid = lid;
            this.engine = engine;
        }

        /**
         * @return the CA.
         */
        public Topology.Node node()
        {
            return node;
        }

        /**
         * @return the CA's port number in the topology.
         */
        public int portNumber()
        {
            return portNumber;
        }

        /**
         * @return the port's base LID.
         */
        public int lid()
        {
            return lid;
        }

        /**
         * @return the engine that runs the port.
         */
        public Engine engine()
        {
            return engine;
        }

        /**
         * @return the engine's one port.
         */
        public Port port()
        {
            return engine.port(0);
        }

        /**
         * @return {@code ID} for a CA of one connected port, {@code ID[P]} otherwise.
         */
        public String name()
        {
            return caPortName(node, portNumber);
        }

        @Override
        public String toString()
        {
            return name() + " lid " + lid;
        }
    }

    /**
     * @param ca   a CA.
     * @param port one of its ports.
     * @return what the fabric calls the CA port: {@code ID} for a CA of one connected port, {@code ID[P]} otherwise.
     */
    public static String caPortName(final Topology.Node ca, final int port)
    {
        return ca.connectedPorts() == 1 ? ca.id() : ca.id() + "[" + port + "]";
    }

    /**
     * @param topology a fabric.
     * @return every CA port cabled to a switch, in the order {@link #endpoints()} lists those the fabric runs (file
     * order), as {@code {node index, port}} pairs.
     */
    public static List<int[]> caPorts(final Topology topology)
    {
        final List<int[]> ports = new ArrayList<>();
        for (final Topology.Node node : topology.nodes())
        {
            if (node.isSwitch() || Topology.NodeType.ROUTER == node.type())
            {
                continue;
            }
            for (int p = 1; p <= node.portCount(); p++)
            {
                if (null != node.link(p) && node.link(p).remote().isSwitch())
                {
                    ports.add(new int[]{node.index(), p});
                }
            }
        }
        return ports;
    }

    /**
     * One input buffer of a switch: a (switch, input port, VL) of a credit loop.
     *
     * @param switchId the switch.
     * @param port     the input port.
     * @param vl       the VL.
     */
    public record Buffer(String switchId, int port, int vl)
    {
        @Override
        public String toString()
        {
            return switchId + "[" + port + "] VL" + vl;
        }
    }

    /**
     * A pause of the switch thread ({@link #pauseSwitches()}); closing it lets the switch thread go on.
     */
    public final class Paused implements AutoCloseable
    {
        private Paused()
        {
        }

        /**
         * End this pause; the switch thread goes on when no outer pause stands.
         */
        @Override
        public void close()
        {
            resumeSwitches();
        }
    }

    /**
     * Every switch's duty cycle, in file order: on the switch thread, or on the caller's in {@link #invoke()}. An
     * exception a switch throws goes to that switch's error log and counter, and the other switches still run.
     */
    private static final class SwitchDuty implements Agent
    {
        private final Switch[] switches;
        private final SwitchPause pause;
        private final AtomicLong cycles = new AtomicLong();

        SwitchDuty(final List<Switch> switches, final SwitchPause pause)
        {
            this.switches = switches.toArray(new Switch[0]);
            this.pause = pause;
        }

        @Override
        public int doWork()
        {
            if (pause.hold())
            {
                return 0;
            }
            int work = 0;
            for (final Switch sw : switches)
            {
                try
                {
                    work += sw.doWork();
                }
                catch (final RuntimeException ex)
                {
                    sw.onError(ex);
                }
            }
            cycles.lazySet(cycles.get() + 1);
            return work;
        }

        /** Whatever escapes a duty cycle goes to the first switch's error log and counter. */
        void onError(final Throwable throwable)
        {
            switches[0].onError(throwable);
        }

        @Override
        public String roleName()
        {
            return "switches";
        }
    }

    private Fabric(final Topology topology)
    {
        this.topology = topology;
        this.switchOfNode = new Switch[topology.nodes().size()];
    }

    /**
     * @return a builder of a fabric's configuration, and of the fabric.
     */
    public static FabricConfiguration.Builder builder()
    {
        return new FabricConfiguration.Builder();
    }

    /**
     * Build and start every node. A failure leaves nothing behind.
     *
     * @param topology the fabric.
     * @param routes   its forwarding tables.
     * @param config   how the nodes are built ({@link #builder()}).
     * @return the running fabric.
     * @throws IllegalArgumentException for a router or a cable between two CAs.
     */
    public static Fabric build(final Topology topology, final Routes routes, final FabricConfiguration config)
    {
        final Fabric fabric = new Fabric(topology);
        try
        {
            fabric.buildNodes(routes, config);
        }
        catch (final RuntimeException | Error ex)
        {
            fabric.close();
            throw ex;
        }
        return fabric;
    }

    private void buildNodes(final Routes routes, final FabricConfiguration settings)
    {
        final Set<String> names = new HashSet<>();
        config = settings;
        local = settings.local();
        for (final Topology.Node node : topology.nodes())
        {
            if (Topology.NodeType.ROUTER == node.type())
            {
                throw new IllegalArgumentException(node + ": routers are not run in a fabric; remove it or cable " +
                    "its neighbours to each other");
            }
            if (node.isSwitch() && settings.local().test(node))
            {
                final Switch sw = new Switch(settings.switchConfiguration(nodeName(settings.name(), node.id(), names),
                    node.portCount(), node.baseLid(0), routes.lft(node)));
                switchOfNode[node.index()] = sw;
                switches.add(sw);
                switchNodes.add(node);
            }
        }
        for (final Topology.Node node : topology.nodes())
        {
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link cable = node.link(p);
                if (null == cable)
                {
                    continue;
                }
                final Topology.Node remote = cable.remote();
                if (!node.isSwitch() && !remote.isSwitch())
                {
                    throw new IllegalArgumentException(node + "[" + p + "] is cabled to " + remote + ": a fabric " +
                        "runs CAs cabled to switches; two CAs back to back are 'vlink soak'");
                }
                if (!settings.local().test(node))
                {
                    continue;
                }
                if (!settings.local().test(remote))
                {
                    if (node.isSwitch())
                    {
                        final Switch sw = switchOfNode[node.index()];
                        sw.attach(p, settings.linkWrapper().wrap(node, p,
                            settings.remoteLinks().link(node, p, sw.linkCounters(p))));
                    }
                    else
                    {
                        final int port = p;
                        addEndpoint(settings, node, p, remote, names, (LinkCounters counters) ->
                            settings.linkWrapper().wrap(node, port, settings.remoteLinks().link(node, port, counters)));
                    }
                }
                else if (node.isSwitch() && remote.isSwitch())
                {
                    if (node.index() < remote.index() || (node.index() == remote.index() && p < cable.remotePort()))
                    {
                        cableSwitches(settings, node, p, remote, cable.remotePort());
                    }
                }
                else if (!node.isSwitch())
                {
                    final Switch sw = switchOfNode[remote.index()];
                    final int port = p;
                    final int swPort = cable.remotePort();
                    addEndpoint(settings, node, p, remote, names, (LinkCounters counters) ->
                    {
                        final LoopbackLink[] ends =
                            LoopbackLink.pair(settings.loopbackCapacity(), sw.linkCounters(swPort), counters);
                        sw.attach(swPort, settings.linkWrapper().wrap(remote, swPort, ends[0]));
                        return settings.linkWrapper().wrap(node, port, ends[1]);
                    });
                }
            }
        }
        for (final Switch sw : switches)
        {
            sw.start();
        }
        duty = new SwitchDuty(switches, pause);
        if (settings.switchThread() && !switches.isEmpty())
        {
            switchThread = AgentGroup.start("vlink-" + settings.name() + "-", ThreadingMode.SHARED,
                settings.switchIdle(), duty::onError, null, List.of(duty));
        }
    }

    private void cableSwitches(
        final FabricConfiguration settings, final Topology.Node a, final int pa, final Topology.Node b, final int pb)
    {
        final Switch swA = switchOfNode[a.index()];
        final Switch swB = switchOfNode[b.index()];
        final LoopbackLink[] ends =
            LoopbackLink.pair(settings.loopbackCapacity(), swA.linkCounters(pa), swB.linkCounters(pb));
        swA.attach(pa, settings.linkWrapper().wrap(a, pa, ends[0]));
        swB.attach(pb, settings.linkWrapper().wrap(b, pb, ends[1]));
    }

    private void addEndpoint(
        final FabricConfiguration settings,
        final Topology.Node ca,
        final int port,
        final Topology.Node swNode,
        final Set<String> names,
        final Function<LinkCounters, Link> link)
    {
        final String id = ca.connectedPorts() == 1 ? ca.id() : ca.id() + "-p" + port;
        final Engine engine = settings.engine(nodeName(settings.name(), id, names))
            .threading(ThreadingMode.INVOKER)
            .link(link, ca.baseLid(port), swNode.baseLid(0))
            .build();
        endpoints.add(new Endpoint(ca, port, ca.baseLid(port), engine));
    }

    /**
     * @return {@code PREFIX-ID} with every character a counters file name refuses as '_', unique in the fabric.
     */
    private static String nodeName(final String prefix, final String id, final Set<String> names)
    {
        String name = (prefix + "-" + id).replaceAll("[^A-Za-z0-9._-]", "_");
        if (name.length() > 60)
        {
            name = name.substring(0, 60);
        }
        String unique = name;
        for (int i = 2; !names.add(unique); i++)
        {
            unique = name + "-" + i;
        }
        return unique;
    }

    /**
     * @return how the fabric's nodes were built.
     */
    public FabricConfiguration configuration()
    {
        return config;
    }

    /**
     * @return the topology the fabric runs.
     */
    public Topology topology()
    {
        return topology;
    }

    /**
     * @return the switches, in file order.
     */
    public List<Switch> switches()
    {
        return switches;
    }

    /**
     * @param node a switch of the topology.
     * @return its running switch.
     */
    public Switch switchOf(final Topology.Node node)
    {
        return switchOfNode[node.index()];
    }

    /**
     * @return the CA ports, in file order.
     */
    public List<Endpoint> endpoints()
    {
        return endpoints;
    }

    /**
     * One duty cycle of every node: each CA engine's agents, then each switch (the switches only when they run on the
     * caller's thread, {@link FabricConfiguration#switchThread}). An exception a switch throws goes to its error log and counter
     * ({@link Switch#onError}), as an engine's agents' do.
     *
     * @return work done.
     */
    public int invoke()
    {
        int work = 0;
        for (final Endpoint endpoint : endpoints)
        {
            work += endpoint.engine.invoke();
        }
        if (null == switchThread)
        {
            work += duty.doWork();
        }
        return work;
    }

    /**
     * @return whether the switches run on a thread of their own ({@link FabricConfiguration#switchThread}).
     */
    public boolean hasSwitchThread()
    {
        return null != switchThread;
    }

    /**
     * @return duty cycles the switches have run (the switch thread's, or the caller's {@link #invoke()}s), readable
     * from any thread: a watch tells a fabric that runs and moves nothing from one the machine starved.
     */
    public long switchDutyCycles()
    {
        return null == duty ? 0 : duty.cycles.get();
    }

    /**
     * Pause the switch thread: it runs a duty cycle since the last pause ended, if it has not yet (so that pauses in a
     * loop never starve it), finishes its duty cycle and acknowledges, and until the pause is closed it runs
     * none; meanwhile the caller may read and change any switch's state (link states, {@link Switch#down},
     * {@link Switch#holdManagement}, FIFOs, credits) as if on its thread. Pauses nest: the switch thread goes on when
     * the outermost is closed. Without a switch thread (or once it stopped) a pause does nothing. The invoking thread
     * only: {@code try (Fabric.Paused p = fabric.pauseSwitches()) { ... }}.
     *
     * @return the pause, to close.
     */
    public Paused pauseSwitches()
    {
        if (0 == pauseDepth++ && null != switchThread)
        {
            // a whole duty cycle of the switch thread between two pauses: a caller that checks a condition with the
            // switches paused, in a loop, would otherwise starve it on a busy machine (resumed, paused again before it
            // ran), and the FCPs and packets waiting on its links would never be applied
            pauseIdle.reset();
            while (switchDutyCycles() == cyclesAtResume && isSwitchThreadAlive())
            {
                pauseIdle.idle();
            }
            pause.pause();
            pauseIdle.reset();
            while (!pause.acknowledged() && isSwitchThreadAlive())
            {
                pauseIdle.idle();
            }
        }
        return paused;
    }

    /**
     * End a pause ({@link #pauseSwitches()}; what {@link Paused#close()} does).
     *
     * @throws IllegalStateException when no pause stands.
     */
    public void resumeSwitches()
    {
        if (0 == pauseDepth)
        {
            throw new IllegalStateException("the switches are not paused");
        }
        if (0 == --pauseDepth && null != switchThread)
        {
            cyclesAtResume = switchDutyCycles();
            pause.resume();
        }
    }

    private boolean isSwitchThreadAlive()
    {
        for (final Thread thread : switchThread.threads())
        {
            if (!thread.isAlive())
            {
                return false;
            }
        }
        return !switchThread.isClosed();
    }

    /**
     * @return whether every link of the fabric is Active. Reads the CA ports' and switch ports' published link states:
     * from the invoking thread, whether the switches run on it or on their own.
     */
    public boolean isActive()
    {
        for (final Endpoint endpoint : endpoints)
        {
            if (!endpoint.port().linkState().maySendData())
            {
                return false;
            }
        }
        for (int s = 0; s < switches.size(); s++)
        {
            final Switch sw = switches.get(s);
            final Topology.Node node = switchNodes.get(s);
            for (int p = 1; p <= sw.ports(); p++)
            {
                if (null != node.link(p) && !publishedState(sw, p).maySendData())
                {
                    return false;
                }
            }
        }
        return true;
    }

    /** @return a switch port's link state as its thread last published it (its counters'). */
    private static LinkState publishedState(final Switch sw, final int p)
    {
        return LinkState.get((int)sw.counters(p).linkState().get());
    }

    /**
     * @param node a node of the topology.
     * @return whether it runs in this process.
     */
    public boolean isLocal(final Topology.Node node)
    {
        return local.test(node);
    }

    /**
     * @return the ports of this process whose link is not Active yet, as {@code NODE[PORT]} (published link states, as
     * {@link #isActive()}).
     */
    public List<String> portsNotActive()
    {
        final List<String> down = new ArrayList<>();
        for (final Endpoint endpoint : endpoints)
        {
            if (!endpoint.port().linkState().maySendData())
            {
                down.add(endpoint.node.id() + "[" + endpoint.portNumber + "]");
            }
        }
        for (int s = 0; s < switches.size(); s++)
        {
            final Switch sw = switches.get(s);
            final Topology.Node node = switchNodes.get(s);
            for (int p = 1; p <= sw.ports(); p++)
            {
                if (null != node.link(p) && !publishedState(sw, p).maySendData())
                {
                    down.add(node.id() + "[" + p + "]");
                }
            }
        }
        return down;
    }

    /**
     * @param node a node of the fabric.
     * @param port its port.
     * @return the port's counters, or null for a port the fabric does not run.
     */
    public PortCounters counters(final Topology.Node node, final int port)
    {
        if (node.isSwitch())
        {
            final Switch sw = switchOfNode[node.index()];
            return null == sw ? null : sw.counters(port);
        }
        for (final Endpoint endpoint : endpoints)
        {
            if (endpoint.node == node && endpoint.portNumber == port)
            {
                return endpoint.port().counters();
            }
        }
        return null;
    }

    /**
     * A credit loop, if the switches hold one now: input buffers each of whose head packet waits for an output that
     * lacks the credit only the next buffer can return (docs/fabric.md, "Deadlock"). Call on the invoking thread; with
     * a switch thread, the switches are paused while their FIFOs and transmitters are read.
     *
     * @return the buffers of the cycle in waiting order, empty when there is none.
     */
    public List<Buffer> creditLoop()
    {
        try (Paused p = pauseSwitches())
        {
            return creditLoopNow();
        }
    }

    private List<Buffer> creditLoopNow()
    {
        // buffer number: (switch position * (254 + 1) + port) * 16 + VL
        final int perSwitch = (Topology.MAX_PORTS + 1) * VlArbiter.VL_COUNT;
        final int[] waitsOn = new int[switches.size() * perSwitch];
        java.util.Arrays.fill(waitsOn, CreditLoop.NONE);
        for (int s = 0; s < switches.size(); s++)
        {
            final Switch sw = switches.get(s);
            final Topology.Node node = switchNodes.get(s);
            for (int in = 1; in <= sw.ports(); in++)
            {
                for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
                {
                    final int out = sw.waitingOutput(in, vl);
                    if (Crossbar.NONE == out || Switch.MANAGEMENT_PORT == out)
                    {
                        continue;
                    }
                    final int outVl = sw.waitingVl(in, vl);
                    final Topology.Link cable = node.link(out);
                    if (null == cable || !cable.remote().isSwitch() || !local.test(cable.remote()) ||
                        !sw.creditStalled(out, outVl))
                    {
                        continue;
                    }
                    final int next = switches.indexOf(switchOfNode[cable.remote().index()]);
                    waitsOn[(s * perSwitch) + in * VlArbiter.VL_COUNT + vl] =
                        next * perSwitch + cable.remotePort() * VlArbiter.VL_COUNT + outVl;
                }
            }
        }
        final int[] cycle = CreditLoop.find(waitsOn);
        final List<Buffer> loop = new ArrayList<>(cycle.length);
        for (final int b : cycle)
        {
            final int rest = b % perSwitch;
            loop.add(new Buffer(switchNodes.get(b / perSwitch).id(), rest / VlArbiter.VL_COUNT,
                rest % VlArbiter.VL_COUNT));
        }
        return loop;
    }

    /**
     * Stop and join the switch thread (if any), then close every node.
     */
    @Override
    public void close()
    {
        CloseHelper.quietClose(switchThread);
        for (final Endpoint endpoint : endpoints)
        {
            CloseHelper.quietClose(endpoint.engine);
        }
        for (final Switch sw : switches)
        {
            CloseHelper.quietClose(sw);
        }
    }
}
