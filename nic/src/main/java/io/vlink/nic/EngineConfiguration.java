package io.vlink.nic;

import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ArbiterAgent;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.LinkCounters;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.io.File;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import static io.vlink.nic.ConfigurationRules.intSetting;
import static io.vlink.nic.ConfigurationRules.lid;
import static io.vlink.nic.ConfigurationRules.lidText;
import static io.vlink.nic.ConfigurationRules.longSetting;
import static io.vlink.nic.ConfigurationRules.powerOfTwo;
import static io.vlink.nic.ConfigurationRules.range;

/**
 * The settings an engine runs with: concluded from an {@link EngineBuilder} by {@link EngineBuilder#build()}
 * (every default filled in, every value checked against its range and against the others), then frozen. The
 * engine, its ports and its agents read only this; changing the builder afterwards changes nothing that was built.
 * <p>
 * Defaults come from the system properties below where one is set (an operator's tuning without a code change),
 * else from the constants here; a builder setter always wins over the property. docs/engine.md has the table of
 * every setting.
 */
public final class EngineConfiguration
{
    /** System property: the idle strategy by name ({@link IdleStrategies#supplier(String)}). */
    public static final String IDLE_PROP_NAME = "vlink.idle";
    /** System property: the threading mode by name ({@link ThreadingMode#parse(String)}). */
    public static final String THREADING_PROP_NAME = "vlink.threading";
    /** System property: the counters directory (the one {@code vlink stat} reads by default too). */
    public static final String DIR_PROP_NAME = CountersFileDescriptor.DIR_PROP_NAME;
    /** System property: packets the arbiter sends per port per duty cycle. */
    public static final String BURST_PROP_NAME = PortSettings.BURST_PROP_NAME;
    /** System property: bytes of the capture file mapped at a time. */
    public static final String CAPTURE_LENGTH_PROP_NAME = "vlink.capture.length";
    /** System property: the longest gap between two FCPs of a VL, in nanoseconds. */
    public static final String FCP_PERIOD_PROP_NAME = PortSettings.FCP_PERIOD_PROP_NAME;
    /** System property: how long {@code close()} waits for what the application offered to go on the wire, in ns. */
    public static final String CLOSE_DRAIN_PROP_NAME = "vlink.close.drain.ns";
    /** System property: how long an Armed or Active port waits without hearing from its peer, in ns. */
    public static final String LINK_TIMEOUT_PROP_NAME = PortSettings.LINK_TIMEOUT_PROP_NAME;
    /** System property: link-level retry on ({@code true}) or off ({@code false}); default: on over UDP only. */
    public static final String RETRY_PROP_NAME = "vlink.retry";
    /** System property: bytes of each link-level retry replay buffer. */
    public static final String REPLAY_BUFFER_PROP_NAME = "vlink.replay.buffer";
    /** System property: the link-level retry timeout, in ns. */
    public static final String RETRY_TIMEOUT_PROP_NAME = "vlink.retry.timeout.ns";
    /** System property: messages each queue pair holds. */
    public static final String QUEUE_DEPTH_PROP_NAME = "vlink.queue.depth";
    /** System property: queue pairs each port may create. */
    public static final String MAX_QUEUE_PAIRS_PROP_NAME = "vlink.max.queue.pairs";

