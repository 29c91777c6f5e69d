package io.vlink.tools.soak;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import org.agrona.DirectBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the soak drives, the tables {@code retable} switches to, and that the checks catch what an engine bug would
 * do: a packet silently lost, a packet delivered twice.
 */
class SoakRunnerTest
{
    @TempDir
    File dir;

    /** Plays an engine bug on the receive side: the 500th data frame is lost silently, or delivered twice. */
    private static final class Bug extends ForwardingLink
    {
        private final boolean duplicate;
        private FrameHandler handler;
        private long dataFrames;
        private final FrameHandler tampering = this::onFrame;

        Bug(final Link delegate, final boolean duplicate)
        {
            super(delegate);
            this.duplicate = duplicate;
        }

        private void onFrame(final int type, final DirectBuffer buffer, final int offset, final int length)
        {
            if (DATA_FRAME == type && length > 300 && 500 == ++dataFrames)
            {
                if (!duplicate)
                {
                    return;
                }
                handler.onFrame(type, buffer, offset, length);
            }
            handler.onFrame(type, buffer, offset, length);
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            this.handler = handler;
            return delegate.poll(tampering, frameLimit);
        }
    }

    private SoakResult soakWith(final boolean duplicate)
    {
        final SoakRunner.Options options = new SoakRunner.Options();
        options.seconds = 1;
        options.threading = ThreadingMode.INVOKER;
        options.sizeMin = 512;
        options.sizeMax = 512;
        options.directory = dir;
        options.tamper = (link) -> new Bug(link, duplicate);
        options.drainTimeoutNs = java.util.concurrent.TimeUnit.SECONDS.toNanos(2);
        return SoakRunner.run(options, null).result;
    }

    @Test
    void aPacketLostWithoutAFaultFailsNoLoss()
    {
        final SoakResult result = soakWith(false);
        assertFalse(result.ok());
        assertEquals(false, result.invariants.get("no_loss"), result.violations.toString());
        long lost = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            lost += vl.lost;
        }
        assertEquals(1, lost);
        assertTrue(result.violations.stream().anyMatch((v) -> v.contains("neither delivered nor destroyed")),
            result.violations.toString());
        assertTrue(result.violations.stream().anyMatch((v) -> v.contains("drain did not finish")),
            result.violations.toString());
    }

    @Test
    void aPacketDeliveredTwiceFailsFifo()
    {
        final SoakResult result = soakWith(true);
        assertFalse(result.ok());
        assertEquals(false, result.invariants.get("fifo"), result.violations.toString());
        long duplicated = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            duplicated += vl.duplicated;
        }
        assertEquals(1, duplicated);
    }
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
        final QosConfig variant = SoakFaults.variantOf(seed);
        assertArrayEquals(SharePrediction.servableVls(seed), SharePrediction.servableVls(variant));
        assertEquals(seed.high(), variant.high());
        assertEquals(seed.highLimit(), variant.highLimit());
        assertEquals("0:0,1:64,2:64,3:64,4:0,5:192,6:128,7:64", variant.low().toString());
        assertEquals(seed, SoakFaults.variantOf(variant), "reversing twice gives the configured tables back");
    }
}
