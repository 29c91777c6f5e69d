package io.vlink.core.wire;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The invariant CRC of an IBA data packet (docs/wire.md, "ICRC"): the standard CRC-32 of
 * {@link java.util.zip.CRC32} over the packet from the first LRH byte to the last byte before the ICRC, with the
 * variant fields read as 1s:
 * <ul>
 *     <li>local packets (LNH 2): the LRH VL nibble and BTH byte 4 (resv8a);</li>
 *     <li>global packets (LNH 3): all 8 LRH bytes, the GRH TClass, FlowLabel and HopLmt, and BTH byte 4.</li>
 * </ul>
 * Raw packets (LNH 0, 1) carry no ICRC.
 * <p>
 * The packet is not copied: the headers, masked, are fed from a small reused scratch array (20 or 60 bytes), the
 * rest straight from the buffer to the JDK's intrinsified CRC-32 (its backing array, or a reused view of its
 * {@link ByteBuffer}). Only a buffer over raw memory with neither goes through the scratch array in chunks.
 * <p>
 * One instance per thread: it holds the CRC engine and the scratch array. Allocation-free once warm (a view is
 * made the first time a new {@link ByteBuffer} is seen and kept for the next packets).
 */
public final class Icrc
{
    /** LRH (8) + BTH (12): the masked prefix of a local packet. */
    public static final int LOCAL_HEADERS_LENGTH = LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    /** LRH (8) + GRH (40) + BTH (12): the masked prefix of a global packet. */
    public static final int GLOBAL_HEADERS_LENGTH = LrhFlyweight.LENGTH + GrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    public static final int LENGTH = Sizes.ICRC_LENGTH;

    private static final int LNH_LOCAL = LrhFlyweight.LNH_LOCAL;
    private static final int LOCAL_MIN_SIZE = LOCAL_HEADERS_LENGTH + LENGTH;
    private static final int LNH_GLOBAL = LrhFlyweight.LNH_GLOBAL;
    private static final int CHUNK = 256;
    /** LRH bytes 0-7: the VL nibble. */
    private static final long LRH_VL_MASK = 0xF000_0000_0000_0000L;
    /** BTH bytes 0-7: byte 4, resv8a. */
    private static final long BTH_RESV8A_MASK = 0x0000_0000_FF00_0000L;
    /** GRH bytes 0-7: TClass and FlowLabel (all of the first word but IPVer), and HopLmt (byte 7). */
    private static final long GRH_VARIANT_MASK = 0x0FFF_FFFF_0000_00FFL;

    private final CRC32 crc32 = new CRC32();
    private final byte[] scratch = new byte[CHUNK];
    private final UnsafeBuffer scratchBuffer = new UnsafeBuffer(scratch);
    private ByteBuffer viewSource;
    private ByteBuffer view;

    /**
     * @param lnh the LRH LNH field.
     * @return the smallest packet size (LRH through ICRC) that can carry an ICRC for this LNH, or 0 if it has none.
     */
    public static int minSize(final int lnh)
    {
        switch (lnh)
        {
            case LNH_LOCAL:
                return LOCAL_HEADERS_LENGTH + LENGTH;
            case LNH_GLOBAL:
                return GLOBAL_HEADERS_LENGTH + LENGTH;
            default:
                return 0;
        }
    }

    /**
     * Computes the ICRC of an IBA packet. The LNH is read from the packet; the caller has checked that it is 2 or
     * 3 and that {@code size >= minSize(lnh)}.
     *
     * @param buffer holding the packet.
     * @param offset of the first LRH byte.
     * @param size   bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @return the ICRC, as {@link CRC32#getValue()} would give it; it goes on the wire low byte first.
     * @throws IllegalArgumentException if the packet is raw or too small for its headers (a caller's mistake).
     */
    public int compute(final DirectBuffer buffer, final int offset, final int size)
    {
        if ((buffer.getByte(offset + 1) & 0x3) == LNH_LOCAL && size <= LocalMask.MAX_SIZE && size >= LOCAL_MIN_SIZE)
        {
            // one CRC-32 pass over the packet as it is, corrected for its variant bits: nothing is stored first
            final CRC32 crc32 = this.crc32;
            crc32.reset();
            updateFromBuffer(buffer, offset, size - LENGTH);
            return (int)crc32.getValue() ^ LocalMask.correction(buffer, offset, size);
        }
        return finish(buffer, offset, size, prepare(buffer, offset, size));
    }

