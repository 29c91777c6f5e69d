package io.vlink.core.crc;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

import java.nio.ByteOrder;

/**
 * The InfiniBand link CRC-16 used for the VCRC of data packets and the LPCRC of flow-control packets
 * (docs/wire.md, "CRCs"): polynomial 0x100B (reflected 0xD008), initial value 0xFFFF, input and output
 * reflected, final XOR 0xFFFF. The CRC of ASCII {@code "123456789"} is 0x0A3D.
 * <p>
 * Stateless, allocation-free and safe from any thread; a range is bounds-checked once, then read with plain loads.
 * <p>
 * <b>Folding by a multiple of the polynomial.</b> Adding a multiple of the generator P to the message does not change
 * its remainder. P(x) = x^16 + x^12 + x^3 + x + 1 has five terms, and over GF(2) P(x^k) = P(x)^k for k a power of
 * two, so P(x^64) = x^1024 + x^768 + x^192 + x^64 + 1 is a multiple of P whose terms are whole 64-bit words apart.
 * Read as little-endian longs (the reflected bit order is the order of the bits in such a long), word i is cleared
 * by XORing it into words i+4, i+13, i+15 and i+16: one 8-byte load and four register XORs per 8 bytes, where the
 * tables need sixteen loads and eight XORs. A range is cleared this way but for its last 16 words (the recurrence
 * {@code c[i] = d[i] ^ c[i-16] ^ c[i-15] ^ c[i-13] ^ c[i-4]} over sixteen registers, sixteen words a turn). Those
 * 128 bytes, with what was folded into them, are halved three times the same way: as 32-bit words with P(x^32), as
 * 16-bit words with P(x^16) and as bytes with P(x^8) (a distance that is not a whole long is a shift inside the
 * register), and the last 16 bytes take one table step. The register before the range is XORed into its first two
 * bytes (a reflected CRC from {@code init} is the CRC from 0 of the message with {@code init} XORed into its first
 * 16 bits); the cleared words are then leading zeros, which do not move a register at 0.
 * <ul>
 *     <li>From {@value #FOLD_MIN_LENGTH} bytes: {@code length % 8} leading bytes through the tables, then the words.
 *     </li>
 *     <li>From {@value #FOLD_TAIL_MIN_LENGTH} bytes: the leading bytes through the tables, the last 128 (or 64)
 *     bytes straight into the halvings.</li>
 *     <li>Below: tables only.</li>
 * </ul>
 * <b>Tables</b>, slicing-by-16: sixteen 256-entry tables let one step consume 16 bytes, one lookup per byte and no
 * data-dependent branch. The register is 16 bits wide, so only the step's first two bytes depend on it: the other
 * fourteen lookups are summed in a balanced XOR tree off the critical path. Each byte is loaded on its own (a
 * zero-extending load is cheaper than shifting it out of a long). The last 0-15 bytes take one 8-byte and one 4-byte
 * step before going byte by byte.
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

    /**
     * Ranges at least this long are folded by words: 32 words, 16 to clear and the 16 that the degree of P(x^64)
     * (1024 bits) keeps for the halvings, the least the folding needs.
     */
    static final int FOLD_MIN_LENGTH = 256;
    /**
     * From this length the last 64 or 128 bytes are folded by 32-, 16- and 8-bit words instead of sliced: faster
     * from here, while folding the last 32 bytes was slower than two table steps (docs/performance.md, "Wire").
     */
    static final int FOLD_TAIL_MIN_LENGTH = 64;

    private static final int SLICES = 16;
    /** P(x^64) has degree 16 words: the last 16 words of a range are left for the halvings. */
    private static final int FOLD_WORDS = 16;
    private static final long BYTE_ARRAY_BASE = UnsafeApi.arrayBaseOffset(byte[].class);

    /** TABLE[(k << 8) | b]: the register after byte {@code b} followed by {@code k} zero bytes, from 0. */
    private static final char[] TABLE = new char[SLICES * 256];

    /** {@link #patchFirstByte} takes ranges of whole dwords up to this long: every packet PktLen can express. */
    public static final int MAX_PATCH_LENGTH = 0x7FF * 4;
    /**
     * PATCH[(length / 4) * 8 + i]: the register, from 0, after the byte {@code 1 << i} followed by
     * {@code length - 1} zero bytes: what flipping bit i of a range's first byte does to its CRC.
     */
    private static final char[] PATCH = new char[(MAX_PATCH_LENGTH / 4 + 1) * 8];

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
        for (int i = 0; i < 8; i++)
        {
            // length 4: the byte and three zero bytes; each 4 bytes more: four zero bytes through the register
            int register = TABLE[(3 << 8) | (1 << i)];
            for (int dwords = 1; dwords <= MAX_PATCH_LENGTH / 4; dwords++)
            {
                PATCH[dwords * 8 + i] = (char)register;
                register = TABLE[(3 << 8) | (register & 0xFF)] ^ TABLE[(2 << 8) | (register >>> 8)];
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
     * The CRC-16 of a range after its first byte changed, from its CRC before, without reading the range: the CRC is
     * linear, so the CRC of {@code m ^ d} is the CRC of {@code m} XOR the zero-initialised CRC of {@code d}, and
     * {@code d} is one byte followed by zeros. A switch rewrites a packet's VL (the top four bits of the LRH's first
     * byte) this way: the VCRC it received, and checked, becomes the VCRC of the hop in a few loads instead of a pass
     * over the packet.
     *
     * @param crc    the range's CRC before the change (as {@link #compute} gives it).
     * @param length the range's length: a multiple of 4 from 4 to {@link #MAX_PATCH_LENGTH} (a packet through its
     *               ICRC).
     * @param xor    the change: the first byte's old value XOR its new value, 0..255.
     * @return the range's CRC after the change, 0..0xFFFF.
     * @throws IllegalArgumentException for a length not a multiple of 4 in that range (a caller's mistake).
     */
    public static int patchFirstByte(final int crc, final int length, final int xor)
    {
        if ((length & 3) != 0 || length < 4 || length > MAX_PATCH_LENGTH)
        {
            throw new IllegalArgumentException("length " + length + ": give a multiple of 4 from 4 to " +
                MAX_PATCH_LENGTH);
        }
        final int row = (length >>> 2) << 3;
        int patched = crc;
        for (int bits = xor & 0xFF; bits != 0; bits &= bits - 1)
        {
            patched ^= PATCH[row + Integer.numberOfTrailingZeros(bits)];
        }
        return patched;
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
     * form (docs/wire.md, "LPCRC"). Four table lookups, no memory access besides the table.
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

    /**
     * The CRC of a range after its last four bytes changed, without reading the range again: a CRC is linear in
     * its message, so changing the last bytes by {@code d} changes the register by the CRC of {@code d} alone from
     * 0 (nothing follows them to shift it), one slicing-by-4 step. A framer computes the VCRC while the ICRC is
     * still zero, then puts the ICRC in.
     *
     * @param crc      the CRC of the range with its last four bytes {@code previous}.
     * @param previous the last four bytes as they were, as a little-endian int (the first byte lowest).
     * @param current  the last four bytes now, as a little-endian int.
     * @return the CRC of the range with its last four bytes {@code current}.
     */
    public static int replaceLastInt(final int crc, final int previous, final int current)
    {
        final int x = previous ^ current;
        return crc ^ TABLE[(3 << 8) + (x & 0xFF)] ^
            TABLE[(2 << 8) + ((x >>> 8) & 0xFF)] ^
            TABLE[(1 << 8) + ((x >>> 16) & 0xFF)] ^
            TABLE[x >>> 24];
    }

    /**
     * The register after a range, from {@code initial}, without the final XOR.
     */
    static int update(final int initial, final Object base, final long address, final int length)
    {
        if (length >= FOLD_MIN_LENGTH)
        {
            return fold(initial, base, address, length);
        }
        if (length < FOLD_TAIL_MIN_LENGTH)
        {
            return slice(initial, base, address, address + length);
        }

        // the last 128 or 64 bytes are folded, what comes before them goes through the tables
        final long end = address + length;
        if (length >= 128)
        {
            final long p = end - 128;
            final long crc = slice(initial, base, address, p);
            return fold128(
                word(base, p) ^ crc, word(base, p + 8), word(base, p + 16), word(base, p + 24),
                word(base, p + 32), word(base, p + 40), word(base, p + 48), word(base, p + 56),
                word(base, p + 64), word(base, p + 72), word(base, p + 80), word(base, p + 88),
                word(base, p + 96), word(base, p + 104), word(base, p + 112), word(base, p + 120));
        }
        final long p = end - 64;
        final long crc = slice(initial, base, address, p);
        return fold64(
            word(base, p) ^ crc, word(base, p + 8), word(base, p + 16), word(base, p + 24),
            word(base, p + 32), word(base, p + 40), word(base, p + 48), word(base, p + 56));
    }

    /**
     * Word folding (see the class comment), for {@code length >= FOLD_MIN_LENGTH}. The range is: {@code length % 8}
     * leading bytes through the tables, then W = {@code length / 8} words, of which the first W - 16 are cleared
     * and the last 16 go to {@link #fold128}. The clearing loop takes 16 words a turn, one register per word modulo
     * 16; when W - 16 is not a multiple of 16 the first turn starts part-way, as if zero words (which change
     * nothing) came before the range.
     */
    @SuppressWarnings("fallthrough")
    private static int fold(final int initial, final Object base, final long address, final int length)
    {
        final int head = length & 7;
        final long start = address + head;
        final int cleared = (length >>> 3) - FOLD_WORDS;
        final long tail = start + ((long)cleared << 3);
        final int z = -cleared & (FOLD_WORDS - 1);

        // the register after the head goes into the first word's low 16 bits: s[z] is the first word's c[i-16]
        final long crc = slice(initial, base, address, start);
        long s0 = z == 0 ? crc : 0;
        long s1 = z == 1 ? crc : 0;
        long s2 = z == 2 ? crc : 0;
        long s3 = z == 3 ? crc : 0;
        long s4 = z == 4 ? crc : 0;
        long s5 = z == 5 ? crc : 0;
        long s6 = z == 6 ? crc : 0;
        long s7 = z == 7 ? crc : 0;
        long s8 = z == 8 ? crc : 0;
        long s9 = z == 9 ? crc : 0;
        long s10 = z == 10 ? crc : 0;
        long s11 = z == 11 ? crc : 0;
        long s12 = z == 12 ? crc : 0;
        long s13 = z == 13 ? crc : 0;
        long s14 = z == 14 ? crc : 0;
        long s15 = z == 15 ? crc : 0;

        long q = start - ((long)z << 3);
        switch (z)
        {
            case 0:
                s0 = word(base, q) ^ s0 ^ s1 ^ s3 ^ s12;
            case 1:
                s1 = word(base, q + 8) ^ s1 ^ s2 ^ s4 ^ s13;
            case 2:
                s2 = word(base, q + 16) ^ s2 ^ s3 ^ s5 ^ s14;
            case 3:
                s3 = word(base, q + 24) ^ s3 ^ s4 ^ s6 ^ s15;
            case 4:
                s4 = word(base, q + 32) ^ s4 ^ s5 ^ s7 ^ s0;
            case 5:
                s5 = word(base, q + 40) ^ s5 ^ s6 ^ s8 ^ s1;
            case 6:
                s6 = word(base, q + 48) ^ s6 ^ s7 ^ s9 ^ s2;
            case 7:
                s7 = word(base, q + 56) ^ s7 ^ s8 ^ s10 ^ s3;
            case 8:
                s8 = word(base, q + 64) ^ s8 ^ s9 ^ s11 ^ s4;
            case 9:
                s9 = word(base, q + 72) ^ s9 ^ s10 ^ s12 ^ s5;
            case 10:
                s10 = word(base, q + 80) ^ s10 ^ s11 ^ s13 ^ s6;
            case 11:
                s11 = word(base, q + 88) ^ s11 ^ s12 ^ s14 ^ s7;
            case 12:
                s12 = word(base, q + 96) ^ s12 ^ s13 ^ s15 ^ s8;
            case 13:
                s13 = word(base, q + 104) ^ s13 ^ s14 ^ s0 ^ s9;
            case 14:
                s14 = word(base, q + 112) ^ s14 ^ s15 ^ s1 ^ s10;
            case 15:
                s15 = word(base, q + 120) ^ s15 ^ s0 ^ s2 ^ s11;
        }

        for (q += FOLD_WORDS * 8; q < tail; q += FOLD_WORDS * 8)
        {
            s0 = word(base, q) ^ s0 ^ s1 ^ s3 ^ s12;
            s1 = word(base, q + 8) ^ s1 ^ s2 ^ s4 ^ s13;
            s2 = word(base, q + 16) ^ s2 ^ s3 ^ s5 ^ s14;
            s3 = word(base, q + 24) ^ s3 ^ s4 ^ s6 ^ s15;
            s4 = word(base, q + 32) ^ s4 ^ s5 ^ s7 ^ s0;
            s5 = word(base, q + 40) ^ s5 ^ s6 ^ s8 ^ s1;
            s6 = word(base, q + 48) ^ s6 ^ s7 ^ s9 ^ s2;
            s7 = word(base, q + 56) ^ s7 ^ s8 ^ s10 ^ s3;
            s8 = word(base, q + 64) ^ s8 ^ s9 ^ s11 ^ s4;
            s9 = word(base, q + 72) ^ s9 ^ s10 ^ s12 ^ s5;
            s10 = word(base, q + 80) ^ s10 ^ s11 ^ s13 ^ s6;
            s11 = word(base, q + 88) ^ s11 ^ s12 ^ s14 ^ s7;
            s12 = word(base, q + 96) ^ s12 ^ s13 ^ s15 ^ s8;
            s13 = word(base, q + 104) ^ s13 ^ s14 ^ s0 ^ s9;
            s14 = word(base, q + 112) ^ s14 ^ s15 ^ s1 ^ s10;
            s15 = word(base, q + 120) ^ s15 ^ s0 ^ s2 ^ s11;
        }

        // the last 16 words with what the cleared words folded into them: c[k] of the last turn is in s[k]
        final long e0 = word(base, tail) ^ s0 ^ s1 ^ s3 ^ s12;
        final long e1 = word(base, tail + 8) ^ s1 ^ s2 ^ s4 ^ s13;
        final long e2 = word(base, tail + 16) ^ s2 ^ s3 ^ s5 ^ s14;
        final long e3 = word(base, tail + 24) ^ s3 ^ s4 ^ s6 ^ s15;
        final long e4 = word(base, tail + 32) ^ s4 ^ s5 ^ s7;
        final long e5 = word(base, tail + 40) ^ s5 ^ s6 ^ s8;
        final long e6 = word(base, tail + 48) ^ s6 ^ s7 ^ s9;
        final long e7 = word(base, tail + 56) ^ s7 ^ s8 ^ s10;
        final long e8 = word(base, tail + 64) ^ s8 ^ s9 ^ s11;
        final long e9 = word(base, tail + 72) ^ s9 ^ s10 ^ s12;
        final long e10 = word(base, tail + 80) ^ s10 ^ s11 ^ s13;
        final long e11 = word(base, tail + 88) ^ s11 ^ s12 ^ s14;
        final long e12 = word(base, tail + 96) ^ s12 ^ s13 ^ s15;
        final long e13 = word(base, tail + 104) ^ s13 ^ s14;
        final long e14 = word(base, tail + 112) ^ s14 ^ s15;
        final long e15 = word(base, tail + 120) ^ s15;

        return fold128(e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15);
    }

    /**
     * 128 bytes as 16 little-endian longs (the register folded into the first): cleared as 32-bit words with
     * P(x^32) = P(x)^32, the first 16 ints into ints i+4, i+13, i+15, i+16 (in longs, a distance that is not a
     * whole long is a shift by 32), leaving 64 bytes.
     */
    private static int fold128(
        final long e0, final long e1, final long e2, final long e3, final long e4, final long e5, final long e6,
        final long e7, final long e8, final long e9, final long e10, final long e11, final long e12, final long e13,
        final long e14, final long e15)
    {
        final long f2 = e2 ^ e0;
        final long f3 = e3 ^ e1;
        final long f4 = e4 ^ f2;
        final long f5 = e5 ^ f3;
        final long f6 = e6 ^ (e0 << 32) ^ f4;
        final long f7 = e7 ^ (e0 >>> 32) ^ (e0 << 32) ^ (e1 << 32) ^ f5;
        final long f8 = e8 ^ (e0 >>> 32) ^ e0 ^ (e1 >>> 32) ^ (e1 << 32) ^ (f2 << 32) ^ f6;
        final long f9 = e9 ^ (e1 >>> 32) ^ e1 ^ (f2 >>> 32) ^ (f2 << 32) ^ (f3 << 32) ^ f7;
        final long f10 = e10 ^ (f2 >>> 32) ^ f2 ^ (f3 >>> 32) ^ (f3 << 32) ^ (f4 << 32);
        final long f11 = e11 ^ (f3 >>> 32) ^ f3 ^ (f4 >>> 32) ^ (f4 << 32) ^ (f5 << 32);
        final long f12 = e12 ^ (f4 >>> 32) ^ f4 ^ (f5 >>> 32) ^ (f5 << 32) ^ (f6 << 32);
        final long f13 = e13 ^ (f5 >>> 32) ^ f5 ^ (f6 >>> 32) ^ (f6 << 32) ^ (f7 << 32);
        final long f14 = e14 ^ (f6 >>> 32) ^ f6 ^ (f7 >>> 32) ^ (f7 << 32);
        final long f15 = e15 ^ (f7 >>> 32) ^ f7;

        return fold64(f8, f9, f10, f11, f12, f13, f14, f15);
    }

    /** 64 bytes as 8 longs: cleared as 16-bit words with P(x^16), leaving 32 bytes. */
    private static int fold64(
        final long f0, final long f1, final long f2, final long f3, final long f4, final long f5, final long f6,
        final long f7)
    {
        final long h1 = f1 ^ f0;
        final long h2 = f2 ^ h1;
        final long h3 = f3 ^ (f0 << 16) ^ (f0 << 48) ^ h2;
        final long h4 = f4 ^ (f0 >>> 48) ^ (f0 >>> 16) ^ f0 ^ (h1 << 16) ^ (h1 << 48) ^ h3;
        final long h5 = f5 ^ (h1 >>> 48) ^ (h1 >>> 16) ^ h1 ^ (h2 << 16) ^ (h2 << 48);
        final long h6 = f6 ^ (h2 >>> 48) ^ (h2 >>> 16) ^ h2 ^ (h3 << 16) ^ (h3 << 48);
        final long h7 = f7 ^ (h3 >>> 48) ^ (h3 >>> 16) ^ h3;

        return fold32(h4, h5, h6, h7);
    }

    /**
     * 32 bytes as 4 longs: cleared as bytes with P(x^8); byte i+4 of the first 16 is in the same long, so a long
     * {@code x} of them clears as {@code x ^ (x << 32)}. The last 16 bytes go through the tables.
     */
    private static int fold32(final long h0, final long h1, final long h2, final long h3)
    {
        final long b0 = h0 ^ (h0 << 32);
        final long b1x = h1 ^ (b0 >>> 32) ^ (b0 << 40) ^ (b0 << 56);
        final long b1 = b1x ^ (b1x << 32);
        final long b2 = h2 ^ (b0 >>> 24) ^ (b0 >>> 8) ^ b0 ^ (b1 >>> 32) ^ (b1 << 40) ^ (b1 << 56);
        final long b3 = h3 ^ (b1 >>> 24) ^ (b1 >>> 8) ^ b1;

        return slice16(0, b2, b3);
    }

    private static int slice(final int initial, final Object base, final long address, final long end)
    {
        int crc = initial;
        long p = address;

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
            final int x = u16(base, p) ^ crc;
            crc = rest ^ TABLE[(15 << 8) + (x & 0xFF)] ^ TABLE[(14 << 8) + (x >>> 8)];
        }

        if (p <= end - 8)
        {
            final int rest =
                ((TABLE[(5 << 8) + u8(base, p + 2)] ^ TABLE[(4 << 8) + u8(base, p + 3)]) ^
                (TABLE[(3 << 8) + u8(base, p + 4)] ^ TABLE[(2 << 8) + u8(base, p + 5)])) ^
                (TABLE[(1 << 8) + u8(base, p + 6)] ^ TABLE[u8(base, p + 7)]);
            final int x = u16(base, p) ^ crc;
            crc = rest ^ TABLE[(7 << 8) + (x & 0xFF)] ^ TABLE[(6 << 8) + (x >>> 8)];
            p += 8;
        }

        if (p <= end - 4)
        {
            final int rest = TABLE[(1 << 8) + u8(base, p + 2)] ^ TABLE[u8(base, p + 3)];
            final int x = u16(base, p) ^ crc;
            crc = rest ^ TABLE[(3 << 8) + (x & 0xFF)] ^ TABLE[(2 << 8) + (x >>> 8)];
            p += 4;
        }

        for (; p < end; p++)
        {
            crc = (crc >>> 8) ^ TABLE[(crc ^ UnsafeApi.getByte(base, p)) & 0xFF];
        }

        return crc;
    }

    /**
     * Slicing-by-16 on two words already in registers: {@code a} holds the first 8 bytes (little-endian), {@code b}
     * the next 8. As in {@link #slice}, only the first two bytes meet the register; the rest is summed first.
     */
    private static int slice16(final int crc, final long a, final long b)
    {
        final int rest =
            ((TABLE[(13 << 8) + (int)((a >>> 16) & 0xFF)] ^ TABLE[(12 << 8) + (int)((a >>> 24) & 0xFF)]) ^
            (TABLE[(11 << 8) + (int)((a >>> 32) & 0xFF)] ^ TABLE[(10 << 8) + (int)((a >>> 40) & 0xFF)])) ^
            ((TABLE[(9 << 8) + (int)((a >>> 48) & 0xFF)] ^ TABLE[(8 << 8) + (int)(a >>> 56)]) ^
            (TABLE[(7 << 8) + (int)(b & 0xFF)] ^ TABLE[(6 << 8) + (int)((b >>> 8) & 0xFF)])) ^
            ((TABLE[(5 << 8) + (int)((b >>> 16) & 0xFF)] ^ TABLE[(4 << 8) + (int)((b >>> 24) & 0xFF)]) ^
            (TABLE[(3 << 8) + (int)((b >>> 32) & 0xFF)] ^ TABLE[(2 << 8) + (int)((b >>> 40) & 0xFF)])) ^
            (TABLE[(1 << 8) + (int)((b >>> 48) & 0xFF)] ^ TABLE[(int)(b >>> 56)]);
        final int x = ((int)a & 0xFFFF) ^ crc;
        return rest ^ TABLE[(15 << 8) + (x & 0xFF)] ^ TABLE[(14 << 8) + (x >>> 8)];
    }

    private static long word(final Object base, final long address)
    {
        return UnsafeApi.getLongUnaligned(base, address, false);
    }

    private static int u16(final Object base, final long address)
    {
        return UnsafeApi.getShortUnaligned(base, address, false) & 0xFFFF;
    }

    private static int u8(final Object base, final long address)
    {
        return UnsafeApi.getByte(base, address) & 0xFF;
    }
}
