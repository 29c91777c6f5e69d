package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
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
        assertAllocationFree(Engine.builder(), PACKETS);
    }

    /**
     * The same with link-level retry over a wire that loses every 97th frame: sequence numbers, the replay buffer,
     * acknowledgements, replay requests and retransmissions allocate nothing either.
     */
    @Test
    void linkLevelRetryOverALossyWireAllocatesNothing()
    {
        final EngineBuilder builder = Engine.builder().retry(true).wireWrapper(link -> new ForwardingLink(link)
        {
            private final java.util.SplittableRandom random = new java.util.SplittableRandom(97);
            private FrameHandler handler;
            private final FrameHandler lossy = (type, buffer, offset, length) ->
            {
                if (random.nextInt(100) != 0)
                {
                    handler.onFrame(type, buffer, offset, length);
                }
            };

            @Override
            public int poll(final FrameHandler handler, final int frameLimit)
            {
                this.handler = handler;
                return delegate.poll(lossy, frameLimit);
            }
        });
        final long[] requests = assertAllocationFree(builder, PACKETS / 10);
        assertTrue(requests[0] > 0);
    }

    /** @return port B's replay requests. */
    private long[] assertAllocationFree(final EngineBuilder builder, final int packets)
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        assertTrue(threads.isThreadAllocatedMemorySupported());
        threads.setThreadAllocatedMemoryEnabled(true);

        try (Engine engine = builder.name("alloc").directory(dir).threading(ThreadingMode.INVOKER).build())
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
            run(engine, b, qps, message, received, handler, packets);
            final long allocated = threads.getThreadAllocatedBytes(threadId) - before;
            EngineErrors.assertNone(engine.countersFile());
            // one object per packet would be 16 MB or more; a few KB are the JIT's and JMX's own bookkeeping
            assertTrue(allocated < PACKETS / 100, "allocated " + allocated + " bytes over " + packets + " packets");
            assertEquals(0, b.counters().discards(0).get());
            return new long[]{b.counters().linkReplayRequests().get()};
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
