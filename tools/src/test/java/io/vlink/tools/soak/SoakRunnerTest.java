package io.vlink.tools.soak;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
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

    /** Plays a wire that garbles an FCP in a way no fault kind does: its Op becomes 2 (reserved), LPCRC good. */
    private static final class ReservedOpFcp extends ForwardingLink
    {
        private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[8]);
        private FrameHandler handler;
        private long fcps;
        private final FrameHandler tampering = this::onFrame;

        ReservedOpFcp(final Link delegate)
        {
            super(delegate);
        }

        private void onFrame(final int type, final DirectBuffer buffer, final int offset, final int length)
        {
            if (LINK_FRAME == type && 100 == ++fcps)
            {
                final int word = Fcp.word(Fcp.decode(buffer, offset, length));
                Fcp.encode(scratch, 0, Fcp.word(2, Fcp.fctbs(word), Fcp.vl(word), Fcp.fccl(word)));
                handler.onFrame(type, scratch, 0, length);
                return;
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
    SoakSettings deterministic(final long packets, final String faults)
    {
        final SoakSettings options = new SoakSettings();
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
        final SoakSettings options = deterministic(4000, "");
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
        // each bounce re-trained the sender, which flushed what it held: part of what the faults destroyed
        assertTrue(sum(result, (vl) -> vl.flushed) > 0, result.toJson());
        assertTrue(sum(result, (vl) -> vl.faultLost) >= result.faultsInjected.get(FaultKind.DROP_DATA) +
            result.faultsInjected.get(FaultKind.CORRUPT_DATA));
        assertEquals(result.faultsInjected.get(FaultKind.CORRUPT_FCP), result.discards.get("fcp_bad_lpcrc"));
        assertEquals(result.faultsInjected.get(FaultKind.CORRUPT_DATA), result.discards.get("data_bad_crc"));
        result.discards.forEach((reason, count) -> assertNotNull(result.discardCauses.get(reason), reason));
        for (final FaultKind kind : SoakFaults.TIMED)
        {
            assertEquals(result.faultsScheduled.get(kind), result.faultsInjected.get(kind), kind.label());
        }
    }

    @Test
    void faultsThatCouldNotRunAreReportedAndFailTheRunUnlessAllowed()
    {
        final SoakSettings options = deterministic(40_000, "stall-receiver=10,vl15-flood=5,retable=1");
        // the soak's thread is paused for 3 s after about 0.2 s of traffic: the floods due at 1.25 and 2.25 s and
        // the stalls at 1.5 and 2.5 s cannot be injected any more (the ones at 3.25 and 3.5 s are)
        options.clock = new SteppingClock(STEP_NS).jump(10_000, TimeUnit.SECONDS.toNanos(3));
        final SoakResult result = SoakRunner.run(options, null).result;
        assertFalse(result.ok());
        assertEquals(false, result.invariants.get("faults_ran"), result.toJson());
        final long stalls = result.faultsInjected.get(FaultKind.STALL_RECEIVER);
        final long floods = result.faultsInjected.get(FaultKind.VL15_FLOOD);
        assertEquals(stalls + 2, result.faultsScheduled.get(FaultKind.STALL_RECEIVER), result.toJson());
        assertEquals(floods + 2 * 5, result.faultsScheduled.get(FaultKind.VL15_FLOOD), result.toJson());
        assertEquals(1, result.faultsScheduled.get(FaultKind.RETABLE));
        assertEquals(1, result.faultsInjected.get(FaultKind.RETABLE));
        assertTrue(result.violations.contains("scheduled faults not injected (the soak's thread was paused or " +
            "starved): stall-receiver " + stalls + " of " + (stalls + 2) + ", vl15-flood " + floods + " of " +
            (floods + 10) + "; --allow-fewer-faults accepts such a run"), result.violations.toString());
        for (final String invariant : List.of("no_loss", "fifo", "no_overflow", "credits_recovered", "intact"))
        {
            assertEquals(true, result.invariants.get(invariant), invariant);
        }

        options.clock = new SteppingClock(STEP_NS).jump(10_000, TimeUnit.SECONDS.toNanos(3));
        options.allowFewerFaults = true;
        final SoakResult allowed = SoakRunner.run(options, null).result;
        assertEveryInvariant(allowed);
        assertEquals(result.faultsScheduled, allowed.faultsScheduled, "the summary still says what was asked");
        assertEquals(result.faultsInjected, allowed.faultsInjected);
    }

    @Test
    void aDiscardNoFaultExplainsFailsTheRun()
    {
        final SoakSettings options = deterministic(4000, "");
        // a wire that garbles what no fault kind does: the 100th FCP each port receives has a reserved Op (and a good
        // LPCRC)
        options.tamper = (link) -> new ReservedOpFcp(link);
        final SoakResult result = SoakRunner.run(options, null).result;
        assertFalse(result.ok());
        assertEquals(false, result.invariants.get("discards_explained"), result.toJson());
        assertEquals(2, result.discards.get("fcp_reserved_op"));
        assertNull(result.discardCauses.get("fcp_reserved_op"));
        assertTrue(result.violations.contains(
            "2 discard(s) for fcp_reserved_op that no injected fault or documented cause explains"),
            result.violations.toString());
    }

    @Test
    void openLoopSendsExactlyTheSchedule()
    {
        final SoakSettings options = deterministic(0, "");
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
        // the duplicate put the receiver's ABR ahead of the sender's FCTBS: the sender's FCPs look stale to it, a run
        // of them re-trains the receiver, whose init FCPs then re-train the sender, which flushes what it held; what
        // the sender put on the wire in between is discarded by the initializing receiver
        final long flushed = sum(result, (vl) -> vl.flushed);
        assertTrue(flushed > 0, result.toJson());
        final long stateDiscards = result.discards.getOrDefault("data_state", 0L);
        assertEquals(4001, sum(result, (vl) -> vl.receivedPackets) + flushed + stateDiscards);
        // an SMP in flight at the link error is flushed too, and counted with the data messages
        assertEquals(result.vl15Sent, result.vl15Received + result.vl15Dropped + result.vl15Flushed);
        assertTrue(result.violations.contains((flushed + result.vl15Flushed) +
            " message(s) flushed by a link error without a link bounce"), result.violations.toString());
    }

    @Test
    void aVlInNeitherTableOrWithoutAnSlIsReportedNotDriven()
    {
        final String[] seed = SoakSettings.notDrivenReasons(QosConfig.seedExample());
        for (int vl = 0; vl < 8; vl++)
        {
            assertEquals(vl == 4, null != seed[vl], "VL " + vl);
        }
        assertTrue(seed[4].contains("neither arbitration table"));

        // SL2VL sends nothing to VL7: it can be served by the tables but no packet can reach it
        final QosConfig unmapped = QosConfig.seedExample().toBuilder().sl2vl("0,1,2,3,4,5,6,0,0,1,2,3,4,5,6,0").build();
        final String[] reasons = SoakSettings.notDrivenReasons(unmapped);
        assertEquals("no SL maps to it", reasons[7]);
        assertEquals(-1, SoakSettings.slOf(unmapped, 7));
        assertEquals(3, SoakSettings.slOf(unmapped, 3));
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
