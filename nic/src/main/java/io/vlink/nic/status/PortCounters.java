package io.vlink.nic.status;

import io.vlink.core.wire.LrhFlyweight;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.util.HashMap;
import java.util.Map;

/**
 * Every counter of one port, allocated in the engine's {@link CountersFile} when the port is built. Per-VL counters
 * are indexed by VL (0..15); a VL the port lacks has none.
 * <p>
 * Each counter has one writer (the agent that owns what it counts), which updates it with release semantics
 * ({@code incrementRelease}, {@code getAndAddRelease}): no locked instruction on the hot path. A process that watches
 * a port of an engine in another process reads the same counters through {@link #attach(CountersReader, int, int)}.
 */
public final class PortCounters
{
    /** VL indexes run 0..15; VL15 is the management VL. */
    public static final int VL_SLOTS = LrhFlyweight.VL_COUNT;
    public static final int VL15 = LrhFlyweight.VL15;

    private final int port;
    private final int dataVls;

    public final AtomicCounter linkState;
    public final AtomicCounter linkTransitions;
    public final AtomicCounter fcpSent;
    public final AtomicCounter fcpReceived;
    public final AtomicCounter fcpDiscarded;
    public final AtomicCounter vl15Drops;
    public final AtomicCounter fcpMalformed;
    public final AtomicCounter linkDowned;
    public final AtomicCounter linkErrorRecovery;
    public final AtomicCounter linkSendErrors;
    public final AtomicCounter linkReceiveErrors;
    public final AtomicCounter cellOccupancy;
    public final AtomicCounter injectorPriorityChanges;
    public final AtomicCounter postBackPressure;
    public final AtomicCounter linkForeignDrops;
    public final AtomicCounter linkLengthDrops;
    public final AtomicCounter linkBackPressure;
    public final AtomicCounter linkFramesSent;
    public final AtomicCounter linkFramesReceived;
    public final AtomicCounter linkSessionDrops;
    public final AtomicCounter linkMacDrops;
    public final AtomicCounter linkReplayDrops;

