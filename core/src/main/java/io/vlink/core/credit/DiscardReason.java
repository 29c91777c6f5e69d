package io.vlink.core.credit;

/**
 * Why the link layer discarded a received packet: the single source of counter ids and labels (in the style of
 * Aeron's {@code SystemCounterDescriptor}). Ids are stable: new reasons are appended, never renumbered, so a
 * counters file or a dashboard keeps its meaning across versions.
 * <p>
 * Wire input is never thrown at the caller: each discard returns false and adds one to its reason's count, in the
 * counters of the port half that owns the reason ({@code io.vlink.core.port.ReceiveCounters#REASONS},
 * {@code io.vlink.core.port.CreditCounters#REASONS}).
 */
public enum DiscardReason
{
    /** Op other than 0 or 1 (docs/wire.md: "any other value is reserved: discard the packet"). */
    FCP_RESERVED_OP(0, "FCP with a reserved Op"),
    /** The LPCRC over the first four bytes did not match. */
    FCP_BAD_LPCRC(1, "FCP with a bad LPCRC"),
    /** VL15 is never credited: no FCP may name it. */
    FCP_VL15(2, "FCP for VL15"),
    /** The VL is a data VL this port does not have. */
    FCP_MISSING_VL(3, "FCP for a VL the port lacks"),
    /** Down takes no FCP; Initialize takes only initialization FCPs (Op 1). */
    FCP_STATE(4, "FCP not allowed in the link state"),
    /** The sender ignored its credits: the packet would not fit the VL's receive buffer. */
    DATA_OVERFLOW(5, "Data packet overflowing its receive buffer"),
    /** The LRH names a data VL this port does not have. */
    DATA_MISSING_VL(6, "Data packet for a VL the port lacks"),
    /** Data is received only in Armed and Active. */
    DATA_STATE(7, "Data packet not allowed in the link state"),
    /** Bad VCRC, ICRC or LRH: dropped before the credit layer, ABR and free space do not move. */
    DATA_BAD_CRC(8, "Data packet with a bad VCRC, ICRC or LRH"),
    /** VL15 has no credits: an SMP arriving to a full VL15 buffer is dropped (docs/flow-control.md, VL15). */
    VL15_FULL(9, "SMP arriving to a full VL15 buffer"),
    /** SMPs are received in every state but Down. */
    VL15_STATE(10, "SMP not allowed in the link state"),
    /** Fewer than the 8 bytes of an FCP arrived. */
    FCP_TOO_SHORT(11, "FCP shorter than 8 bytes"),
    /** A link packet longer than the 8 bytes of an FCP (a framing error of the link it came over). */
    FCP_TOO_LONG(12, "FCP longer than 8 bytes"),
    /** A normal FCP whose FCTBS fell behind ABR or whose FCCL fell behind the credit limit: duplicated, replayed or
     * reordered on its way. */
    FCP_STALE(13, "FCP whose FCTBS or FCCL moved backwards"),
    /** The SL2VL table maps the packet's SL to VL15 or to a data VL the port lacks: dropped before the wire. */
    SL2VL_UNMAPPED(14, "Packet of an SL that SL2VL maps to no data VL"),
    /** A switch's forwarding table has no port for the packet's DLID (or names a port without a link). */
    NO_ROUTE(15, "Packet whose DLID the forwarding table does not route"),
    /** A packet waited at the head of a switch's input FIFO longer than the head-of-queue lifetime. */
    HOQ_LIFETIME(16, "Packet past the switch's head-of-queue lifetime");

    private static final DiscardReason[] BY_ID;

    static
    {
        final DiscardReason[] values = values();
        BY_ID = new DiscardReason[values.length];
        for (final DiscardReason reason : values)
        {
            if (reason.id < 0 || reason.id >= values.length || null != BY_ID[reason.id])
            {
                throw new IllegalStateException("discard reason ids must be unique and dense: " + reason);
            }
            BY_ID[reason.id] = reason;
        }
    }

    private final int id;
    private final String label;

    DiscardReason(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    /**
     * @param id a reason's {@link #id()}.
     * @return the reason, or null if the id is unknown.
     */
    public static DiscardReason get(final int id)
    {
        return id >= 0 && id < BY_ID.length ? BY_ID[id] : null;
    }

    /**
     * @return how many reasons there are: ids run from 0 to {@code count() - 1}.
     */
    public static int count()
    {
        return BY_ID.length;
    }

    /**
     * @return the stable id, the index of the reason's count in a port's array of discard counters.
     */
    public int id()
    {
        return id;
    }

    /**
     * @return the human-readable label for counters files and reports.
     */
    public String label()
    {
        return label;
    }
}