    /**
     * The general path, first half: the masked headers go to the scratch array. (The CRC-32 stub reads it with
     * 16-byte loads, which cannot be forwarded from the 8-byte stores that just wrote it: they wait for the stores
     * to reach the cache, which is why local packets take the path of {@link LocalMask} instead.)
     *
     * @param buffer holding the packet.
     * @param offset of the first LRH byte.
     * @param size   bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @return the headers' length, to pass to {@link #finish}.
     * @throws IllegalArgumentException if the packet is raw or too small for its headers (a caller's mistake).
     */
    private int prepare(final DirectBuffer buffer, final int offset, final int size)
    {
        final int lnh = buffer.getByte(offset + 1) & 0x3;
        final int headers = lnh == LNH_LOCAL ? LOCAL_HEADERS_LENGTH : lnh == LNH_GLOBAL ? GLOBAL_HEADERS_LENGTH : 0;
        if (headers == 0)
        {
            throw new IllegalArgumentException("raw packets (LNH " + lnh + ") carry no ICRC");
        }
        if (size < headers + LENGTH)
        {
            throw new IllegalArgumentException("size " + size + " too small for LNH " + lnh + " headers and ICRC");
        }

        // the headers go to the scratch array with the variant bits set, in 8-byte words (a bulk copy of a few
        // bytes costs more than the CRC of the whole packet); each mask below is read as big-endian bytes
        final UnsafeBuffer masked = this.scratchBuffer;
        if (lnh == LNH_LOCAL)
        {
            masked.putLong(0, buffer.getLong(offset, BIG_ENDIAN) | LRH_VL_MASK, BIG_ENDIAN);
            masked.putLong(8, buffer.getLong(offset + 8, BIG_ENDIAN) | BTH_RESV8A_MASK, BIG_ENDIAN);
            masked.putInt(16, buffer.getInt(offset + 16, BIG_ENDIAN), BIG_ENDIAN);
        }
        else
        {
            masked.putLong(0, -1L, BIG_ENDIAN);
            masked.putLong(8, buffer.getLong(offset + 8, BIG_ENDIAN) | GRH_VARIANT_MASK, BIG_ENDIAN);
            for (int i = 16; i < 48; i += 8)
            {
                masked.putLong(i, buffer.getLong(offset + i, BIG_ENDIAN), BIG_ENDIAN);
            }
            masked.putLong(48, buffer.getLong(offset + 48, BIG_ENDIAN) | BTH_RESV8A_MASK, BIG_ENDIAN);
            masked.putInt(56, buffer.getInt(offset + 56, BIG_ENDIAN), BIG_ENDIAN);
        }
        return headers;
    }

    /**
     * The general path, second half, after {@link #prepare} on the same packet.
     *
     * @param buffer  holding the packet.
     * @param offset  of the first LRH byte.
     * @param size    bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @param headers what {@link #prepare} returned.
     * @return the ICRC, as {@link CRC32#getValue()} would give it; it goes on the wire low byte first.
     */
    private int finish(final DirectBuffer buffer, final int offset, final int size, final int headers)
    {
        final CRC32 crc32 = this.crc32;
        crc32.reset();
        crc32.update(scratch, 0, headers);
        updateFromBuffer(buffer, offset + headers, size - LENGTH - headers);
        return (int)crc32.getValue();
    }

    private void updateFromBuffer(final DirectBuffer buffer, final int index, final int length)
    {
        buffer.boundsCheck(index, length);
        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            crc32.update(array, buffer.wrapAdjustment() + index, length);
            return;
        }

        final ByteBuffer source = buffer.byteBuffer();
        if (source != null)
        {
            if (source != viewSource)
            {
                viewSource = source;
                view = source.duplicate();
            }
            final int start = buffer.wrapAdjustment() + index;
            view.limit(start + length).position(start);
            crc32.update(view);
            return;
        }

