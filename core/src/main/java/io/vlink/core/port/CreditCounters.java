package io.vlink.core.port;

import io.vlink.core.credit.DiscardReason;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.List;

import static io.vlink.core.port.PortCounterSlots.require;

/**
 * The counters a port's credit half ({@link PortCredit}) writes, and only it: the link state and its transitions,
 * FCPs applied and refused (by reason: {@link #REASONS}), link errors, and the credit gauges it owns per data VL
 * (the receiver's free blocks and ABR, the transmitter's credit limit as last applied). Each is written with release
 * stores by the credit half's thread.
 */
public final class CreditCounters
{
    /** The discard reasons the credit half counts: well-formed FCPs the credit rules refuse. */
    public static final List<DiscardReason> REASONS = List.of(
        DiscardReason.FCP_VL15, DiscardReason.FCP_MISSING_VL, DiscardReason.FCP_STATE, DiscardReason.FCP_STALE);

    final AtomicCounter[] discards;
    final AtomicCounter linkState;
    final AtomicCounter linkTransitions;
    final AtomicCounter fcpReceived;
    final AtomicCounter fcpDiscarded;
    final AtomicCounter linkDowned;
    final AtomicCounter linkErrorRecovery;
    final AtomicCounter[] rxFreeBlocks;
    final AtomicCounter[] rxAbr;
    final AtomicCounter[] txCreditLimit;

    /**
     * @param discards          every discard reason's counter, indexed by {@link DiscardReason#id()}; only
     *                          {@link #REASONS} are kept.
     * @param linkState         gauge: the link state's code.
     * @param linkTransitions   states entered.
     * @param fcpReceived       FCPs applied.
     * @param fcpDiscarded      well-formed FCPs refused.
     * @param linkDowned        link errors of a silent or closing peer.
     * @param linkErrorRecovery link errors recovered by re-training.
     * @param rxFreeBlocks      gauge per data VL (16 slots): the receive buffer's free blocks.
     * @param rxAbr             gauge per data VL: ABR.
     * @param txCreditLimit     gauge per data VL: the credit limit last applied.
     */
    public CreditCounters(
        final AtomicCounter[] discards,
        final AtomicCounter linkState,
        final AtomicCounter linkTransitions,
        final AtomicCounter fcpReceived,
        final AtomicCounter fcpDiscarded,
        final AtomicCounter linkDowned,
        final AtomicCounter linkErrorRecovery,
        final AtomicCounter[] rxFreeBlocks,
        final AtomicCounter[] rxAbr,
        final AtomicCounter[] txCreditLimit)
    {
        this.discards = PortCounterSlots.discards(discards, REASONS);
        this.linkState = require(linkState, "link_state");
        this.linkTransitions = require(linkTransitions, "link_transitions");
        this.fcpReceived = require(fcpReceived, "fcp_received");
        this.fcpDiscarded = require(fcpDiscarded, "fcp_discarded");
        this.linkDowned = require(linkDowned, "link_downed");
        this.linkErrorRecovery = require(linkErrorRecovery, "link_error_recovery");
        this.rxFreeBlocks = PortCounterSlots.perVl("rx_free_blocks", rxFreeBlocks);
        this.rxAbr = PortCounterSlots.perVl("rx_abr", rxAbr);
        this.txCreditLimit = PortCounterSlots.perVl("tx_credit_limit", txCreditLimit);
    }

    void discard(final int reason)
    {
        PortCounterSlots.discard(discards, reason, "credit half").incrementRelease();
    }
}
