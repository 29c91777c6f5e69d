package io.vlink.core.wire;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Flyweight over the 8-byte Local Route Header that starts every data packet (docs/wire.md, "LRH").
 * Big-endian, as every InfiniBand header.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+-------+-------+---+---+-------------------------------+
 *  |  VL   | LVer  |  SL   |rsv|LNH|         DLID                  |
 *  +-------+-------+-------+---+---+---------+---------------------+
 *  |  reserved (5) |        PktLen (11)      |         SLID        |
 *  +---------------+-------------------------+---------------------+
 * </pre>
 * PktLen counts 4-byte words from the first LRH byte through the ICRC (pad included, VCRC excluded), so the packet
 * takes {@code 4 * PktLen + 2} bytes on the wire ({@link Sizes#wireLength(int)}).
 * <p>
 * Wrap it over any buffer at any offset and reuse it: it holds no state besides the buffer and offset. The static
 * {@code (buffer, offset)} readers serve the receive hot path without a flyweight, and the static writers
 * ({@link #write}, {@link #word}, {@code vl}, {@code sl}, {@code pktLen}) the transmit hot path, as Aeron's
 * {@code DataHeaderFlyweight} does.
 */
public final class LrhFlyweight extends HeaderFlyweight<LrhFlyweight>
{
    public static final int VL_LVER_OFFSET = 0;
    public static final int SL_LNH_OFFSET = VL_LVER_OFFSET + 1;
    public static final int DLID_OFFSET = SL_LNH_OFFSET + 1;
    public static final int PKT_LEN_OFFSET = DLID_OFFSET + 2;
    public static final int SLID_OFFSET = PKT_LEN_OFFSET + 2;
    public static final int LENGTH = SLID_OFFSET + 2;

    /** LNH 0: raw packet, no transport header, no ICRC. */
    public static final int LNH_RAW = 0;
    /** LNH 1: IPv6 raw packet, no ICRC. */
    public static final int LNH_IPV6_RAW = 1;
    /** LNH 2: IBA local, a BTH follows the LRH. */
    public static final int LNH_LOCAL = 2;
    /** LNH 3: IBA global, a GRH then a BTH follow the LRH. */
    public static final int LNH_GLOBAL = 3;

    /** The management VL: subnet management packets travel on it, uncredited. */
    public static final int VL15 = 15;
    /**
     * The permissive LID: any port's. A directed-route SMP carries it as its DLID, and the SMA of the node it
     * reaches (a CA port's, a switch's port 0) takes it.
     */
    public static final int PERMISSIVE_LID = 0xFFFF;
    /** VLs the 4-bit VL field names: data VLs 0..14 and VL15. */
    public static final int VL_COUNT = 16;
    /** Service levels the 4-bit SL field names. */
    public static final int SL_COUNT = 16;
    public static final int PKT_LEN_MASK = Sizes.MAX_PKT_LEN;

    /** @return the virtual lane, 0..15. */
    public int vl()
    {
        return vl(buffer, offset);
    }

    public LrhFlyweight vl(final int vl)
    {
        vl(buffer, offset, vl);
        return this;
    }

    /** @return the link version, 0 today. */
    public int lver()
    {
        return buffer.getByte(offset + VL_LVER_OFFSET) & 0x0F;
    }

    public LrhFlyweight lver(final int lver)
    {
        final int b = buffer.getByte(offset + VL_LVER_OFFSET);
        buffer.putByte(offset + VL_LVER_OFFSET, (byte)((b & 0xF0) | (lver & 0x0F)));
        return this;
    }

    /** @return the service level, 0..15. */
    public int sl()
    {
        return sl(buffer, offset);
    }

    public LrhFlyweight sl(final int sl)
    {
        sl(buffer, offset, sl);
        return this;
    }

    /** @return bits 3:2 of byte 1, reserved (0). */
    public int reserved()
    {
        return (buffer.getByte(offset + SL_LNH_OFFSET) >>> 2) & 0x3;
    }

    /** @return the link next header: {@link #LNH_RAW}, {@link #LNH_IPV6_RAW}, {@link #LNH_LOCAL}, {@link #LNH_GLOBAL}. */
    public int lnh()
    {
        return lnh(buffer, offset);
    }

    public LrhFlyweight lnh(final int lnh)
    {
        final int b = buffer.getByte(offset + SL_LNH_OFFSET);
        buffer.putByte(offset + SL_LNH_OFFSET, (byte)((b & 0xFC) | (lnh & 0x3)));
        return this;
    }

    /** @return the destination LID, 0..0xFFFF. */
    public int dlid()
    {
        return dlid(buffer, offset);
    }

    public LrhFlyweight dlid(final int dlid)
    {
        buffer.putShort(offset + DLID_OFFSET, (short)dlid, BIG_ENDIAN);
        return this;
    }

    /** @return PktLen, 4-byte words LRH through ICRC. */
    public int pktLen()
    {
        return pktLen(buffer, offset);
    }

    /** Sets PktLen and clears the 5 reserved bits before it. */
    public LrhFlyweight pktLen(final int pktLen)
    {
        pktLen(buffer, offset, pktLen);
        return this;
    }

    /** @return the source LID, 0..0xFFFF. */
    public int slid()
    {
        return slid(buffer, offset);
    }

    public LrhFlyweight slid(final int slid)
    {
        buffer.putShort(offset + SLID_OFFSET, (short)slid, BIG_ENDIAN);
        return this;
    }

    public static int vl(final DirectBuffer buffer, final int offset)
    {
        return (buffer.getByte(offset + VL_LVER_OFFSET) >>> 4) & 0x0F;
    }

    public static int sl(final DirectBuffer buffer, final int offset)
    {
        return (buffer.getByte(offset + SL_LNH_OFFSET) >>> 4) & 0x0F;
    }

    public static int lnh(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + SL_LNH_OFFSET) & 0x3;
    }

    public static int dlid(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + DLID_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    public static int pktLen(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + PKT_LEN_OFFSET, BIG_ENDIAN) & PKT_LEN_MASK;
    }

    public static int slid(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + SLID_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    /**
     * Write a whole LRH in one big-endian 8-byte store, LVer 0 and the reserved bits 0: what a transmitter writes
     * into a packet it builds, on its hot path, without a flyweight's read-modify-write per field. The caller has
     * checked the ranges (VL and SL 4 bits, LNH 2, LIDs 16, PktLen 11); each value is masked to its field.
     *
     * @param buffer to write to.
     * @param offset of the LRH's first byte.
     * @param vl     the virtual lane.
     * @param sl     the service level.
     * @param lnh    the link next header.
     * @param dlid   the destination LID.
     * @param pktLen 4-byte words LRH through ICRC.
     * @param slid   the source LID.
     */
    public static void write(
        final MutableDirectBuffer buffer,
        final int offset,
        final int vl,
        final int sl,
        final int lnh,
        final int dlid,
        final int pktLen,
        final int slid)
    {
        buffer.putLong(offset, word(vl, sl, lnh, dlid, pktLen, slid), BIG_ENDIAN);
    }

    /**
     * The LRH as the big-endian long {@link #write} stores: a transmitter that writes many packets with the same
     * LIDs keeps the fixed part and ORs in the rest ({@code word(0, 0, lnh, dlid, 0, slid) | word(vl, sl, 0, 0,
     * pktLen, 0)}).
     *
     * @param vl     the virtual lane.
     * @param sl     the service level.
     * @param lnh    the link next header.
     * @param dlid   the destination LID.
     * @param pktLen 4-byte words LRH through ICRC.
     * @param slid   the source LID.
     * @return the 8 bytes as a big-endian long.
     */
    public static long word(final int vl, final int sl, final int lnh, final int dlid, final int pktLen, final int slid)
    {
        return ((long)(vl & 0x0F) << 60) | ((long)(sl & 0x0F) << 52) | ((long)(lnh & 0x3) << 48) |
            ((long)(dlid & 0xFFFF) << 32) | ((long)(pktLen & PKT_LEN_MASK) << 16) | (slid & 0xFFFF);
    }

    /**
     * Set the VL of the LRH at {@code offset}, keeping LVer.
     *
     * @param buffer holding the LRH.
     * @param offset of its first byte.
     * @param vl     the virtual lane, 0..15.
     */
    public static void vl(final MutableDirectBuffer buffer, final int offset, final int vl)
    {
        final int b = buffer.getByte(offset + VL_LVER_OFFSET);
        buffer.putByte(offset + VL_LVER_OFFSET, (byte)((b & 0x0F) | ((vl & 0x0F) << 4)));
    }

    /**
     * Set the SL of the LRH at {@code offset}, keeping the reserved bits and LNH.
     *
     * @param buffer holding the LRH.
     * @param offset of its first byte.
     * @param sl     the service level, 0..15.
     */
    public static void sl(final MutableDirectBuffer buffer, final int offset, final int sl)
    {
        final int b = buffer.getByte(offset + SL_LNH_OFFSET);
        buffer.putByte(offset + SL_LNH_OFFSET, (byte)((b & 0x0F) | ((sl & 0x0F) << 4)));
    }

    /**
     * Set PktLen of the LRH at {@code offset}, clearing the 5 reserved bits before it.
     *
     * @param buffer holding the LRH.
     * @param offset of its first byte.
     * @param pktLen 4-byte words LRH through ICRC.
     */
    public static void pktLen(final MutableDirectBuffer buffer, final int offset, final int pktLen)
    {
        buffer.putShort(offset + PKT_LEN_OFFSET, (short)(pktLen & PKT_LEN_MASK), BIG_ENDIAN);
    }

    /**
     * @param lnh the link next header.
     * @return true if packets with this LNH carry a BTH and an ICRC (LNH 2 and 3).
     */
    public static boolean isIba(final int lnh)
    {
        return lnh >= LNH_LOCAL;
    }

    public String toString()
    {
        return "LRH{vl=" + vl() + " lver=" + lver() + " sl=" + sl() + " lnh=" + lnh() + " dlid=" + dlid() +
            " pktLen=" + pktLen() + " slid=" + slid() + "}";
    }
}
