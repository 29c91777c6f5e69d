package io.vlink.core.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Flyweight over the 12-byte Base Transport Header that follows the LRH (LNH 2) or the GRH (LNH 3).
 * Big-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    OpCode     |S|M|Pad| TVer  |             P_Key             |
 *  |               |E| |Cnt|       |                               |
 *  +---------------+-+-+---+-------+-------------------------------+
 *  |    resv8a     |                    DestQP                     |
 *  +-+-------------+-----------------------------------------------+
 *  |A|   resv7     |                      PSN                      |
 *  +-+-------------+-----------------------------------------------+
 * </pre>
 * {@code resv8a} (byte 4) is a variant field: the ICRC covers it as all 1s (docs/wire.md, "ICRC").
 */
public final class BthFlyweight extends HeaderFlyweight<BthFlyweight>
{
    public static final int OPCODE_OFFSET = 0;
    public static final int FLAGS_OFFSET = OPCODE_OFFSET + 1;
    public static final int P_KEY_OFFSET = FLAGS_OFFSET + 1;
    public static final int RESV8A_OFFSET = P_KEY_OFFSET + 2;
    public static final int DEST_QP_OFFSET = RESV8A_OFFSET + 1;
    public static final int ACK_REQ_OFFSET = DEST_QP_OFFSET + 3;
    public static final int PSN_OFFSET = ACK_REQ_OFFSET + 1;
    public static final int LENGTH = PSN_OFFSET + 3;

    /** 24-bit queue pair numbers and packet sequence numbers. */
    public static final int MASK_24 = 0xFF_FFFF;
    /** The highest queue pair number, and the highest PSN: both are 24 bits. */
    public static final int MAX_QPN = MASK_24;

    /** Opcode RC SEND First: the first packet of a message longer than one MTU. */
    public static final int RC_SEND_FIRST = 0x00;
    /** Opcode RC SEND Middle: a packet between the first and the last of a message, exactly one MTU of payload. */
    public static final int RC_SEND_MIDDLE = 0x01;
    /** Opcode RC SEND Last: the last packet of a message longer than one MTU. */
    public static final int RC_SEND_LAST = 0x02;
    /** Opcode RC SEND Only: a whole message in one packet. */
    public static final int RC_SEND_ONLY = 0x04;
    /** The partition key every packet of the default partition carries (full membership). */
    public static final int DEFAULT_P_KEY = 0xFFFF;

    // Transport opcodes (IBA 9.2.3): the top three bits are the service (000 RC, 011 UD), the low five the operation.
    /** UD SEND Only: a datagram, always one packet; a DETH follows the BTH. */
    public static final int UD_SEND_ONLY = 0x64;

    private static final int SE_BIT = 0x80;
    private static final int M_BIT = 0x40;
    private static final int ACK_REQ_BIT = 0x80;

    /** @return the transport opcode, 0..255 (e.g. 0x04 RC SEND Only, 0x11 RC Acknowledge, 0x64 UD SEND Only). */
    public int opcode()
    {
        return opcode(buffer, offset);
    }

    public BthFlyweight opcode(final int opcode)
    {
        buffer.putByte(offset + OPCODE_OFFSET, (byte)opcode);
        return this;
    }

    /** @return the solicited event bit. */
    public boolean se()
    {
        return (buffer.getByte(offset + FLAGS_OFFSET) & SE_BIT) != 0;
    }

    public BthFlyweight se(final boolean se)
    {
        return flag(SE_BIT, se);
    }

    /** @return the migration request bit. */
    public boolean m()
    {
        return (buffer.getByte(offset + FLAGS_OFFSET) & M_BIT) != 0;
    }

    public BthFlyweight m(final boolean m)
    {
        return flag(M_BIT, m);
    }

    /** @return pad bytes (0..3) at the end of the payload, before the ICRC. */
    public int padCnt()
    {
        return padCnt(buffer, offset);
    }

    public BthFlyweight padCnt(final int padCnt)
    {
        final int b = buffer.getByte(offset + FLAGS_OFFSET);
        buffer.putByte(offset + FLAGS_OFFSET, (byte)((b & ~0x30) | ((padCnt & 0x3) << 4)));
        return this;
    }

    /** @return the transport header version, 0 today. */
    public int tver()
    {
        return buffer.getByte(offset + FLAGS_OFFSET) & 0x0F;
    }

    public BthFlyweight tver(final int tver)
    {
        final int b = buffer.getByte(offset + FLAGS_OFFSET);
        buffer.putByte(offset + FLAGS_OFFSET, (byte)((b & 0xF0) | (tver & 0x0F)));
        return this;
    }

