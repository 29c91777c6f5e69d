package io.vlink.core.fabric;

import org.junit.jupiter.api.Test;

import static io.vlink.core.fabric.CreditLoop.NONE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class CreditLoopTest
{
    @Test
    void aChainThatEndsAtABufferWaitingOnNothingIsNoLoop()
    {
        assertEquals(0, CreditLoop.find(new int[]{1, 2, NONE, 2, NONE}).length);
    }

    @Test
    void aRingOfBuffersIsFoundFromItsLowestMemberInWaitingOrder()
    {
        // 0 -> 3 -> 5 -> 1 -> 3 (the cycle is 3, 5, 1), 2 and 4 wait on nothing
        final int[] waitsOn = {3, 3, NONE, 5, NONE, 1};
        assertArrayEquals(new int[]{1, 3, 5}, CreditLoop.find(waitsOn));
    }

    @Test
    void aBufferWaitingOnItselfIsALoopOfOne()
    {
        assertArrayEquals(new int[]{2}, CreditLoop.find(new int[]{NONE, 2, 2}));
    }

    @Test
    void aTreeOfChainsFeedingALaterCycleStillFindsIt()
    {
        // 0 -> 1 -> 2 (end); 3 -> 2; 4 -> 5 -> 6 -> 4
        assertArrayEquals(new int[]{4, 5, 6}, CreditLoop.find(new int[]{1, 2, NONE, 2, 5, 6, 4}));
    }
}
