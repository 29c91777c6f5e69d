package io.vlink.nic;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import io.vlink.nic.memory.OffHeap;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Loopback, 8 data VLs, every VL that the tables can serve backlogged: no loss, FIFO per VL, and each VL's share of
 * the first 24,000 packets' bytes within 2 percentage points of {@code core}'s {@link SharePrediction} for the same
 * configuration. Invoker mode and a clock of the test's own: the run is the same every time.
 */
class LoopbackShareTest
{
    static final int SIZE = 4096;
    static final int PAYLOAD = SIZE - 8 - 12 - 4;
    static final int PACKETS = 24_000;

    @TempDir
    File dir;

    @Test
    void everyVlBackloggedSharesFollowTheArbiterWithNoLossAndFifo()
    {
        final QosConfig qos = QosConfig.seedExample();
        final boolean[] driven = SharePrediction.servableVls(qos);
        final double[] expected = SharePrediction.backlogged(qos, driven, SIZE, SIZE, 1, PACKETS);

        final long[] receivedBytes = new long[16];
        final long[] nextSequence = new long[16];
        final long[] sentSequence = new long[16];
        // one thread and a clock that moves 20 us a read (an FCP every 50 reads): the same run every time
        final long[] nowNs = {0};
        final NanoClock clock = () -> nowNs[0] += 20_000;
        try (Engine engine = Engine.builder().name("share").directory(dir).threading(ThreadingMode.INVOKER)
            .clocks(clock, SystemEpochClock.INSTANCE).qos(qos).burst(8).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> a.linkState() == LinkState.ACTIVE, engine::invoke);

            final QueuePair[] qps = new QueuePair[8];
            final UnsafeBuffer[] memory = new UnsafeBuffer[8];
            final MemoryRegion[] regions = new MemoryRegion[8];
            for (int vl = 0; vl < 8; vl++)
            {
                if (driven[vl])
                {
                    qps[vl] = a.createQueuePair(100 + vl, vl, 200 + vl);
                    memory[vl] = OffHeap.allocate(qps[vl].capacity() * PAYLOAD);
                    regions[vl] = engine.registerMemory(memory[vl]);
                }
            }
            final PacketHandler handler = packet ->
            {
                final int vl = packet.vl();
                assertEquals(SIZE, packet.packetLength());
                assertEquals(nextSequence[vl], packet.buffer().getLong(packet.payloadOffset()), "FIFO on VL " + vl);
                nextSequence[vl]++;
                receivedBytes[vl] += packet.packetLength();
            };
            long received = 0;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (received < PACKETS)
            {
                for (int vl = 0; vl < 8; vl++)
                {
                    if (null != qps[vl])
                    {
                        // keep every VL backlogged: post until the queue pushes back
                        // (a slot is rewritten only once its message is complete)
                        while (sentSequence[vl] - qps[vl].completed() < qps[vl].capacity())
                        {
                            final int slot = (int)(sentSequence[vl] % qps[vl].capacity());
                            memory[vl].putLong(slot * PAYLOAD, sentSequence[vl]);
                            assertEquals(sentSequence[vl], qps[vl].offer(regions[vl], slot * PAYLOAD, PAYLOAD));
                            sentSequence[vl]++;
                        }
                    }
                }
                engine.invoke();
                received += b.poll(handler, 256);
                assertTrue(System.nanoTime() < deadline, "timed out at " + received + " packets");
            }

            long total = 0;
            for (int vl = 0; vl < 8; vl++)
            {
                total += receivedBytes[vl];
            }
            for (int vl = 0; vl < 8; vl++)
            {
                final double share = (double)receivedBytes[vl] / total;
                assertEquals(expected[vl], share, 0.02, "VL " + vl + " share");
            }
            assertTrue(expected[0] > 0.8 && expected[4] == 0.0, "the configuration is the seed's example");

            // no loss: stop posting, drain, and every message posted arrives (FIFO checked by the handler)
            Deadline.await(30, "every posted message delivered", () ->
            {
                for (int vl = 0; vl < 8; vl++)
                {
                    if (nextSequence[vl] != sentSequence[vl])
                    {
                        return false;
                    }
                }
                return true;
            }, () ->
            {
                engine.invoke();
                b.poll(handler, 256);
            });
            for (int vl = 0; vl < 8; vl++)
            {
                assertEquals(a.counters().txPackets(vl).get(), b.counters().rxPackets(vl).get(), "VL " + vl);
            }
            EngineErrors.assertNone(engine.countersFile());
            for (int reason = 0; reason < io.vlink.nic.status.DiscardReasons.count(); reason++)
            {
                assertEquals(0, b.counters().discards(reason).get(), "discards " + reason);
            }
            for (final UnsafeBuffer buffer : memory)
            {
                OffHeap.free(buffer);
            }
        }
    }
}
