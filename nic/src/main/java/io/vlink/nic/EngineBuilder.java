package io.vlink.nic;

import io.vlink.core.config.ConfigException;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosPort;
import io.vlink.core.qos.QosReader;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.LinkCounters;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Function;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * The engine's settings, mutable until {@link #build()}, which concludes them into an immutable
 * {@link EngineConfiguration} (defaults filled from system properties or constants, every value checked) and
 * starts the engine with it. A builder may be reused: what it is changed to afterwards affects only engines built
 * afterwards. Setters only record; {@link #build()} checks, naming the setting, the value and the allowed range.
 * docs/engine.md has the table of every setting, its system property, default and range.
 */
public final class EngineBuilder extends PortSettings.Builder<EngineBuilder>
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
    Engine.LinkKind linkKind = Engine.LinkKind.LOOPBACK;
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

    EngineBuilder()
    {
    }

    /**
     * @param name the engine's name, part of its counters file's name (1 to 64 letters, digits, '.', '_', '-';
     *             default {@code vlink}).
     * @return this.
     */
    public EngineBuilder name(final String name)
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
    public EngineBuilder directory(final File directory)
    {
        this.directory = Objects.requireNonNull(directory, "directory");
        return this;
    }

    /**
     * @param threading dedicated, shared, split (transmit and receive on a thread each) or invoker (default:
     *                  property {@code vlink.threading}, else dedicated).
     * @return this.
     */
    public EngineBuilder threading(final ThreadingMode threading)
    {
        this.threading = Objects.requireNonNull(threading, "threading");
        return this;
    }

    /**
     * @param idle {@code spin}, {@code backoff} (small machines, CI), {@code yield}, {@code sleep} or
     *             {@code noop} (default: property {@code vlink.idle}, else spin).
     * @return this.
     */
    public EngineBuilder idle(final String idle)
    {
        this.idle = Objects.requireNonNull(idle, "idle");
        return this;
    }

    /**
     * @param qos the ports' QoS settings (default: OpenSM's defaults with 8 data VLs).
     * @return this.
     */
    public EngineBuilder qos(final QosConfig qos)
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
    public EngineBuilder qos(final Path file, final PortType portType)
    {
        this.qos = QosReader.read(file, portType, QosPort.vlink(), QosReader.Mode.CHECK, false).orThrow();
        return this;
    }

    /**
     * @param depth messages each queue pair holds (default: property {@code vlink.queue.depth}, else 256).
     * @return this.
     */
    public EngineBuilder queueDepth(final int depth)
    {
        this.queueDepth = depth;
        return this;
    }

    /**
     * @param queuePairs queue pairs each port may create (default: property {@code vlink.max.queue.pairs},
     *                   else 64).
     * @return this.
     */
    public EngineBuilder maxQueuePairs(final int queuePairs)
    {
        this.maxQueuePairs = queuePairs;
        return this;
    }

    /**
     * @param bytes the most bytes of immediate data a message carries, copied at post time (default 224, at
     *              most the MTU); larger messages are posted by reference ({@link MemoryRegion}).
     * @return this.
     */
    public EngineBuilder idcThreshold(final int bytes)
    {
        this.idcThreshold = bytes;
        return this;
    }

    /**
     * @param cells shared cells of the cell buffer beyond each class's reserved cells (default 2048).
     * @return this.
     */
    public EngineBuilder sharedCells(final int cells)
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
    public EngineBuilder injection(final InjectionConfig injection)
    {
        this.injection = injection;
        return this;
    }

    /**
     * @param sls     the SL arbitration table's SLs, in table order.
     * @param weights each entry's weight in bytes (default: every SL once, weight one MTU).
     * @return this.
     */
    public EngineBuilder slTable(final int[] sls, final int[] weights)
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
    public EngineBuilder tenure(final long bytes, final int packets)
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
    public EngineBuilder closeDrainNs(final long nanos)
    {
        this.closeDrainNs = nanos;
        return this;
    }

    /**
     * Two ports of this engine back to back through off-heap rings (the default).
     *
     * @return this.
     */
    public EngineBuilder loopback()
    {
        this.linkKind = Engine.LinkKind.LOOPBACK;
        return this;
    }

    /**
     * @param bytes each direction's loopback ring, and a shm link's when this end makes its file (a power of two,
     *              default 1 MiB).
     * @return this.
     */
    public EngineBuilder loopbackCapacity(final int bytes)
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
    public EngineBuilder udp(
        final InetSocketAddress local, final InetSocketAddress remote, final int localLid, final int remoteLid)
    {
        this.linkKind = Engine.LinkKind.UDP;
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
    public EngineBuilder link(final Function<LinkCounters, Link> factory, final int localLid, final int remoteLid)
    {
        this.linkKind = Engine.LinkKind.EXTERNAL;
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
    public EngineBuilder shm(final Path file, final ShmLink.Role role)
    {
        this.linkKind = Engine.LinkKind.SHM;
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
    public EngineBuilder udpKey(final io.vlink.nic.link.LinkKey key)
    {
        this.udpKey = key;
        return this;
    }

    /**
     * @param localLid  port 0's LID (default 1; unicast: 1..0xBFFF).
     * @param remoteLid its peer's LID (default 2; port 1's on a loopback engine): unicast, not the local one.
     * @return this.
     */
    public EngineBuilder lids(final int localLid, final int remoteLid)
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
    public EngineBuilder capture(final Path file, final long initialLength)
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
    public EngineBuilder capture(final Path file)
    {
        this.capturePath = Objects.requireNonNull(file, "file");
        return this;
    }

    /**
     * @param listener told of every link state a port enters (the peer's life and death as the link sees it), on
     *                 the thread that runs the credit agent: it must return quickly and never block.
     * @return this.
     */
    public EngineBuilder linkStateListener(final LinkStateListener listener)
    {
        this.linkStateListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * @param listener told, per queue pair, how many accepted messages a link error's transmit flush discarded,
     *                 on the thread that runs the injection agent: it must return quickly and never block.
     * @return this.
     */
    public EngineBuilder flushListener(final FlushListener listener)
    {
        this.flushListener = Objects.requireNonNull(listener, "listener");
        return this;
    }

    /**
     * @param nanoClock  the clock of FCP schedules and priority timers.
     * @param epochClock the clock of timestamps.
     * @return this.
     */
    public EngineBuilder clocks(final NanoClock nanoClock, final EpochClock epochClock)
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
    public EngineBuilder rxEventRingLength(final int bytes)
    {
        this.rxEventRingLength = bytes;
        return this;
    }

    /**
     * @param counters counters the counters file holds (default 1024: two ports of 15 data VLs).
     * @return this.
     */
    public EngineBuilder maxCounters(final int counters)
    {
        this.maxCounters = counters;
        return this;
    }

    /**
     * @param bytes the distinct error log's length (default 1 MiB).
     * @return this.
     */
    public EngineBuilder errorLogLength(final int bytes)
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
    public EngineBuilder linkWrapper(final UnaryOperator<Link> wrapper)
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
    public EngineBuilder wireWrapper(final UnaryOperator<Link> wrapper)
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
    public EngineBuilder retry(final boolean on)
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
    public EngineBuilder replayBufferBytes(final int bytes)
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
    public EngineBuilder retryTimeoutNs(final long nanos)
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
