package io.vlink.core.credit;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The credit-limit slots on one thread: values, 12-bit truncation, resets and the layout. Their cross-thread
 * orderings are checked by the jcstress tests of {@code vlink-stress}.
 */
class CreditLimitsTest
{
    @Test
    void everyLimitStartsAtZeroInEpochZero()
    {
        final CreditLimits limits = new CreditLimits();
        assertEquals(0, limits.epoch());
        for (int vl = 0; vl < CreditLimits.VL_SLOTS; vl++)
        {
            assertEquals(0, limits.limit(vl));
        }
    }

    @Test
    void eachVlKeepsItsOwnLimitInTwelveBits()
    {
        final CreditLimits limits = new CreditLimits();
        for (int vl = 0; vl < CreditLimits.VL_SLOTS; vl++)
        {
            limits.publish(vl, 100 * vl + 7);
        }
        limits.publish(3, 4096 + 5);
        for (int vl = 0; vl < CreditLimits.VL_SLOTS; vl++)
        {
            assertEquals(vl == 3 ? 5 : 100 * vl + 7, limits.limit(vl), "VL" + vl);
        }
    }

    @Test
    void theTransmitterChecksAgainstThePublishedLimit()
    {
        // seed 001 "Receive Buffer Full Example": CL 3072, FCTBS 3072 blocks nothing; FCCL 3073 lets one block go
        final CreditLimits limits = new CreditLimits();
        limits.publish(0, 3072);
        assertFalse(Credits.mayTransmit(limits.limit(0), 3072, 1));
        limits.publish(0, 3073);
        assertTrue(Credits.mayTransmit(limits.limit(0), 3072, 1));
    }

    @Test
    void resetClearsEveryLimitAndMovesTheEpoch()
    {
        final CreditLimits limits = new CreditLimits();
        limits.publish(0, 2048);
        limits.publish(7, 1000);
        limits.reset();
        assertEquals(1, limits.epoch());
        assertEquals(0, limits.limit(0));
        assertEquals(0, limits.limit(7));
        limits.publish(0, 2048);
        limits.reset();
        assertEquals(2, limits.epoch());
        assertEquals(0, limits.limit(0));
    }

    @Test
    void overCallerMemoryLargeEnoughAndAligned()
    {
        final UnsafeBuffer memory = new UnsafeBuffer(BufferUtil.allocateDirectAligned(2 * CreditLimits.length(), 64));
        final CreditLimits limits = new CreditLimits(memory);
        limits.publish(2, 77);
        assertEquals(77, new CreditLimits(memory).limit(2));
        // the slots are padded: nothing in the first and last two cache lines is touched
        for (int i = 0; i < 128; i++)
        {
            assertEquals(0, memory.getByte(i));
            assertEquals(0, memory.getByte(CreditLimits.length() - 1 - i));
        }

        assertThrows(IllegalArgumentException.class,
            () -> new CreditLimits(new UnsafeBuffer(memory, 0, CreditLimits.length() - 1)));
        assertThrows(IllegalArgumentException.class,
            () -> new CreditLimits(new UnsafeBuffer(memory, 8, CreditLimits.length())));
    }
}
