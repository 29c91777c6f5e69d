package io.vlink.nic;

import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.port.CreditEventRing;
import io.vlink.core.port.FcpRequestRing;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.agent.FlushControl;
import io.vlink.nic.agent.LinkControl;
import io.vlink.nic.agent.RingBuffers;
import io.vlink.nic.agent.TxPacket;
import io.vlink.nic.link.Link;
import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.ring.VlRings;
import io.vlink.nic.status.ApplicationCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One port of an engine: both ends of its data VLs (a transmitter and a receiver each) and VL15, wired to a
 * {@link Link}. The application creates queue pairs on it and posts packets; it drains received packets with
 * {@link #poll}; the engine's agents do the rest.
 * <p>
 * Threads: one application thread posts (to its queue pairs) and one polls (they may be the same); the engine's
 * injection, arbiter, credit and receive agents own the rest, handing work to each other through the rings and
 * release/acquire-published words held here.
 * <p>
 * Once the engine has closed, every call that would reach the port's memory (link state, up and down, queue pairs,
 * posting, polling, counters, QoS replacement) throws {@link EngineClosedException}; the port's fixed settings and
 * {@link #closeReport()} stay readable.
 */
public final class Port
{
    static final int VL15 = LrhFlyweight.VL15;
    static final int COMMAND_UP = 1;
    static final int COMMAND_DOWN = 2;
    /** The highest queue pair number: a QPN is 24 bits in the BTH. */
    public static final int MAX_QPN = BthFlyweight.MAX_QPN;

    private final Engine engine;
    private final int id;
    private final QosConfig qos;
    private volatile QosConfig pendingQos;
    private volatile QosConfig currentQos;
    private final int mtu;
    private final int localLid;
    private final int remoteLid;
    private final PortCounterSet counterSet;
    private final PortCounters counters;
    // what the application's posts and polls count
    final ApplicationCounters applicationCounters;
    private final Link link;

    // hand-offs between agents
    private final InjectionConfig injectionConfig;
    final CellBuffer cells;
    final TxPacket[] packets;
    final VlRings<TxPacket> vlRings;
    // credit agent -> arbiter: the FCPs due (core's hand-off)
    final FcpRequestRing fcpRequests;
    // receive agent -> credit agent: FCP words and stored blocks, in wire order (core's hand-off)
    final CreditEventRing rxEvents;
    final ReceiveRing[] rxRings = new ReceiveRing[LrhFlyweight.VL_COUNT];
    // the receive rings as the datapath's halves see them: the receive agent stores, the credit agent reads releases
    final RingBuffers buffers = new RingBuffers(rxRings);
    // application -> credit agent: the command word; credit agent -> everyone: the link-state word
    private final LinkControl control = new LinkControl();
    // credit agent -> injection agent -> arbiter -> injection agent: a link error's transmit flush
    final FlushControl flush;
    // credit agent -> arbiter: each VL's CL and the link epoch (core's hand-off, proven by the stress tests)
    private final UnsafeBuffer creditLimitsMemory;
    private final UnsafeBuffer cellMemory;
    final CreditLimits creditLimits;
    private final UnsafeBuffer fcpRequestsBuffer;
    private final UnsafeBuffer rxEventsBuffer;

    // the application's queue pairs, published copy-on-write to the injection agent
    private volatile QueuePair[] queuePairs = new QueuePair[0];
    private final QueuePair[] rawQueuePairs = new QueuePair[LrhFlyweight.SL_COUNT];
    private final QueuePair smpQueuePair;
    private final int maxQueuePairs;
    private final int queueDepth;
    private int dataQueuePairs;
    // set once by the engine's close, after every agent stopped: every call of the application is refused from then
    private boolean closed;

    // poll side (the application's polling thread), padded away from the fields the agents read
    private final PortPoller poller;
    private volatile CloseReport closeReport;

    Port(
        final Engine engine,
        final int id,
        final EngineConfiguration config,
        final Link link,
        final PortCounterSet counters,
        final int localLid,
        final int remoteLid)
    {
        this.engine = engine;
        this.id = id;
        this.qos = config.qos();
        this.currentQos = qos;
        this.mtu = config.mtu();
        this.link = link;
        this.counterSet = counters;
        this.counters = counters.view();
        this.applicationCounters = counters.application();
        this.localLid = localLid;
        this.remoteLid = remoteLid;
        this.maxQueuePairs = config.maxQueuePairs();
        this.queueDepth = config.queueDepth();
        final int dataVls = qos.dataVls();

        injectionConfig = injectionConfig(config);
        // what is made so far, given back if a later allocation fails (a failed build leaves no off-heap memory)
        final List<AutoCloseable> made = new ArrayList<>();
        made.add(control::close);
        try
        {
            flush = new FlushControl();
            made.add(flush::close);
            // the cells' memory is the engine's, so that the exact leak check after close covers it too
            cellMemory = allocate(made, CellBuffer.dataLength(injectionConfig) + BitUtil.CACHE_LINE_LENGTH);
            final int cellSkew = (int)(BitUtil.align(cellMemory.addressOffset(), BitUtil.CACHE_LINE_LENGTH) -
                cellMemory.addressOffset());
            final CellBuffer cells = new CellBuffer(
                injectionConfig, new UnsafeBuffer(cellMemory, cellSkew, CellBuffer.dataLength(injectionConfig)));
            this.cells = cells;
            packets = new TxPacket[cells.totalCells()];
            for (int i = 0; i < packets.length; i++)
            {
                packets[i] = new TxPacket(i);
            }
            // each packet takes at least one cell: a ring as long as the buffer can never be full
            vlRings = new VlRings<>(dataVls, cells.totalCells());

            fcpRequestsBuffer = allocate(made, 64 * 1024 + FcpRequestRing.TRAILER_LENGTH);
            fcpRequests = new FcpRequestRing(fcpRequestsBuffer);
            rxEventsBuffer = allocate(made, config.rxEventRingLength() + CreditEventRing.TRAILER_LENGTH);
            rxEvents = new CreditEventRing(rxEventsBuffer);
            creditLimitsMemory = allocate(made, CreditLimits.length() + BitUtil.CACHE_LINE_LENGTH);
            final int skew = (int)(BitUtil.align(creditLimitsMemory.addressOffset(), BitUtil.CACHE_LINE_LENGTH) -
                creditLimitsMemory.addressOffset());
            creditLimits = new CreditLimits(new UnsafeBuffer(creditLimitsMemory, skew, CreditLimits.length()));

            final int maxPacket = maxPacketSize();
            for (int vl = 0; vl < dataVls; vl++)
            {
                final ReceiveRing ring = new ReceiveRing(config.vlBufferBlocks(), maxPacket);
                made.add(ring::close);
                rxRings[vl] = ring;
            }
            final ReceiveRing vl15 = new ReceiveRing(config.vl15Packets() * Sizes.blocks(maxPacket), maxPacket);
            made.add(vl15::close);
            rxRings[VL15] = vl15;
            smpQueuePair = new QueuePair(this, 0, VL15, 0, QueuePair.KIND_SMP, queueDepth, maxPacket);
            // last, so that what follows it in memory is its own header flyweight and padding
            poller = new PortPoller();
        }
        catch (final RuntimeException | Error ex)
        {
            for (int i = made.size() - 1; i >= 0; i--)
            {
                CloseHelper.quietClose(made.get(i));
            }
            throw ex;
        }
    }

    private static UnsafeBuffer allocate(final List<AutoCloseable> made, final int length)
    {
        final UnsafeBuffer buffer = OffHeap.allocate(length);
        made.add(() -> OffHeap.free(buffer));
        return buffer;
    }

    private static InjectionConfig injectionConfig(final EngineConfiguration config)
    {
        final InjectionConfig injection = config.injection();
        return null != injection ? injection :
            InjectionConfig.forPort(config.qos(), config.mtu(), config.sharedCells(), config.idcThreshold());
    }

    /**
     * @return the port number within its engine.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return the engine.
     */
    public Engine engine()
    {
        return engine;
    }

    /**
     * @return the port's QoS settings (data VLs, arbitration tables, SL2VL).
     */
    public QosConfig qos()
    {
        return qos;
    }

    /**
     * @return the arbitration settings in force (the last {@link #replaceQos} the arbiter has applied).
     */
    public QosConfig currentQos()
    {
        return currentQos;
    }

    /**
     * Replace the VL arbitration tables and high limit while traffic flows: the arbiter applies them at its next
     * packet boundary, from the start state (docs/arbitration.md); no packet is cut or lost. The SL2VL table and
     * the number of data VLs are fixed when the engine is built.
     *
     * @param replacement the new settings.
     * @throws IllegalArgumentException, and the settings in force stay, when the replacement changes the data
     *                                  VLs or the SL2VL table.
     */
    public void replaceQos(final QosConfig replacement)
    {
        checkOpen();
        if (replacement.dataVls() != qos.dataVls())
        {
            throw new IllegalArgumentException("the port has " + qos.dataVls() + " data VLs; the replacement has " +
                replacement.dataVls() + ": the data VLs are fixed when the engine is built");
        }
        for (int sl = 0; sl < LrhFlyweight.SL_COUNT; sl++)
        {
            if (replacement.sl2vl(sl) != qos.sl2vl(sl))
            {
                throw new IllegalArgumentException("the replacement maps SL " + sl + " to VL " +
                    replacement.sl2vl(sl) + ", not " + qos.sl2vl(sl) + ": SL2VL is fixed when the engine is built");
            }
        }
        pendingQos = replacement;
    }

    /** Arbiter: a replacement to apply at this packet boundary, or null. */
    QosConfig takeQosReplacement()
    {
        final QosConfig replacement = pendingQos;
        if (null != replacement)
        {
            pendingQos = null;
            currentQos = replacement;
        }
        return replacement;
    }

    /**
     * @return the port's data VLs.
     */
    public int dataVls()
    {
        return qos.dataVls();
    }

    /**
     * @return the MTU (payload bytes per packet).
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return the largest packet size S the port sends or accepts: MTU plus headers (docs/wire.md).
     */
    public int maxPacketSize()
    {
        return mtu + PacketChecker.HEADERS_ALLOWANCE;
    }

    /**
     * @return the LID the port's packets carry as SLID.
     */
    public int localLid()
    {
        return localLid;
    }

    /**
     * @return the LID the port's packets carry as DLID.
     */
    public int remoteLid()
    {
        return remoteLid;
    }

    /**
     * @return the port's counters, readable from any thread (and from {@code vlink stat}).
     */
    public PortCounters counters()
    {
        checkOpen();
        return counters;
    }

    /**
     * @return the link the port is wired to.
     */
    public Link link()
    {
        checkOpen();
        return link;
    }

    /**
     * @return the link state as the credit agent last published it.
     */
    public LinkState linkState()
    {
        checkOpen();
        return LinkState.get(control.state());
    }

    /**
     * Ask for the link to come up (Down -> Initialize, then Armed and Active as FCPs are exchanged). Returns at
     * once; watch {@link #linkState()}.
     */
    public void up()
    {
        checkOpen();
        control.command(COMMAND_UP);
    }

    /**
     * Ask for the link to go down. Packets on the wire are lost; queued packets stay queued and go out once the
     * link is up again: a down on request is not a link error, so nothing is flushed here (the peer, which sees
     * this port initialize again, re-trains and flushes its own transmit path).
     */
    public void down()
    {
        checkOpen();
        control.command(COMMAND_DOWN);
    }

    /**
     * Create a queue pair.
     *
     * @param qpn       its number, 0..{@value #MAX_QPN} (24 bits), unique among the port's queue pairs.
     * @param sl        its service level, 0..15.
     * @param remoteQpn the destination queue pair its packets name, 0..{@value #MAX_QPN}.
     * @return the queue pair.
     * @throws IllegalArgumentException when a number is out of range or the QPN is taken.
     * @throws IllegalStateException    when the port has its configured most queue pairs already.
     */
    public synchronized QueuePair createQueuePair(final int qpn, final int sl, final int remoteQpn)
    {
        checkOpen();
        checkQpn("QPN", qpn);
        checkQpn("remote QPN", remoteQpn);
        if (sl < 0 || sl >= LrhFlyweight.SL_COUNT)
        {
            throw new IllegalArgumentException("SL " + sl + " is out of range: use 0.." + (LrhFlyweight.SL_COUNT - 1));
        }
        for (final QueuePair existing : queuePairs)
        {
            if (QueuePair.KIND_DATA == existing.kind() && existing.qpn() == qpn)
            {
                throw new IllegalArgumentException("QPN " + qpn + " is already a queue pair of port " + id +
                    ": give each queue pair of a port its own QPN");
            }
        }
        if (dataQueuePairs >= maxQueuePairs)
        {
            throw new IllegalStateException("port " + id + " has its " + maxQueuePairs + " queue pairs already: " +
                "raise Engine.builder().maxQueuePairs(n) (at most " + EngineConfiguration.MAX_MAX_QUEUE_PAIRS +
                ") or property " + EngineConfiguration.MAX_QUEUE_PAIRS_PROP_NAME);
        }
        final QueuePair qp = new QueuePair(
            this, qpn, sl, remoteQpn, QueuePair.KIND_DATA, queueDepth, injectionConfig.idcThreshold());
        final QueuePair[] grown = Arrays.copyOf(queuePairs, queuePairs.length + 1);
        grown[grown.length - 1] = qp;
        queuePairs = grown;
        dataQueuePairs++;
        return qp;
    }

    private static void checkQpn(final String what, final int qpn)
    {
        if (qpn < 0 || qpn > MAX_QPN)
        {
            throw new IllegalArgumentException(what + " " + qpn + " is out of range: use 0.." + MAX_QPN +
                " (0xFFFFFF, 24 bits in the BTH)");
        }
    }

    /**
     * Post a ready packet on an SL: its LRH and transport headers and payload (a multiple of 4 bytes, no ICRC or
     * VCRC: the engine adds them, and sets the LRH's VL from the SL2VL table, its SL and PktLen).
     *
     * @param sl     the service level.
     * @param src    the packet's bytes from its first LRH byte.
     * @param offset first byte.
     * @param length bytes: a multiple of 4, at most the MTU.
     * @return a sequence number, or {@link QueuePair#BACK_PRESSURED}.
     */
    public long postPacket(final int sl, final DirectBuffer src, final int offset, final int length)
    {
        checkOpen();
        if (sl < 0 || sl >= LrhFlyweight.SL_COUNT || (length & 3) != 0 || length < LrhFlyweight.LENGTH || length > mtu)
        {
            throw new IllegalArgumentException("a ready packet on SL 0..15 of 8 to " + mtu +
                " bytes, a multiple of 4: SL " + sl + ", " + length + " bytes");
        }
        QueuePair raw = rawQueuePairs[sl];
        if (null == raw)
        {
            raw = createRaw(sl);
        }
        return raw.offer(src, offset, length);
    }

    /**
     * The flush-error count of the ready packets of an SL: how many of the packets posted on it
     * ({@link #postPacket}) link errors discarded (not sent, or only partly), each packet a message of the SL's ready
     * queue; monotonic, readable from any thread. The {@link FlushListener} is told of each flush's share.
     *
     * @param sl the SL.
     * @return the SL's flushed ready packets (0 before any was posted on it).
     */
    public long flushedReadyPackets(final int sl)
    {
        checkOpen();
        if (sl < 0 || sl >= LrhFlyweight.SL_COUNT)
        {
            throw new IllegalArgumentException("SL 0..15: " + sl);
        }
        final QueuePair raw = rawQueuePairs[sl];
        return null == raw ? 0 : raw.flushed();
    }

    private synchronized QueuePair createRaw(final int sl)
    {
        final QueuePair raw = new QueuePair(
            this, 0, sl, 0, QueuePair.KIND_RAW, queueDepth, mtu);
        rawQueuePairs[sl] = raw;
        final QueuePair[] grown = Arrays.copyOf(queuePairs, queuePairs.length + 1);
        grown[grown.length - 1] = raw;
        queuePairs = grown;
        return raw;
    }

    /**
     * Post a subnet-management packet on VL15: LRH onwards, no ICRC or VCRC (the engine adds them). VL15 is never
     * credited; the peer drops it (and counts) when its VL15 buffer is full.
     *
     * @param src    the packet's bytes from its first LRH byte.
     * @param offset first byte.
     * @param length bytes: a multiple of 4, at most the MTU.
     * @return a sequence number, or {@link QueuePair#BACK_PRESSURED}.
     */
    public long postSmp(final DirectBuffer src, final int offset, final int length)
    {
        checkOpen();
        if ((length & 3) != 0 || length < LrhFlyweight.LENGTH || length > mtu)
        {
            throw new IllegalArgumentException("an SMP of 8 to " + mtu + " bytes, a multiple of 4: " + length);
        }
        return smpQueuePair.offer(src, offset, length);
    }

    /**
     * Deliver up to {@code limit} received packets to the handler, VL15 first, then the data VLs in turn: each as a
     * {@link PacketHeader} over the packet, for its payload (headers, pad and ICRC taken off), VL, destination QP,
     * opcode, PSN and the raw packet, all read in place, nothing allocated. Each packet's buffer
     * space is released as the handler returns, which returns credit to the peer.
     *
     * @param handler receives each packet.
     * @param limit   the most packets.
     * @return packets delivered.
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        checkOpen();
        return poller.poll(rxRings, qos.dataVls(), applicationCounters, handler, limit);
    }

    /**
     * @param vl a data VL or 15.
     * @return packets waiting to be polled on it.
     */
    public int pending(final int vl)
    {
        checkOpen();
        return rxRings[vl].size();
    }

    // ---------------------------------------------------------------- agents' side

    InjectionConfig injectionConfig()
    {
        return injectionConfig;
    }

    /**
     * @return a copy of the injection configuration this port runs (docs/injection.md): the engine's whole one, or
     * {@link InjectionConfig#forPort} of the engine's settings.
     */
    public InjectionConfig injection()
    {
        return injectionConfig.copy();
    }

    QueuePair[] queuePairs()
    {
        return queuePairs;
    }

    QueuePair smpQueuePair()
    {
        return smpQueuePair;
    }

    int takeCommand()
    {
        return control.takeCommand();
    }

    /**
     * @return the port's counters, for the agents to take each its own part once.
     */
    PortCounterSet counterSet()
    {
        return counterSet;
    }

    void publishLinkState(final LinkState state)
    {
        control.publishState(state.code());
    }

    int linkStateCode()
    {
        return control.state();
    }

    /**
     * @return what the port still held when its engine closed, or null while it runs.
     */
    public CloseReport closeReport()
    {
        return closeReport;
    }

    /** Engine, while it drains: every message offered is complete (in the cells) and every cell was sent and freed. */
    boolean transmitDrained()
    {
        if (smpQueuePair.posted() != smpQueuePair.completed())
        {
            return false;
        }
        for (final QueuePair qp : queuePairs)
        {
            if (qp.posted() != qp.completed())
            {
                return false;
            }
        }
        // over a link with retry, what is on the wire is delivered once the peer acknowledged it (a link that is not
        // Active, a peer gone, has nothing more to wait for)
        return 0 == counters.cellOccupancy().get() && (0 == link.unacknowledged() || LinkState.ACTIVE != linkState());
    }

    /** Engine, once every agent stopped: count what is left (the link is read to its end: nothing else will). */
    void report()
    {
        long notInjected = smpQueuePair.posted() - smpQueuePair.completed();
        long flushed = smpQueuePair.flushed() + smpQueuePair.flushedUnreported();
        for (final QueuePair qp : queuePairs)
        {
            notInjected += qp.posted() - qp.completed();
            flushed += qp.flushed() + qp.flushedUnreported();
        }
        long notSent = 0;
        long notDelivered = 0;
        for (int vl = 0; vl < rxRings.length; vl++)
        {
            if (null != rxRings[vl])
            {
                notSent += vlRings.size(vl);
                notDelivered += rxRings[vl].size();
            }
        }
        final long[] onWire = new long[1];
        while (link.poll((frameType, buffer, offset, length) ->
        {
            if (Link.DATA_FRAME == frameType)
            {
                onWire[0]++;
            }
        }, Integer.MAX_VALUE) > 0)
        {
            Thread.onSpinWait();
        }
        closeReport = new CloseReport(notInjected, notSent, onWire[0], notDelivered, flushed);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new EngineClosedException();
        }
    }

    /** Engine, once every agent stopped and the report is taken: refuse every call, then give the memory back. */
    void free()
    {
        closed = true;
        for (final QueuePair qp : queuePairs)
        {
            qp.free();
        }
        smpQueuePair.free();
        for (final ReceiveRing ring : rxRings)
        {
            if (null != ring)
            {
                ring.close();
            }
        }
        OffHeap.free(fcpRequestsBuffer);
        OffHeap.free(rxEventsBuffer);
        control.close();
        flush.close();
        OffHeap.free(creditLimitsMemory);
        cells.close();
        OffHeap.free(cellMemory);
        link.close();
    }
}
