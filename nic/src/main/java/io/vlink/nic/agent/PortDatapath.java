package io.vlink.nic.agent;

import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.port.CreditEventRing;
import io.vlink.core.port.FcpRequestRing;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.link.Link;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.ring.ReceiveRings;
import io.vlink.nic.ring.VlRings;
import io.vlink.nic.status.ApplicationCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.BitUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One port of an engine as its agents see it: both ends of its data VLs and VL15, wired to a {@link Link}, and the
 * hand-offs between the agents (the cell buffer and the per-VL rings, the FCP request and credit event rings, the
 * credit limits, the receive rings, the control and flush words), all in memory this object allocates and frees.
 * The application's side is {@code io.vlink.nic.Port}, which holds one.
 * <p>
 * Threads: the application posts to the port's send queues and polls its receive rings; the engine's injection,
 * arbiter, credit and receive agents own the rest, handing work to each other through the rings and
 * release/acquire-published words held here.
 */
public final class PortDatapath
{
    /** VL15, the subnet-management VL. */
    public static final int VL15 = LrhFlyweight.VL15;
    /** The command word's request to bring the link up. */
    public static final int COMMAND_UP = 1;
    /** The command word's request to take the link down. */
    public static final int COMMAND_DOWN = 2;

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
    private final ApplicationCounters applicationCounters;
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
    final ReceiveRings buffers = new ReceiveRings(rxRings);
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

    // the application's send queues (queue pairs and ready packets' queues), published copy-on-write to the agents
    private volatile SendQueue[] queues = new SendQueue[0];
    private final SendQueue smpQueue;

