package io.vlink.core.crc;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
