package io.vlink.core.port;

import io.vlink.core.credit.DiscardReason;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.List;

import static io.vlink.core.port.PortCounterSlots.require;

/**
 * The counters a port's receive half ({@link PortReceive}) writes, and only it: what it finds in a frame and
 * discards (by reason: {@link #REASONS}), malformed FCPs, SMPs dropped at a full VL15 buffer, and the packets and
 * bytes it stores per VL. Each is written with release stores by the receive half's thread.
 */
public final class ReceiveCounters
{
    /** The discard reasons the receive half counts: what a frame shows before its FCP word or packet is handed on. */
    public static final List<DiscardReason> REASONS = List.of(
        DiscardReason.FCP_TOO_SHORT, DiscardReason.FCP_TOO_LONG, DiscardReason.FCP_BAD_LPCRC,
        DiscardReason.FCP_RESERVED_OP, DiscardReason.DATA_BAD_CRC, DiscardReason.DATA_MISSING_VL,
        DiscardReason.DATA_STATE, DiscardReason.DATA_OVERFLOW, DiscardReason.VL15_STATE, DiscardReason.VL15_FULL);

    final AtomicCounter[] discards;
    final AtomicCounter fcpMalformed;
    final AtomicCounter vl15Drops;
    final VlTally tally;

    /**
     * @param discards     every discard reason's counter, indexed by {@link DiscardReason#id()}; only
     *                     {@link #REASONS} are kept.
     * @param fcpMalformed link frames that are no FCP (too short or long, bad LPCRC, reserved Op).
     * @param vl15Drops    SMPs dropped because the VL15 buffer was full.
     * @param rxPackets    packets stored, per VL (16 slots, null where the port has no such VL).
     * @param rxBytes      bytes stored, per VL.
     */
    public ReceiveCounters(
        final AtomicCounter[] discards,
        final AtomicCounter fcpMalformed,
        final AtomicCounter vl15Drops,
        final AtomicCounter[] rxPackets,
        final AtomicCounter[] rxBytes)
    {
        this.discards = PortCounterSlots.discards(discards, REASONS);
        this.fcpMalformed = require(fcpMalformed, "fcp_malformed");
        this.vl15Drops = require(vl15Drops, "vl15_drops");
        this.tally = new VlTally(rxPackets, rxBytes);
    }

    void discard(final int reason)
    {
        PortCounterSlots.discard(discards, reason, "receive half").incrementRelease();
    }
}
