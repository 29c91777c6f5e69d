package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.capture.CaptureStoppedException;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;

/**
 * Runs one soak (docs/cli.md, {@code vlink soak}): two ports back to back (loopback peer; UDP or shared memory, with
 * port B in this process or a peer process; UDP to a peer on another host), data from port A to port B on every data
 * VL the tables can serve
 * plus SMPs on VL15, faults injected on a schedule, a live line each second, then a drain and the checks of
 * the invariants of docs/soak.md.
 * <p>
 * One application thread (the caller's) sends, receives, injects the faults and reports; the engine runs on its
 * own thread(s). Every wait is bounded by a deadline.
 */
public final class SoakRunner
{
    /** What a run produced. */
    public static final class Outcome
    {
        public final SoakResult result;
        public final SoakTimeline timeline;
        public final Histogram latency;
        /** The latencies after the warm-up. */
        public final Histogram steadyLatency;
        /**
         * What stopped {@link SoakSettings#capture}, or null: an output that failed, which the data verdict leaves out.
         */
        public final CaptureStoppedException captureFailure;

        Outcome(final SoakResult result, final SoakTimeline timeline, final Histogram latency,
            final Histogram steadyLatency, final CaptureStoppedException captureFailure)
        {
            this.result = result;
            this.timeline = timeline;
            this.latency = latency;
            this.steadyLatency = steadyLatency;
            this.captureFailure = captureFailure;
        }
    }

    private final SoakSettings options;
    private final PrintWriter live;

    private SoakRunner(final SoakSettings options, final PrintWriter live)
    {
        this.options = options;
        this.live = live;
    }

    /**
     * Run a soak.
     *
     * @param options what to run.
     * @param live    where the live line goes each second (null: nowhere).
     * @return the result, the per-second timeline and every latency.
     */
    public static Outcome run(final SoakSettings options, final PrintWriter live)
    {
        return new SoakRunner(options, live).run();
    }

    private Outcome run()
    {
        final QosConfig qos = options.qos;
        final int dataVls = qos.dataVls();
        final boolean[] driven = new boolean[VlArbiter.VL_COUNT];
        final int[] slOf = new int[VlArbiter.VL_COUNT];
        final String[] notDriven = SoakSettings.notDrivenReasons(qos);
        for (int vl = 0; vl < dataVls; vl++)
        {
            slOf[vl] = SoakSettings.slOf(qos, vl);
            driven[vl] = null == notDriven[vl];
        }
        final LatencyRecorder latency = new LatencyRecorder(SoakSettings.HIGHEST_LATENCY_NS);
        final SoakTraffic traffic =
            new SoakTraffic(options.sizeMin, options.sizeMax, options.seed, 1, 2, latency, options.clock);
        final SoakTimeline timeline = new SoakTimeline(dataVls);
        final SharePhases phases = new SharePhases(qos);
        final SoakResult result;
        final SoakRig rig = new SoakRig(options, traffic);
        try (rig)
        {
            rig.start();
            rig.arm(true);
            final SoakFaults faults = new SoakFaults(rig, phases, timeline, driven);
            final SoakLoop loop = new SoakLoop(rig, faults, latency, timeline, live, driven, slOf);
            final SoakChecks checks = new SoakChecks(rig, faults, phases, latency, driven, notDriven);

            final long startNs = options.clock.nanoTime();
            rig.steadyFrom(latency, startNs + SoakSettings.warmupNs(options.seconds));
            loop.run(startNs, startNs + (long)(options.seconds * SoakSettings.SECOND_NS));
            final long offeredNs = options.clock.nanoTime() - startNs;
            final boolean drained = checks.drain();
            final boolean creditsRecovered = checks.awaitCredits();
            rig.finish(latency);
            result = checks.summarize(offeredNs / 1e9, drained, creditsRecovered);
            phases.addTo(timeline, driven, options.sizeMin, options.sizeMax, options.seed);
            result.interrupted = rig.stopRequested();
            result.interruptedAtPeer = result.interrupted && !options.stop.getAsBoolean();
            result.peerPid = rig.peerPid();
            result.peerAddress = rig.peerAddress();
            rig.verdict(result.ok(), result.interrupted);
        }
        // after the engines closed: cutting the capture file to its records is the capture's last act
        return new Outcome(result, timeline, latency.total(), latency.steady(), rig.captureFailure());
    }
}
