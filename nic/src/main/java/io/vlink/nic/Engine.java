package io.vlink.nic;

import io.vlink.core.config.ConfigException;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosReader;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.agent.AgentGroup;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.UdpLink;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.ErrorLogHandler;
import io.vlink.nic.status.HeartbeatAgent;
import io.vlink.nic.status.PortCounters;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 *     engine.port(1).poll((vl, buffer, offset, length) -> ..., 16);
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
        UDP
    }

    private final Builder config;
    private final CountersFile countersFile;
    private final Port[] ports;
    private final AgentGroup agents;
    private final CaptureTap capture;
    private volatile MemoryRegion[] regions = new MemoryRegion[0];
    private volatile boolean closed;

    private Engine(final Builder config)
    {
        this.config = config;
        countersFile = CountersFile.create(
            config.directory, config.name, config.maxCounters, CountersFile.DEFAULT_ERROR_LOG_LENGTH, config.epochClock);
        Port[] ports = null;
        CaptureTap capture = null;
        AgentGroup agents = null;
        try
        {
            final AtomicCounter errors = countersFile.newCounter(
                CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE);
            final int dataVls = config.qos.dataVls();
            if (LinkKind.LOOPBACK == config.linkKind)
            {
                final PortCounters counters0 = new PortCounters(countersFile, 0, dataVls);
                final PortCounters counters1 = new PortCounters(countersFile, 1, dataVls);
                final LoopbackLink[] ends = LoopbackLink.pair(config.loopbackCapacity, counters0, counters1);
                ports = new Port[]
                {
                    new Port(this, 0, config, config.linkWrapper.apply(ends[0]), counters0, 1, 2),
                    new Port(this, 1, config, config.linkWrapper.apply(ends[1]), counters1, 2, 1),
                };
            }
            else
            {
                final PortCounters counters = new PortCounters(countersFile, 0, dataVls);
                final int maxFrameLength = config.mtu + PacketChecker.HEADERS_ALLOWANCE + Sizes.VCRC_LENGTH;
                final Link link = new UdpLink(config.udpLocal, config.udpRemote, maxFrameLength, counters);
                ports = new Port[]
                {
                    new Port(this, 0, config, config.linkWrapper.apply(link), counters, config.localLid, config.remoteLid)
                };
            }
            final ErrorLogHandler errorHandler = new ErrorLogHandler(countersFile.errorLog(), System.err);
            capture = null == config.capturePath ? null :
                CaptureTap.open(config.capturePath, config.captureLength, SystemEpochNanoClock.INSTANCE,
                countersFile.newCounter(CounterType.CAPTURE_DROPS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE),
                countersFile.newCounter(CounterType.CAPTURE_ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE),
                errorHandler);

            // In the order a shared thread (or an invoker) runs them: what arrived, then credits, then what to send,
            // so that a credit returned in one duty cycle is used in the same cycle. Split mode runs the receive
            // side and the transmit side (with the capture tap's writer) on a thread each.
            final List<Agent> receiveSide = List.of(
                new ReceiveAgent(ports, 2 * config.burst, capture),
                new CompositeAgent(
                    new CreditAgent(ports, config.nanoClock, config.fcpPeriodNs, config.earlyFcpThresholdBlocks),
                    new HeartbeatAgent(countersFile, config.epochClock)));
            final List<Agent> transmitSide = new ArrayList<>(3);
            transmitSide.add(new InjectAgent(ports, config.nanoClock));
            transmitSide.add(new ArbiterAgent(ports, config.burst, capture));
            if (null != capture)
            {
                transmitSide.add(capture.agent());
            }
            for (final Port port : ports)
            {
                port.up();
            }
            agents = AgentGroup.startGroups(
                "vlink-" + config.name + "-",
                config.threading,
                IdleStrategies.supplier(config.idle),
                errorHandler,
                errors,
                List.of(receiveSide, transmitSide));
        }
        catch (final RuntimeException ex)
        {
            if (null != ports)
            {
                for (final Port port : ports)
                {
                    CloseHelper.quietClose(port::free);
                }
            }
            CloseHelper.quietClose(capture);
            countersFile.close();
            throw ex;
        }
        this.ports = ports;
        this.capture = capture;
        this.agents = agents;
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
        return config.name;
    }

    /**
     * @param index 0 or, for a loopback engine, 1.
     * @return the port.
     */
    public Port port(final int index)
    {
        return ports[index];
    }

    /**
     * @return the ports: two for a loopback engine, one for UDP.
     */
    public List<Port> ports()
    {
        return List.of(ports);
    }

    /**
     * @return the threading mode.
     */
    public ThreadingMode threading()
    {
        return config.threading;
    }

    /**
     * One duty cycle of every agent on the caller's thread ({@link ThreadingMode#INVOKER} only).
     *
     * @return work done (0 when idle).
     */
    public int invoke()
    {
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
     * @return the engine's counters file (counters and distinct error log).
     */
    public CountersFile countersFile()
    {
        return countersFile;
    }

    /**
     * Register memory that messages may then be posted from by reference.
     *
     * @param buffer the memory; it must stay valid while the engine may read it.
     * @return the region.
     */
    public synchronized MemoryRegion registerMemory(final DirectBuffer buffer)
    {
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

    Builder config()
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

    /**
     * Stop every agent thread (waiting for each), count what each port still holds ({@link Port#closeReport()}: every
     * accepted packet is either delivered or reported there), then free the ports' off-heap memory, close the links
     * and the capture, and delete the counters file. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            agents.close();
            for (final Port port : ports)
            {
                port.report();
            }
            for (final Port port : ports)
            {
                port.free();
            }
            CloseHelper.close(capture);
            countersFile.close();
        }
    }

    /**
     * The engine's settings, each with a default; {@link #build()} starts the engine.
     */
    public static final class Builder
    {
        private String name = "vlink";
        private File directory = CountersFileDescriptor.defaultDirectory();
        private ThreadingMode threading = ThreadingMode.DEDICATED;
        private String idle = "spin";
        private QosConfig qos = QosConfig.opensmDefaults(8);
        private int mtu = 4096;
        private int vlBufferBlocks = 2048;
        private int vl15Packets = 4;
        private int queueDepth = 256;
        private int idcThreshold = InjectionConfig.DEFAULT_IDC_THRESHOLD;
        private int maxQueuePairs = 64;
        private int sharedCells = 2048;
        private InjectionConfig injection;
        private int[] slTableSls;
        private int[] slTableWeights;
        private long tenureBytes = 64 * 1024;
        private int tenurePackets;
        private long fcpPeriodNs = 1_000_000;
        private int earlyFcpThresholdBlocks = 64;
        private LinkKind linkKind = LinkKind.LOOPBACK;
        private int loopbackCapacity = LoopbackLink.DEFAULT_CAPACITY;
        private InetSocketAddress udpLocal;
        private InetSocketAddress udpRemote;
        private int localLid = 1;
        private int remoteLid = 2;
        private Path capturePath;
        private long captureLength = 64L * 1024 * 1024;
        private NanoClock nanoClock = SystemNanoClock.INSTANCE;
        private EpochClock epochClock = SystemEpochClock.INSTANCE;
        private int eventRingLength = 256 * 1024;
        private int burst = 64;
        private int maxCounters = CountersFile.DEFAULT_MAX_COUNTERS;
        private UnaryOperator<Link> linkWrapper = UnaryOperator.identity();

        Builder()
        {
        }

        /**
         * @param name the engine's name, part of its counters file's name (letters, digits, '.', '_', '-').
         * @return this.
         */
        public Builder name(final String name)
        {
            this.name = CountersFileDescriptor.validateName(name);
            return this;
        }

        /**
         * @param directory where the counters file goes (default: {@code ${java.io.tmpdir}/vlink-${user.name}}).
         * @return this.
         */
        public Builder directory(final File directory)
        {
            this.directory = Objects.requireNonNull(directory);
            return this;
        }

        /**
         * @param threading dedicated (default), shared, split (transmit and receive on a thread each) or invoker.
         * @return this.
         */
        public Builder threading(final ThreadingMode threading)
        {
            this.threading = Objects.requireNonNull(threading);
            return this;
        }

        /**
         * @param idle {@code spin} (default), {@code backoff} (small machines, CI), {@code yield}, {@code sleep}.
         * @return this.
         */
        public Builder idle(final String idle)
        {
            IdleStrategies.supplier(idle);
            this.idle = idle;
            return this;
        }

        /**
         * @param qos the ports' QoS settings (default: OpenSM's defaults with 8 data VLs).
         * @return this.
         */
        public Builder qos(final QosConfig qos)
        {
            this.qos = Objects.requireNonNull(qos);
            return this;
        }

        /**
         * Read the QoS settings from an {@code opensm.conf}.
         *
         * @param file     the file.
         * @param portType whose {@code qos_<type>_} options apply.
         * @return this.
         * @throws ConfigException with every diagnostic ({@code file:line:column}) when the file is refused.
         */
        public Builder qos(final Path file, final PortType portType)
        {
            final QosReader.Result result = QosConfig.read(file, portType, false);
            if (!result.ok())
            {
                throw new ConfigException(result.diagnostics());
            }
            this.qos = result.config();
            return this;
        }

        /**
         * @param mtu 256, 512, 1024, 2048 or 4096 bytes of payload (default 4096).
         * @return this.
         */
        public Builder mtu(final int mtu)
        {
            if (mtu != 256 && mtu != 512 && mtu != 1024 && mtu != 2048 && mtu != 4096)
            {
                throw new IllegalArgumentException("MTU " + mtu + ": use 256, 512, 1024, 2048 or 4096");
            }
            this.mtu = mtu;
            return this;
        }

        /**
         * @param blocks each data VL's receive buffer, in 64-byte blocks (default 2048: the whole credit window).
         * @return this.
         */
        public Builder vlBufferBlocks(final int blocks)
        {
            this.vlBufferBlocks = positive(blocks, "VL buffer blocks");
            return this;
        }

        /**
         * @param packets the VL15 receive buffer, in largest packets (default 4; at least 1).
         * @return this.
         */
        public Builder vl15Packets(final int packets)
        {
            this.vl15Packets = positive(packets, "VL15 packets");
            return this;
        }

        /**
         * @param depth messages each queue pair holds (default 256).
         * @return this.
         */
        public Builder queueDepth(final int depth)
        {
            this.queueDepth = positive(depth, "queue depth");
            return this;
        }

        /**
         * @param cells shared cells of the cell buffer beyond each class's reserved cells (default 2048).
         * @return this.
         */
        public Builder sharedCells(final int cells)
        {
            this.sharedCells = positive(cells, "shared cells");
            return this;
        }

        /**
         * @param injection the whole cell buffer and injector configuration (default: one injector per SL, one
         *                  class per data VL and one for VL15).
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
         * @param packets and in packets (0: bytes only).
         * @return this.
         */
        public Builder tenure(final long bytes, final int packets)
        {
            this.tenureBytes = bytes;
            this.tenurePackets = packets;
            return this;
        }

        /**
         * @param nanos the longest gap between two FCPs of a VL (default 1 ms: 65,536 symbol times are notional
         *              in software; a receiver that frees space sends an FCP at once anyway, docs/flow-control.md).
         * @return this.
         */
        public Builder fcpPeriodNs(final long nanos)
        {
            this.fcpPeriodNs = positive(nanos, "FCP period");
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
         * @param bytes each direction's ring (a power of two, default 1 MiB).
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
         * @param localLid  this port's LID.
         * @param remoteLid the peer's LID.
         * @return this.
         */
        public Builder udp(
            final InetSocketAddress local, final InetSocketAddress remote, final int localLid, final int remoteLid)
        {
            this.linkKind = LinkKind.UDP;
            this.udpLocal = Objects.requireNonNull(local);
            this.udpRemote = Objects.requireNonNull(remote);
            this.localLid = localLid;
            this.remoteLid = remoteLid;
            return this;
        }

        /**
         * Record both directions of the wire as pcap (docs/wire.md): interface 0 is what port 0 sends, 1 its peer.
         *
         * @param file          the capture file (replaced).
         * @param initialLength bytes mapped at first; the file grows as needed, past 2 GiB.
         * @return this.
         */
        public Builder capture(final Path file, final long initialLength)
        {
            this.capturePath = file;
            this.captureLength = positive(initialLength, "capture length");
            return this;
        }

        /**
         * @param nanoClock the clock of FCP schedules and priority timers.
         * @param epochClock the clock of timestamps.
         * @return this.
         */
        public Builder clocks(final NanoClock nanoClock, final EpochClock epochClock)
        {
            this.nanoClock = Objects.requireNonNull(nanoClock);
            this.epochClock = Objects.requireNonNull(epochClock);
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
            this.linkWrapper = Objects.requireNonNull(wrapper);
            return this;
        }

        /**
         * @param packets most packets the arbiter sends per port per duty cycle (default 64; the receive agent takes
         *                twice as many frames, the injection agent four times as many packets): what each duty
         *                cycle's fixed costs (clock, counters, ring positions) are spread over.
         * @return this.
         */
        public Builder burst(final int packets)
        {
            this.burst = positive(packets, "burst");
            return this;
        }

        /**
         * @return the started engine.
         */
        public Engine build()
        {
            if (LinkKind.UDP == linkKind && (null == udpLocal || null == udpRemote))
            {
                throw new IllegalStateException("UDP needs a local and a remote address");
            }
            return new Engine(this);
        }

        private static int positive(final int value, final String what)
        {
            if (value <= 0)
            {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }

        private static long positive(final long value, final String what)
        {
            if (value <= 0)
            {
                throw new IllegalArgumentException(what + " must be positive: " + value);
            }
            return value;
        }

        QosConfig qos()
        {
            return qos;
        }

        int mtu()
        {
            return mtu;
        }

        int vlBufferBlocks()
        {
            return vlBufferBlocks;
        }

        int vl15Packets()
        {
            return vl15Packets;
        }

        int queueDepth()
        {
            return queueDepth;
        }

        int idcThreshold()
        {
            return idcThreshold;
        }

        int maxQueuePairs()
        {
            return maxQueuePairs;
        }

        int sharedCells()
        {
            return sharedCells;
        }

        InjectionConfig injection()
        {
            return injection;
        }

        int[] slTableSls()
        {
            return slTableSls;
        }

        int[] slTableWeights()
        {
            return slTableWeights;
        }

        long tenureBytes()
        {
            return tenureBytes;
        }

        int tenurePackets()
        {
            return tenurePackets;
        }

        int burst()
        {
            return burst;
        }

        int eventRingLength()
        {
            return eventRingLength;
        }
    }
}
