package io.vlink.nic.status;

import io.vlink.core.wire.LrhFlyweight;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;

/**
 * Every counter of one port, read only: what the API ({@code Port.counters()}), {@code vlink stat}, the tools and
 * the tests see. Each counter's one writer was handed it by the engine or switch that owns the port
 * ({@link PortCounterSet}); nothing here can change a value. Per-VL counters are indexed by VL (0..15); a VL the port
 * lacks has none (null). A process that watches a port of an engine in another process reads the same counters
 * through {@link #attach(CountersReader, int, int)}.
 */
public final class PortCounters
{
    /** VL indexes run 0..15; VL15 is the management VL. */
    public static final int VL_SLOTS = LrhFlyweight.VL_COUNT;
    public static final int VL15 = LrhFlyweight.VL15;

    private final int port;
    private final int dataVls;
    private final ReadableCounter linkState;
    private final ReadableCounter linkTransitions;
    private final ReadableCounter fcpSent;
    private final ReadableCounter fcpReceived;
    private final ReadableCounter fcpDiscarded;
    private final ReadableCounter vl15Drops;
    private final ReadableCounter fcpMalformed;
    private final ReadableCounter linkDowned;
    private final ReadableCounter linkErrorRecovery;
    private final ReadableCounter txLinkFull;
    private final ReadableCounter linkSendErrors;
    private final ReadableCounter linkReceiveErrors;
    private final ReadableCounter linkHelloSendErrors;
    private final ReadableCounter cellOccupancy;
    private final ReadableCounter injectorPriorityChanges;
    private final ReadableCounter postBackPressure;
    private final ReadableCounter linkForeignDrops;
    private final ReadableCounter linkLengthDrops;
    private final ReadableCounter linkBackPressure;
    private final ReadableCounter linkFramesSent;
    private final ReadableCounter linkFramesReceived;
    private final ReadableCounter linkSessionDrops;
    private final ReadableCounter linkMacDrops;
    private final ReadableCounter linkReplayDrops;
    private final ReadableCounter[] txPackets = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] txBytes = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] rxPackets = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] rxBytes = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] creditStalls = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] deliveredPackets = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] rxFreeBlocks = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] txFctbs = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] txCreditLimit = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] rxAbr = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] txFlushedMessages = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] txCells = new ReadableCounter[VL_SLOTS];
    private final ReadableCounter[] discards;

    PortCounters(final PortCounterSet set)
    {
        port = set.port;
        dataVls = set.dataVls;
        linkState = new ReadableCounter(set.linkState);
        linkTransitions = new ReadableCounter(set.linkTransitions);
        fcpSent = new ReadableCounter(set.fcpSent);
        fcpReceived = new ReadableCounter(set.fcpReceived);
        fcpDiscarded = new ReadableCounter(set.fcpDiscarded);
        vl15Drops = new ReadableCounter(set.vl15Drops);
        fcpMalformed = new ReadableCounter(set.fcpMalformed);
        linkDowned = new ReadableCounter(set.linkDowned);
        linkErrorRecovery = new ReadableCounter(set.linkErrorRecovery);
        txLinkFull = new ReadableCounter(set.txLinkFull);
        linkSendErrors = new ReadableCounter(set.linkSendErrors);
        linkReceiveErrors = new ReadableCounter(set.linkReceiveErrors);
        linkHelloSendErrors = new ReadableCounter(set.linkHelloSendErrors);
        cellOccupancy = new ReadableCounter(set.cellOccupancy);
        injectorPriorityChanges = new ReadableCounter(set.injectorPriorityChanges);
        postBackPressure = new ReadableCounter(set.postBackPressure);
        linkForeignDrops = new ReadableCounter(set.linkForeignDrops);
        linkLengthDrops = new ReadableCounter(set.linkLengthDrops);
        linkBackPressure = new ReadableCounter(set.linkBackPressure);
        linkFramesSent = new ReadableCounter(set.linkFramesSent);
        linkFramesReceived = new ReadableCounter(set.linkFramesReceived);
        linkSessionDrops = new ReadableCounter(set.linkSessionDrops);
        linkMacDrops = new ReadableCounter(set.linkMacDrops);
        linkReplayDrops = new ReadableCounter(set.linkReplayDrops);
        for (int vl = 0; vl < VL_SLOTS; vl++)
        {
            txPackets[vl] = readable(set.txPackets[vl]);
            txBytes[vl] = readable(set.txBytes[vl]);
            rxPackets[vl] = readable(set.rxPackets[vl]);
            rxBytes[vl] = readable(set.rxBytes[vl]);
            creditStalls[vl] = readable(set.creditStalls[vl]);
            deliveredPackets[vl] = readable(set.deliveredPackets[vl]);
            rxFreeBlocks[vl] = readable(set.rxFreeBlocks[vl]);
            txFctbs[vl] = readable(set.txFctbs[vl]);
            txCreditLimit[vl] = readable(set.txCreditLimit[vl]);
            rxAbr[vl] = readable(set.rxAbr[vl]);
            txFlushedMessages[vl] = readable(set.txFlushedMessages[vl]);
            txCells[vl] = readable(set.txCells[vl]);
        }
        discards = new ReadableCounter[set.discards.length];
        for (int reason = 0; reason < discards.length; reason++)
        {
            discards[reason] = readable(set.discards[reason]);
        }
    }

    private static ReadableCounter readable(final AtomicCounter counter)
    {
        return null == counter ? null : new ReadableCounter(counter);
    }

    /**
     * Read the counters of a port of an engine in another process, live, from its counters file (the soak's parent
     * reads its peer's port this way).
     *
     * @param reader  the counters of the other engine's file ({@code CountersFileReader.counters()}).
     * @param port    the port number.
     * @param dataVls the port's data VLs.
     * @return the port's counters.
     * @throws IllegalStateException when the file lacks a counter of the port.
     */
    public static PortCounters attach(final CountersReader reader, final int port, final int dataVls)
    {
        return PortCounterSet.attach(reader, port, dataVls).view();
    }

    public int port()
    {
        return port;
    }

    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @return gauge: the link state's code (0 down, 1 initialize, 2 armed, 3 active).
     */
    public ReadableCounter linkState()
    {
        return linkState;
    }

    /**
     * @return link states entered.
     */
    public ReadableCounter linkTransitions()
    {
        return linkTransitions;
    }

    /**
     * @return flow-control packets sent.
     */
    public ReadableCounter fcpSent()
    {
        return fcpSent;
    }

    /**
     * @return flow-control packets received and applied.
     */
    public ReadableCounter fcpReceived()
    {
        return fcpReceived;
    }

    /**
     * @return well-formed flow-control packets the credit rules refused.
     */
    public ReadableCounter fcpDiscarded()
    {
        return fcpDiscarded;
    }

    /**
     * @return SMPs dropped at a full VL15 buffer.
     */
    public ReadableCounter vl15Drops()
    {
        return vl15Drops;
    }

    /**
     * @return link frames that are no FCP (too short or long, bad LPCRC, reserved Op).
     */
    public ReadableCounter fcpMalformed()
    {
        return fcpMalformed;
    }

    /**
     * @return times the link went down because the peer fell silent or closed.
     */
    public ReadableCounter linkDowned()
    {
        return linkDowned;
    }

    /**
     * @return link errors recovered by re-training.
     */
    public ReadableCounter linkErrorRecovery()
    {
        return linkErrorRecovery;
    }

    /**
     * @return duty cycles whose transmit burst ended because the link had no room for the largest frame.
     */
    public ReadableCounter txLinkFull()
    {
        return txLinkFull;
    }

    /**
     * @return frames the link lost to an I/O error.
     */
    public ReadableCounter linkSendErrors()
    {
        return linkSendErrors;
    }

    /**
     * @return I/O errors receiving.
     */
    public ReadableCounter linkReceiveErrors()
    {
        return linkReceiveErrors;
    }

    /**
     * @return training HELLOs the link failed to send.
     */
    public ReadableCounter linkHelloSendErrors()
    {
        return linkHelloSendErrors;
    }

    /**
     * @return gauge: cells of the transmit cell buffer in use.
     */
    public ReadableCounter cellOccupancy()
    {
        return cellOccupancy;
    }

    /**
     * @return injector priority changes.
     */
    public ReadableCounter injectorPriorityChanges()
    {
        return injectorPriorityChanges;
    }

    /**
     * @return posts refused because the transmit path was full.
     */
    public ReadableCounter postBackPressure()
    {
        return postBackPressure;
    }

    /**
     * @return datagrams from a source other than the peer.
     */
    public ReadableCounter linkForeignDrops()
    {
        return linkForeignDrops;
    }

    /**
     * @return frames too long or too short.
     */
    public ReadableCounter linkLengthDrops()
    {
        return linkLengthDrops;
    }

    /**
     * @return claims the link refused.
     */
    public ReadableCounter linkBackPressure()
    {
        return linkBackPressure;
    }

    /**
     * @return frames the link sent.
     */
    public ReadableCounter linkFramesSent()
    {
        return linkFramesSent;
    }

    /**
     * @return frames the link received, before any check.
     */
    public ReadableCounter linkFramesReceived()
    {
        return linkFramesReceived;
    }

    /**
     * @return frames of another link session.
     */
    public ReadableCounter linkSessionDrops()
    {
        return linkSessionDrops;
    }

    /**
     * @return datagrams whose MAC did not match.
     */
    public ReadableCounter linkMacDrops()
    {
        return linkMacDrops;
    }

    /**
     * @return datagrams of the session seen before.
     */
    public ReadableCounter linkReplayDrops()
    {
        return linkReplayDrops;
    }

    /**
     * @param vl a VL.
     * @return packets sent on a VL (null for a VL the port lacks).
     */
    public ReadableCounter txPackets(final int vl)
    {
        return txPackets[vl];
    }

    /**
     * @param vl a VL.
     * @return bytes sent on a VL (null for a VL the port lacks).
     */
    public ReadableCounter txBytes(final int vl)
    {
        return txBytes[vl];
    }

    /**
     * @param vl a VL.
     * @return packets received and stored on a VL (null for a VL the port lacks).
     */
    public ReadableCounter rxPackets(final int vl)
    {
        return rxPackets[vl];
    }

    /**
     * @param vl a VL.
     * @return bytes received and stored on a VL (null for a VL the port lacks).
     */
    public ReadableCounter rxBytes(final int vl)
    {
        return rxBytes[vl];
    }

    /**
     * @param vl a VL.
     * @return times a data VL's head waited for credit (null for a VL the port lacks).
     */
    public ReadableCounter creditStalls(final int vl)
    {
        return creditStalls[vl];
    }

    /**
     * @param vl a VL.
     * @return packets delivered to the receive handler on a VL (null for a VL the port lacks).
     */
    public ReadableCounter deliveredPackets(final int vl)
    {
        return deliveredPackets[vl];
    }

    /**
     * @param vl a VL.
     * @return gauge: free blocks of a data VL's receive buffer (null for a VL the port lacks).
     */
    public ReadableCounter rxFreeBlocks(final int vl)
    {
        return rxFreeBlocks[vl];
    }

    /**
     * @param vl a VL.
     * @return gauge: a data VL's FCTBS (null for a VL the port lacks).
     */
    public ReadableCounter txFctbs(final int vl)
    {
        return txFctbs[vl];
    }

    /**
     * @param vl a VL.
     * @return gauge: a data VL's credit limit CL (null for a VL the port lacks).
     */
    public ReadableCounter txCreditLimit(final int vl)
    {
        return txCreditLimit[vl];
    }

    /**
     * @param vl a VL.
     * @return gauge: a data VL's ABR (null for a VL the port lacks).
     */
    public ReadableCounter rxAbr(final int vl)
    {
        return rxAbr[vl];
    }

    /**
     * @param vl a VL.
     * @return messages a link error flushed, by the VL their SL maps to (null for a VL the port lacks).
     */
    public ReadableCounter txFlushedMessages(final int vl)
    {
        return txFlushedMessages[vl];
    }

    /**
     * @param vl a VL.
     * @return cells the packets injected on the VL took in the transmit cell buffer: its buffer class's cells
     * (written by the injection agent, once a duty cycle when they moved; null for a VL the port lacks).
     */
    public ReadableCounter txCells(final int vl)
    {
        return txCells[vl];
    }

    /**
     * @param reason a discard reason id ({@link DiscardReasons}).
     * @return its counter.
     */
    public ReadableCounter discards(final int reason)
    {
        return discards[reason];
    }
}
