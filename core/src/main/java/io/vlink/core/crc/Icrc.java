package io.vlink.core.crc;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.zip.CRC32;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The invariant CRC of an IBA data packet (spec {@code wire.md}, "ICRC"): the standard CRC-32 of
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
    public static final int LOCAL_HEADERS_LENGTH = 8 + 12;
    /** LRH (8) + GRH (40) + BTH (12): the masked prefix of a global packet. */
    public static final int GLOBAL_HEADERS_LENGTH = 8 + 40 + 12;
    public static final int LENGTH = 4;

    private static final int LNH_LOCAL = 2;
    private static final int LNH_GLOBAL = 3;
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
        return finish(buffer, offset, size, prepare(buffer, offset, size));
    }

    /**
     * First half of {@link #compute}: the masked headers go to the scratch array. Split so that a caller can do
     * other work on the packet (its VCRC) before {@link #finish}: the CRC-32 stub reads the scratch array with
     * 16-byte loads, which cannot be forwarded from the 8-byte stores that just wrote it, and would wait for them
     * to reach the cache (measured: 38 ns for a 64-byte packet against 12 ns once the stores are old).
     *
     * @param buffer holding the packet.
     * @param offset of the first LRH byte.
     * @param size   bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @return the headers' length, to pass to {@link #finish}.
     * @throws IllegalArgumentException if the packet is raw or too small for its headers (a caller's mistake).
     */
    public int prepare(final DirectBuffer buffer, final int offset, final int size)
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
     * Second half of {@link #compute}, after {@link #prepare} on the same packet (nothing else in between may use
     * this instance).
     *
     * @param buffer  holding the packet.
     * @param offset  of the first LRH byte.
     * @param size    bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @param headers what {@link #prepare} returned.
     * @return the ICRC, as {@link CRC32#getValue()} would give it; it goes on the wire low byte first.
     */
    public int finish(final DirectBuffer buffer, final int offset, final int size, final int headers)
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
}
