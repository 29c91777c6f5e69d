package io.vlink.stress;

import io.vlink.nic.agent.SendQueue;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Send queues (a queue pair's ring) for the stress tests: the real class, without a port (a test posts immediate data only, and never
 * into a full queue: the port only counts the refusals).
 */
final class QueuePairs
{
    private QueuePairs()
    {
    }

    /**
     * @param capacity slots.
     * @return a data queue pair of {@code capacity} slots of up to {@link Cells#PACKET_SIZE} bytes each.
     */
    static SendQueue queuePair(final int capacity)
    {
        return new SendQueue(null, null, 1, 1, 1, SendQueue.KIND_DATA, capacity, Cells.PACKET_SIZE);
    }

    /**
     * Post messages and complete them, as the application and the injection agent would, on one thread.
     *
     * @param qp       the queue pair.
     * @param messages how many.
     * @param length   bytes of each (a multiple of 4).
     * @param value    every int of each.
     */
    static void postAndComplete(final SendQueue qp, final int messages, final int length, final int value)
    {
        final UnsafeBuffer body = new UnsafeBuffer(new byte[length]);
        for (int i = 0; i < length; i += Integer.BYTES)
        {
            body.putInt(i, value);
        }
        for (int i = 0; i < messages; i++)
        {
            qp.complete(qp.offerInline(body, 0, length));
        }
    }
}
