package io.vlink.core.credit;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The release counts on one thread: polls hand every released block over exactly once, and a receiver fed by them
 * gets its space back exactly. Their cross-thread orderings are checked by the jcstress tests of
 * {@code vlink-stress}.
 */
class ReleaseCounterTest
{
    @Test
    void pollsHandOverWhatWasReleasedSinceThePreviousPoll()
    {
        final ReleaseCounter counter = new ReleaseCounter();
        assertEquals(0, counter.poll(2));
        counter.release(2, 3);
        counter.release(2, 64);
        assertEquals(67, counter.released(2));
        assertEquals(67, counter.poll(2));
        assertEquals(0, counter.poll(2));
        counter.release(2, 1);
        assertEquals(68, counter.released(2));
        assertEquals(1, counter.poll(2));
        // other VLs are untouched
        assertEquals(0, counter.released(1));
        assertEquals(0, counter.poll(3));
    }

    @Test
    void nothingOrLessThanNothingIsRefused()
    {
        final ReleaseCounter counter = new ReleaseCounter();
        assertThrows(IllegalArgumentException.class, () -> counter.release(0, 0));
        assertThrows(IllegalArgumentException.class, () -> counter.release(0, -1));
        assertEquals(0, counter.released(0));
    }

    @Test
    void aReceiverFedByPollsGetsItsSpaceBackExactly()
    {
        // 128-byte chunks: the application releases what each packet was charged, the credit agent polls
        final CreditReceiver receiver = new CreditReceiver(4, 3072, 128);
        final ReleaseCounter counter = new ReleaseCounter();
        final int[] packets = {1, 3, 64, 17, 2, 1};
        for (final int blocks : packets)
        {
            receiver.accept(1, blocks);
        }
        assertEquals(3072 - (2 + 4 + 64 + 18 + 2 + 2), receiver.freeBlocks(1));
        for (int i = 0; i < packets.length; i++)
        {
            counter.release(1, receiver.chargedBlocks(packets[i]));
            if (i % 2 == 1)
            {
                receiver.release(1, counter.poll(1));
            }
        }
        assertEquals(3072, receiver.freeBlocks(1));
        assertEquals(1536, receiver.capacityBlocks(1));
    }

    @Property(tries = 100, seed = "7")
    void pollsAddUpToTheReleasedCount(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final int steps = 1 + random.nextInt(400);
        final ReleaseCounter counter = new ReleaseCounter();
        final long[] releasedByModel = new long[ReleaseCounter.VL_SLOTS];
        final long[] polledByModel = new long[ReleaseCounter.VL_SLOTS];
        for (int i = 0; i < steps; i++)
        {
            final int vl = random.nextInt(ReleaseCounter.VL_SLOTS);
            if (random.nextBoolean())
            {
                final int blocks = 1 + random.nextInt(129);
                counter.release(vl, blocks);
                releasedByModel[vl] += blocks;
            }
            else
            {
                polledByModel[vl] += counter.poll(vl);
                assertEquals(releasedByModel[vl], polledByModel[vl]);
            }
            assertEquals(releasedByModel[vl], counter.released(vl));
        }
        for (int vl = 0; vl < ReleaseCounter.VL_SLOTS; vl++)
        {
            polledByModel[vl] += counter.poll(vl);
            assertEquals(releasedByModel[vl], polledByModel[vl], "VL" + vl);
        }
    }
}
