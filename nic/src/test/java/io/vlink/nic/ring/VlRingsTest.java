package io.vlink.nic.ring;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

class VlRingsTest
{
    @Test
    void carriesReferencesPerVlInFifoOrderWithBackPressure()
    {
        final VlRings<int[]> rings = new VlRings<>(4, 4);
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
        assertNull(rings.peek(1));
        assertSame(descriptors[0], rings.peek(2));
        for (int i = 0; i < 4; i++)
        {
            assertSame(descriptors[i], rings.poll(2));
        }
        assertNull(rings.poll(2));
        assertThrows(IllegalArgumentException.class, () -> new VlRings<>(16, 4));
    }
}