        // raw memory without a ByteBuffer: feed it through the scratch array
        for (int done = 0; done < length; done += CHUNK)
        {
            final int n = Math.min(CHUNK, length - done);
            buffer.getBytes(index + done, scratch, 0, n);
            crc32.update(scratch, 0, n);
        }
    }

    /**
     * The ICRC of a local packet without copying its headers: a CRC is linear in its message, so the CRC of the
     * masked packet is the CRC of the packet as it is XOR the CRC, from 0, of the difference (the variant bits that
     * are 0: the LRH VL nibble's and BTH byte 4's), followed by the rest of the packet as zeros. That term depends
     * only on the twelve variant bits and the packet's length: per length L (LRH through payload, a multiple of 4)
     * three tables of 16, one per nibble (the VL nibble, then byte 12's low and high nibbles), XORed. 48 ints per
     * length up to {@link #MAX_SIZE}: 198 KiB, built once, on first use, in about a millisecond.
     */
    private static final class LocalMask
    {
        /** The largest packet a 4096-byte MTU allows (payload and 128 bytes of headers and ICRC). */
        static final int MAX_SIZE = 4096 + 128;
        private static final int POLYNOMIAL_REFLECTED = 0xEDB88320;
        private static final int RESV8A_INDEX = 12;
        private static final int ROW = 48;
        private static final int[] TABLE = build();

        static int correction(final DirectBuffer buffer, final int offset, final int size)
        {
            // the bits the mask sets that are 0 in the packet: a 1 in the difference
            final int vl = ~buffer.getByte(offset) >>> 4 & 0xF;
            final int resv8a = ~buffer.getByte(offset + RESV8A_INDEX) & 0xFF;
            final int row = ((size - LENGTH) >>> 2) * ROW;
            return TABLE[row + vl] ^ TABLE[row + 16 + (resv8a & 0xF)] ^ TABLE[row + 32 + (resv8a >>> 4)];
        }

        private static int[] build()
        {
            final int[] byteTable = new int[256];
            for (int b = 0; b < 256; b++)
            {
                int crc = b;
                for (int bit = 0; bit < 8; bit++)
                {
                    crc = (crc & 1) != 0 ? (crc >>> 1) ^ POLYNOMIAL_REFLECTED : crc >>> 1;
                }
                byteTable[b] = crc;
            }
            // basis[j]: the register, from 0, after the message of L bytes whose only 1 is variant bit j (bits 4-7
            // of byte 0, then bits 0-7 of byte 12), for the current L; it starts at the smallest L (LRH and BTH)
            final int minL = LOCAL_HEADERS_LENGTH;
            final int[] basis = new int[12];
            for (int j = 0; j < 12; j++)
            {
                final int position = j < 4 ? 0 : RESV8A_INDEX;
                final int bit = j < 4 ? 4 + j : j - 4;
                basis[j] = zeros(byteTable, byteTable[1 << bit], minL - position - 1);
            }
            final int[] table = new int[(MAX_SIZE - LENGTH) / 4 * ROW + ROW];
            for (int length = minL; length <= MAX_SIZE - LENGTH; length += 4)
            {
                final int row = (length >>> 2) * ROW;
                for (int nibble = 0; nibble < 3; nibble++)
                {
                    for (int n = 1; n < 16; n++)
                    {
                        // n's lowest set bit and the rest, already filled
                        final int low = Integer.numberOfTrailingZeros(n);
                        table[row + nibble * 16 + n] = table[row + nibble * 16 + (n & (n - 1))] ^ basis[nibble * 4 + low];
                    }
                }
                for (int j = 0; j < 12; j++)
                {
                    basis[j] = zeros(byteTable, basis[j], 4);
                }
            }
            return table;
        }

        private static int zeros(final int[] byteTable, final int register, final int count)
        {
            int crc = register;
            for (int i = 0; i < count; i++)
            {
                crc = (crc >>> 8) ^ byteTable[crc & 0xFF];
            }
            return crc;
        }
    }
}