    public static final String DEFAULT_NAME = "vlink";
    public static final ThreadingMode DEFAULT_THREADING = ThreadingMode.DEDICATED;
    public static final String DEFAULT_IDLE = "spin";
    public static final int DEFAULT_DATA_VLS = 8;
    public static final int DEFAULT_MTU = PortSettings.DEFAULT_MTU;
    public static final int DEFAULT_VL_BUFFER_BLOCKS = PortSettings.DEFAULT_VL_BUFFER_BLOCKS;
    public static final int MAX_VL_BUFFER_BLOCKS = PortSettings.MAX_VL_BUFFER_BLOCKS;
    public static final int DEFAULT_VL15_PACKETS = PortSettings.DEFAULT_VL15_PACKETS;
    public static final int MAX_VL15_PACKETS = PortSettings.MAX_VL15_PACKETS;
    public static final int DEFAULT_QUEUE_DEPTH = 256;
    public static final int MAX_QUEUE_DEPTH = 1 << 16;
    public static final int DEFAULT_MAX_QUEUE_PAIRS = 64;
    public static final int MAX_MAX_QUEUE_PAIRS = 4096;
    public static final int DEFAULT_IDC_THRESHOLD = InjectionConfig.DEFAULT_IDC_THRESHOLD;
    public static final int DEFAULT_SHARED_CELLS = InjectionConfig.PORT_SHARED_CELLS;
    public static final int MAX_SHARED_CELLS = 1 << 20;
    public static final long DEFAULT_TENURE_BYTES = 64 * 1024;
    public static final long DEFAULT_FCP_PERIOD_NS = PortSettings.DEFAULT_FCP_PERIOD_NS;
    public static final long MIN_FCP_PERIOD_NS = PortSettings.MIN_FCP_PERIOD_NS;
    public static final long MAX_FCP_PERIOD_NS = PortSettings.MAX_FCP_PERIOD_NS;
    /** One second: far more than a full transmit path takes to drain on an Active link. */
    public static final long DEFAULT_CLOSE_DRAIN_NS = 1_000_000_000;
    /** 200 default FCP periods: well under a second, far above any idle strategy's sleep or a young-GC pause. */
    public static final long DEFAULT_LINK_TIMEOUT_NS = PortSettings.DEFAULT_LINK_TIMEOUT_NS;
    /** 100 times the longest sleep of any idle strategy: a peer that merely sleeps is never taken for dead. */
    public static final long MIN_LINK_TIMEOUT_NS = PortSettings.MIN_LINK_TIMEOUT_NS;
    /** The least link timeout in FCP periods: a peer is declared silent only after several FCPs were due. */
    public static final int MIN_LINK_TIMEOUT_PERIODS = PortSettings.MIN_LINK_TIMEOUT_PERIODS;
    public static final int DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS = PortSettings.DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS;
    public static final int DEFAULT_LOOPBACK_CAPACITY = 1024 * 1024;
    public static final int MIN_LOOPBACK_CAPACITY = 64 * 1024;
    public static final int MAX_LOOPBACK_CAPACITY = 1 << 30;
    /** The lowest unicast LID (0 is reserved). */
    public static final int MIN_LID = ConfigurationRules.MIN_LID;
    /** The highest unicast LID: 0xC000 and above are multicast and the permissive LID. */
    public static final int MAX_LID = ConfigurationRules.MAX_LID;
    public static final int DEFAULT_LOCAL_LID = 1;
    public static final int DEFAULT_REMOTE_LID = 2;
    public static final long DEFAULT_CAPTURE_LENGTH = 64L * 1024 * 1024;
    public static final long MIN_CAPTURE_LENGTH = 64 * 1024;
    public static final long MAX_CAPTURE_LENGTH = 1L << 30;
    public static final int DEFAULT_RX_EVENT_RING_LENGTH = 256 * 1024;
    public static final int MIN_RX_EVENT_RING_LENGTH = 4 * 1024;
    public static final int MAX_RX_EVENT_RING_LENGTH = 1 << 28;
    public static final int DEFAULT_BURST = PortSettings.DEFAULT_BURST;
    public static final int MAX_BURST = PortSettings.MAX_BURST;
    public static final int DEFAULT_MAX_COUNTERS = CountersFile.DEFAULT_MAX_COUNTERS;
    public static final int MIN_MAX_COUNTERS = 64;
    public static final int MAX_MAX_COUNTERS = 1 << 20;
    public static final int DEFAULT_ERROR_LOG_LENGTH = CountersFile.DEFAULT_ERROR_LOG_LENGTH;
    public static final int MIN_ERROR_LOG_LENGTH = 4 * 1024;
    public static final int MAX_ERROR_LOG_LENGTH = 1 << 30;

    private final String name;
    private final File directory;
    private final ThreadingMode threading;
    private final String idle;
    private final Supplier<IdleStrategy> idleStrategy;
    private final QosConfig qos;
    private final int queueDepth;
    private final int maxQueuePairs;
    private final int idcThreshold;
    private final int sharedCells;
    private final InjectionConfig injection;
    private final int[] slTableSls;
    private final int[] slTableWeights;
    private final long tenureBytes;
    private final int tenurePackets;
    private final long closeDrainNs;
    private final Engine.LinkKind linkKind;
    private final int loopbackCapacity;
    private final InetSocketAddress udpLocal;
    private final InetSocketAddress udpRemote;
    private final io.vlink.nic.link.LinkKey udpKey;
    private final Function<LinkCounters, Link> externalLink;
    private final Path shmFile;
    private final ShmLink.Role shmRole;
    private final int localLid;
    private final int remoteLid;
    private final Path capturePath;
    private final long captureLength;
    private final NanoClock nanoClock;
    private final LinkStateListener linkStateListener;
    private final FlushListener flushListener;
    private final EpochClock epochClock;
    private final int rxEventRingLength;
    private final int maxCounters;
    private final int errorLogLength;
    private final UnaryOperator<Link> linkWrapper;
    private final UnaryOperator<Link> wireWrapper;
    private final boolean retry;
    private final int replayBufferBytes;
    private final long retryTimeoutNs;
    private final PortSettings port;
    private final PortConfig portConfig;

