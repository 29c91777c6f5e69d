package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.nic.agent.MemoryRegions;
import io.vlink.nic.agent.PortDatapath;
import io.vlink.nic.agent.SendQueue;
import io.vlink.nic.link.Link;
import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.status.ApplicationCounters;
import io.vlink.nic.status.PortCounters;
import org.agrona.DirectBuffer;

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
    /** The highest queue pair number: a QPN is 24 bits in the BTH. */
    public static final int MAX_QPN = BthFlyweight.MAX_QPN;

    private final int id;
    private final QosConfig qos;
    private final PortCounters counters;
    // what the application's posts and polls count
    private final ApplicationCounters applicationCounters;
    private final Link link;
    // what the engine's agents run: the port's memory and the hand-offs between them
    private final PortDatapath datapath;
    private final MemoryRegions regions;

    // the SLs' ready-packet queues, made at an SL's first packet
    private final SendQueue[] rawQueues = new SendQueue[LrhFlyweight.SL_COUNT];
    private final int maxQueuePairs;
    private final int queueDepth;
    private int dataQueuePairs;
    // set once by the engine's close, after every agent stopped: every call of the application is refused from then
    private boolean closed;

    // poll side (the application's polling thread), padded away from the fields the agents read
    private final PortPoller poller;
    private volatile CloseReport closeReport;

    Port(
        final PortDatapath datapath,
        final MemoryRegions regions,
        final PortCounters counters,
        final ApplicationCounters applicationCounters,
        final int maxQueuePairs,
        final int queueDepth)
    {
        this.datapath = datapath;
        this.regions = regions;
        this.id = datapath.id();
        this.qos = datapath.qos();
        this.link = datapath.link();
        this.counters = counters;
        this.applicationCounters = applicationCounters;
        this.maxQueuePairs = maxQueuePairs;
        this.queueDepth = queueDepth;
        // last, so that what follows it in memory is its own header flyweight and padding
        poller = new PortPoller();
    }

    /**
     * @return the port number within its engine.
     */
    public int id()
    {
        return id;
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
        return datapath.currentQos();
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
        datapath.replaceQos(replacement);
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
        return datapath.mtu();
    }

    /**
     * @return the largest packet size S the port sends or accepts: MTU plus headers (docs/wire.md).
     */
    public int maxPacketSize()
    {
        return datapath.maxPacketSize();
    }

    /**
     * @return the LID the port's packets carry as SLID.
     */
    public int localLid()
    {
        return datapath.localLid();
    }

    /**
     * @return the LID the port's packets carry as DLID.
     */
    public int remoteLid()
    {
        return datapath.remoteLid();
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
        return LinkState.get(datapath.linkStateCode());
    }

    /**
     * Ask for the link to come up (Down -> Initialize, then Armed and Active as FCPs are exchanged). Returns at
     * once; watch {@link #linkState()}.
     */
    public void up()
    {
        checkOpen();
        datapath.command(PortDatapath.COMMAND_UP);
    }

    /**
     * Ask for the link to go down. Packets on the wire are lost; queued packets stay queued and go out once the
     * link is up again: a down on request is not a link error, so nothing is flushed here (the peer, which sees
     * this port initialize again, re-trains and flushes its own transmit path).
     */
    public void down()
    {
        checkOpen();
        datapath.command(PortDatapath.COMMAND_DOWN);
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
        for (final SendQueue existing : datapath.queues())
        {
            if (SendQueue.KIND_DATA == existing.kind() && existing.qpn() == qpn)
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
        final QueuePair qp = new QueuePair(this, regions, applicationCounters, qpn, sl, remoteQpn, queueDepth,
            datapath.injectionConfig().idcThreshold());
        datapath.add(qp.queue());
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
        if (sl < 0 || sl >= LrhFlyweight.SL_COUNT || (length & 3) != 0 || length < LrhFlyweight.LENGTH ||
            length > mtu())
        {
            throw new IllegalArgumentException("a ready packet on SL 0..15 of 8 to " + mtu() +
                " bytes, a multiple of 4: SL " + sl + ", " + length + " bytes");
        }
        SendQueue raw = rawQueues[sl];
        if (null == raw)
        {
            raw = createRaw(sl);
        }
        return raw.offerInline(src, offset, length);
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
        final SendQueue raw = rawQueues[sl];
        return null == raw ? 0 : raw.flushed();
    }

    private synchronized SendQueue createRaw(final int sl)
    {
        final SendQueue raw = new SendQueue(null, applicationCounters, 0, sl, 0, SendQueue.KIND_RAW, queueDepth, mtu());
        rawQueues[sl] = raw;
        datapath.add(raw);
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
        if ((length & 3) != 0 || length < LrhFlyweight.LENGTH || length > mtu())
        {
            throw new IllegalArgumentException("an SMP of 8 to " + mtu() + " bytes, a multiple of 4: " + length);
        }
        return datapath.smpQueue().offerInline(src, offset, length);
    }

    /**
     * Deliver up to {@code limit} received packets to the handler, VL15 first, then the data VLs in turn: each as a
     * {@link PacketHeader} over the packet, for its payload (headers, pad and ICRC taken off), VL, destination QP,
     * opcode, PSN and the raw packet, all read in place, nothing allocated. Each packet's buffer
     * space is released as the handler returns, which returns credit to the peer. The handler must not poll this port
     * again: such a call throws {@link IllegalStateException} (the packet in hand is taken as the handler returns).
     *
     * @param handler receives each packet.
     * @param limit   the most packets.
     * @return packets delivered.
     */
    public int poll(final PacketHandler handler, final int limit)
    {
        checkOpen();
        return poller.poll(datapath.receiveRings(), qos.dataVls(), applicationCounters, handler, limit);
    }

    /**
     * @param vl a data VL or 15.
     * @return packets waiting to be polled on it.
     */
    public int pending(final int vl)
    {
        checkOpen();
        return datapath.rxRing(vl).size();
    }

    /**
     * @return a copy of the injection configuration this port runs (docs/injection.md): the engine's whole one, or
     * {@link InjectionConfig#forPort} of the engine's settings.
     */
    public InjectionConfig injection()
    {
        return datapath.injectionConfig().copy();
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
        return datapath.transmitDrained();
    }

    /** Engine, once every agent stopped: count what is left (the link is read to its end: nothing else will). */
    void report()
    {
        closeReport = new CloseReport(datapath.notInjected(), datapath.notSent(), datapath.drainLink(),
            datapath.notDelivered(), datapath.flushedMessages());
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
        datapath.free();
    }
}
