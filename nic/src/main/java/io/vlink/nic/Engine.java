package io.vlink.nic;

import io.vlink.core.config.ConfigException;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosPort;
import io.vlink.core.qos.QosReader;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.agent.AgentGroup;
import io.vlink.nic.agent.DutyCycleClock;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.capture.CaptureStoppedException;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.link.UdpLink;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersSnapshot;
import io.vlink.nic.status.ErrorLogHandler;
import io.vlink.nic.status.HeartbeatAgent;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemEpochNanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A running link layer: ports wired to links, the agents that move packets between them, the counters file and
 * the error log. Built with {@link #builder()}; closed with {@link #close()}, which stops every thread and frees
 * every file and off-heap buffer the engine made.
 * <pre>{@code
 * try (Engine engine = Engine.builder().name("demo").loopback().threading(ThreadingMode.SHARED).idle("backoff").build())
 * {
 *     QueuePair qp = engine.port(0).createQueuePair(1, 0, 2);
 *     qp.offer(bytes, 0, 64);                              // back-pressure: BACK_PRESSURED, never a blocked caller
 *     engine.port(1).poll(packet -> ..., 16);   // packet.buffer(), .payloadOffset(), .payloadLength(), .vl(), .destQp()
 * }
 * }</pre>
 * Agents: injection (SL arbitration, injectors, cell buffer), arbiter (VL arbitration, credits, framing onto the
 * link), credit (FCPs, link states, receive-buffer accounting) and receive (checks, per-VL receive buffers). Each
 * serves every port of the engine; {@link ThreadingMode} maps them to threads.
 */
public final class Engine implements AutoCloseable
{
    /** How two ports are linked. */
    public enum LinkKind
    {
        /** Two ports of this engine back to back through off-heap rings. */
        LOOPBACK,
        /** One port, linked over UDP to a peer engine. */
        UDP,
        /** One port, linked to a peer engine on this host through a memory-mapped file. */
        SHM,
        /** One port on a link the caller makes, given the port's counters: a switch's port in a fabric. */
        EXTERNAL
    }

    private final EngineConfiguration config;
    private final CountersFile countersFile;
    private final Port[] ports;
    private final AgentGroup agents;
    private final CaptureTap capture;
    private volatile MemoryRegion[] regions = new MemoryRegion[0];
    private volatile boolean closed;
    private volatile CountersSnapshot finalCounters;

    private Engine(final EngineConfiguration config)
    {
        this.config = config;
        // the directories build() creates for the counters file, removed again if it fails (when still empty)
        final File madeDirectory = outermostMissing(config.directory().getAbsoluteFile());
        try
        {
            countersFile = CountersFile.create(
                config.directory(), config.name(), config.maxCounters(), config.errorLogLength(), config.epochClock());
        }
        catch (final RuntimeException | Error ex)
        {
            removeMadeDirectories(config.directory().getAbsoluteFile(), madeDirectory);
            throw ex;
        }
        final boolean loopback = LinkKind.LOOPBACK == config.linkKind();
        final boolean external = LinkKind.EXTERNAL == config.linkKind();
        final Port[] ports = new Port[loopback ? 2 : 1];
        final Link[] links = new Link[ports.length];
        CaptureTap capture = null;
        AgentGroup agents = null;
        try
        {
            final AtomicCounter errors = countersFile.newCounter(
                CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE);
            // the capture's ring before the ports' links: a link that cannot be made (a UDP port in use) is the
            // last thing that can fail, and everything made before it is given back (tested)
            final ErrorLogHandler errorHandler = new ErrorLogHandler(countersFile.errorLog(), System.err);
            capture = null == config.capturePath() ? null :
                CaptureTap.open(config.capturePath(), config.captureLength(), SystemEpochNanoClock.INSTANCE,
                countersFile.newCounter(CounterType.CAPTURE_DROPS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE),
                countersFile.newCounter(CounterType.CAPTURE_ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE),
                errorHandler);
            final PortCounterSet[] counters = new PortCounterSet[ports.length];
            // the link's counters: the wire's and, with retry, the retry layer's over it (one link, one set)
            final LinkCounters[] linkCounters = new LinkCounters[ports.length];
            for (int i = 0; i < ports.length; i++)
            {
                counters[i] = new PortCounterSet(countersFile, i, config.qos().dataVls());
                linkCounters[i] = counters[i].link();
            }
            if (loopback)
            {
                final LoopbackLink[] ends = LoopbackLink.pair(config.loopbackCapacity(), linkCounters[0], linkCounters[1]);
                links[0] = ends[0];
                links[1] = ends[1];
            }
            else if (external)
            {
                links[0] = Objects.requireNonNull(config.externalLink().apply(linkCounters[0]), "link factory returned null");
            }
            else if (LinkKind.SHM == config.linkKind())
            {
                links[0] = ShmLink.open(config.shmFile(), config.shmRole(), config.loopbackCapacity(), linkCounters[0]);
            }
            else
            {
                final int maxFrameLength = config.mtu() + PacketChecker.HEADERS_ALLOWANCE + Sizes.VCRC_LENGTH +
                    (config.retry() ? RetryLink.HEADER_LENGTH : 0);
                links[0] = new UdpLink(config.udpLocal(), config.udpRemote(), maxFrameLength, linkCounters[0],
                    config.udpKey(), config.nanoClock(), UdpLink.DEFAULT_HELLO_INTERVAL_NS, config.retry());
            }
            for (int i = 0; i < ports.length; i++)
            {
                // the wire, link-level retry over it (a link the port then owns), and what the port uses
                links[i] = Objects.requireNonNull(config.wireWrapper().apply(links[i]), "wireWrapper returned null");
                if (config.retry())
                {
                    final Link wire = links[i];
                    links[i] = null;
                    links[i] = RetryLink.over(wire, linkCounters[i], config.nanoClock(), config.replayBufferBytes(),
                        config.retryTimeoutNs(), config.burst());
                }
                final Link wrapped = config.linkWrapper().apply(links[i]);
                final boolean first = 0 == i;
                ports[i] = new Port(this, i, config, Objects.requireNonNull(wrapped, "linkWrapper returned null"),
                    counters[i], first ? config.localLid() : config.remoteLid(),
                    first ? config.remoteLid() : config.localLid());
                links[i] = null; // the port owns it now
            }

            // A thread's DutyCycle runs them as credit, inject, arbiter, then receive (it says why). Each thread's
            // duty cycle starts with one clock read that its agents share; dedicated threads (an agent each) read the
            // engine's clock themselves.
            final ThreadingMode mode = config.threading();
            final boolean dedicated = ThreadingMode.DEDICATED == mode;
            final boolean split = ThreadingMode.SPLIT == mode;
            final DutyCycleClock receiveClock = dedicated ? null : new DutyCycleClock(config.nanoClock());
            final DutyCycleClock transmitClock = split ? new DutyCycleClock(config.nanoClock()) : receiveClock;
            final NanoClock receiveTime = dedicated ? config.nanoClock() : receiveClock;
            final NanoClock transmitTime = dedicated ? config.nanoClock() : transmitClock;
            final ReceiveAgent receive = new ReceiveAgent(ports, config.portConfig(), 2 * config.burst(), capture);
            final CreditAgent credit = new CreditAgent(ports, config, receiveTime);
            final HeartbeatAgent heartbeat = new HeartbeatAgent(countersFile, receiveTime, config.epochClock());
            final InjectAgent inject = new InjectAgent(ports, transmitTime);
            final ArbiterAgent arbiter = new ArbiterAgent(ports, config.portConfig(), capture);
            final Agent captureWriter = null == capture ? null : capture.agent();
            final List<List<Agent>> groups;
            if (dedicated)
            {
                final List<Agent> transmitSide = new ArrayList<>(3);
                transmitSide.add(inject);
                transmitSide.add(arbiter);
                if (null != captureWriter)
                {
                    transmitSide.add(captureWriter);
                }
                groups = List.of(List.of(receive, new CompositeAgent(credit, heartbeat)), transmitSide);
            }
            else if (split)
            {
                // the receive side and the transmit side (with the capture tap's writer) on a thread each
                groups = List.of(
                    List.of(new DutyCycle(receiveClock, receive, credit, heartbeat, null, null, null)),
                    List.of(new DutyCycle(transmitClock, null, null, null, inject, arbiter, captureWriter)));
            }
            else
            {
                groups = List.of(
                    List.of(new DutyCycle(receiveClock, receive, credit, heartbeat, inject, arbiter, captureWriter)));
            }
            for (final Port port : ports)
            {
                port.up();
            }
            agents = AgentGroup.startGroups(
                "vlink-" + config.name() + "-",
                config.threading(),
                config.idleStrategy(),
                errorHandler,
                errors,
                groups);
        }
        catch (final RuntimeException | Error ex)
        {
            // give back everything made so far: no thread, no file, no off-heap memory outlives a failed build
            CloseHelper.quietClose(agents);
            for (final Port port : ports)
            {
                if (null != port)
                {
                    CloseHelper.quietClose(port::free);
                }
            }
            for (final Link link : links)
            {
                CloseHelper.quietClose(link);
            }
            // the capture file itself is made by the capture agent once running: a failed build never made it
            CloseHelper.quietClose(capture);
            countersFile.close();
            removeMadeDirectories(config.directory().getAbsoluteFile(), madeDirectory);
            throw ex;
        }
        this.ports = ports;
        this.capture = capture;
        this.agents = agents;
    }

    private static File outermostMissing(final File directory)
    {
        File missing = null;
        for (File d = directory; null != d && !d.exists(); d = d.getParentFile())
        {
            missing = d;
        }
        return missing;
    }

    private static void removeMadeDirectories(final File directory, final File outermost)
    {
        if (null != outermost)
        {
            // deepest first; File.delete removes only empty directories, so nothing of anyone else's goes
            File d = directory;
            while (null != d && d.delete() && !d.equals(outermost))
            {
                d = d.getParentFile();
            }
        }
    }

    /**
     * @return a builder with every default (see {@link Builder}).
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return the engine's name (its counters file is {@code <name>-<pid>.counters}).
     */
    public String name()
    {
        return config.name();
    }

    /**
     * @return the settings the engine runs with (immutable; readable after close).
     */
    public EngineConfiguration configuration()
    {
        return config;
    }

    /**
     * @param index 0 or, for a loopback engine, 1.
     * @return the port.
     * @throws IllegalArgumentException naming the valid range when the engine has no such port.
     */
    public Port port(final int index)
    {
        checkOpen();
        if (index < 0 || index >= ports.length)
        {
            throw new IllegalArgumentException("port " + index + ": this engine has " + (1 == ports.length ?
                "port 0 only (" + (LinkKind.UDP == config.linkKind() ? "UDP" : "shm") + ": one port)" : "ports 0.." + (ports.length - 1) + " (loopback: two ports)"));
        }
        return ports[index];
    }

    /**
     * @return the ports: two for a loopback engine, one for UDP or shm.
     */
    public List<Port> ports()
    {
        checkOpen();
        return List.of(ports);
    }

    /**
     * @return the threading mode.
     */
    public ThreadingMode threading()
    {
        return config.threading();
    }

    /**
     * One duty cycle of every agent on the caller's thread ({@link ThreadingMode#INVOKER} only).
     *
     * @return work done (0 when idle).
     */
    public int invoke()
    {
        checkOpen();
        return agents.invoke();
    }

    /**
     * @return the threads the engine started (empty in invoker mode).
     */
    public List<Thread> threads()
    {
        return agents.threads();
    }

    /**
     * A capture is an output: when its file fails (a full file system) it stops, and the engine moves packets on.
     * Readable after {@link #close()}, which cuts the file to its records: a failure to do so is reported here too.
     *
     * @return what stopped the capture ({@link Builder#capture}) first, or null while it runs or when there is none.
     */
    public CaptureStoppedException captureFailure()
    {
        return null == capture ? null : capture.failure();
    }

    /**
     * @return the engine's counters file (counters and distinct error log).
     */
    public CountersFile countersFile()
    {
        checkOpen();
        return countersFile;
    }

    /**
     * The value of every counter: read now while the engine runs, or the final values, taken once every agent had
     * stopped, after {@link #close()} (when the counters themselves refuse every call).
     *
     * @return the snapshot.
     */
    public CountersSnapshot countersSnapshot()
    {
        final CountersSnapshot finalCounters = this.finalCounters;
        if (null != finalCounters)
        {
            return finalCounters;
        }
        synchronized (this)
        {
            return null != this.finalCounters ? this.finalCounters : countersFile.snapshot();
        }
    }

    /**
     * Register memory that messages may then be posted from by reference.
     *
     * @param buffer the memory; it must stay valid while the engine may read it.
     * @return the region.
     */
    public synchronized MemoryRegion registerMemory(final DirectBuffer buffer)
    {
        checkOpen();
        final MemoryRegion region = new MemoryRegion(regions.length, Objects.requireNonNull(buffer));
        final MemoryRegion[] grown = Arrays.copyOf(regions, regions.length + 1);
        grown[region.key()] = region;
        regions = grown;
        return region;
    }

    boolean isRegistered(final MemoryRegion region)
    {
        final MemoryRegion[] regions = this.regions;
        return region.key() < regions.length && regions[region.key()] == region;
    }

    DirectBuffer region(final int key)
    {
        return regions[key].buffer();
    }

    EngineConfiguration config()
    {
        return config;
    }

    /**
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return closed;
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new EngineClosedException();
        }
    }

    private void drain(final long drainNs)
    {
        if (drainNs <= 0)
        {
            return;
        }
        final boolean invoker = ThreadingMode.INVOKER == config.threading();
        final long deadlineNs = System.nanoTime() + drainNs;
        while (!transmitDrained() && System.nanoTime() - deadlineNs < 0)
        {
            if (invoker)
            {
                agents.invoke();
            }
            else
            {
                Thread.yield();
            }
        }
    }

    private boolean transmitDrained()
    {
        for (final Port port : ports)
        {
            if (!port.transmitDrained())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Stop every agent thread (waiting for each), count what each port still holds ({@link Port#closeReport()}: every
     * accepted packet is either delivered or reported there), keep the final counter values
     * ({@link #countersSnapshot()}), then free the ports' off-heap memory, close the links and the capture, and
     * delete the counters file. From then on every call on the engine, its ports, queue pairs and counters throws
     * {@link EngineClosedException} (an {@link IllegalStateException}, "engine closed") instead of touching the
     * freed memory. Idempotent. Call it after the application's threads stopped using the engine: a call racing
     * with close may see it late.
     */
    @Override
    public void close()
    {
        close(Duration.ofNanos(config.closeDrainNs()));
    }

    /**
     * Close after draining: wait up to {@code drain} (real time) for every message the application offered on every
     * port to be on the wire (its queue pairs completed, its cell buffer empty), driving the agents itself in
     * {@link ThreadingMode#INVOKER} mode, then close as {@link #close()} describes. What could not drain (a link that
     * is not Active, a peer that stopped taking packets) is reported in each port's {@link Port#closeReport()}.
     *
     * @param drain the longest wait; {@link Duration#ZERO} closes at once.
     */
    public synchronized void close(final Duration drain)
    {
        if (!closed)
        {
            drain(drain.toNanos());
            agents.close();
            for (final Port port : ports)
            {
                port.report();
            }
            finalCounters = countersFile.snapshot();
            closed = true;
            for (final Port port : ports)
            {
                port.free();
            }
            CloseHelper.close(capture);
            countersFile.close();
        }
    }

    /**
     * The engine's settings, mutable until {@link #build()}, which concludes them into an immutable
     * {@link EngineConfiguration} (defaults filled from system properties or constants, every value checked) and
     * starts the engine with it. A builder may be reused: what it is changed to afterwards affects only engines built
     * afterwards. Setters only record; {@link #build()} checks, naming the setting, the value and the allowed range.
     * docs/engine.md has the table of every setting, its system property, default and range.
     */
    public static final class Builder extends PortSettings.Builder<Builder>
    {
        String name = EngineConfiguration.DEFAULT_NAME;
        File directory;
        ThreadingMode threading;
        String idle;
        QosConfig qos = QosConfig.opensmDefaults(EngineConfiguration.DEFAULT_DATA_VLS);
        Integer queueDepth;
        Integer maxQueuePairs;
        Integer idcThreshold;
        Integer sharedCells;
        InjectionConfig injection;
        int[] slTableSls;
        int[] slTableWeights;
        long tenureBytes = EngineConfiguration.DEFAULT_TENURE_BYTES;
        int tenurePackets;
        Long closeDrainNs;
        LinkKind linkKind = LinkKind.LOOPBACK;
        int loopbackCapacity = EngineConfiguration.DEFAULT_LOOPBACK_CAPACITY;
        InetSocketAddress udpLocal;
        InetSocketAddress udpRemote;
        io.vlink.nic.link.LinkKey udpKey;
        Path shmFile;
        ShmLink.Role shmRole;
        int localLid = EngineConfiguration.DEFAULT_LOCAL_LID;
        int remoteLid = EngineConfiguration.DEFAULT_REMOTE_LID;
        Path capturePath;
        Long captureLength;
        NanoClock nanoClock = SystemNanoClock.INSTANCE;
        LinkStateListener linkStateListener = (port, state) -> {};
        FlushListener flushListener = (qp, messages) -> {};
        EpochClock epochClock = SystemEpochClock.INSTANCE;
        int rxEventRingLength = EngineConfiguration.DEFAULT_RX_EVENT_RING_LENGTH;
        int maxCounters = EngineConfiguration.DEFAULT_MAX_COUNTERS;
        int errorLogLength = EngineConfiguration.DEFAULT_ERROR_LOG_LENGTH;
        UnaryOperator<Link> linkWrapper = UnaryOperator.identity();
        UnaryOperator<Link> wireWrapper = UnaryOperator.identity();
        Boolean retry;
        Integer replayBufferBytes;
        Long retryTimeoutNs;
        Function<LinkCounters, Link> externalLink;

        Builder()
        {
        }

        /**
         * @param name the engine's name, part of its counters file's name (1 to 64 letters, digits, '.', '_', '-';
         *             default {@code vlink}).
         * @return this.
         */
        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        /**
         * @param directory where the counters file goes (default: property {@code vlink.dir}, else
         *                  {@code /dev/shm/vlink-${user.name}} on Linux, else
         *                  {@code ${java.io.tmpdir}/vlink-${user.name}}); created when missing.
         * @return this.
         */
        public Builder directory(final File directory)
        {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * @param threading dedicated, shared, split (transmit and receive on a thread each) or invoker (default:
         *                  property {@code vlink.threading}, else dedicated).
         * @return this.
         */
        public Builder threading(final ThreadingMode threading)
        {
            this.threading = Objects.requireNonNull(threading, "threading");
            return this;
        }

        /**
         * @param idle {@code spin}, {@code backoff} (small machines, CI), {@code yield}, {@code sleep} or
         *             {@code noop} (default: property {@code vlink.idle}, else spin).
         * @return this.
         */
        public Builder idle(final String idle)
        {
            this.idle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * @param qos the ports' QoS settings (default: OpenSM's defaults with 8 data VLs).
         * @return this.
         */
        public Builder qos(final QosConfig qos)
        {
            this.qos = Objects.requireNonNull(qos, "qos");
            return this;
        }

        /**
         * Read the QoS settings from an {@code opensm.conf}, as OpenSM programs them on a vlink port
         * ({@link QosPort#vlink()}); a file OpenSM would program differently from what it says (a misread list, a
         * folded or masked VL, a lost entry) is refused, as {@code vlink qos check} refuses it, since a builder has no
         * one to warn. {@link QosConfig#read(Path, PortType, QosPort, QosReader.Mode, boolean)} with
         * {@code APPLY} gives what OpenSM programs anyway, with its warnings, for {@link #qos(QosConfig)}.
         *
         * @param file     the file.
         * @param portType whose {@code qos_<type>_} options apply.
         * @return this.
         * @throws ConfigException with every diagnostic ({@code file:line:column}) when the file is refused.
         */
        public Builder qos(final Path file, final PortType portType)
        {
            this.qos = QosConfig.read(file, portType, QosPort.vlink(), QosReader.Mode.CHECK, false).orThrow();
            return this;
        }

        /**
         * @param depth messages each queue pair holds (default: property {@code vlink.queue.depth}, else 256).
         * @return this.
         */
        public Builder queueDepth(final int depth)
        {
            this.queueDepth = depth;
            return this;
        }

        /**
         * @param queuePairs queue pairs each port may create (default: property {@code vlink.max.queue.pairs},
         *                   else 64).
         * @return this.
         */
        public Builder maxQueuePairs(final int queuePairs)
        {
            this.maxQueuePairs = queuePairs;
            return this;
        }

        /**
         * @param bytes the most bytes of immediate data a message carries, copied at post time (default 224, at
         *              most the MTU); larger messages are posted by reference ({@link MemoryRegion}).
         * @return this.
         */
        public Builder idcThreshold(final int bytes)
        {
            this.idcThreshold = bytes;
            return this;
        }

        /**
         * @param cells shared cells of the cell buffer beyond each class's reserved cells (default 2048).
         * @return this.
         */
        public Builder sharedCells(final int cells)
        {
            this.sharedCells = cells;
            return this;
        }

        /**
         * @param injection the whole cell buffer and injector configuration (default: one injector per SL, one
         *                  class per data VL and one for VL15); copied by {@link #build()}. It carries its own
         *                  shared cells and IDC threshold.
         * @return this.
         */
        public Builder injection(final InjectionConfig injection)
        {
            this.injection = injection;
            return this;
        }

        /**
         * @param sls     the SL arbitration table's SLs, in table order.
         * @param weights each entry's weight in bytes (default: every SL once, weight one MTU).
         * @return this.
         */
        public Builder slTable(final int[] sls, final int[] weights)
        {
            this.slTableSls = sls.clone();
            this.slTableWeights = weights.clone();
            return this;
        }

        /**
         * @param bytes   a queue pair's tenure in bytes (default 64 KiB).
         * @param packets and in packets (0, the default: bytes only).
         * @return this.
         */
        public Builder tenure(final long bytes, final int packets)
        {
            this.tenureBytes = bytes;
            this.tenurePackets = packets;
            return this;
        }

        /**
         * @param nanos how long {@link Engine#close()} waits for every message offered to be on the wire before it
         *              stops the engine (default 1 s; 0 closes abruptly, as {@code close(Duration.ZERO)}).
         * @return this.
         */
        public Builder closeDrainNs(final long nanos)
        {
            this.closeDrainNs = nanos;
            return this;
        }

        /**
         * Two ports of this engine back to back through off-heap rings (the default).
         *
         * @return this.
         */
        public Builder loopback()
        {
            this.linkKind = LinkKind.LOOPBACK;
            return this;
        }

        /**
         * @param bytes each direction's loopback ring, and a shm link's when this end makes its file (a power of two,
         *              default 1 MiB).
         * @return this.
         */
        public Builder loopbackCapacity(final int bytes)
        {
            this.loopbackCapacity = bytes;
            return this;
        }

        /**
         * One port linked over UDP to a peer engine.
         *
         * @param local     the address to bind.
         * @param remote    the peer's address: the only source accepted.
         * @param localLid  this port's LID (unicast: 1..0xBFFF).
         * @param remoteLid the peer's LID (unicast, not the local one).
         * @return this.
         */
        public Builder udp(
            final InetSocketAddress local, final InetSocketAddress remote, final int localLid, final int remoteLid)
        {
            this.linkKind = LinkKind.UDP;
            this.udpLocal = Objects.requireNonNull(local, "local");
            this.udpRemote = Objects.requireNonNull(remote, "remote");
            return lids(localLid, remoteLid);
        }

        /**
         * One port on a link the caller makes: the factory is called once while the engine is built, with the port's
         * counters (which the link counts its frames and back-pressure in), e.g. one end of a {@code LoopbackLink}
         * whose other end is a switch port.
         *
         * @param factory   makes the port's link given its counters; the engine owns and closes what it returns.
         * @param localLid  this port's LID (unicast: 1..0xBFFF).
         * @param remoteLid the LID of the port at the link's other end (unicast, not the local one).
         * @return this.
         */
        public Builder link(final Function<LinkCounters, Link> factory, final int localLid, final int remoteLid)
        {
            this.linkKind = LinkKind.EXTERNAL;
            this.externalLink = Objects.requireNonNull(factory, "factory");
            return lids(localLid, remoteLid);
        }

        /**
         * One port, linked to a peer engine on this host through a memory-mapped file (docs/engine.md, "Shared
         * memory"): this engine is one end of it, the peer the other. The file is made by whichever end opens it
         * first and removed when the last one closes. Sets the LIDs to the role's ({@code A}: 1 and 2, {@code B}: 2
         * and 1); call {@link #lids} afterwards for others. Each direction's ring is {@link #loopbackCapacity} bytes
         * when this end makes the file.
         *
         * @param file the link's file; a relative path is under the engine's directory.
         * @param role which end this engine is.
         * @return this.
         */
        public Builder shm(final Path file, final ShmLink.Role role)
        {
            this.linkKind = LinkKind.SHM;
            this.shmFile = Objects.requireNonNull(file, "file");
            this.shmRole = Objects.requireNonNull(role, "role");
            return lids(role.localLid(), role.remoteLid());
        }

        /**
         * Authenticate every UDP datagram with a keyed MAC (SipHash-2-4) both ends share: off by default. Without a
         * key a link session is unforgeable only by those who cannot read the traffic (docs/engine.md).
         *
         * @param key the pre-shared key ({@link io.vlink.nic.link.LinkKey#read(java.nio.file.Path)}), or null for none.
         * @return this.
         */
        public Builder udpKey(final io.vlink.nic.link.LinkKey key)
        {
            this.udpKey = key;
            return this;
        }

        /**
         * @param localLid  port 0's LID (default 1; unicast: 1..0xBFFF).
         * @param remoteLid its peer's LID (default 2; port 1's on a loopback engine): unicast, not the local one.
         * @return this.
         */
        public Builder lids(final int localLid, final int remoteLid)
        {
            this.localLid = localLid;
            this.remoteLid = remoteLid;
            return this;
        }

        /**
         * Record both directions of the wire as pcap (docs/wire.md): interface 0 is what port 0 sends, 1 its peer.
         *
         * @param file          the capture file (replaced); its directory must exist.
         * @param initialLength bytes mapped at a time; the file grows as needed, past 2 GiB.
         * @return this.
         */
        public Builder capture(final Path file, final long initialLength)
        {
            this.capturePath = Objects.requireNonNull(file, "file");
            this.captureLength = initialLength;
            return this;
        }

        /**
         * Record both directions of the wire as pcap, mapping the file {@code captureLength} bytes at a time
         * (default: property {@code vlink.capture.length}, else 64 MiB).
         *
         * @param file the capture file (replaced); its directory must exist.
         * @return this.
         */
        public Builder capture(final Path file)
        {
            this.capturePath = Objects.requireNonNull(file, "file");
            return this;
        }

        /**
         * @param listener told of every link state a port enters (the peer's life and death as the link sees it), on
         *                 the thread that runs the credit agent: it must return quickly and never block.
         * @return this.
         */
        public Builder linkStateListener(final LinkStateListener listener)
        {
            this.linkStateListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * @param listener told, per queue pair, how many accepted messages a link error's transmit flush discarded,
         *                 on the thread that runs the injection agent: it must return quickly and never block.
         * @return this.
         */
        public Builder flushListener(final FlushListener listener)
        {
            this.flushListener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * @param nanoClock  the clock of FCP schedules and priority timers.
         * @param epochClock the clock of timestamps.
         * @return this.
         */
        public Builder clocks(final NanoClock nanoClock, final EpochClock epochClock)
        {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            this.epochClock = Objects.requireNonNull(epochClock, "epochClock");
            return this;
        }

        /**
         * @param bytes each port's ring of events from the receive agent to the credit agent (a power of two,
         *              default 256 KiB).
         * @return this.
         */
        public Builder rxEventRingLength(final int bytes)
        {
            this.rxEventRingLength = bytes;
            return this;
        }

        /**
         * @param counters counters the counters file holds (default 1024: two ports of 15 data VLs).
         * @return this.
         */
        public Builder maxCounters(final int counters)
        {
            this.maxCounters = counters;
            return this;
        }

        /**
         * @param bytes the distinct error log's length (default 1 MiB).
         * @return this.
         */
        public Builder errorLogLength(final int bytes)
        {
            this.errorLogLength = bytes;
            return this;
        }

        /**
         * Wrap each port's link, e.g. with seeded fault injection for a soak (a wrapper that drops or damages
         * frames on {@code poll} models the wire). The wrapper is called once per port while the engine is built.
         *
         * @param wrapper returns the link the port uses, given the real one.
         * @return this.
         */
        public Builder linkWrapper(final UnaryOperator<Link> wrapper)
        {
            this.linkWrapper = Objects.requireNonNull(wrapper, "wrapper");
            return this;
        }

        /**
         * Wrap each port's wire below link-level retry: what such a wrapper drops or damages is repaired by the retry
         * (a retransmission), where {@link #linkWrapper}'s faults reach the port. With retry off it wraps the link
         * as {@link #linkWrapper} does, inside it. The wrapper sees the retry layer's frames (a
         * {@link io.vlink.nic.link.RetryLink#HEADER_LENGTH}-byte header first) and is called once per port while the
         * engine is built.
         *
         * @param wrapper returns the wire the port's retry layer uses, given the real link.
         * @return this.
         */
        public Builder wireWrapper(final UnaryOperator<Link> wrapper)
        {
            this.wireWrapper = Objects.requireNonNull(wrapper, "wrapper");
            return this;
        }

        /**
         * Link-level retry ({@link io.vlink.nic.link.RetryLink}, docs/engine.md): every frame numbered, held until
         * acknowledged and sent again when lost or damaged, so that a lossy path (UDP) is lossless for the link layer.
         * Both ends of a link must agree.
         *
         * @param on true for retry; default: system property {@code vlink.retry}, else on over UDP and off over
         *           loopback and shm (which do not lose frames).
         * @return this.
         */
        public Builder retry(final boolean on)
        {
            this.retry = on;
            return this;
        }

        /**
         * @param bytes bytes of frames link-level retry holds until acknowledged, per link (default: property
         *              {@code vlink.replay.buffer}, else 4 MiB; a power of two from 64 KiB to 1 GiB; one frame slot
         *              per 256 bytes). Off-heap; full means back-pressure.
         * @return this.
         */
        public Builder replayBufferBytes(final int bytes)
        {
            this.replayBufferBytes = bytes;
            return this;
        }

        /**
         * @param nanos how long link-level retry waits for acknowledgement progress before it sends everything held
         *              again (the wait doubling once while unanswered), and a gap asks for a replay again (default:
         *              property {@code vlink.retry.timeout.ns}, else 10 ms; 100 us..1 s).
         * @return this.
         */
        public Builder retryTimeoutNs(final long nanos)
        {
            this.retryTimeoutNs = nanos;
            return this;
        }

        /**
         * Conclude the settings without starting anything: defaults filled in, every value checked.
         *
         * @return the immutable configuration an engine built now would run with.
         * @throws IllegalArgumentException naming the setting, its value and the allowed range.
         */
        public EngineConfiguration conclude()
        {
            return new EngineConfiguration(this);
        }

        /**
         * Conclude the settings ({@link #conclude()}) and start an engine with them. A failure leaves nothing
         * behind: no file, no thread, no off-heap memory.
         *
         * @return the started engine.
         * @throws IllegalArgumentException naming the setting, its value and the allowed range.
         * @throws IllegalStateException    when the JVM lacks a flag the engine needs (Agrona's, or with a capture
         *                                  Chronicle's: {@link JvmFlags}), naming the flags and where they go.
         */
        public Engine build()
        {
            JvmFlags.require(null != capturePath);
            return new Engine(conclude());
        }
    }
}
