package io.vlink.nic.agent;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The queue pair's hand-off to the injection agent, on one thread: a message is seen posted through its slot's
 * sequence word exactly from its post on, never through the word a previous message left in the same slot.
 */
class QueuePairSlotTest
{
    private final SendQueue qp = new SendQueue(null, null, 1, 1, 1, SendQueue.KIND_DATA, 2, 64);

    @AfterEach
    void free()
    {
        qp.free();
    }

    @Test
    void aMessageIsPostedFromItsOfferOnAndASlotsPreviousMessageIsNotTheNext()
    {
        final UnsafeBuffer body = new UnsafeBuffer(new byte[64]);
        for (long seq = 0; seq < 1000; seq++)
        {
            assertFalse(qp.isPosted(seq), "before its offer: " + seq);
            body.putLong(0, seq);
            assertEquals(seq, qp.offerInline(body, 0, 8 + (int)(seq % 57)));
            assertTrue(qp.isPosted(seq));
            assertFalse(qp.isPosted(seq + 1), "the next slot holds message " + (seq - 1));
            assertEquals(8 + (int)(seq % 57), qp.lengthOf(seq));
            assertEquals(SendQueue.INLINE_REGION, qp.regionOf(seq));
            assertEquals(seq, qp.ring().getLong(qp.inlineOffsetOf(seq)));
            assertEquals(seq + 1, qp.posted());
            qp.complete(seq);
        }
    }
}