    /**
     * Conclude a builder: fill defaults (system property, else constant), check every value, copy what is mutable.
     *
     * @throws IllegalArgumentException naming the setting, its value and the allowed range, for the first value
     *                                  out of range.
     */
    EngineConfiguration(final EngineBuilder b)
    {
        name = CountersFileDescriptor.validateName(b.name);
        directory = ConfigurationRules.directory(b.directory);
        threading = null != b.threading ? b.threading : parseThreading(System.getProperty(THREADING_PROP_NAME));
        idle = null != b.idle ? b.idle : System.getProperty(IDLE_PROP_NAME, DEFAULT_IDLE);
        idleStrategy = idleSupplier(idle, null != b.idle);
        qos = b.qos;
        port = b.portSettings();
        final int mtu = port.mtu();
        queueDepth = intSetting("queueDepth", b.queueDepth, QUEUE_DEPTH_PROP_NAME, DEFAULT_QUEUE_DEPTH,
            1, MAX_QUEUE_DEPTH, "messages each queue pair holds");
        maxQueuePairs = intSetting("maxQueuePairs", b.maxQueuePairs, MAX_QUEUE_PAIRS_PROP_NAME,
            DEFAULT_MAX_QUEUE_PAIRS, 1, MAX_MAX_QUEUE_PAIRS, "queue pairs each port may create");
        if (null != b.injection)
        {
            if (null != b.idcThreshold && b.idcThreshold != b.injection.idcThreshold())
            {
                throw new IllegalArgumentException("idcThreshold " + b.idcThreshold + " differs from the injection " +
                    "configuration's " + b.injection.idcThreshold() + ": set it in one place");
            }
            if (null != b.sharedCells)
            {
                throw new IllegalArgumentException("sharedCells " + b.sharedCells + " set beside a whole injection " +
                    "configuration: set the shared cells in the injection configuration");
            }
            injection = b.injection.copy();
            idcThreshold = range("idcThreshold (of the injection configuration)", injection.idcThreshold(), 1, mtu,
                "immediate-data bytes a message may carry, at most the MTU");
            sharedCells = injection.totalCells();
        }
        else
        {
            injection = null;
            idcThreshold = range("idcThreshold", null != b.idcThreshold ? b.idcThreshold : DEFAULT_IDC_THRESHOLD, 1,
                mtu, "immediate-data bytes a message may carry, at most the MTU");
            sharedCells = range("sharedCells", null != b.sharedCells ? b.sharedCells : DEFAULT_SHARED_CELLS, 1,
                MAX_SHARED_CELLS, "cells shared by the buffer classes");
        }
        if (null != b.slTableSls)
        {
            checkSlTable(b.slTableSls, b.slTableWeights);
            slTableSls = b.slTableSls.clone();
            slTableWeights = b.slTableWeights.clone();
        }
        else
        {
            slTableSls = null;
            slTableWeights = null;
        }
        tenureBytes = range("tenure bytes", b.tenureBytes, 1, Long.MAX_VALUE, "a queue pair's turn in bytes");
        tenurePackets = range("tenure packets", b.tenurePackets, 0, Integer.MAX_VALUE,
            "a queue pair's turn in packets, 0 for bytes only");
        closeDrainNs = longSetting("closeDrainNs", b.closeDrainNs, CLOSE_DRAIN_PROP_NAME, DEFAULT_CLOSE_DRAIN_NS,
            0, 3_600_000_000_000L, "how long close() waits for the transmit path to drain, 0 for an abrupt close");
        linkKind = b.linkKind;
        loopbackCapacity = range("loopbackCapacity", b.loopbackCapacity, MIN_LOOPBACK_CAPACITY,
            MAX_LOOPBACK_CAPACITY, "bytes of each direction's ring");
        powerOfTwo("loopbackCapacity", loopbackCapacity);
        if (Engine.LinkKind.UDP == linkKind && (null == b.udpLocal || null == b.udpRemote))
        {
            throw new IllegalArgumentException("udp needs a local and a remote address: call udp(local, remote, " +
                "localLid, remoteLid)");
        }
        udpLocal = b.udpLocal;
        udpRemote = b.udpRemote;
        udpKey = b.udpKey;
        externalLink = b.externalLink;
        if (Engine.LinkKind.SHM == linkKind)
        {
            shmFile = directory.toPath().resolve(b.shmFile).toAbsolutePath();
            shmRole = b.shmRole;
            final Path parent = shmFile.getParent();
            if (Files.isDirectory(shmFile))
            {
                throw new IllegalArgumentException("shm " + shmFile + " is a directory: give a file name");
            }
            if (null == parent || (!Files.isDirectory(parent) && !parent.equals(directory.toPath().toAbsolutePath())))
            {
                throw new IllegalArgumentException("shm " + shmFile + ": directory " + parent +
                    " does not exist; create it or give another path");
            }
        }
        else
        {
            shmFile = null;
            shmRole = null;
        }
        localLid = lid("local LID", b.localLid);
        remoteLid = lid("remote LID", b.remoteLid);
        if (localLid == remoteLid)
        {
            throw new IllegalArgumentException("local and remote LID are both " + lidText(localLid) +
                ": give each end of the link its own LID");
        }
        capturePath = b.capturePath;
        captureLength = longSetting("captureLength", b.captureLength, CAPTURE_LENGTH_PROP_NAME,
            DEFAULT_CAPTURE_LENGTH, MIN_CAPTURE_LENGTH, MAX_CAPTURE_LENGTH, "capture bytes mapped at a time");
        if (null != capturePath)
        {
            checkCapturePath(capturePath);
        }
        nanoClock = b.nanoClock;
        linkStateListener = b.linkStateListener;
        flushListener = b.flushListener;
        epochClock = b.epochClock;
        rxEventRingLength = range("rxEventRingLength", b.rxEventRingLength, MIN_RX_EVENT_RING_LENGTH,
            MAX_RX_EVENT_RING_LENGTH, "bytes of the receive-to-credit event ring");
        powerOfTwo("rxEventRingLength", rxEventRingLength);
        maxCounters = range("maxCounters", b.maxCounters, MIN_MAX_COUNTERS, MAX_MAX_COUNTERS,
            "counters the counters file holds");
        errorLogLength = range("errorLogLength", b.errorLogLength, MIN_ERROR_LOG_LENGTH, MAX_ERROR_LOG_LENGTH,
            "bytes of the distinct error log");
        linkWrapper = b.linkWrapper;
        portConfig = port.portConfig(qos, ArbiterAgent.BURST_BYTES, rxEventRingLength);
        wireWrapper = b.wireWrapper;
        retry = retrySetting(b.retry, linkKind);
        replayBufferBytes = intSetting("replayBufferBytes", b.replayBufferBytes, REPLAY_BUFFER_PROP_NAME,
            RetryLink.DEFAULT_REPLAY_BUFFER_BYTES, RetryLink.MIN_REPLAY_BUFFER_BYTES, RetryLink.MAX_REPLAY_BUFFER_BYTES,
            "bytes of frames link-level retry holds until acknowledged, a power of two");
        powerOfTwo("replayBufferBytes", replayBufferBytes);
        retryTimeoutNs = longSetting("retryTimeoutNs", b.retryTimeoutNs, RETRY_TIMEOUT_PROP_NAME,
            RetryLink.DEFAULT_RETRY_TIMEOUT_NS, RetryLink.MIN_RETRY_TIMEOUT_NS, RetryLink.MAX_RETRY_TIMEOUT_NS,
            "how long link-level retry waits for an acknowledgement before it sends again");
    }

