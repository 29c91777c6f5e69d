package io.vlink.core.arb;

import io.vlink.core.qos.QosConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The prediction the soak and the loopback share test compare the engine with.
 */
class SharePredictionTest
{
    @Test
    void theSeedExampleServesEveryVlButVl4()
    {
        final boolean[] servable = SharePrediction.servableVls(QosConfig.seedExample());
        for (int vl = 0; vl < 16; vl++)
        {
            assertEquals(vl < 8 && vl != 4, servable[vl], "VL " + vl);
        }
    }

    @Test
    void theSeedExampleBackloggedWith4KiBPacketsGivesItsCycleOf51Packets()
    {
        // high: VL0 for VLHighLimit 6 (24 KiB = 6 packets); low, weight 64 per 4 KiB packet: VL1 1, VL2 2, VL3 3,
        // VL5-7 1 each; so 42 of every 51 packets are VL0's (6 high packets between each of the 9 low ones, less
        // the high limit's own count: 42 + 9 = 51)
        final QosConfig qos = QosConfig.seedExample();
        final double[] shares =
            SharePrediction.backlogged(qos, SharePrediction.servableVls(qos), 4096, 4096, 1, 51 * 1000);
        final double[] expected = {42, 1, 2, 3, 0, 1, 1, 1};
        for (int vl = 0; vl < 8; vl++)
        {
            assertEquals(expected[vl] / 51, shares[vl], 1e-9, "VL " + vl);
        }
    }

    @Test
    void aVlNotBackloggedGetsNothingAndNothingBackloggedGivesNoShares()
    {
        final QosConfig qos = QosConfig.seedExample();
        final boolean[] onlyLow = new boolean[16];
        onlyLow[1] = true;
        onlyLow[3] = true;
        final double[] shares = SharePrediction.backlogged(qos, onlyLow, 4096, 4096, 1, 4000);
        assertEquals(0.25, shares[1], 1e-9);
        assertEquals(0.75, shares[3], 1e-9);
        assertEquals(0.0, shares[0]);

        final double[] none = SharePrediction.backlogged(qos, new boolean[16], 4096, 4096, 1, 100);
        for (final double share : none)
        {
            assertEquals(0.0, share);
        }
    }

    @Test
    void mixedSizesAreSeededAndRepeatable()
    {
        final QosConfig qos = QosConfig.seedExample();
        final boolean[] all = SharePrediction.servableVls(qos);
        final double[] a = SharePrediction.backlogged(qos, all, 64, 4096, 9, 20_000);
        final double[] b = SharePrediction.backlogged(qos, all, 64, 4096, 9, 20_000);
        assertArrayEquals(a, b);
        double sum = 0;
        for (final double share : a)
        {
            sum += share;
        }
        assertEquals(1.0, sum, 1e-9);
    }
}
