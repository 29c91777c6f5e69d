package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.*;

/**
 * No allocation per packet in steady state. In invoker mode every agent runs on this thread, so the
 * thread's allocated bytes over a million packets, posted, injected, arbitrated, framed, checked, received and
 * delivered, measure the whole pipeline.
 */
class AllocationFreeTest
{
    private static final int PACKETS = 1_000_000;

    @TempDir
    File dir;

    @Test
    void aMillionPacketsThroughTheWholePipelineAllocateNothing()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        try (Engine engine = Engine.builder().name("alloc").directory(dir).threading(ThreadingMode.INVOKER).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair[] qps = {a.createQueuePair(1, 0, 1), a.createQueuePair(2, 3, 2), a.createQueuePair(3, 5, 3)};
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            final long[] received = new long[1];
            final PacketHandler handler = packet -> received[0]++;

            run(engine, b, qps, message, received, handler, 100_000);
            final long threadId = Thread.currentThread().getId();
            final long before = threads.getThreadAllocatedBytes(threadId);
            run(engine, b, qps, message, received, handler, PACKETS);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;
            EngineErrors.assertNone(engine.countersFile());
            // one object per packet would be 16 MB or more; a few KB are the JIT's and JMX's own bookkeeping
            assertTrue(allocated < PACKETS / 100, "allocated " + allocated + " bytes over " + PACKETS + " packets");
            assertEquals(0, b.counters().discards(0).get());
        }
    }

    private static void run(
        final Engine engine,
        final Port b,
        final QueuePair[] qps,
        final UnsafeBuffer message,
        final long[] received,
        final PacketHandler handler,
        final int packets)
    {
        final long target = received[0] + packets;
        final long deadline = System.nanoTime() + 120_000_000_000L;
        while (received[0] < target)
        {
            for (final QueuePair qp : qps)
            {
                while (QueuePair.BACK_PRESSURED != qp.offer(message, 0, 64))
                {
                    Thread.onSpinWait();
                }
            }
            engine.invoke();
            b.poll(handler, 256);
            if (System.nanoTime() > deadline)
            {
                fail("timed out at " + received[0]);
            }
        }
    }
}
