package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.agent.AgentGroup;
import io.vlink.nic.agent.ArbiterAgent;
import io.vlink.nic.agent.CreditAgent;
import io.vlink.nic.agent.DutyCycle;
import io.vlink.nic.agent.DutyCycleClock;
import io.vlink.nic.agent.InjectAgent;
import io.vlink.nic.agent.InjectSettings;
import io.vlink.nic.agent.MemoryRegions;
import io.vlink.nic.agent.PortDatapath;
import io.vlink.nic.agent.PortEvents;
import io.vlink.nic.agent.ReceiveAgent;
import io.vlink.nic.agent.SendQueue;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.capture.CaptureStoppedException;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.link.UdpLink;
import io.vlink.nic.memory.EngineClosedException;
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
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochNanoClock;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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
    private final MemoryRegions regions = new MemoryRegions();
    private volatile boolean closed;
    private volatile CountersSnapshot finalCounters;

    Engine(final EngineConfiguration config)
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
        final PortDatapath[] datapaths = new PortDatapath[ports.length];
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
                datapaths[i] = new PortDatapath(i, config.qos(), config.mtu(), injectionConfig(config),
                    config.rxEventRingLength(), config.vlBufferBlocks(), config.vl15Packets(), config.queueDepth(),
                    Objects.requireNonNull(wrapped, "linkWrapper returned null"), counters[i],
                    first ? config.localLid() : config.remoteLid(), first ? config.remoteLid() : config.localLid());
                links[i] = null; // the port owns it now
                ports[i] = new Port(datapaths[i], regions, counters[i].view(), datapaths[i].applicationCounters(),
                    config.maxQueuePairs(), config.queueDepth());
            }

            // A thread's DutyCycle runs inject and arbiter, then credit and receive in the order that suits where the
            // application polls, with a second arbiter turn after credit when it has work for it (it says why). Each
            // thread's duty cycle starts with one clock read that its agents share; dedicated threads (an agent each)
            // read the engine's clock themselves.
            final ThreadingMode mode = config.threading();
            final boolean dedicated = ThreadingMode.DEDICATED == mode;
            final boolean split = ThreadingMode.SPLIT == mode;
            final DutyCycleClock receiveClock = dedicated ? null : new DutyCycleClock(config.nanoClock());
            final DutyCycleClock transmitClock = split ? new DutyCycleClock(config.nanoClock()) : receiveClock;
            final NanoClock receiveTime = dedicated ? config.nanoClock() : receiveClock;
            final NanoClock transmitTime = dedicated ? config.nanoClock() : transmitClock;
            final PortEvents events = new Listeners(config.linkStateListener(), config.flushListener(), ports);
            final ReceiveAgent receive = new ReceiveAgent(datapaths, config.portConfig(), 2 * config.burst(), capture);
            final CreditAgent credit = new CreditAgent(datapaths, config.portConfig(), events, receiveTime);
            final HeartbeatAgent heartbeat = new HeartbeatAgent(countersFile, receiveTime, config.epochClock());
            final InjectAgent inject = new InjectAgent(datapaths, new InjectSettings(config.burst(),
                config.slTableSls(), config.slTableWeights(), config.tenureBytes(), config.tenurePackets(),
                config.maxQueuePairs(), config.queueDepth()), regions, events, transmitTime);
            final ArbiterAgent arbiter = new ArbiterAgent(datapaths, config.portConfig(), capture);
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
                    List.of(new DutyCycle(receiveClock, receive, credit, heartbeat, null, null, null, false)),
                    List.of(new DutyCycle(transmitClock, null, null, null, inject, arbiter, captureWriter, false)));
            }
            else
            {
                // invoker: the application polls after each duty cycle, on this thread
                groups = List.of(List.of(new DutyCycle(receiveClock, receive, credit, heartbeat, inject, arbiter,
                    captureWriter, ThreadingMode.INVOKER == mode)));
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
            for (final PortDatapath datapath : datapaths)
            {
                if (null != datapath)
                {
                    CloseHelper.quietClose(datapath::free);
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

    private static InjectionConfig injectionConfig(final EngineConfiguration config)
    {
        final InjectionConfig injection = config.injection();
        return null != injection ? injection :
            InjectionConfig.forPort(config.qos(), config.mtu(), config.sharedCells(), config.idcThreshold());
    }

    /** The application's listeners, as the agents tell them. */
    private static final class Listeners implements PortEvents
    {
        private final LinkStateListener linkStateListener;
        private final FlushListener flushListener;
        private final Port[] ports;

        Listeners(final LinkStateListener linkStateListener, final FlushListener flushListener, final Port[] ports)
        {
            this.linkStateListener = linkStateListener;
            this.flushListener = flushListener;
            this.ports = ports;
        }

        @Override
        public void onLinkState(final int port, final LinkState state)
        {
            linkStateListener.onLinkState(port, state);
        }

        @Override
        public void onFlushed(final SendQueue queue, final long messages)
        {
            // only a queue pair's messages are reported (SendQueue.KIND_DATA): its owner is the application's QueuePair
            flushListener.onFlushed((QueuePair)queue.owner(), messages);
        }

        @Override
        public void onReadyPacketsFlushed(final int port, final int sl, final long packets)
        {
            flushListener.onReadyPacketsFlushed(ports[port], sl, packets);
        }
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
    public static EngineBuilder builder()
    {
        return new EngineBuilder();
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
        final MemoryRegion region = new MemoryRegion(regions.size(), Objects.requireNonNull(buffer));
        regions.add(region, buffer);
        return region;
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
}
