package io.vlink.core.crc;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.ExpandableDirectByteBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Crc16#compute} against the bit-at-a-time definition over every path: the tables alone below
 * {@link Crc16#FOLD_TAIL_MIN_LENGTH}, the halvings of the last 64 or 128 bytes below {@link Crc16#FOLD_MIN_LENGTH},
 * the word folding above it with every phase of its 16-word turns and every head of 0-7 bytes, at every alignment,
 * for every kind of buffer {@code compute} accepts.
 */
class Crc16RangeTest
{
    private static final int MAX_LENGTH = 9000;
    private static final int MAX_OFFSET = 64;
    private static final int CAPACITY = MAX_OFFSET + MAX_LENGTH;

    private static final byte[] BYTES = new byte[CAPACITY];
    private static final ByteBuffer DIRECT = BufferUtil.allocateDirectAligned(CAPACITY + 64, 64);
    private static final UnsafeBuffer RAW;
    private static final long RAW_ADDRESS;

    static
    {
        new SplittableRandom(0x100B).nextBytes(BYTES);
        final UnsafeBuffer direct = new UnsafeBuffer(DIRECT);
        direct.putBytes(0, BYTES);
        RAW_ADDRESS = direct.addressOffset();
        RAW = new UnsafeBuffer(RAW_ADDRESS, CAPACITY);
    }

    @AfterAll
    static void keepDirectReachable()
    {
        // RAW reads DIRECT's memory by address: keep the ByteBuffer alive until the last test
        assertEquals(CAPACITY + 64, DIRECT.capacity());
    }

    /** Every length up to three fold turns past the threshold, at offsets of every alignment modulo 8. */
    @Test
    void everyLengthAroundTheThresholdAndEveryPhase()
    {
        for (int length = 0; length <= Crc16.FOLD_MIN_LENGTH + 3 * 128 + 8; length++)
        {
            for (int offset = 0; offset < 8; offset++)
            {
                final int expected = Crc16Test.reference(BYTES, offset, length);
                final String where = "offset " + offset + " length " + length;
                assertEquals(expected, Crc16.compute(BYTES, offset, length), where);
                assertEquals(expected, Crc16.compute(RAW, offset, length), where);
            }
        }
    }

    @Property(seed = "4096", tries = 400)
    void agreesWithTheDefinitionForEveryKindOfBuffer(
        @ForAll @IntRange(min = 0, max = MAX_LENGTH) final int length,
        @ForAll @IntRange(min = 0, max = MAX_OFFSET) final int offset)
    {
        final int expected = Crc16Test.reference(BYTES, offset, length);

        assertEquals(expected, Crc16.compute(BYTES, offset, length));
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(BYTES), offset, length));
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(BYTES, offset, length), 0, length));
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(DIRECT), offset, length));
        assertEquals(expected, Crc16.compute(RAW, offset, length));
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(ByteBuffer.wrap(BYTES)), offset, length));

        final ByteBuffer heapSlice = ByteBuffer.wrap(BYTES, offset, length).slice();
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(heapSlice), 0, length));

        final DirectBuffer expandable = new ExpandableArrayBuffer(CAPACITY);
        ((ExpandableArrayBuffer)expandable).putBytes(0, BYTES);
        assertEquals(expected, Crc16.compute(expandable, offset, length));

        final ExpandableDirectByteBuffer expandableDirect = new ExpandableDirectByteBuffer(CAPACITY);
        expandableDirect.putBytes(0, BYTES);
        assertEquals(expected, Crc16.compute(expandableDirect, offset, length));
    }

    @Test
    void vectorsOfTheSpecStillHold()
    {
        // wire.md: frame 11 of the capture, VCRC bytes 30 81 (low byte first) over LRH through ICRC
        final byte[] ack = HexFormat.of().parseHex("00020004000700011140ffff0087040800d40a551f000001a8035550");
        assertEquals(0x8130, Crc16.compute(ack, 0, ack.length));
        assertEquals(0x9FD1, Crc16.compute(new byte[] {0x01, 0x23, 0x34, 0x56}, 0, 4));
        assertEquals(0x0C38, Crc16.compute(new byte[] {0x10, 0x00, 0x00, (byte)0xFF}, 0, 4));
        assertEquals(0x62B3, Crc16.compute(new byte[4], 0, 4));
    }

    /** One bit set in a zero range: each word position and bit order of the folding on its own. */
    @Test
    void singleBitsInALongZeroRangeAgreeWithTheDefinition()
    {
        final byte[] bytes = new byte[4120];
        final int clean = Crc16.compute(bytes, 0, bytes.length);
        assertEquals(Crc16Test.reference(bytes, 0, bytes.length), clean);
        for (int bit = 0; bit < bytes.length * 8; bit += 61)
        {
            bytes[bit >>> 3] ^= (byte)(1 << (bit & 7));
            assertEquals(Crc16Test.reference(bytes, 0, bytes.length), Crc16.compute(bytes, 0, bytes.length));
            bytes[bit >>> 3] ^= (byte)(1 << (bit & 7));
        }
    }
}
