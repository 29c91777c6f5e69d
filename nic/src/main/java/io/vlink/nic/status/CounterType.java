package io.vlink.nic.status;

import java.util.EnumSet;
import java.util.Set;

/**
 * Every counter an engine keeps, with a stable type id (stored in the counters file, read by {@code vlink stat}
 * from another process, possibly of another version) and a stable snake_case name (printed by {@code vlink stat}).
 * <p>
 * Type ids and names never change meaning; new counters take new ids. Gauges (a level, not a count) say so.
 */
public enum CounterType
{
    /** Exceptions thrown by agents (each is also in the distinct error log). */
    ERRORS(1, "errors", CounterScope.ENGINE),

    /** Gauge: the port's link state (0 down, 1 initialize, 2 armed, 3 active; docs/flow-control.md). */
    LINK_STATE(2, "link_state", CounterScope.PORT),
    /** Frames the capture tap could not record (it fell behind). */
    CAPTURE_DROPS(4, "capture_drops", CounterScope.ENGINE),
    /** Failures of the capture file (cannot create, full file system, cannot cut): the capture stopped there. */
    CAPTURE_ERRORS(5, "capture_errors", CounterScope.ENGINE),

    /** Link state changes. */
    LINK_TRANSITIONS(3, "link_transitions", CounterScope.PORT),

    /** Packets put on the wire on a VL (data VLs and VL15). */
    TX_PACKETS(10, "tx_packets", CounterScope.VL),
    /** Bytes put on the wire on a VL, counted as packet sizes (4 * PktLen, docs/wire.md). */
    TX_BYTES(11, "tx_bytes", CounterScope.VL),
    /** Packets received, checked and accepted on a VL. */
    RX_PACKETS(12, "rx_packets", CounterScope.VL),
    /** Bytes received and accepted on a VL, as packet sizes. */
    RX_BYTES(13, "rx_bytes", CounterScope.VL),
    /** Times the head packet of a VL could not go because its credits did not cover it. */
    CREDIT_STALLS(14, "credit_stalls", CounterScope.VL),
    /** Packets delivered to the receive handler on a VL. */
    DELIVERED_PACKETS(15, "delivered_packets", CounterScope.VL),
    /** Gauge: free blocks in a VL's receive buffer. */
    RX_FREE_BLOCKS(16, "rx_free_blocks", CounterScope.VL),
    /** Gauge: the transmitter's FCTBS on a data VL, blocks sent since link initialization mod 4096 (docs/flow-control.md). */
    TX_FCTBS(17, "tx_fctbs", CounterScope.VL),
    /** Gauge: the transmitter's credit limit CL on a data VL, the latest FCCL received (docs/flow-control.md). */
    TX_CREDIT_LIMIT(18, "tx_credit_limit", CounterScope.VL),
    /** Gauge: the receiver's ABR on a data VL, blocks received since link initialization mod 4096 (docs/flow-control.md). */
    RX_ABR(19, "rx_abr", CounterScope.VL),
    /** Messages the transmit path discarded at a link error (a ready packet or an SMP is one message), by the VL
     * their SL maps to (docs/engine.md, "A peer's life and death"). */
    TX_FLUSHED_MESSAGES(21, "tx_flushed_messages", CounterScope.VL),
    /** Cells of the transmit cell buffer the packets injected on a VL took (an engine's port has a buffer class per
     * VL: docs/injection.md), counted by the injection agent. */
    TX_CELLS(22, "tx_cells", CounterScope.VL),

    /** Received packets discarded, by reason (length, CRCs, protocol violations: never thrown). */
    DISCARDS(20, "discards", CounterScope.REASON),

    /** Flow-control packets sent. */
    FCP_SENT(30, "fcp_sent", CounterScope.PORT),
    /** Flow-control packets received and applied. */
    FCP_RECEIVED(31, "fcp_received", CounterScope.PORT),
    /** Well-formed flow-control packets refused by the credit layer (VL15 or a VL the port lacks, not allowed in the
     * link state, stale); counted by the credit agent. */
    FCP_DISCARDED(32, "fcp_discarded", CounterScope.PORT),
    /** VL15 packets dropped because the VL15 receive buffer was full (docs/flow-control.md, VL15). */
    VL15_DROPS(33, "vl15_drops", CounterScope.PORT),
    /** Malformed flow-control packets (too short or long, bad LPCRC, reserved Op); counted by the receive agent. */
    FCP_MALFORMED(34, "fcp_malformed", CounterScope.PORT),
    /** Times the link went down because the peer fell silent (perfquery's LinkDownedCounter). */
    LINK_DOWNED(35, "link_downed", CounterScope.PORT),
    /** Link errors recovered by re-training: the peer initialized again (perfquery's LinkErrorRecoveryCounter). */
    LINK_ERROR_RECOVERY(36, "link_error_recovery", CounterScope.PORT),
    /** Duty cycles whose transmit burst ended because the link had no room for the largest frame (its ring or socket
     * full, or no session yet); counted by the transmit half. The link counts the claims it refuses itself
     * ({@code link_back_pressure}). */
    TX_LINK_FULL(37, "tx_link_full", CounterScope.PORT),

