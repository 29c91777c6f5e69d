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
import io.vlink.nic.status.CreditRecovery;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Loopback, 8 data VLs, every VL that the tables can serve backlogged: no loss, FIFO per VL, and each VL's share of
 * the first 24,000 packets' bytes within 2 percentage points of {@code core}'s {@link SharePrediction} for the same
 * configuration, at bursts of 1, 8 and 32 packets (the burst changes when the agents work, never what the arbiter
 * grants: {@code BurstGrantsPropertyTest}); once idle, every credit is back. Invoker mode and a clock of the test's
 * own: the run is the same every time.
 * <p>
 * The tables set the shares while every VL has credit. A burst that sends a VL's whole receive buffer in one duty cycle
 * (32 packets of 4 KiB fill the default 2048 blocks) lets the credit round trip set them instead: the VL waits for its
 * FCP while the others send (docs/engine.md, "Burst"). So the 4096-byte runs use bursts of 1 and 8, and burst 32 runs
 * with 256-byte packets.
 */
class LoopbackShareTest
{
    static final int PACKETS = 24_000;

    @TempDir
    File dir;

    @ParameterizedTest(name = "burst {0}, {1}-byte packets")
    @CsvSource({ "1, 4096", "8, 4096", "32, 256" })
    void everyVlBackloggedSharesFollowTheArbiterWithNoLossAndFifo(final int burst, final int size)
    {
        final int payload = size - 8 - 12 - 4;
        final QosConfig qos = QosConfig.seedExample();
        final boolean[] driven = SharePrediction.servableVls(qos);
        final double[] expected = SharePrediction.backlogged(qos, driven, size, size, 1, PACKETS);

        final long[] receivedBytes = new long[16];
        final long[] nextSequence = new long[16];
        final long[] sentSequence = new long[16];
        // one thread and a clock that moves 20 us a read (an FCP every 50 reads): the same run every time
        final long[] nowNs = {0};
        final NanoClock clock = () -> nowNs[0] += 20_000;
        try (Engine engine = Engine.builder().name("share").directory(dir).threading(ThreadingMode.INVOKER)
            .clocks(clock, SystemEpochClock.INSTANCE).qos(qos).burst(burst).build())
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
                    memory[vl] = OffHeap.allocate(qps[vl].capacity() * payload);
                    regions[vl] = engine.registerMemory(memory[vl]);
                }
            }
            final PacketHandler handler = packet ->
            {
                final int vl = packet.vl();
                assertEquals(size, packet.packetLength());
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
                            memory[vl].putLong(slot * payload, sentSequence[vl]);
                            assertEquals(sentSequence[vl], qps[vl].offer(regions[vl], slot * payload, payload));
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
            // idle: every credit comes back once an FCP of each VL has crossed each way
            Deadline.await(30, "credits recovered", () ->
                CreditRecovery.unrecovered("a", a.counters(), b.counters(), engine.configuration().vlBufferBlocks())
                    .isEmpty(), engine::invoke);
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
