package io.vlink.core.arb;

import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What callers of the arbiter read from it (docs/arbitration.md): the grant codes, the state figures the simulator
 * prints, the simulated port's queues, and the share prediction following its documented procedure.
 */
class GrantsAndPredictionTest
{
    @Test
    void everyDataGrantNamesItsVlAndTableAndNothingElseIsData()
    {
        final int[] sources = {VlArbiter.FROM_HIGH, VlArbiter.FROM_LOW, VlArbiter.FROM_SINGLE};
        final String[] words = {"high", "low", "single"};
        for (int s = 0; s < sources.length; s++)
        {
            for (int vl = 0; vl < 15; vl++)
            {
                final int grant = sources[s] | vl;
                assertTrue(VlArbiter.isData(grant), words[s] + " VL " + vl);
                assertEquals(vl, VlArbiter.vl(grant));
                assertEquals(sources[s], VlArbiter.source(grant));
                assertEquals(words[s], VlArbiter.describe(grant));
            }
        }
        assertFalse(VlArbiter.isData(VlArbiter.GRANT_NONE));
        assertFalse(VlArbiter.isData(VlArbiter.GRANT_VL15));
        assertFalse(VlArbiter.isData(VlArbiter.GRANT_FCP));
        assertEquals("none", VlArbiter.describe(VlArbiter.GRANT_NONE));
        assertEquals("vl15", VlArbiter.describe(VlArbiter.GRANT_VL15));
        assertEquals("fcp", VlArbiter.describe(VlArbiter.GRANT_FCP));
    }

    @Test
    void aLowEntryWithWeightLeftKeepsItsTurnUnderTheWeightPolicy()
    {
        // the seed example's low table: VL2's entry, W blocks; W one-block packets use it up
        final QosConfig qos = QosConfig.seedExample();
        final VlArbTable low = qos.low();
        int entry = -1;
        for (int i = low.size() - 1; i >= 0; i--)
        {
            entry = low.vl(i) == 2 ? i : entry;
        }
        final int weight = low.weight(entry);
        final SimulatedPort port = new SimulatedPort().enqueue(2, 64, weight + 1);
        final VlArbiter arbiter = new VlArbiter(qos, port);
        assertEquals(qos.dataVls(), arbiter.dataVls());
        for (int k = 1; k < weight; k++)
        {
            final int grant = arbiter.next();
            assertEquals(VlArbiter.FROM_LOW | 2, grant);
            assertEquals(64, port.send(grant));
            assertTrue(arbiter.lowTurnInProgress(), k + " of " + weight + " blocks used");
            assertEquals(entry, arbiter.lowPointer());
        }
        port.send(arbiter.next());
        assertFalse(arbiter.lowTurnInProgress(), "the weight is used up: back to the high table");
    }

    @Test
    void theSimulatedPortQueuesRunsInOrderAndIgnoresEmptyEnqueues()
    {
        final SimulatedPort port = new SimulatedPort();
        assertSame(port, port.enqueue(3, 100, 0), "nothing queued, still chainable");
        assertSame(port, port.enqueue(3, 100, 2).enqueue(3, 100, 1));
        for (int k = 0; k < 9; k++)
        {
            port.enqueue(3, 200 + 4 * k, 1);
        }
        assertEquals(12, port.queued(3), "runs beyond the first array are all counted");
        assertEquals(100, port.headSize(3));
        for (int k = 0; k < 3; k++)
        {
            assertEquals(100, port.send(VlArbiter.FROM_LOW | 3));
        }
        assertEquals(200, port.send(VlArbiter.FROM_LOW | 3), "an empty enqueue left no run behind");
        assertEquals(8, port.queued(3));
        assertEquals(0, port.send(VlArbiter.GRANT_NONE));
        assertEquals(4, port.sentPackets(3));
    }

    @Test
    void mixedSizesAreDrawnVlByVlAsDocumented()
    {
        // each backlogged VL gets `grants` packets, sizes uniform over the multiples of 4 in [min, max], drawn by one
        // SplittableRandom(seed) VL after VL; then `grants` decisions. Rebuilt here from that text alone.
        final QosConfig qos = QosConfig.seedExample();
        final boolean[] backlogged = new boolean[qos.dataVls()];
        backlogged[0] = true;
        backlogged[2] = true;
        backlogged[3] = true;
        final int grants = 300;
        final SplittableRandom sizes = new SplittableRandom(5);
        final SimulatedPort port = new SimulatedPort();
        for (int vl = 0; vl < backlogged.length; vl++)
        {
            for (int i = 0; backlogged[vl] && i < grants; i++)
            {
                port.enqueue(vl, 64 + 4 * sizes.nextInt((1024 - 64) / 4 + 1), 1);
            }
        }
        final VlArbiter arbiter = new VlArbiter(qos, port);
        final long[] bytes = new long[VlArbiter.VL_COUNT];
        long total = 0;
        for (int i = 0; i < grants; i++)
        {
            final int grant = arbiter.next();
            final int size = port.send(grant);
            bytes[VlArbiter.vl(grant)] += size;
            total += size;
        }
        final double[] expected = new double[VlArbiter.VL_COUNT];
        for (int vl = 0; vl < expected.length; vl++)
        {
            expected[vl] = (double)bytes[vl] / total;
        }
        assertArrayEquals(expected, SharePrediction.backlogged(qos, backlogged, 64, 1024, 5, grants), 1e-12);
        assertFalse(
            java.util.Arrays.equals(expected, SharePrediction.backlogged(qos, backlogged, 64, 64, 5, grants)),
            "a fixed size gives other shares");
    }
}
