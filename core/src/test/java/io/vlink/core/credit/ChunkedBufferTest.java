package io.vlink.core.credit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seed 001 "Receive Buffer Implementation Background": a buffer that allocates 128-byte chunks charges a small
 * packet a whole chunk, and must advertise what it can take from the worst packet mix.
 */
class ChunkedBufferTest
{
    @Test
    void aOneBlockPacketTakesAWhole128ByteChunk()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 3072, 128);
        assertEquals(2, receiver.chargedBlocks(1));
        assertEquals(2, receiver.chargedBlocks(2));
        assertEquals(4, receiver.chargedBlocks(3));
        assertEquals(128, receiver.chargedBlocks(128));

        assertTrue(receiver.accept(0, 1));
        assertEquals(1, receiver.blocksReceived(0), "ABR counts the packet's blocks, as the sender's FCTBS does");
        assertEquals(3070, receiver.freeBlocks(0), "free space loses the whole chunk");
        assertTrue(receiver.accept(0, 3));
        assertEquals(4, receiver.blocksReceived(0));
        assertEquals(3066, receiver.freeBlocks(0));
        receiver.release(0, 1);
        receiver.release(0, 3);
        assertEquals(3072, receiver.freeBlocks(0));
    }

    @Test
    void itAdvertisesTheSmallerCapacityOfTheWorstPacketMix()
    {
        // 3072 blocks in 1536 chunks: all 1-block packets fill it after 1536 blocks, so FCCL = 0 + 1536, not 2048
        final CreditReceiver receiver = new CreditReceiver(1, 3072, 128);
        assertEquals(1536, receiver.capacityBlocks(0));
        assertEquals(1536, receiver.fccl(0));

        // large packets waste nothing, so the FCCL they leave is higher: it is recomputed from the real free space
        assertTrue(receiver.accept(0, 64));
        assertEquals(64 + 1504, receiver.fccl(0));

        // 64-byte granularity: the seed's own figures
        assertEquals(2048, new CreditReceiver(1, 3072, 64).fccl(0));
        // 256-byte chunks: a quarter of the blocks
        assertEquals(768, new CreditReceiver(1, 3072, 256).fccl(0));
    }

    @Test
    void aTransmitterHonouringTheChunkedFcclNeverOverflowsIt()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 3072, 128);
        final CreditTransmitter transmitter = new CreditTransmitter(1);
        transmitter.onCreditLimit(0, receiver.fccl(0));

        int sent = 0;
        while (transmitter.tryTransmit(0, 1))
        {
            assertTrue(receiver.accept(0, 1), "accepted packet " + sent);
            sent++;
        }
        assertEquals(1536, sent);
        assertEquals(0, receiver.freeBlocks(0), "exactly full, never over");
        assertFalse(receiver.accept(0, 1), "the naive 2048-block capacity would have overflowed here");
    }

    @Test
    void itRefusesAMeaninglessGeometry()
    {
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(1, 3072, 96));
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(1, 3072, 32));
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(1, 3071, 128));
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(3, 3072, 64));
        assertThrows(IllegalArgumentException.class, () -> new CreditReceiver(2, new int[]{64}, 64));
    }

    @Test
    void releasingMoreThanItHoldsIsACallerBug()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 128, 128);
        assertTrue(receiver.accept(0, 1));
        receiver.release(0, 1);
        assertThrows(IllegalStateException.class, () -> receiver.release(0, 1));
    }
}