    /** On over UDP, off over the links that do not lose (loopback, shm), unless set or the property says. */
    private static boolean retrySetting(final Boolean explicit, final Engine.LinkKind kind)
    {
        if (null != explicit)
        {
            return explicit;
        }
        final String text = System.getProperty(RETRY_PROP_NAME);
        if (null == text)
        {
            return Engine.LinkKind.UDP == kind;
        }
        switch (text.trim().toLowerCase(Locale.ROOT))
        {
            case "true":
            case "on":
                return true;
            case "false":
            case "off":
                return false;
            default:
                throw new IllegalArgumentException("system property " + RETRY_PROP_NAME + " '" + text +
                    "': use true or false (link-level retry)");
        }
    }

    // ---------------------------------------------------------------- checks

    private static ThreadingMode parseThreading(final String property)
    {
        if (null == property)
        {
            return DEFAULT_THREADING;
        }
        try
        {
            return ThreadingMode.parse(property);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("system property " + THREADING_PROP_NAME + ": " + ex.getMessage(), ex);
        }
    }

    private static Supplier<IdleStrategy> idleSupplier(final String idle, final boolean explicit)
    {
        try
        {
            return IdleStrategies.supplier(idle);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException(
                (explicit ? "idle: " : "system property " + IDLE_PROP_NAME + ": ") + ex.getMessage(), ex);
        }
    }