    /** Gauge: cells of the transmit cell buffer in use. */
    CELL_OCCUPANCY(40, "cell_occupancy", CounterScope.PORT),
    /** Injector priority changes (docs/injection.md, water marks and priority timer). */
    INJECTOR_PRIORITY_CHANGES(41, "injector_priority_changes", CounterScope.PORT),
    /** Posts refused because the transmit path was full (back-pressure returned to the caller). */
    POST_BACK_PRESSURE(42, "post_back_pressure", CounterScope.PORT),

    /** Datagrams dropped because they came from a source other than the configured peer. */
    LINK_FOREIGN_DROPS(50, "link_foreign_drops", CounterScope.PORT),
    /** Frames dropped by the link because they were larger than the largest packet or shorter than a header. */
    LINK_LENGTH_DROPS(51, "link_length_drops", CounterScope.PORT),
    /** Claims the link refused (its buffer or socket was full, or no session yet); counted by the link. */
    LINK_BACK_PRESSURE(52, "link_back_pressure", CounterScope.PORT),
    /** Frames the link sent. */
    LINK_FRAMES_SENT(53, "link_frames_sent", CounterScope.PORT),
    /** Frames the link received (before any check). */
    LINK_FRAMES_RECEIVED(54, "link_frames_received", CounterScope.PORT),
    /** Frames the link failed to send (an I/O error): each is lost as on a broken wire, never a leaked buffer. */
    LINK_SEND_ERRORS(55, "link_send_errors", CounterScope.PORT),
    /** I/O errors receiving (an ICMP error reported on the socket); nothing is lost. */
    LINK_RECEIVE_ERRORS(56, "link_receive_errors", CounterScope.PORT),
    /** Training HELLOs the link failed to send (an I/O error; the next interval repeats it), on its receiving
     * thread. */
    LINK_HELLO_SEND_ERRORS(57, "link_hello_send_errors", CounterScope.PORT),
    /** Datagrams of another link session (a replayed old capture, a guess, a peer's previous incarnation). */
    LINK_SESSION_DROPS(60, "link_session_drops", CounterScope.PORT),
    /** Datagrams whose keyed MAC did not match (the link is authenticated and they were forged or damaged). */
    LINK_MAC_DROPS(61, "link_mac_drops", CounterScope.PORT),
    /** Datagrams of the current session seen before (a replay within the session, or a duplicate). */
    LINK_REPLAY_DROPS(62, "link_replay_drops", CounterScope.PORT);

    private static final CounterType[] BY_TYPE_ID;
    /** The levels: a reader shows their value, never a rate. */
    private static final Set<CounterType> GAUGES = EnumSet.of(
        LINK_STATE, RX_FREE_BLOCKS, TX_FCTBS, TX_CREDIT_LIMIT, RX_ABR, CELL_OCCUPANCY);

    static
    {
        int max = 0;
        for (final CounterType type : values())
        {
            max = Math.max(max, type.typeId);
        }
        BY_TYPE_ID = new CounterType[max + 1];
        for (final CounterType type : values())
        {
            if (null != BY_TYPE_ID[type.typeId])
            {
                throw new IllegalStateException("duplicate counter type id " + type.typeId);
            }
            BY_TYPE_ID[type.typeId] = type;
        }
    }

    private final int typeId;
    private final String counterName;
    private final CounterScope scope;

    CounterType(final int typeId, final String counterName, final CounterScope scope)
    {
        this.typeId = typeId;
        this.counterName = counterName;
        this.scope = scope;
    }

    /**
     * @return the stable type id stored in the counters file.
     */
    public int typeId()
    {
        return typeId;
    }

    /**
     * @return the stable snake_case name {@code vlink stat} prints.
     */
    public String counterName()
    {
        return counterName;
    }

    /**
     * @return true for a level (link state, free blocks, FCTBS, credit limit, ABR, cell occupancy), false for a count
     * that only grows (per second is a rate).
     */
    public boolean isGauge()
    {
        return GAUGES.contains(this);
    }

    /**
     * @return which key fields are meaningful.
     */
    public CounterScope scope()
    {
        return scope;
    }

    /**
     * @param typeId a type id read from a counters file.
     * @return the counter type, or null if this version does not know it (a newer engine wrote it).
     */
    public static CounterType ofTypeId(final int typeId)
    {
        return typeId >= 0 && typeId < BY_TYPE_ID.length ? BY_TYPE_ID[typeId] : null;
    }
}
