package io.vlink.nic.ring;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class VlRingsTest
{
    @Test
    void carriesReferencesPerVlInFifoOrderWithBackPressure()
    {
        final VlRings<int[]> rings = new VlRings<>(4, 4);
        assertEquals(0, rings.offered());
        assertTrue(rings.hasVl(3));
        assertFalse(rings.hasVl(4));
        assertTrue(rings.hasVl(15));
        final int[][] descriptors = new int[5][1];
        for (int i = 0; i < 4; i++)
        {
            descriptors[i][0] = i;
            assertTrue(rings.offer(2, descriptors[i]));
        }
        assertFalse(rings.offer(2, descriptors[4]), "full: the caller keeps the packet");
        assertEquals(4, rings.offered(), "a refused offer is not counted");
        assertTrue(rings.offer(15, descriptors[4]));
        assertEquals(5, rings.offered(), "every VL counts, VL15 too");
        assertNull(rings.peek(1));
        assertSame(descriptors[0], rings.peek(2));
        for (int i = 0; i < 4; i++)
        {
            assertSame(descriptors[i], rings.poll(2));
        }
        assertNull(rings.poll(2));
        assertEquals(5, rings.offered(), "taking descriptors out leaves the count");
        assertThrows(IllegalArgumentException.class, () -> new VlRings<>(16, 4));
    }
}
