package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import org.agrona.DirectBuffer;

import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Checks a received data packet (docs/wire.md): its length against LRH.PktLen and the port's MTU, then
 * its VCRC and ICRC. It reads any bytes without throwing and returns a verdict packed with the status of each CRC
 * in one {@code int}, so a receive path discards and counts without allocating, and a decoder can show both CRCs.
 * <p>
 * Result layout: bits 7:0 the {@link #verdict(int)}, bits 9:8 the ICRC status, bits 11:10 the VCRC status
 * ({@link #CRC_NONE}, {@link #CRC_OK}, {@link #CRC_BAD}). When both CRCs are bad the verdict is
 * {@link #BAD_VCRC}: the link layer checks the VCRC first.
 * <p>
 * One instance per thread (it owns an {@link Icrc}); allocation-free.
 */
public final class PacketChecker
{
    /** Well formed, both CRCs (or the VCRC of a raw packet) match. */
    public static final int OK = 0;
    /** Fewer bytes than an LRH and a VCRC, or than the headers and ICRC its LNH announces. */
    public static final int TOO_SHORT = 1;
    /** The bytes received are not {@code 4 * PktLen + 2}. */
    public static final int LENGTH_MISMATCH = 2;
    /** The size exceeds the MTU plus {@link #HEADERS_ALLOWANCE}. */
    public static final int TOO_LONG = 3;
    /** The VCRC does not match. */
    public static final int BAD_VCRC = 4;
    /** The VCRC matches but the ICRC does not. */
    public static final int BAD_ICRC = 5;

    /** The packet has no such CRC (raw packets have no ICRC), or its length kept it from being checked. */
    public static final int CRC_NONE = 0;
    public static final int CRC_OK = 1;
    public static final int CRC_BAD = 2;

    /**
     * Bytes a packet may carry beyond its MTU of payload: LRH 8, GRH 40, BTH 12, the largest extended transport
     * headers (RDETH, DETH and AtomicETH: 40) and the ICRC 4 make 104; rounded up to two 64-byte blocks.
     */
    public static final int HEADERS_ALLOWANCE = 128;

    private static final int ICRC_SHIFT = 8;
    private static final int VCRC_SHIFT = 10;

    private final Icrc icrc = new Icrc();
    private final int maxSize;

    /**
     * @param mtu the port's MTU: 256, 512, 1024, 2048 or 4096 bytes of payload.
     * @throws IllegalArgumentException for any other MTU (a configuration mistake).
     */
    public PacketChecker(final int mtu)
    {
        Sizes.checkMtu("MTU", mtu);
        this.maxSize = Math.min(mtu + HEADERS_ALLOWANCE, Sizes.MAX_SIZE);
    }

    /**
     * @return the largest size (LRH through ICRC) this checker accepts.
     */
    public int maxSize()
    {
        return maxSize;
    }

    /**
     * Checks a packet. Never throws for any content or length as long as {@code [offset, offset + length)} lies in
     * the buffer.
     *
     * @param buffer holding the packet.
     * @param offset of its first LRH byte.
     * @param length bytes received, VCRC included.
     * @return the packed result: read it with {@link #verdict(int)}, {@link #icrcStatus(int)}, {@link #vcrcStatus(int)}.
     */
    public int check(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < LrhFlyweight.LENGTH + Sizes.VCRC_LENGTH)
        {
            return TOO_SHORT;
        }
        final int pktLen = LrhFlyweight.pktLen(buffer, offset);
        if (length != Sizes.wireLength(pktLen))
        {
            return LENGTH_MISMATCH;
        }
        final int size = Sizes.sizeOfPktLen(pktLen);
        if (size > maxSize)
        {
            return TOO_LONG;
        }
        final int lnh = LrhFlyweight.lnh(buffer, offset);
        if (size < Icrc.minSize(lnh))
        {
            return TOO_SHORT;
        }

        final int vcrc = (buffer.getShort(offset + size, LITTLE_ENDIAN) & 0xFFFF) == Crc16.compute(buffer, offset, size) ?
            CRC_OK : CRC_BAD;
        int icrcStatus = CRC_NONE;
        if (LrhFlyweight.isIba(lnh))
        {
            final int expected = icrc.compute(buffer, offset, size);
            icrcStatus = buffer.getInt(offset + size - Icrc.LENGTH, LITTLE_ENDIAN) == expected ? CRC_OK : CRC_BAD;
        }

        final int verdict = vcrc == CRC_BAD ? BAD_VCRC : icrcStatus == CRC_BAD ? BAD_ICRC : OK;
        return verdict | icrcStatus << ICRC_SHIFT | vcrc << VCRC_SHIFT;
    }

    /**
     * @param result of {@link #check(DirectBuffer, int, int)}.
     * @return {@link #OK}, {@link #TOO_SHORT}, {@link #LENGTH_MISMATCH}, {@link #TOO_LONG}, {@link #BAD_VCRC} or
     * {@link #BAD_ICRC}.
     */
    public static int verdict(final int result)
    {
        return result & 0xFF;
    }

    /**
     * @param result of {@link #check(DirectBuffer, int, int)}.
     * @return {@link #CRC_NONE}, {@link #CRC_OK} or {@link #CRC_BAD}.
     */
    public static int icrcStatus(final int result)
    {
        return (result >>> ICRC_SHIFT) & 0x3;
    }

    /**
     * @param result of {@link #check(DirectBuffer, int, int)}.
     * @return {@link #CRC_NONE}, {@link #CRC_OK} or {@link #CRC_BAD}.
     */
    public static int vcrcStatus(final int result)
    {
        return (result >>> VCRC_SHIFT) & 0x3;
    }

    /**
     * @param status a CRC status.
     * @return {@code "none"}, {@code "ok"} or {@code "bad"}, as {@code vlink decode} prints it.
     */
    public static String crcStatusName(final int status)
    {
        return status == CRC_OK ? "ok" : status == CRC_BAD ? "bad" : "none";
    }

    /**
     * @param verdict a verdict.
     * @return a short reason, for tools and logs.
     */
    public static String verdictName(final int verdict)
    {
        switch (verdict)
        {
            case OK:
                return "ok";
            case TOO_SHORT:
                return "too short";
            case LENGTH_MISMATCH:
                return "length disagrees with PktLen";
            case TOO_LONG:
                return "longer than the MTU allows";
            case BAD_VCRC:
                return "bad VCRC";
            case BAD_ICRC:
                return "bad ICRC";
            default:
                return "verdict " + verdict;
        }
    }
}
