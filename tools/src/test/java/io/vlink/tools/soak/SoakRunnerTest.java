package io.vlink.tools.soak;

import io.vlink.core.qos.QosConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the soak drives and the tables {@code retable} switches to.
 */
class SoakRunnerTest
{
    @Test
    void aVlInNeitherTableOrWithoutAnSlIsReportedNotDriven()
    {
        final String[] seed = SoakRunner.notDrivenReasons(QosConfig.seedExample());
        for (int vl = 0; vl < 8; vl++)
        {
            assertEquals(vl == 4, null != seed[vl], "VL " + vl);
        }
        assertTrue(seed[4].contains("neither arbitration table"));

        // SL2VL sends nothing to VL7: it can be served by the tables but no packet can reach it
        final QosConfig unmapped = QosConfig.seedExample().toBuilder().sl2vl("0,1,2,3,4,5,6,0,0,1,2,3,4,5,6,0").build();
        final String[] reasons = SoakRunner.notDrivenReasons(unmapped);
        assertEquals("no SL maps to it", reasons[7]);
        assertEquals(-1, SoakRunner.slOf(unmapped, 7));
        assertEquals(3, SoakRunner.slOf(unmapped, 3));
    }

    @Test
    void theRetableVariantServesTheSameVlsWithOtherWeights()
    {
        final QosConfig seed = QosConfig.seedExample();
        final QosConfig variant = SoakRunner.variantOf(seed);
        assertArrayEquals(SoakTraffic.servableVls(seed), SoakTraffic.servableVls(variant));
        assertEquals(seed.high(), variant.high());
        assertEquals(seed.highLimit(), variant.highLimit());
        assertEquals("0:0,1:64,2:64,3:64,4:0,5:192,6:128,7:64", variant.low().toString());
        assertEquals(seed, SoakRunner.variantOf(variant), "reversing twice gives the configured tables back");
    }
}
