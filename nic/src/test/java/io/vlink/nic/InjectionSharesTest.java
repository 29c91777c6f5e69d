package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The engine runs the injection rule of docs/injection.md: a port whose four data VLs' classes compete for one small
 * pool of cells (every class may take all of it), weighed 8:4:2:2, all backlogged, with packets of different sizes:
 * 44 to 424 bytes on VL0, 4,024 to 4,096 on VL1, 44 to 4,096 on VL2, 3,024 to 4,096 on VL3. The VL arbitration tables weigh the four VLs equally, so what decides the shares is the injector
 * arbiter: each class's cells ({@code tx_cells}) are within 3 points of its weight share, and so is each VL's share
 * of the link counted in the same cells, whatever the sizes (measured: 0.4998, 0.2499, 0.1253, 0.1250; where a class
 * that could not fit its packet gave its turn away, VL0's small packets took 0.84 of the cells). Invoker mode and a clock of the test's own: the run is the same every time.
 */
class InjectionSharesTest
{
    private static final int VLS = 4;
    private static final int[] WEIGHTS = {8, 4, 2, 2};
    private static final int PACKETS = 12_000;
    private static final int MAX_PAYLOAD = 4096 - 24;
    /** Per VL, the smallest and largest payload drawn. */
    private static final int[][] PAYLOADS = {{20, 400}, {4000, MAX_PAYLOAD}, {20, MAX_PAYLOAD}, {3000, MAX_PAYLOAD}};

    @TempDir
    File dir;

    @Test
    void classesCompetingForThePoolGetTheirWeightShareOfTheCellsWhateverTheSizes()
    {
        final QosConfig qos = QosConfig.builder().dataVls(VLS).highLimit(0).vlarbHigh("0:0")
            .vlarbLow("0:32,1:32,2:32,3:32").sl2vl(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3).build();
        final InjectionConfig injection = InjectionConfig.forPort(qos, 4096, 48, 224);
        for (int c = 0; c < VLS; c++)
        {
            injection.bufferClass(c, 0, Integer.MAX_VALUE, WEIGHTS[c], InjectionConfig.Policy.ROUND_ROBIN);
        }
        final long[] nowNs = {0};
        final NanoClock clock = () -> nowNs[0] += 20_000;
        final SplittableRandom random = new SplittableRandom(26);
        final long[] receivedCells = new long[VLS];
        final long[] sentCells = new long[VLS];
        final long[] sent = new long[VLS];
        final long[] delivered = new long[VLS];
        try (Engine engine = Engine.builder().name("shares").directory(dir).threading(ThreadingMode.INVOKER)
            .clocks(clock, SystemEpochClock.INSTANCE).qos(qos).injection(injection).burst(8).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> a.linkState() == LinkState.ACTIVE, engine::invoke);
            assertEquals(WEIGHTS[0], a.injection().weight(0));
            final QueuePair[] qps = new QueuePair[VLS];
            final UnsafeBuffer[] memory = new UnsafeBuffer[VLS];
            final MemoryRegion[] regions = new MemoryRegion[VLS];
            for (int vl = 0; vl < VLS; vl++)
            {
                qps[vl] = a.createQueuePair(100 + vl, vl, 200 + vl);
                memory[vl] = OffHeap.allocate(qps[vl].capacity() * MAX_PAYLOAD);
                regions[vl] = engine.registerMemory(memory[vl]);
            }
            final PacketHandler handler = packet ->
            {
                delivered[packet.vl()]++;
                receivedCells[packet.vl()] += (packet.packetLength() + 255) / 256;
            };
            long received = 0;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (received < PACKETS)
            {
                for (int vl = 0; vl < VLS; vl++)
                {
                    // backlogged: post until the queue pushes back, each packet's payload drawn from the VL's range
                    while (sent[vl] - qps[vl].completed() < qps[vl].capacity())
                    {
                        final int[] range = PAYLOADS[vl];
                        final int payload = range[0] + 4 * random.nextInt((range[1] - range[0]) / 4 + 1);
                        final int slot = (int)(sent[vl] % qps[vl].capacity());
                        assertEquals(sent[vl], qps[vl].offer(regions[vl], slot * MAX_PAYLOAD, payload));
                        sentCells[vl] += (24 + payload + 255) / 256;
                        sent[vl]++;
                    }
                }
                engine.invoke();
                received += b.poll(handler, 256);
                assertTrue(System.nanoTime() < deadline, "timed out at " + received + " packets");
            }
            final long[] cellsAtMeasure = new long[VLS];
            final long[] linkAtMeasure = receivedCells.clone();
            long cells = 0;
            long link = 0;
            for (int vl = 0; vl < VLS; vl++)
            {
                cellsAtMeasure[vl] = a.counters().txCells(vl).get();
                cells += cellsAtMeasure[vl];
                link += linkAtMeasure[vl];
            }
            for (int vl = 0; vl < VLS; vl++)
            {
                final double weightShare = WEIGHTS[vl] / 16.0;
                assertEquals(weightShare, (double)cellsAtMeasure[vl] / cells, 0.03, "VL " + vl + " cells");
                assertEquals(weightShare, (double)linkAtMeasure[vl] / link, 0.03, "VL " + vl + " cells on the link");
            }

            // drain: every packet posted is injected once, its cells counted on its VL
            Deadline.await(30, "every posted packet delivered", () ->
            {
                for (int vl = 0; vl < VLS; vl++)
                {
                    if (delivered[vl] != sent[vl])
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
            engine.invoke();
            for (int vl = 0; vl < VLS; vl++)
            {
                assertEquals(sentCells[vl], a.counters().txCells(vl).get(), "VL " + vl);
            }
            EngineErrors.assertNone(engine.countersFile());
            for (final UnsafeBuffer buffer : memory)
            {
                OffHeap.free(buffer);
            }
        }
    }
}
