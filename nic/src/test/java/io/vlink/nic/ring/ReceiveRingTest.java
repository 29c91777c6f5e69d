package io.vlink.nic.ring;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

class ReceiveRingTest
{
    private final List<ReceiveRing> rings = new ArrayList<>();
    private final UnsafeBuffer packet = new UnsafeBuffer(new byte[256]);
    private final List<String> seen = new ArrayList<>();
    private final ReceiveRing.PacketConsumer record = this::record;

    @AfterEach
    void free()
    {
        rings.forEach(ReceiveRing::close);
    }

    private ReceiveRing ring(final int blocks, final int maxPacket)
    {
        final ReceiveRing ring = new ReceiveRing(blocks, maxPacket);
        rings.add(ring);
        return ring;
    }

    private void fill(final int size, final int seed)
    {
        for (int i = 0; i < size; i++)
        {
            packet.putByte(i, (byte)(seed + i));
        }
    }

    private void record(final DirectBuffer buffer, final int offset, final int length)
    {
        final StringBuilder text = new StringBuilder().append(length).append(':');
        for (int i = 0; i < length; i++)
        {
            text.append(buffer.getByte(offset + i)).append(',');
        }
        seen.add(text.toString());
    }

    private String expected(final int size, final int seed)
    {
        final StringBuilder text = new StringBuilder().append(size).append(':');
        for (int i = 0; i < size; i++)
        {
            text.append((byte)(seed + i)).append(',');
        }
        return text.toString();
    }

    @Test
    void chargesWholeBlocksAndRefusesWhatDoesNotFit()
    {
        final ReceiveRing ring = ring(4, 256);
        assertEquals(4, ring.freeBlocks());
        fill(65, 1);
        assertTrue(ring.offer(packet, 0, 65), "65 bytes: two blocks");
        assertEquals(2, ring.freeBlocks());
        fill(128, 2);
        assertTrue(ring.offer(packet, 0, 128));
        assertEquals(0, ring.freeBlocks());
        assertFalse(ring.offer(packet, 0, 1), "full: nothing stored");
        assertEquals(2, ring.size());

        assertEquals(1, ring.poll(record, 1));
        assertEquals(List.of(expected(65, 1)), seen);
        assertEquals(2, ring.releasedBlocks());
        assertEquals(2, ring.freeBlocks());
        assertFalse(ring.offer(packet, 0, 129), "three blocks do not fit in two");
        assertEquals(1, ring.poll(record, 16));
        assertEquals(expected(128, 2), seen.get(1));
        assertEquals(0, ring.poll(record, 16));
        assertEquals(4, ring.releasedBlocks());
        assertEquals(0, ring.size());
    }

    @Test
    void peekLeavesThePacketAndItsBlocks()
    {
        final ReceiveRing ring = ring(2, 128);
        assertFalse(ring.peek(record), "empty");
        fill(100, 7);
        assertTrue(ring.offer(packet, 0, 100));
        assertTrue(ring.peek(record));
        assertTrue(ring.peek(record));
        assertEquals(0, ring.freeBlocks());
        assertEquals(1, ring.poll(record, 1));
        assertEquals(List.of(expected(100, 7), expected(100, 7), expected(100, 7)), seen);
        assertFalse(ring.peek(record));
    }

    /**
     * A descriptor slot is reused once per lap, and its lap tag has 16 bits: a one-block ring (one slot) carries
     * more than 2^16 packets, and at every step the slot's previous packet is never taken for the next one.
     */
    @Test
    void aSlotsPreviousPacketIsNeverTakenForTheNextThroughTheTagsWrap()
    {
        final ReceiveRing ring = ring(1, 64);
        for (int i = 0; i < (1 << 16) + 50; i++)
        {
            assertEquals(0, ring.poll(record, 4), "empty before packet " + i);
            assertFalse(ring.peek(record));
            fill(1 + (i & 63), i);
            assertTrue(ring.offer(packet, 0, 1 + (i & 63)), "packet " + i);
            assertFalse(ring.offer(packet, 0, 1), "full after packet " + i);
            assertEquals(1, ring.poll(record, 4), "packet " + i);
            assertEquals(expected(1 + (i & 63), i), seen.get(0), "packet " + i);
            seen.clear();
        }
        assertEquals((1 << 16) + 50, ring.releasedBlocks());
    }

    /** Random sizes through a ring whose packets wrap past its end (the overhang), drained in random batches. */
    @Test
    void keepsOrderAndBytesAcrossTheEndOfTheBlockArea()
    {
        final ReceiveRing ring = ring(7, 256);
        final SplittableRandom random = new SplittableRandom(20261125L);
        final List<String> sent = new ArrayList<>();
        int seed = 0;
        for (int step = 0; step < 20_000; step++)
        {
            if (random.nextBoolean())
            {
                final int size = 1 + random.nextInt(256);
                fill(size, seed);
                final boolean fits = ring.freeBlocks() >= (size + 63) / 64;
                assertEquals(fits, ring.offer(packet, 0, size));
                if (fits)
                {
                    sent.add(expected(size, seed));
                    seed++;
                }
            }
            else
            {
                ring.poll(record, 1 + random.nextInt(3));
            }
        }
        ring.poll(record, Integer.MAX_VALUE);
        assertEquals(sent, seen);
        assertEquals(7, ring.freeBlocks());
    }
}
