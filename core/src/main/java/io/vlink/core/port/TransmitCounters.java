package io.vlink.core.port;

import org.agrona.concurrent.status.AtomicCounter;

import static io.vlink.core.port.PortCounterSlots.require;

/**
 * The counters a port's transmit half ({@link PortTransmit}) writes, and only it: FCPs sent, bursts cut short by a
 * link without room, credit stalls per data VL, the FCTBS gauge per data VL, and the packets and bytes it sends per
 * VL. Each is written with release stores by the transmit half's thread.
 */
public final class TransmitCounters
{
    final AtomicCounter fcpSent;
    final AtomicCounter linkFull;
    final AtomicCounter[] creditStalls;
    final AtomicCounter[] txFctbs;
    final VlTally tally;

    /**
     * @param fcpSent      FCPs put on the wire.
     * @param linkFull     duty cycles whose burst ended because the link had no room for the largest frame.
     * @param creditStalls per data VL (16 slots): times its head packet went from sendable to waiting for credit.
     * @param txFctbs      gauge per data VL: FCTBS.
     * @param txPackets    packets sent, per VL (data VLs and 15).
     * @param txBytes      bytes sent, per VL.
     */
    public TransmitCounters(
        final AtomicCounter fcpSent,
        final AtomicCounter linkFull,
        final AtomicCounter[] creditStalls,
        final AtomicCounter[] txFctbs,
        final AtomicCounter[] txPackets,
        final AtomicCounter[] txBytes)
    {
        this.fcpSent = require(fcpSent, "fcp_sent");
        this.linkFull = require(linkFull, "tx_link_full");
        this.creditStalls = PortCounterSlots.perVl("credit_stalls", creditStalls);
        this.txFctbs = PortCounterSlots.perVl("tx_fctbs", txFctbs);
        this.tally = new VlTally(txPackets, txBytes);
    }
}