    private static void checkSlTable(final int[] sls, final int[] weights)
    {
        if (sls.length == 0 || sls.length != weights.length)
        {
            throw new IllegalArgumentException("slTable of " + sls.length + " SLs and " + weights.length +
                " weights: give at least one entry and one weight per SL");
        }
        for (int i = 0; i < sls.length; i++)
        {
            if (sls[i] < 0 || sls[i] > 15 || weights[i] < 0)
            {
                throw new IllegalArgumentException("slTable entry " + i + " (SL " + sls[i] + ", weight " +
                    weights[i] + "): use SLs 0..15 and weights >= 0 bytes");
            }
        }
    }

    private static void checkCapturePath(final Path file)
    {
        final Path parent = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file))
        {
            throw new IllegalArgumentException("capture " + file + " is a directory: give a file name");
        }
        if (null == parent || !Files.isDirectory(parent))
        {
            throw new IllegalArgumentException("capture " + file + ": directory " + parent +
                " does not exist; create it or give another path");
        }
    }

    // ---------------------------------------------------------------- the settings

    /**
     * @return the engine's name, part of its counters file's name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return where the counters file goes.
     */
    public File directory()
    {
        return directory;
    }

    /**
     * @return how the agents map to threads.
     */
    public ThreadingMode threading()
    {
        return threading;
    }

    /**
     * @return the idle strategy's name.
     */
    public String idle()
    {
        return idle;
    }

    Supplier<IdleStrategy> idleStrategy()
    {
        return idleStrategy;
    }

    /**
     * @return the ports' QoS settings.
     */
    public QosConfig qos()
    {
        return qos;
    }

    /**
     * @return payload bytes per packet.
     */
    public int mtu()
    {
        return port.mtu();
    }

    /**
     * @return each data VL's receive buffer in 64-byte blocks.
     */
    public int vlBufferBlocks()
    {
        return port.vlBufferBlocks();
    }

    /**
     * @return the VL15 receive buffer in largest packets.
     */
    public int vl15Packets()
    {
        return port.vl15Packets();
    }

    /**
     * @return messages each queue pair holds (its ring rounds this up to a power of two).
     */
    public int queueDepth()
    {
        return queueDepth;
    }

    /**
     * @return queue pairs each port may create.
     */
    public int maxQueuePairs()
    {
        return maxQueuePairs;
    }

    /**
     * @return the most bytes an immediate-data message carries (copied at post time).
     */
    public int idcThreshold()
    {
        return idcThreshold;
    }

    /**
     * @return cells of the cell buffer's shared pool (or, with a whole injection configuration, all its cells).
     */
    public int sharedCells()
    {
        return sharedCells;
    }

    /**
     * @return a copy of the whole injection configuration given, or null for the default one each port derives.
     */
    public InjectionConfig injection()
    {
        return null == injection ? null : injection.copy();
    }

    /**
     * @return a copy of the SL arbitration table's SLs, or null for every SL once.
     */
    public int[] slTableSls()
    {
        return null == slTableSls ? null : slTableSls.clone();
    }

    /**
     * @return a copy of the SL arbitration table's weights, or null for one MTU each.
     */
    public int[] slTableWeights()
    {
        return null == slTableWeights ? null : slTableWeights.clone();
    }

    /**
     * @return a queue pair's tenure in bytes.
     */
    public long tenureBytes()
    {
        return tenureBytes;
    }

    /**
     * @return a queue pair's tenure in packets (0: bytes only).
     */
    public int tenurePackets()
    {
        return tenurePackets;
    }

    /**
     * @return the longest gap between two FCPs of a VL, ns.
     */
    public long fcpPeriodNs()
    {
        return port.fcpPeriodNs();
    }

    /**
     * @return how long an Armed or Active port waits without hearing from its peer (no FCP, no packet) before the
     * link goes down and re-initializes, in ns.
     */
    public long linkTimeoutNs()
    {
        return port.linkTimeoutNs();
    }

    /**
     * @return how long {@code Engine.close()} waits for every message offered to be on the wire, in ns (0: abrupt).
     */
    public long closeDrainNs()
    {
        return closeDrainNs;
    }

    /**
     * @return blocks freed by the application that send an FCP at once.
     */
    public int earlyFcpThresholdBlocks()
    {
        return port.earlyFcpThresholdBlocks();
    }

    /**
     * @return loopback (two ports) or UDP (one).
     */
    public Engine.LinkKind linkKind()
    {
        return linkKind;
    }

    /**
     * @return bytes of each direction's loopback ring.
     */
    public int loopbackCapacity()
    {
        return loopbackCapacity;
    }

    /**
     * @return the UDP address bound, or null for loopback.
     */
    public InetSocketAddress udpLocal()
    {
        return udpLocal;
    }

    /**
     * @return the UDP peer's address, or null for loopback.
     */
    public InetSocketAddress udpRemote()
    {
        return udpRemote;
    }

    /**
     * @return the key that authenticates the UDP link's datagrams, or null when they are not authenticated.
     */
    public io.vlink.nic.link.LinkKey udpKey()
    {
        return udpKey;
    }

    /**
     * @return whether the ports' links run link-level retry ({@link RetryLink}): on by default over UDP.
     */
    public boolean retry()
    {
        return retry;
    }

    /**
     * @return bytes of each link-level retry replay buffer.
     */
    public int replayBufferBytes()
    {
        return replayBufferBytes;
    }

    /**
     * @return how long link-level retry waits for acknowledgement progress before it sends everything held again, in
     * ns (doubling once while unanswered).
     */
    public long retryTimeoutNs()
    {
        return retryTimeoutNs;
    }

    /**
     * @return wraps each port's link below link-level retry (the raw wire), for fault injection; identity by default.
     */
    public UnaryOperator<Link> wireWrapper()
    {
        return wireWrapper;
    }

    /**
     * @return the factory of an {@link Engine.LinkKind#EXTERNAL} engine's link, null for the other kinds.
     */
    public Function<LinkCounters, Link> externalLink()
    {
        return externalLink;
    }

    /**
     * @return the shm link's file (absolute), or null for another link.
     */
    public Path shmFile()
    {
        return shmFile;
    }

    /**
     * @return which end of the shm link this engine is, or null for another link.
     */
    public ShmLink.Role shmRole()
    {
        return shmRole;
    }

    /**
     * @return the LID of port 0 (SLID of its packets); a loopback's port 1 has the remote LID.
     */
    public int localLid()
    {
        return localLid;
    }

    /**
     * @return the LID of port 0's peer (DLID of its packets).
     */
    public int remoteLid()
    {
        return remoteLid;
    }

    /**
     * @return the capture file, or null when the capture is off.
     */
    public Path capturePath()
    {
        return capturePath;
    }

    /**
     * @return bytes of the capture file mapped at a time.
     */
    public long captureLength()
    {
        return captureLength;
    }

    /**
     * @return the clock of FCP schedules and priority timers.
     */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * @return told of every link state a port enters, on the credit agent's thread; by default none.
     */
    public LinkStateListener linkStateListener()
    {
        return linkStateListener;
    }

    /**
     * @return told of each queue pair's messages a link error flushed, on the injection agent's thread; by default
     * none.
     */
    public FlushListener flushListener()
    {
        return flushListener;
    }

    /**
     * @return the clock of timestamps.
     */
    public EpochClock epochClock()
    {
        return epochClock;
    }

    /**
     * @return bytes of each port's receive-to-credit event ring.
     */
    public int rxEventRingLength()
    {
        return rxEventRingLength;
    }

    /**
     * @return packets the arbiter sends per port per duty cycle.
     */
    public int burst()
    {
        return port.burst();
    }

    /**
     * @return counters the counters file holds.
     */
    public int maxCounters()
    {
        return maxCounters;
    }

    /**
     * @return bytes of the distinct error log.
     */
    public int errorLogLength()
    {
        return errorLogLength;
    }

    /**
     * @return the ports' link-layer settings (the group a switch's ports share the rules of).
     */
    public PortSettings portSettings()
    {
        return port;
    }

    /**
     * @return what each port's datapath runs with (its QoS, MTU, buffers, FCP schedule, silence limit, burst).
     */
    public PortConfig portConfig()
    {
        return portConfig;
    }

    /**
     * @return the wrapper each port's link goes through.
     */
    public UnaryOperator<Link> linkWrapper()
    {
        return linkWrapper;
    }
}
