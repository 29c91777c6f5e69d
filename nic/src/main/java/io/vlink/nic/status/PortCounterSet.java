package io.vlink.nic.status;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.port.CreditCounters;
import io.vlink.core.port.ReceiveCounters;
import io.vlink.core.port.TransmitCounters;
import io.vlink.core.wire.LrhFlyweight;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

import java.util.HashMap;
import java.util.Map;

/**
 * Every counter of one port, allocated in its engine's or switch's {@link CountersFile} when the port is built, and
 * handed out by owner: each part that writes counters gets its own, once, and nothing else
 * ({@link #receive()}, {@link #credit()}, {@link #transmit()} for the datapath's halves, {@link #link()} for the
 * link, {@link #inject()} for the injection agent, {@link #application()} for what the application's posting and
 * polling count, {@link #forward()} for a switch's forwarding); readers get {@link #view()}. Per-VL counters are
 * indexed by VL (0..15); a VL the port lacks has none.
 * <p>
 * Each counter has one writer, which updates it with release semantics ({@code incrementRelease},
 * {@code getAndAddRelease}): no locked instruction on the hot path. The one exception is {@code post_back_pressure},
 * bumped with an atomic add by whichever application thread's post it refuses.
 */
public final class PortCounterSet
{
    /** VL indexes run 0..15; VL15 is the management VL. */
    public static final int VL_SLOTS = LrhFlyweight.VL_COUNT;
    static final int VL15 = LrhFlyweight.VL15;

    final int port;
    final int dataVls;

    final AtomicCounter linkState;
    final AtomicCounter linkTransitions;
    final AtomicCounter fcpSent;
    final AtomicCounter fcpReceived;
    final AtomicCounter fcpDiscarded;
    final AtomicCounter vl15Drops;
    final AtomicCounter fcpMalformed;
    final AtomicCounter linkDowned;
    final AtomicCounter linkErrorRecovery;
    final AtomicCounter txLinkFull;
    final AtomicCounter linkSendErrors;
    final AtomicCounter linkReceiveErrors;
    final AtomicCounter linkHelloSendErrors;
    final AtomicCounter cellOccupancy;
    final AtomicCounter injectorPriorityChanges;
    final AtomicCounter postBackPressure;
    final AtomicCounter linkForeignDrops;
    final AtomicCounter linkLengthDrops;
    final AtomicCounter linkBackPressure;
    final AtomicCounter linkFramesSent;
    final AtomicCounter linkFramesReceived;
    final AtomicCounter linkSessionDrops;
    final AtomicCounter linkMacDrops;
    final AtomicCounter linkReplayDrops;
    final AtomicCounter linkRetransmits;
    final AtomicCounter linkReplayRequests;
    final AtomicCounter linkRetryTimeouts;
    final AtomicCounter linkDuplicates;
    final AtomicCounter linkOutOfOrder;
    final AtomicCounter linkReplayFull;
    final AtomicCounter linkAcksSent;
    final AtomicCounter linkRetryFailures;

