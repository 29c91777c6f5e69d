package io.vlink.core.crc;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * The InfiniBand link CRC-16 used for the VCRC of data packets and the LPCRC of flow-control packets
 * (spec {@code wire.md}, "CRCs"): polynomial 0x100B (reflected 0xD008), initial value 0xFFFF, input and output
 * reflected, final XOR 0xFFFF. The CRC of ASCII {@code "123456789"} is 0x0A3D.
 * <p>
 * Table-driven, slicing-by-16: sixteen 256-entry tables let one step consume 16 bytes, one table lookup per byte
 * and no data-dependent branch. The register is 16 bits wide, so only the step's first two bytes depend on it: the
 * other fourteen lookups are summed in a balanced XOR tree off the critical path. Each byte is loaded on its own
 * (a zero-extending load is cheaper than shifting and masking it out of a long). A range is bounds-checked once,
 * then read with plain loads. Stateless and allocation-free; safe from any thread.
 * <p>
 * The value is written on the wire low byte first ({@link #CRC_BYTE_ORDER}).
 */
public final class Crc16
{
    /** The CRC-16 is written on the wire low byte first. */
    public static final ByteOrder CRC_BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Reflected form of the generator polynomial 0x100B. */
    public static final int POLYNOMIAL_REFLECTED = 0xD008;
    public static final int INITIAL_VALUE = 0xFFFF;
    public static final int FINAL_XOR = 0xFFFF;

    private static final int SLICES = 16;
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    /** TABLE[(k << 8) | b]: the register after byte {@code b} followed by {@code k} zero bytes, from 0. */
    private static final char[] TABLE = new char[SLICES * 256];

    static
    {
        for (int b = 0; b < 256; b++)
        {
            int crc = b;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLYNOMIAL_REFLECTED : crc >>> 1;
            }
            TABLE[b] = (char)crc;
        }
        for (int k = 1; k < SLICES; k++)
        {
            for (int b = 0; b < 256; b++)
            {
                final int previous = TABLE[((k - 1) << 8) | b];
                TABLE[(k << 8) | b] = (char)((previous >>> 8) ^ TABLE[previous & 0xFF]);
            }
        }
    }

    private Crc16()
    {
    }

    /**
     * The CRC-16 of a range of a buffer.
     *
     * @param buffer holding the bytes.
     * @param offset of the first byte.
     * @param length of the range in bytes.
     * @return the CRC, 0..0xFFFF.
     * @throws IndexOutOfBoundsException if the range is not inside the buffer (a caller's mistake, not wire input).
     */
    public static int compute(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.boundsCheck(offset, length);
        return update(INITIAL_VALUE, buffer.byteArray(), buffer.addressOffset() + offset, length) ^ FINAL_XOR;
    }

    /**
     * The CRC-16 of a range of an array.
     *
     * @param bytes  holding the range.
     * @param offset of the first byte.
     * @param length of the range in bytes.
     * @return the CRC, 0..0xFFFF.
     */
    public static int compute(final byte[] bytes, final int offset, final int length)
    {
        if ((offset | length) < 0 || offset > bytes.length - length)
        {
            throw new IndexOutOfBoundsException("offset=" + offset + " length=" + length + " capacity=" + bytes.length);
        }
        return update(INITIAL_VALUE, bytes, BYTE_ARRAY_BASE + offset, length) ^ FINAL_XOR;
    }

    /**
     * The LPCRC of a flow-control packet: the CRC-16 of its first four bytes, given as the big-endian word they
     * form (spec {@code wire.md}, "LPCRC"). Four table lookups, no memory access besides the table.
     *
     * @param word bytes 0-3 of the FCP as a big-endian int.
     * @return the CRC, 0..0xFFFF.
     */
    public static int ofWord(final int word)
    {
        // the wire's first byte is the word's most significant: reverse so it sits in the low byte, as reflected
        // CRCs consume it; then the four bytes are one slicing-by-4 step.
        final int x = Integer.reverseBytes(word) ^ INITIAL_VALUE;
        final int crc = TABLE[(3 << 8) + (x & 0xFF)] ^
            TABLE[(2 << 8) + ((x >>> 8) & 0xFF)] ^
            TABLE[(1 << 8) + ((x >>> 16) & 0xFF)] ^
            TABLE[x >>> 24];
        return crc ^ FINAL_XOR;
    }

    private static int update(final int initial, final Object base, final long address, final int length)
    {
        int crc = initial;
        long p = address;
        final long end = address + length;

        for (final long limit = end - SLICES; p <= limit; p += SLICES)
        {
            // bytes 2..15 do not depend on the register: a balanced tree, off the critical path
            final int rest =
                ((TABLE[(13 << 8) + u8(base, p + 2)] ^ TABLE[(12 << 8) + u8(base, p + 3)]) ^
                (TABLE[(11 << 8) + u8(base, p + 4)] ^ TABLE[(10 << 8) + u8(base, p + 5)])) ^
                ((TABLE[(9 << 8) + u8(base, p + 6)] ^ TABLE[(8 << 8) + u8(base, p + 7)]) ^
                (TABLE[(7 << 8) + u8(base, p + 8)] ^ TABLE[(6 << 8) + u8(base, p + 9)])) ^
                ((TABLE[(5 << 8) + u8(base, p + 10)] ^ TABLE[(4 << 8) + u8(base, p + 11)]) ^
                (TABLE[(3 << 8) + u8(base, p + 12)] ^ TABLE[(2 << 8) + u8(base, p + 13)])) ^
                (TABLE[(1 << 8) + u8(base, p + 14)] ^ TABLE[u8(base, p + 15)]);
            final int x = (UnsafeApi.getShortUnaligned(base, p, false) & 0xFFFF) ^ crc;
            crc = rest ^ TABLE[(15 << 8) + (x & 0xFF)] ^ TABLE[(14 << 8) + ((x >>> 8) & 0xFF)];
        }

        for (; p < end; p++)
        {
            crc = (crc >>> 8) ^ TABLE[(crc ^ UnsafeApi.getByte(base, p)) & 0xFF];
        }

        return crc;
    }

    private static int u8(final Object base, final long address)
    {
        return UnsafeApi.getByte(base, address) & 0xFF;
    }
}
