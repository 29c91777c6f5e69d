package io.vlink.bench;

import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;

/**
 * Benchmark-only copy of {@code Crc16.compute} as it was before word folding (tables, slicing-by-16 at every
 * length), so {@link CrcBenchmark} measures old against new in the same run on the shared machine.
 */
final class Crc16Slicing16
{
    private static final int SLICES = 16;
    private static final char[] TABLE = new char[SLICES * 256];

    static
    {
        for (int b = 0; b < 256; b++)
        {
            int crc = b;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xD008 : crc >>> 1;
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

    private Crc16Slicing16()
    {
    }

    static int compute(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.boundsCheck(offset, length);
        return update(0xFFFF, buffer.byteArray(), buffer.addressOffset() + offset, length) ^ 0xFFFF;
    }

    private static int update(final int initial, final Object base, final long address, final int length)
    {
        int crc = initial;
        long p = address;
        final long end = address + length;

        for (final long limit = end - SLICES; p <= limit; p += SLICES)
        {
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
