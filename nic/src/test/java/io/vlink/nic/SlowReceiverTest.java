package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A slow receiver. The transmitter stalls on credits, the receive buffers never overflow, nothing is
 * lost, and traffic resumes when the receiver drains again.
 */
class SlowReceiverTest
{
    @TempDir
    File dir;

    @Test
    void transmitterStallsOnCreditsAndResumesWithoutLossOrOverflow()
    {
        final int bufferBlocks = 64;
        try (Engine engine = Engine.builder().name("slow").directory(dir).threading(ThreadingMode.INVOKER)
            .vlBufferBlocks(bufferBlocks).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp1 = a.createQueuePair(1, 1, 1);
            final QueuePair qp2 = a.createQueuePair(2, 2, 2);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);
            final long[] next = new long[16];
            final PacketHandler handler = packet ->
            {
                final int vl = packet.vl();
                assertEquals(next[vl]++, packet.buffer().getLong(packet.payloadOffset()), "FIFO on VL " + vl);
                assertEquals(200, packet.payloadLength());
                assertEquals(8 + 12 + 200 + 4, packet.packetLength());
            };

            long posted = 0;
            final long total = 2_000;
            // phase 1: the receiver does not drain; the sender fills the window, then stalls
            for (int i = 0; i < 400; i++)
            {
                posted = post(qp1, qp2, message, posted, total);
                engine.invoke();
            }
            final long stalls = a.counters().creditStalls(1).get() + a.counters().creditStalls(2).get();
            assertTrue(stalls > 0, "the transmitter stalled on credits");
            // 200-byte payloads take 4 blocks: the 64-block buffer holds 16 of them, no more
            assertEquals(16, b.pending(1));
            assertEquals(16, b.pending(2));
            assertEquals(0, b.counters().rxFreeBlocks(1).get());
            final long sentWhileStalled = a.counters().txPackets(1).get();
            for (int i = 0; i < 100; i++)
            {
                engine.invoke();
            }
            assertEquals(sentWhileStalled, a.counters().txPackets(1).get(), "nothing sent without credit");

            // phase 2: the receiver drains; everything arrives, in order
            final long finalPosted = posted;
            final long[] postedBox = {posted};
            Deadline.await(30, "every message delivered", () -> next[1] + next[2] == total, () ->
            {
                postedBox[0] = post(qp1, qp2, message, postedBox[0], total);
                engine.invoke();
                b.poll(handler, 8);
            });
            assertTrue(finalPosted < total, "the sender was held back while the receiver was stalled");
            assertEquals(total / 2, next[1]);
            assertEquals(total / 2, next[2]);
            EngineErrors.assertNone(engine.countersFile());
            for (int reason = 0; reason < DiscardReasons.count(); reason++)
            {
                assertEquals(0, b.counters().discards(reason).get(), DiscardReasons.name(reason));
            }
        }
    }

    private static long post(
        final QueuePair qp1, final QueuePair qp2, final UnsafeBuffer message, final long posted, final long total)
    {
        long count = posted;
        while (count < total)
        {
            final QueuePair qp = (count & 1) == 0 ? qp1 : qp2;
            message.putLong(0, count >> 1);
            if (QueuePair.BACK_PRESSURED == qp.offer(message, 0, 200))
            {
                break;
            }
            count++;
        }
        return count;
    }
}