    private final AtomicCounter[] txPackets = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] txBytes = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] rxPackets = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] rxBytes = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] creditStalls = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] deliveredPackets = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] rxFreeBlocks = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] txFctbs = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] txCreditLimit = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] rxAbr = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] txFlushedMessages = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] txCells = new AtomicCounter[VL_SLOTS];
    private final AtomicCounter[] discards;

    /**
     * Allocate the counters of a port.
     *
     * @param file    the engine's counters file.
     * @param port    the port number.
     * @param dataVls the port's data VLs (VL0..dataVls-1), plus VL15 always.
     */
    public PortCounters(final CountersFile file, final int port, final int dataVls)
    {
        this(file::newCounter, port, dataVls);
    }

    /**
     * Read the counters of a port of an engine in another process, live, from its counters file: views over the
     * same memory, for a process that watches the engine (the soak's parent reads its peer's port this way). The
     * owner stays the only writer; the views are read only.
     *
     * @param reader  the counters of the other engine's file ({@code CountersFileReader.counters()}).
     * @param port    the port number.
     * @param dataVls the port's data VLs.
     * @return the port's counters.
     * @throws IllegalStateException when the file lacks a counter of the port.
     */
    public static PortCounters attach(final CountersReader reader, final int port, final int dataVls)
    {
        final Map<String, Integer> ids = new HashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (CounterKey.port(keyBuffer) == port)
            {
                ids.put(typeId + "/" + CounterKey.vl(keyBuffer) + "/" + CounterKey.reason(keyBuffer), counterId);
            }
        });
        return new PortCounters((type, p, vl, reason) ->
        {
            final Integer id = ids.get(type.typeId() + "/" + vl + "/" + reason);
            if (null == id)
            {
                throw new IllegalStateException("no counter " + type.counterName() + " of port " + port +
                    (CounterKey.NONE != vl ? " vl " + vl : "") + " in the counters file");
            }
            return new AtomicCounter(reader.valuesBuffer(), id);
        }, port, dataVls);
    }

    /** Where the counters come from: allocated in this engine's file, or found in another's. */
    @FunctionalInterface
    private interface CounterSource
    {
        AtomicCounter counter(CounterType type, int port, int vl, int reason);
    }

    private PortCounters(final CounterSource file, final int port, final int dataVls)
    {
        if (dataVls < 1 || dataVls > VL15)
        {
            throw new IllegalArgumentException("data VLs must be 1..15: " + dataVls);
        }
        this.port = port;
        this.dataVls = dataVls;
        linkState = portCounter(file, CounterType.LINK_STATE);
        linkTransitions = portCounter(file, CounterType.LINK_TRANSITIONS);
        fcpSent = portCounter(file, CounterType.FCP_SENT);
        fcpReceived = portCounter(file, CounterType.FCP_RECEIVED);
        fcpDiscarded = portCounter(file, CounterType.FCP_DISCARDED);
        vl15Drops = portCounter(file, CounterType.VL15_DROPS);
        fcpMalformed = portCounter(file, CounterType.FCP_MALFORMED);
        linkDowned = portCounter(file, CounterType.LINK_DOWNED);
        linkErrorRecovery = portCounter(file, CounterType.LINK_ERROR_RECOVERY);
        linkSendErrors = portCounter(file, CounterType.LINK_SEND_ERRORS);
        linkReceiveErrors = portCounter(file, CounterType.LINK_RECEIVE_ERRORS);
        cellOccupancy = portCounter(file, CounterType.CELL_OCCUPANCY);
        injectorPriorityChanges = portCounter(file, CounterType.INJECTOR_PRIORITY_CHANGES);
        postBackPressure = portCounter(file, CounterType.POST_BACK_PRESSURE);
        linkForeignDrops = portCounter(file, CounterType.LINK_FOREIGN_DROPS);
        linkLengthDrops = portCounter(file, CounterType.LINK_LENGTH_DROPS);
        linkBackPressure = portCounter(file, CounterType.LINK_BACK_PRESSURE);
        linkFramesSent = portCounter(file, CounterType.LINK_FRAMES_SENT);
        linkFramesReceived = portCounter(file, CounterType.LINK_FRAMES_RECEIVED);
        linkSessionDrops = portCounter(file, CounterType.LINK_SESSION_DROPS);
        linkMacDrops = portCounter(file, CounterType.LINK_MAC_DROPS);
        linkReplayDrops = portCounter(file, CounterType.LINK_REPLAY_DROPS);

        for (int vl = 0; vl < VL_SLOTS; vl++)
        {
            if (vl < dataVls || VL15 == vl)
            {
                txPackets[vl] = vlCounter(file, CounterType.TX_PACKETS, vl);
                txBytes[vl] = vlCounter(file, CounterType.TX_BYTES, vl);
                rxPackets[vl] = vlCounter(file, CounterType.RX_PACKETS, vl);
                rxBytes[vl] = vlCounter(file, CounterType.RX_BYTES, vl);
                deliveredPackets[vl] = vlCounter(file, CounterType.DELIVERED_PACKETS, vl);
                txFlushedMessages[vl] = vlCounter(file, CounterType.TX_FLUSHED_MESSAGES, vl);
                txCells[vl] = vlCounter(file, CounterType.TX_CELLS, vl);
            }
            if (vl < dataVls)
            {
                // VL15 is never credited (docs/flow-control.md): no stalls, no credited buffer.
                creditStalls[vl] = vlCounter(file, CounterType.CREDIT_STALLS, vl);
                rxFreeBlocks[vl] = vlCounter(file, CounterType.RX_FREE_BLOCKS, vl);
                txFctbs[vl] = vlCounter(file, CounterType.TX_FCTBS, vl);
                txCreditLimit[vl] = vlCounter(file, CounterType.TX_CREDIT_LIMIT, vl);
                rxAbr[vl] = vlCounter(file, CounterType.RX_ABR, vl);
            }
        }

        discards = new AtomicCounter[DiscardReasons.count()];
        for (int reason = 0; reason < discards.length; reason++)
        {
            discards[reason] = file.counter(CounterType.DISCARDS, port, CounterKey.NONE, reason);
        }
    }

    private AtomicCounter portCounter(final CounterSource file, final CounterType type)
    {
        return file.counter(type, port, CounterKey.NONE, CounterKey.NONE);
    }

    private AtomicCounter vlCounter(final CounterSource file, final CounterType type, final int vl)
    {
        return file.counter(type, port, vl, CounterKey.NONE);
    }

    public int port()
    {
        return port;
    }

    public int dataVls()
    {
        return dataVls;
    }

    public AtomicCounter txPackets(final int vl)
    {
        return txPackets[vl];
    }

    /**
     * @param vl a data VL or 15.
     * @return messages discarded by link errors' transmit flushes, by the VL their SL maps to (written by the
     * injection agent only).
     */
    public AtomicCounter txFlushedMessages(final int vl)
    {
        return txFlushedMessages[vl];
    }

    /**
     * @param vl a data VL or VL15.
     * @return cells the packets injected on it took in the transmit cell buffer.
     */
    public AtomicCounter txCells(final int vl)
    {
        return txCells[vl];
    }

    public AtomicCounter txBytes(final int vl)
    {
        return txBytes[vl];
    }

    public AtomicCounter rxPackets(final int vl)
    {
        return rxPackets[vl];
    }

    public AtomicCounter rxBytes(final int vl)
    {
        return rxBytes[vl];
    }

    public AtomicCounter creditStalls(final int vl)
    {
        return creditStalls[vl];
    }

    public AtomicCounter deliveredPackets(final int vl)
    {
        return deliveredPackets[vl];
    }

    public AtomicCounter rxFreeBlocks(final int vl)
    {
        return rxFreeBlocks[vl];
    }

    /**
     * @param vl a data VL.
     * @return gauge of the transmitter's FCTBS (written by the arbiter).
     */
    public AtomicCounter txFctbs(final int vl)
    {
        return txFctbs[vl];
    }

    /**
     * @param vl a data VL.
     * @return gauge of the transmitter's credit limit CL (written by the credit agent).
     */
    public AtomicCounter txCreditLimit(final int vl)
    {
        return txCreditLimit[vl];
    }

    /**
     * @param vl a data VL.
     * @return gauge of the receiver's ABR (written by the credit agent).
     */
    public AtomicCounter rxAbr(final int vl)
    {
        return rxAbr[vl];
    }

    /**
     * @param reason a discard reason id ({@link DiscardReasons}).
     * @return its counter.
     */
    public AtomicCounter discards(final int reason)
    {
        return discards[reason];
    }
}