    /**
     * Allocate the port's memory; a failure gives back what was allocated so far and throws.
     *
     * @param id                the port number within its engine.
     * @param qos               data VLs, arbitration tables, SL2VL.
     * @param mtu               payload bytes per packet.
     * @param injection         the injection configuration the port runs.
     * @param rxEventRingLength bytes of the receive agent's event ring.
     * @param vlBufferBlocks    each data VL's receive buffer, in 64-byte blocks.
     * @param vl15Packets       the VL15 receive buffer, in packets.
     * @param queueDepth        the SMP queue's depth.
     * @param link              the link (owned from here on).
     * @param counters          the port's counters.
     * @param localLid          the LID the port's packets carry as SLID.
     * @param remoteLid         the LID the port's packets carry as DLID.
     */
    public PortDatapath(
        final int id,
        final QosConfig qos,
        final int mtu,
        final InjectionConfig injection,
        final int rxEventRingLength,
        final int vlBufferBlocks,
        final int vl15Packets,
        final int queueDepth,
        final Link link,
        final PortCounterSet counters,
        final int localLid,
        final int remoteLid)
    {
        this.id = id;
        this.qos = qos;
        this.currentQos = qos;
        this.mtu = mtu;
        this.link = link;
        this.counterSet = counters;
        this.counters = counters.view();
        this.applicationCounters = counters.application();
        this.localLid = localLid;
        this.remoteLid = remoteLid;
        this.injectionConfig = injection;
        final int dataVls = qos.dataVls();

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
            rxEventsBuffer = allocate(made, rxEventRingLength + CreditEventRing.TRAILER_LENGTH);
            rxEvents = new CreditEventRing(rxEventsBuffer);
            creditLimitsMemory = allocate(made, CreditLimits.length() + BitUtil.CACHE_LINE_LENGTH);
            final int skew = (int)(BitUtil.align(creditLimitsMemory.addressOffset(), BitUtil.CACHE_LINE_LENGTH) -
                creditLimitsMemory.addressOffset());
            creditLimits = new CreditLimits(new UnsafeBuffer(creditLimitsMemory, skew, CreditLimits.length()));

            final int maxPacket = maxPacketSize();
            for (int vl = 0; vl < dataVls; vl++)
            {
                final ReceiveRing ring = new ReceiveRing(vlBufferBlocks, maxPacket);
                made.add(ring::close);
                rxRings[vl] = ring;
            }
            final ReceiveRing vl15 = new ReceiveRing(vl15Packets * Sizes.blocks(maxPacket), maxPacket);
            made.add(vl15::close);
            rxRings[VL15] = vl15;
            smpQueue = new SendQueue(
                null, applicationCounters, 0, VL15, 0, SendQueue.KIND_SMP, queueDepth, maxPacket);
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

    /**
     * @return the port number within its engine.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return the port's QoS settings as built.
     */
    public QosConfig qos()
    {
        return qos;
    }

    /**
     * @return the arbitration settings in force (the last replacement the arbiter applied).
     */
    public QosConfig currentQos()
    {
        return currentQos;
    }

    /**
     * Application: arbitration settings for the arbiter to apply at its next packet boundary (checked by the caller).
     *
     * @param replacement the new settings.
     */
    public void replaceQos(final QosConfig replacement)
    {
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

    public int localLid()
    {
        return localLid;
    }

    public int remoteLid()
    {
        return remoteLid;
    }

    /**
     * @return what the application's posts and polls count (taken from the port's counters once, here).
     */
    public ApplicationCounters applicationCounters()
    {
        return applicationCounters;
    }

    /**
     * @return the link the port is wired to.
     */
    public Link link()
    {
        return link;
    }

    /**
     * @return the injection configuration the port runs (not a copy: never change it).
     */
    public InjectionConfig injectionConfig()
    {
        return injectionConfig;
    }

    /**
     * @param vl a data VL or 15.
     * @return its receive ring.
     */
    public ReceiveRing rxRing(final int vl)
    {
        return rxRings[vl];
    }

    /**
     * @return the receive rings with their stored count, for the application's poller.
     */
    public ReceiveRings receiveRings()
    {
        return buffers;
    }

    /**
     * Application: add a send queue (a queue pair, or an SL's ready packets), published to the injection agent.
     *
     * @param queue the new queue.
     */
    public synchronized void add(final SendQueue queue)
    {
        final SendQueue[] grown = Arrays.copyOf(queues, queues.length + 1);
        grown[grown.length - 1] = queue;
        queues = grown;
    }

    /**
     * @return the send queues in the order they were added (the injection agent adopts them in this order).
     */
    public SendQueue[] queues()
    {
        return queues;
    }

    /**
     * @return the SMP queue.
     */
    public SendQueue smpQueue()
    {
        return smpQueue;
    }

    /**
     * Application: ask for the link to come up or go down.
     *
     * @param command {@link #COMMAND_UP} or {@link #COMMAND_DOWN}.
     */
    public void command(final int command)
    {
        control.command(command);
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

    /**
     * @return the code of the link state as the credit agent last published it.
     */
    public int linkStateCode()
    {
        return control.state();
    }

    /** Engine, while it drains: every message offered is complete (in the cells) and every cell was sent and freed. */
    public boolean transmitDrained()
    {
        if (smpQueue.posted() != smpQueue.completed())
        {
            return false;
        }
        for (final SendQueue queue : queues)
        {
            if (queue.posted() != queue.completed())
            {
                return false;
            }
        }
        // over a link with retry, what is on the wire is delivered once the peer acknowledged it (a link that is not
        // Active, a peer gone, has nothing more to wait for)
        return 0 == counters.cellOccupancy().get() &&
            (0 == link.unacknowledged() || LinkState.ACTIVE != LinkState.get(linkStateCode()));
    }

    /**
     * Engine, once every agent stopped.
     *
     * @return messages offered and not wholly injected.
     */
    public long notInjected()
    {
        long notInjected = smpQueue.posted() - smpQueue.completed();
        for (final SendQueue queue : queues)
        {
            notInjected += queue.posted() - queue.completed();
        }
        return notInjected;
    }

    /**
     * Engine, once every agent stopped.
     *
     * @return messages a link error flushed, reported or not.
     */
    public long flushedMessages()
    {
        long flushed = smpQueue.flushed() + smpQueue.flushedUnreported();
        for (final SendQueue queue : queues)
        {
            flushed += queue.flushed() + queue.flushedUnreported();
        }
        return flushed;
    }

    /**
     * Engine, once every agent stopped.
     *
     * @return packets injected and not sent.
     */
    public long notSent()
    {
        long notSent = 0;
        for (int vl = 0; vl < rxRings.length; vl++)
        {
            if (null != rxRings[vl])
            {
                notSent += vlRings.size(vl);
            }
        }
        return notSent;
    }

    /**
     * Engine, once every agent stopped.
     *
     * @return packets received and not polled.
     */
    public long notDelivered()
    {
        long notDelivered = 0;
        for (final ReceiveRing ring : rxRings)
        {
            if (null != ring)
            {
                notDelivered += ring.size();
            }
        }
        return notDelivered;
    }

    /**
     * Engine, once every agent stopped: read the link to its end (nothing else will).
     *
     * @return data frames that were on the wire.
     */
    public long drainLink()
    {
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
        return onWire[0];
    }

    /** Engine, once every agent stopped and the report is taken: give the memory back. */
    public void free()
    {
        for (final SendQueue queue : queues)
        {
            queue.free();
        }
        smpQueue.free();
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
