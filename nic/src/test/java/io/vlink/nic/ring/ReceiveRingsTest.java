package io.vlink.nic.ring;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class ReceiveRingsTest
{
    @Test
    void countsEveryPacketStoredOnEveryVlAndNoRefusedOne()
    {
        final ReceiveRing[] byVl = new ReceiveRing[16];
        byVl[0] = new ReceiveRing(2, 128);
        byVl[15] = new ReceiveRing(4, 128);
        final ReceiveRings rings = new ReceiveRings(byVl);
        final UnsafeBuffer packet = new UnsafeBuffer(new byte[64]);
        try
        {
            assertEquals(0, rings.stored());
            assertSame(byVl, rings.rings());
            assertTrue(rings.store(0, packet, 0, 64));
            assertTrue(rings.store(0, packet, 0, 64));
            assertFalse(rings.store(0, packet, 0, 64), "full: two 1-block packets in 2 blocks");
            assertEquals(2, rings.stored(), "a refused packet is not counted");
            assertTrue(rings.store(15, packet, 0, 64));
            assertEquals(3, rings.stored(), "every VL counts, VL15 too");

            final int[] taken = new int[1];
            assertEquals(2, byVl[0].poll((buffer, offset, length) -> taken[0]++, 10));
            assertEquals(3, rings.stored(), "taking packets out leaves the count");
            assertEquals(2, rings.releasedBlocks(0), "the ring's releases, as the credit half reads them");
        }
        finally
        {
            byVl[0].close();
            byVl[15].close();
        }
    }
}