    final AtomicCounter[] txPackets = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] txBytes = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] rxPackets = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] rxBytes = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] creditStalls = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] deliveredPackets = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] rxFreeBlocks = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] txFctbs = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] txCreditLimit = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] rxAbr = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] txFlushedMessages = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] txCells = new AtomicCounter[VL_SLOTS];
    final AtomicCounter[] discards;

    private final PortCounters view;
    private int handedOut;

    /**
     * Allocate the counters of a port.
     *
     * @param file    the engine's or switch's counters file.
     * @param port    the port number.
     * @param dataVls the port's data VLs (VL0..dataVls-1), plus VL15 always.
     */
    public PortCounterSet(final CountersFile file, final int port, final int dataVls)
    {
        this(file::newCounter, port, dataVls);
    }

    /** Where the counters come from: allocated in this process's file, or found in another's. */
    @FunctionalInterface
    interface CounterSource
    {
        AtomicCounter counter(CounterType type, int port, int vl, int reason);
    }

    /**
     * The counters of a port of an engine in another process, found in its counters file: views over the same
     * memory, read only.
     */
    static PortCounterSet attach(final CountersReader reader, final int port, final int dataVls)
    {
        final Map<String, Integer> ids = new HashMap<>();
        reader.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (CounterKey.port(keyBuffer) == port)
            {
                ids.put(typeId + "/" + CounterKey.vl(keyBuffer) + "/" + CounterKey.reason(keyBuffer), counterId);
            }
        });
        return new PortCounterSet((type, p, vl, reason) ->
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

    private PortCounterSet(final CounterSource file, final int port, final int dataVls)
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
        txLinkFull = portCounter(file, CounterType.TX_LINK_FULL);
        linkSendErrors = portCounter(file, CounterType.LINK_SEND_ERRORS);
        linkReceiveErrors = portCounter(file, CounterType.LINK_RECEIVE_ERRORS);
        linkHelloSendErrors = portCounter(file, CounterType.LINK_HELLO_SEND_ERRORS);
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
        linkRetransmits = portCounter(file, CounterType.LINK_RETRANSMITS);
        linkReplayRequests = portCounter(file, CounterType.LINK_REPLAY_REQUESTS);
        linkRetryTimeouts = portCounter(file, CounterType.LINK_RETRY_TIMEOUTS);
        linkDuplicates = portCounter(file, CounterType.LINK_DUPLICATES);
        linkOutOfOrder = portCounter(file, CounterType.LINK_OUT_OF_ORDER);
        linkReplayFull = portCounter(file, CounterType.LINK_REPLAY_FULL);
        linkAcksSent = portCounter(file, CounterType.LINK_ACKS_SENT);
        linkRetryFailures = portCounter(file, CounterType.LINK_RETRY_FAILURES);

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
        view = new PortCounters(this);
    }

    private AtomicCounter portCounter(final CounterSource file, final CounterType type)
    {
        return file.counter(type, port, CounterKey.NONE, CounterKey.NONE);
    }

    private AtomicCounter vlCounter(final CounterSource file, final CounterType type, final int vl)
    {
        return file.counter(type, port, vl, CounterKey.NONE);
    }

    private void handOut(final int part, final String name)
    {
        if (0 != (handedOut & part))
        {
            throw new IllegalStateException("port " + port + ": the " + name +
                " counters were handed out already (each has one writer)");
        }
        handedOut |= part;
    }

    /**
     * @return the port number.
     */
    public int port()
    {
        return port;
    }

    /**
     * @return the port's data VLs.
     */
    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @return every counter, read only: what the API, {@code vlink stat}, tools and tests see.
     */
    public PortCounters view()
    {
        return view;
    }

    /**
     * @return the receive half's counters (once).
     */
    public ReceiveCounters receive()
    {
        handOut(1, "receive half's");
        return new ReceiveCounters(discards, fcpMalformed, vl15Drops, rxPackets, rxBytes);
    }

    /**
     * @return the credit half's counters (once).
     */
    public CreditCounters credit()
    {
        handOut(2, "credit half's");
        return new CreditCounters(discards, linkState, linkTransitions, fcpReceived, fcpDiscarded, linkDowned,
            linkErrorRecovery, rxFreeBlocks, rxAbr, txCreditLimit);
    }

    /**
     * @return the transmit half's counters (once).
     */
    public TransmitCounters transmit()
    {
        handOut(4, "transmit half's");
        return new TransmitCounters(fcpSent, txLinkFull, creditStalls, txFctbs, txPackets, txBytes);
    }

    /**
     * @return the link's counters (once).
     */
    public LinkCounters link()
    {
        handOut(8, "link's");
        return new LinkCounters(this);
    }

    /**
     * @return the injection agent's counters (once).
     */
    public InjectCounters inject()
    {
        handOut(16, "injection agent's");
        return new InjectCounters(cellOccupancy, injectorPriorityChanges, txFlushedMessages, txCells,
            discards[DiscardReason.SL2VL_UNMAPPED.id()]);
    }

    /**
     * @return what the application's posts and polls count (once).
     */
    public ApplicationCounters application()
    {
        handOut(32, "application's");
        return new ApplicationCounters(deliveredPackets, postBackPressure);
    }

    /**
     * @return a switch port's forwarding counters (once).
     */
    public ForwardCounters forward()
    {
        handOut(64, "forwarding");
        return new ForwardCounters(discards);
    }

}
