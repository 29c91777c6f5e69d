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
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What the soak drives, the tables {@code retable} switches to, and that the checks catch what an engine bug would
 * do: a packet silently lost, a packet delivered twice. Every run here is deterministic: a fixed number of packets,
 * invoker mode, and a {@link SteppingClock} for the soak and the engine, so that the counts are the same in every run
 * and on any machine.
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

    /** Each read of the clock is 20 us: FCPs (every 1 ms) come every 50 reads, a second is about 14,000 packets. */
    static final long STEP_NS = 20_000;

    /**
     * @param packets data packets to offer.
     * @param faults  the faults.
     * @return options for a run that is the same every time: 512-byte packets, seed 7.
     */
    SoakRunner.Options deterministic(final long packets, final String faults)
    {
        final SoakRunner.Options options = new SoakRunner.Options();
        options.seconds = 3600;
        options.packets = packets;
        options.threading = ThreadingMode.INVOKER;
        options.clock = new SteppingClock(STEP_NS);
        options.sizeMin = 512;
        options.sizeMax = 512;
        options.seed = 7;
        options.faults = FaultSpec.parse(faults);
        options.directory = dir;
        return options;
    }

    private SoakResult soakWith(final boolean duplicate)
    {
        final SoakRunner.Options options = deterministic(4000, "");
        options.tamper = (link) -> new Bug(link, duplicate);
        options.drainTimeoutNs = TimeUnit.MILLISECONDS.toNanos(200);
        return SoakRunner.run(options, null).result;
    }

    private static long sum(final SoakResult result, final ToLongFunction<SoakResult.Vl> figure)
    {
        long sum = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            sum += figure.applyAsLong(vl);
        }
        return sum;
    }

    private static void assertEveryInvariant(final SoakResult result)
    {
        assertTrue(result.ok(), result.toJson());
        assertEquals(List.of(), result.violations);
    }

    @Test
    void sharesFollowThePredictionEverySecondAndNothingIsLost()
    {
        final SoakRunner.Outcome outcome = SoakRunner.run(deterministic(30_000, ""), null);
        final SoakResult result = outcome.result;
        assertEveryInvariant(result);
        assertEquals(30_000, sum(result, (vl) -> vl.sentPackets));
        for (final SoakResult.Vl vl : result.vls)
        {
            assertEquals(vl.sentPackets, vl.receivedPackets, "VL " + vl.vl);
            assertEquals(vl.vl != 4, vl.driven, "VL " + vl.vl);
        }
        // the whole seconds of offered traffic (the drain's tail empties every queue evenly, so the run's own shares
        // lean towards the low VLs): each second's share is the prediction's
        final SoakTimeline timeline = outcome.timeline;
        assertTrue(timeline.seconds() >= 2, "seconds " + timeline.seconds());
        for (int second = 0; second < timeline.seconds(); second++)
        {
            for (final SoakResult.Vl vl : result.vls)
            {
                final double share = (double)timeline.bytes(second, vl.vl) / timeline.totalBytes(second);
                assertEquals(vl.predictedShare, share, 0.005, "VL " + vl.vl + " in second " + second);
            }
        }
        assertEquals(0.8033, result.vl(0).predictedShare, 0.0001, "VL0, high priority, with 512-byte packets");
    }

    @Test
    void everyFaultKindIsInjectedDetectedAndTheRunIsTheSameEveryTime()
    {
        final String faults = "drop-data=0.002,corrupt-data=0.002,drop-fcp=0.01,corrupt-fcp=0.01,stall-receiver=100," +
            "vl15-flood=20,retable=2,link-bounce=2";
        final SoakResult result = SoakRunner.run(deterministic(40_000, faults), null).result;
        assertEveryInvariant(result);
        assertEquals(SoakRunner.run(deterministic(40_000, faults), null).result.toJson(), result.toJson());

        assertEquals(40_000, sum(result, (vl) -> vl.sentPackets));
        for (final FaultKind kind : FaultKind.values())
        {
            assertTrue(result.faultsInjected.get(kind) > 0, kind + " injected: " + result.toJson());
            if (FaultKind.DROP_FCP != kind)
            {
                assertEquals(result.faultsInjected.get(kind), result.faultsDetected.get(kind), kind.label());
            }
        }
        assertFalse(result.faultsDetected.containsKey(FaultKind.DROP_FCP), "a lost FCP leaves nothing to detect");
        assertEquals(2, result.faultsInjected.get(FaultKind.RETABLE));
        assertEquals(2, result.faultsInjected.get(FaultKind.LINK_BOUNCE));
        assertEquals(0, result.faultsInjected.get(FaultKind.VL15_FLOOD) % 20, "20 SMPs beyond the buffer a flood");
        assertTrue(result.vl15Dropped >= result.faultsInjected.get(FaultKind.VL15_FLOOD));
        for (final SoakResult.Vl vl : result.vls)
        {
            assertEquals(0, vl.lost);
            assertEquals(vl.sentPackets, vl.receivedPackets + vl.faultLost, "VL " + vl.vl);
        }
        assertTrue(sum(result, (vl) -> vl.faultLost) >= result.faultsInjected.get(FaultKind.DROP_DATA) +
            result.faultsInjected.get(FaultKind.CORRUPT_DATA));
        assertTrue(result.fcpDiscarded >= result.faultsInjected.get(FaultKind.CORRUPT_FCP));
    }

    @Test
    void openLoopSendsExactlyTheSchedule()
    {
        final SoakRunner.Options options = deterministic(0, "");
        options.seconds = 0.5;
        options.rate = 20_000;
        final SoakResult result = SoakRunner.run(options, null).result;
        assertEveryInvariant(result);
        // 7 driven VLs, a packet each 7 / 20,000 s = 350 us on each: those intended in the first 0.5 s, 1429 a VL
        for (final SoakResult.Vl vl : result.vls)
        {
            assertEquals(vl.driven ? 1429 : 0, vl.sentPackets, "VL " + vl.vl);
        }
    }

    @Test
    void aPacketLostWithoutAFaultFailsNoLoss()
    {
        final SoakResult result = soakWith(false);
        assertFalse(result.ok());
        assertEquals(false, result.invariants.get("no_loss"), result.violations.toString());
        assertEquals(1, sum(result, (vl) -> vl.lost));
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
        assertEquals(1, sum(result, (vl) -> vl.duplicated));
        assertEquals(4001, sum(result, (vl) -> vl.receivedPackets));
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