    /** @return the partition key, 0..0xFFFF. */
    public int pKey()
    {
        return buffer.getShort(offset + P_KEY_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    public BthFlyweight pKey(final int pKey)
    {
        buffer.putShort(offset + P_KEY_OFFSET, (short)pKey, BIG_ENDIAN);
        return this;
    }

    /** @return byte 4, reserved and variant. */
    public int resv8a()
    {
        return buffer.getByte(offset + RESV8A_OFFSET) & 0xFF;
    }

    public BthFlyweight resv8a(final int resv8a)
    {
        buffer.putByte(offset + RESV8A_OFFSET, (byte)resv8a);
        return this;
    }

    /** @return the destination queue pair, 24 bits. */
    public int destQp()
    {
        return destQp(buffer, offset);
    }

    public BthFlyweight destQp(final int destQp)
    {
        putInt24(offset + DEST_QP_OFFSET, destQp);
        return this;
    }

    /** @return the acknowledge request bit. */
    public boolean ackReq()
    {
        return (buffer.getByte(offset + ACK_REQ_OFFSET) & ACK_REQ_BIT) != 0;
    }

    /** Sets AckReq and clears the 7 reserved bits after it. */
    public BthFlyweight ackReq(final boolean ackReq)
    {
        buffer.putByte(offset + ACK_REQ_OFFSET, (byte)(ackReq ? ACK_REQ_BIT : 0));
        return this;
    }

    /** @return the packet sequence number, 24 bits. */
    public int psn()
    {
        return psn(buffer, offset);
    }

    public BthFlyweight psn(final int psn)
    {
        putInt24(offset + PSN_OFFSET, psn);
        return this;
    }

    /**
     * @param first the packet carries the message's first byte.
     * @param last  the packet carries the message's last byte.
     * @return the RC SEND opcode of such a packet: Only, First, Middle or Last.
     */
    public static int rcSendOpcode(final boolean first, final boolean last)
    {
        return first ? (last ? RC_SEND_ONLY : RC_SEND_FIRST) : (last ? RC_SEND_LAST : RC_SEND_MIDDLE);
    }

    /**
     * Write a whole BTH as one big-endian 8-byte and one 4-byte store, SE, M, TVer, resv8a, AckReq and the reserved
     * bits 0: what a transmitter writes into a packet it builds, on its hot path. The caller has checked the
     * ranges; each value is masked to its field.
     *
     * @param buffer to write to.
     * @param offset of the BTH's first byte.
     * @param opcode the transport opcode.
     * @param padCnt pad bytes, 0..3, after the payload.
     * @param pKey   the partition key.
     * @param destQp the destination queue pair, 24 bits.
     * @param psn    the packet sequence number, 24 bits.
     */
    public static void write(
        final MutableDirectBuffer buffer,
        final int offset,
        final int opcode,
        final int padCnt,
        final int pKey,
        final int destQp,
        final int psn)
    {
        buffer.putLong(offset, ((long)(opcode & 0xFF) << 56) | ((long)(padCnt & 0x3) << 52) |
            ((long)(pKey & 0xFFFF) << 32) | (destQp & MASK_24), BIG_ENDIAN);
        buffer.putInt(offset + ACK_REQ_OFFSET, psn & MASK_24, BIG_ENDIAN);
    }

    /**
     * @param buffer holding the BTH.
     * @param offset of its first byte.
     * @return pad bytes (0..3) at the end of the payload, before the ICRC.
     */
    public static int padCnt(final DirectBuffer buffer, final int offset)
    {
        return (buffer.getByte(offset + FLAGS_OFFSET) >>> 4) & 0x3;
    }

    public static int opcode(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + OPCODE_OFFSET) & 0xFF;
    }

    public static int destQp(final DirectBuffer buffer, final int offset)
    {
        return int24(buffer, offset + DEST_QP_OFFSET);
    }

    public static int psn(final DirectBuffer buffer, final int offset)
    {
        return int24(buffer, offset + PSN_OFFSET);
    }

    private static int int24(final DirectBuffer buffer, final int index)
    {
        // the byte before each 24-bit field belongs to the same header, so one aligned-or-not 32-bit read does
        return buffer.getInt(index - 1, BIG_ENDIAN) & MASK_24;
    }

    private void putInt24(final int index, final int value)
    {
        buffer.putByte(index, (byte)(value >>> 16));
        buffer.putShort(index + 1, (short)value, BIG_ENDIAN);
    }

    private BthFlyweight flag(final int bit, final boolean value)
    {
        final int b = buffer.getByte(offset + FLAGS_OFFSET);
        buffer.putByte(offset + FLAGS_OFFSET, (byte)(value ? b | bit : b & ~bit));
        return this;
    }

    public String toString()
    {
        return "BTH{opcode=0x" + Integer.toHexString(opcode()) + " se=" + se() + " m=" + m() + " padCnt=" + padCnt() +
            " tver=" + tver() + " pKey=0x" + Integer.toHexString(pKey()) + " destQp=" + destQp() +
            " ackReq=" + ackReq() + " psn=" + psn() + "}";
    }
}
