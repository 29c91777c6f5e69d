package io.vlink.nic;

/**
 * What the receive agent tells the credit agent, in wire order, through the port's event ring: a received FCP
 * (its first four bytes, LPCRC already checked) or a data packet accepted into a VL's receive buffer. One ring
 * keeps them in wire order, which the FCTBS re-synchronisation {@code ABR := FCTBS} depends on.
 */
final class RxEvents
{
    /** An FCP word follows (4 bytes). */
    static final int FCP = 1;
    /**
     * Data packets were accepted, in wire order since the previous event: {@code epoch << 20 | vl << 16 | blocks}
     * follows (4 bytes), the blocks of every packet of that VL accepted since the VL's previous ACCEPT event, summed,
     * and the low 12 bits of the link epoch the receive agent read (before the link state) when it accepted them: blocks
     * of an earlier epoch came from the peer's previous incarnation and do not count in the new ABR
     * ({@code CreditControl.onAcceptedEarlier}).
     */
    static final int ACCEPT = 2;
    /** The bits of the link epoch an ACCEPT event carries. */
    static final int EPOCH_MASK = 0xFFF;
    /** Where they are. */
    static final int EPOCH_SHIFT = 20;
    /** The peer closed its end of the link (4 bytes, 0). */
    static final int PEER_CLOSED = 3;
    /** The most blocks one ACCEPT event carries. */
    static final int MAX_BLOCKS = 0xFFFF;
    /** Every event's payload. */
    static final int LENGTH = 4;
    /** Bytes an event takes in the ring: 8-byte record header and 4 bytes, aligned to 8. */
    static final int RECORD_LENGTH = 16;

    private RxEvents()
    {
    }
}
