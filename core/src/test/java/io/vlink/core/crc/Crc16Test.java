package io.vlink.core.crc;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class Crc16Test
{
    /** Bit at a time, straight from the definition: the reference the tables must agree with. */
    static int reference(final byte[] bytes, final int offset, final int length)
    {
        int crc = 0xFFFF;
        for (int i = offset; i < offset + length; i++)
        {
            crc ^= bytes[i] & 0xFF;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ 0xD008 : crc >>> 1;
            }
        }
        return crc ^ 0xFFFF;
    }

    @Test
    void checkValueOfTheSpec()
    {
        final byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x0A3D, Crc16.compute(check, 0, check.length));
        assertEquals(0x0A3D, Crc16.compute(new UnsafeBuffer(check), 0, check.length));
        assertEquals(0x0A3D, reference(check, 0, check.length));
    }

    @Test
    void lpcrcVectorsOfTheSpec()
    {
        assertEquals(0x9FD1, Crc16.ofWord(0x01233456));
        assertEquals(0x0C38, Crc16.ofWord(0x100000FF));
        assertEquals(0x62B3, Crc16.ofWord(0x00000000));
        assertEquals(0x9FD1, Crc16.compute(new byte[] {0x01, 0x23, 0x34, 0x56}, 0, 4));
    }

    @Test
    void aPatchedCrcIsTheCrcOfTheChangedRangeForEveryPacketLengthAndChange()
    {
        final java.util.SplittableRandom random = new java.util.SplittableRandom(16);
        final byte[] bytes = new byte[Crc16.MAX_PATCH_LENGTH];
        random.nextBytes(bytes);
        for (int length = 4; length <= Crc16.MAX_PATCH_LENGTH; length += 4)
        {
            final int before = Crc16.compute(bytes, 0, length);
            final int xor = length <= 64 ? length * 4 & 0xFF : 1 + random.nextInt(255);
            for (final int change : new int[]{xor, 0x10, 0xF0, 0x80, 0x01, 0})
            {
                bytes[0] ^= (byte)change;
                assertEquals(reference(bytes, 0, length), Crc16.patchFirstByte(before, length, change),
                    "length " + length + " change " + change);
                bytes[0] ^= (byte)change;
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Crc16.patchFirstByte(0, 6, 1));
        assertThrows(IllegalArgumentException.class, () -> Crc16.patchFirstByte(0, 0, 1));
        assertThrows(IllegalArgumentException.class, () -> Crc16.patchFirstByte(0, Crc16.MAX_PATCH_LENGTH + 4, 1));
    }

    @Test
    void emptyRangeIsTheCrcOfNothing()
    {
        assertEquals(0xFFFF ^ 0xFFFF, Crc16.compute(new byte[0], 0, 0));
    }

    @Test
    void rangeOutsideTheArrayIsRefused()
    {
        assertThrows(IndexOutOfBoundsException.class, () -> Crc16.compute(new byte[8], 4, 5));
        assertThrows(IndexOutOfBoundsException.class, () -> Crc16.compute(new UnsafeBuffer(new byte[8]), 4, 5));
    }

    @Property(seed = "16", tries = 300)
    void tablesAgreeWithTheDefinitionAtEveryLengthAndAlignment(
        @ForAll @Size(min = 0, max = 200) final byte[] bytes,
        @ForAll @IntRange(min = 0, max = 7) final int shift)
    {
        final byte[] shifted = new byte[bytes.length + shift];
        System.arraycopy(bytes, 0, shifted, shift, bytes.length);
        final int expected = reference(bytes, 0, bytes.length);

        assertEquals(expected, Crc16.compute(shifted, shift, bytes.length));
        assertEquals(expected, Crc16.compute(new UnsafeBuffer(shifted), shift, bytes.length));

        final ByteBuffer direct = BufferUtil.allocateDirectAligned(Math.max(64, (shifted.length + 63) & ~63), 64);
        final UnsafeBuffer offHeap = new UnsafeBuffer(direct);
        offHeap.putBytes(0, shifted);
        assertEquals(expected, Crc16.compute(offHeap, shift, bytes.length));
    }

    @Property(seed = "17", tries = 200)
    void ofWordIsTheCrcOfTheWordsFourBigEndianBytes(@ForAll final int word)
    {
        final byte[] bytes = {(byte)(word >>> 24), (byte)(word >>> 16), (byte)(word >>> 8), (byte)word};
        assertEquals(reference(bytes, 0, 4), Crc16.ofWord(word));
    }

    @Property(seed = "18", tries = 300)
    void replacingTheLastFourBytesIsTheCrcOfTheChangedRange(
        @ForAll @Size(min = 4, max = 300) final byte[] bytes,
        @ForAll final int replacement)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final int last = bytes.length - 4;
        final int before = Crc16.compute(buffer, 0, bytes.length);
        final int previous = buffer.getInt(last, java.nio.ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(last, replacement, java.nio.ByteOrder.LITTLE_ENDIAN);

        assertEquals(reference(bytes, 0, bytes.length), Crc16.replaceLastInt(before, previous, replacement));
    }
}
