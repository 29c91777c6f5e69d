package io.vlink.core.crc;

import io.vlink.core.wire.Icrc;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class IcrcTest
{
    /** The definition (wire.md): CRC-32 of a copy of the packet with its variant fields set to 1s. */
    static int reference(final byte[] packet, final int size)
    {
        final byte[] masked = packet.clone();
        final int lnh = masked[1] & 3;
        if (lnh == 2)
        {
            masked[0] |= (byte)0xF0;
            masked[12] = (byte)0xFF;
        }
        else
        {
            for (int i = 0; i < 8; i++)
            {
                masked[i] = (byte)0xFF;
            }
            masked[8] |= 0x0F;
            masked[9] = (byte)0xFF;
            masked[10] = (byte)0xFF;
            masked[11] = (byte)0xFF;
            masked[15] = (byte)0xFF;
            masked[52] = (byte)0xFF;
        }
        final CRC32 crc = new CRC32();
        crc.update(masked, 0, size - 4);
        return (int)crc.getValue();
    }

    @Property(seed = "61", tries = 500)
    void everyLocalAndGlobalPacketMatchesTheDefinitionOnHeapAndOffHeap(
        @ForAll @IntRange(min = 6, max = 1100) final int dwords,
        @ForAll final boolean global,
        @ForAll @IntRange(min = 0, max = 3) final int shift,
        @ForAll final long seed)
    {
        final int size = global ? Math.max(dwords, 16) * 4 : dwords * 4;
        final byte[] packet = new byte[size];
        new SplittableRandom(seed).nextBytes(packet);
        packet[1] = (byte)((packet[1] & ~3) | (global ? 3 : 2));
        final int expected = reference(packet, size);

        final Icrc icrc = new Icrc();
        final byte[] shifted = new byte[size + shift];
        System.arraycopy(packet, 0, shifted, shift, size);
        assertEquals(expected, icrc.compute(new UnsafeBuffer(shifted), shift, size));

        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(size + shift));
        direct.putBytes(shift, packet);
        assertEquals(expected, icrc.compute(direct, shift, size));
    }

    /**
     * Memory that is neither a Java array nor a {@link ByteBuffer} (an address and a length, as a mapped file or
     * another allocator hands it out) goes through the scratch array in chunks: every length, on either side of a
     * chunk's end, local packets too long for the fast path included, gives the definition's value.
     */
    @Property(seed = "62", tries = 300)
    void packetsInRawMemoryMatchTheDefinition(
        @ForAll @IntRange(min = 16, max = 1400) final int dwords,
        @ForAll final boolean global,
        @ForAll @IntRange(min = 0, max = 7) final int shift,
        @ForAll final long seed)
    {
        final int size = dwords * 4;
        final byte[] packet = new byte[size];
        new SplittableRandom(seed).nextBytes(packet);
        packet[1] = (byte)((packet[1] & ~3) | (global ? 3 : 2));

        final ByteBuffer memory = ByteBuffer.allocateDirect(size + shift);
        final UnsafeBuffer raw = new UnsafeBuffer(new UnsafeBuffer(memory).addressOffset(), size + shift);
        raw.putBytes(shift, packet);
        assertEquals(reference(packet, size), new Icrc().compute(raw, shift, size));
    }

    @Test
    void aPacketTooSmallForItsHeadersIsACallersMistake()
    {
        final Icrc icrc = new Icrc();
        final UnsafeBuffer local = new UnsafeBuffer(new byte[64]);
        local.putByte(1, (byte)2);
        assertThrows(IllegalArgumentException.class, () -> icrc.compute(local, 0, 20));
        assertEquals(reference(local.byteArray(), 24), icrc.compute(local, 0, 24));

        final UnsafeBuffer global = new UnsafeBuffer(new byte[128]);
        global.putByte(1, (byte)3);
        assertThrows(IllegalArgumentException.class, () -> icrc.compute(global, 0, 60));
        assertEquals(reference(global.byteArray(), 64), icrc.compute(global, 0, 64));

        final UnsafeBuffer raw = new UnsafeBuffer(new byte[64]);
        raw.putByte(1, (byte)0);
        assertThrows(IllegalArgumentException.class, () -> icrc.compute(raw, 0, 24));
    }

    @Test
    void aPacketThatRunsPastItsBufferIsRefusedNotReadBeyondIt()
    {
        final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
        direct.putByte(64 + 1, (byte)3);
        assertThrows(IndexOutOfBoundsException.class, () -> new Icrc().compute(direct, 64, 256));
    }
}
