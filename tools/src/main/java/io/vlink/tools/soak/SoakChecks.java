package io.vlink.tools.soak;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.status.CreditRecovery;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.PortCounters;
import org.HdrHistogram.Histogram;

import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The end of a soak: the drain (every packet sent accounted for), the wait for the credits to recover, and the
 * summary with the invariants of link-level flow control, each with the reason when it fails.
 */
final class SoakChecks
{
    private static final long CREDIT_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    /**
     * Why a bring-up may discard an FCP: the port that arms first sends normal FCPs; the first that reaches its peer
     * still in Initialize (which takes only init FCPs) is discarded, and arms the peer. At most one per port.
     */
    static final String PEER_ARMED_FIRST =
        "link bring-up: the peer armed first and its normal FCPs reached this port in Initialize, before the init FCP " +
        "this port owed it had gone";
    /** Why SMPs may be dropped in any run: VL15 has no credits, its 4-packet buffer takes what it can. */
    static final String VL15_UNCREDITED = "VL15 is not credited: an SMP that finds the 4-packet buffer full is dropped";

    private final SoakRig rig;
    private final SoakSettings options;
    private final SoakTraffic traffic;
    private final SoakFaults faults;
    private final SharePhases phases;
    private final LatencyRecorder latency;
    private final boolean[] driven;
    private final String[] notDriven;
    private final int dataVls;

    /** Totals over the data VLs, from the traffic and the wire, once drained. */
    private static final class Totals
    {
        long lost;
        long missing;
        long unordered;
        long damaged;
        long dropped;
        long corrupted;
        long bounceLost;
        long stateLost;
        long flushed;
    }

    SoakChecks(
        final SoakRig rig, final SoakFaults faults, final SharePhases phases, final LatencyRecorder latency,
        final boolean[] driven, final String[] notDriven)
    {
        this.rig = rig;
        this.options = rig.options;
        this.traffic = rig.traffic;
        this.faults = faults;
        this.phases = phases;
        this.latency = latency;
        this.driven = driven;
        this.notDriven = notDriven;
        this.dataVls = options.qos.dataVls();
    }

    /**
     * Stop injecting and receive until every packet sent is delivered or destroyed by a fault.
     *
     * @return whether that happened before the drain's deadline.
     */
    boolean drain()
    {
        rig.arm(false);
        phases.endPhase(traffic.phaseBytes);
        // and no fault injected after the counts are read: what was injected is compared with what was detected
        final boolean drained = rig.await(options.drainTimeoutNs, () -> rig.quiet() && accounted(), null);
        phases.endPhase(traffic.phaseBytes);
        return drained;
    }

    private boolean accounted()
    {
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (driven[vl] && unaccounted(vl) > 0)
            {
                return false;
            }
        }
        return faults.vl15SentOrFlushed() == traffic.smpsSent &&
            faults.vl15Accounted() == traffic.smpsSent &&
            traffic.vl15Delivered == rig.rxCounters.rxPackets(LrhFlyweight.VL15).get();
    }

    /**
     * @return data packets of the VL destroyed by an injected fault: lost or damaged on the wire (unless link-level
     * retry repaired them: then none is), lost at a link bounce, discarded by a port that did not take data, or flushed
     * by the sender at a link error (never sent; one packet is one message here).
     */
    private long faultLost(final int vl)
    {
        final WireCounts wire = rig.wire;
        final long wireLost = options.retryOn() ? 0 : wire.droppedData(vl) + wire.corruptedData(vl);
        return wireLost + wire.bounceLost(vl) + wire.stateLost(vl) + flushed(vl);
    }

    /**
     * @return the VL's data packets the sender flushed at link errors: the flush-error completions of the SL the soak
     * posts the VL's packets on (checked against the port's {@code tx_flushed_messages} by {@link #invariants}).
     */
    private long flushed(final int vl)
    {
        return rig.flushes.packets(SoakSettings.slOf(options.qos, vl));
    }

    private long unaccounted(final int vl)
    {
        return traffic.sent[vl] - (traffic.delivered[vl] - traffic.duplicated[vl]) - traffic.damaged[vl] -
            faultLost(vl);
    }

    /**
     * @return whether the final FCPs restored every credit window within 5 s.
     */
    boolean awaitCredits()
    {
        return rig.await(CREDIT_DEADLINE_NS, this::creditsRecovered, null);
    }

    private boolean creditsRecovered()
    {
        return CreditRecovery.unrecovered("tx", rig.tx.counters(), rig.rxCounters, SoakSettings.VL_BUFFER_BLOCKS)
            .isEmpty();
    }

    /**
     * @param seconds          how long traffic was offered.
     * @param drained          whether the drain finished.
     * @param creditsRecovered whether the credits recovered.
     * @return the summary.
     */
    SoakResult summarize(final double seconds, final boolean drained, final boolean creditsRecovered)
    {
        final SoakResult result = new SoakResult();
        result.seconds = seconds;
        result.link = options.udp ? "udp" : options.shm ? "shm" : "loopback";
        result.threads = options.threading.name().toLowerCase(Locale.ROOT);
        // the engine's idle strategy does not apply when the soak's thread runs its duty cycles
        result.idle = ThreadingMode.INVOKER == options.threading ? "none" : options.idle;
        result.seed = options.seed;
        result.dataVls = dataVls;
        result.packetSizeMin = options.sizeMin;
        result.packetSizeMax = options.sizeMax;
        result.faultSpec = options.faults.toString();

        final Totals totals = vls(result);
        final PortCounters sender = rig.tx.counters();
        final PortCounters receiver = rig.rxCounters;
        result.vl15Sent = traffic.smpsSent;
        result.vl15Received = traffic.vl15Delivered;
        result.vl15Dropped = receiver.vl15Drops().get();
        result.fcpSent = sender.fcpSent().get() + receiver.fcpSent().get();
        result.fcpReceived = sender.fcpReceived().get() + receiver.fcpReceived().get();
        result.fcpDiscarded = sender.fcpDiscarded().get() + receiver.fcpDiscarded().get();
        faults(result, totals);
        retry(result, sender, receiver);
        discards(result);
        latency(result);
        invariants(result, totals, drained, creditsRecovered);
        return result;
    }

    private Totals vls(final SoakResult result)
    {
        final double[] predicted = phases.predicted(driven, options.sizeMin, options.sizeMax, options.seed);
        final PortCounters sender = rig.tx.counters();
        final InjectionConfig injection = rig.tx.injection();
        final Totals totals = new Totals();
        final WireCounts wire = rig.wire;
        for (int vl = 0; vl < dataVls; vl++)
        {
            final SoakResult.Vl v = new SoakResult.Vl(vl);
            v.driven = driven[vl];
            v.notDrivenReason = notDriven[vl];
            v.sentPackets = traffic.sent[vl];
            v.sentBytes = traffic.sentBytes[vl];
            v.receivedPackets = traffic.delivered[vl];
            v.receivedBytes = traffic.receivedBytes[vl];
            v.faultLost = faultLost(vl);
            v.flushed = flushed(vl);
            v.damaged = traffic.damaged[vl];
            v.lost = Math.max(0, unaccounted(vl));
            v.outOfOrder = traffic.outOfOrder[vl];
            v.duplicated = traffic.duplicated[vl];
            v.creditStalls = rig.tx.counters().creditStalls(vl).get();
            v.predictedShare = predicted[vl];
            v.injectedCells = sender.txCells(vl).get();
            final int sl = SoakSettings.slOf(options.qos, vl);
            v.classWeight = sl < 0 ? 0 : injection.weight(injection.classOf(sl));
            result.vls.add(v);
            totals.lost += v.lost;
            totals.missing += traffic.missing(vl);
            totals.unordered += v.outOfOrder + v.duplicated;
            totals.damaged += v.damaged;
            totals.dropped += wire.droppedData(vl);
            totals.corrupted += wire.corruptedData(vl);
            totals.bounceLost += wire.bounceLost(vl);
            totals.stateLost += wire.stateLost(vl);
            totals.flushed += v.flushed;
        }
        result.computeShares();
        double maxError = 0;
        for (final SoakResult.Vl v : result.vls)
        {
            maxError = Math.max(maxError, Math.abs(v.share - v.predictedShare));
        }
        result.maxShareError = maxError;
        result.computeCellShares();
        result.vl15InjectedCells = sender.txCells(LrhFlyweight.VL15).get();
        result.vl15ClassWeight = injection.weight(injection.classOf(InjectionConfig.PORT_SMP_INJECTOR));
        return totals;
    }

    private void faults(final SoakResult result, final Totals totals)
    {
        final PortCounters sender = rig.tx.counters();
        final PortCounters receiver = rig.rxCounters;
        final long[] injected = faults.injected;
        final long[] detected = faults.detected;
        final long badCrc = receiver.discards(DiscardReason.DATA_BAD_CRC.id()).get();
        final long stateDiscards = receiver.discards(DiscardReason.DATA_STATE.id()).get();
        injected[FaultKind.DROP_DATA.ordinal()] = totals.dropped;
        injected[FaultKind.CORRUPT_DATA.ordinal()] = totals.corrupted;
        injected[FaultKind.DROP_FCP.ordinal()] = rig.links[0].droppedFcps() + rig.wire.droppedFcps();
        injected[FaultKind.CORRUPT_FCP.ordinal()] = rig.links[0].corruptedFcps() + rig.wire.corruptedFcps();
        // the receiver's sequence gaps not explained by what it discarded (bad CRC, link state), found damaged, what
        // the wire lost at a link bounce, or what the sender flushed at a link error (with retry: none to detect)
        detected[FaultKind.DROP_DATA.ordinal()] = options.retryOn() ? 0 :
            totals.missing - badCrc - stateDiscards - totals.damaged - totals.bounceLost - totals.flushed;
        detected[FaultKind.CORRUPT_DATA.ordinal()] = badCrc;
        detected[FaultKind.CORRUPT_FCP.ordinal()] = sender.discards(DiscardReason.FCP_BAD_LPCRC.id()).get() +
            receiver.discards(DiscardReason.FCP_BAD_LPCRC.id()).get();
        for (final FaultKind kind : SoakFaults.TIMED)
        {
            if (options.faults.isOn(kind))
            {
                result.faultsScheduled.put(kind, faults.scheduled(kind));
                if (faults.skippedForBounce[kind.ordinal()] > 0)
                {
                    result.faultsSkippedForBounce.put(kind, faults.skippedForBounce[kind.ordinal()]);
                }
            }
        }
        for (final FaultKind kind : FaultKind.values())
        {
            if (options.faults.values().containsKey(kind))
            {
                result.faultsInjected.put(kind, injected[kind.ordinal()]);
                if (FaultKind.DROP_FCP != kind && (FaultKind.DROP_DATA != kind || !options.retryOn()))
                {
                    // a lost FCP leaves nothing to detect, credits recover from later FCPs; with link-level retry a
                    // lost data packet neither: it is sent again (the retransmissions)
                    result.faultsDetected.put(kind, detected[kind.ordinal()]);
                }
            }
        }
    }

    /** What link-level retry did on both ports. */
    private void retry(final SoakResult result, final PortCounters sender, final PortCounters receiver)
    {
        result.retry = options.retryOn();
        result.retransmits = sender.linkRetransmits().get() + receiver.linkRetransmits().get();
        result.replayRequests = sender.linkReplayRequests().get() + receiver.linkReplayRequests().get();
        result.retryTimeouts = sender.linkRetryTimeouts().get() + receiver.linkRetryTimeouts().get();
        result.linkDuplicates = sender.linkDuplicates().get() + receiver.linkDuplicates().get();
        result.linkOutOfOrder = sender.linkOutOfOrder().get() + receiver.linkOutOfOrder().get();
        result.replayFull = sender.linkReplayFull().get() + receiver.linkReplayFull().get();
        result.acksSent = sender.linkAcksSent().get() + receiver.linkAcksSent().get();
        result.retryFailures = sender.linkRetryFailures().get() + receiver.linkRetryFailures().get();
    }

    /**
     * @return why the link went down with no bounce injected (a silent peer), or null when it did not.
     */
    private String silence()
    {
        final long downs = faults.downsOutsideBounces();
        return 0 == downs ? null : rig.silenceCause(downs);
    }

    /** Every discard of both ports by reason, with what explains it. */
    private void discards(final SoakResult result)
    {
        for (final DiscardReason reason : DiscardReason.values())
        {
            final long count = rig.tx.counters().discards(reason.id()).get() +
                rig.rxCounters.discards(reason.id()).get();
            if (count > 0)
            {
                final String name = DiscardReasons.name(reason.id());
                result.discards.put(name, count);
                result.discardCauses.put(name, causeOf(reason, count));
            }
        }
    }

    /**
     * @return the injected fault or the documented cause that explains discards for the reason, null if nothing
     * does (an engine bug, or a wire that does more than the soak's faults).
     */
    private String causeOf(final DiscardReason reason, final long count)
    {
        final FaultSpec spec = options.faults;
        // a link that went down for a silent peer discards as a bounce does: what was on the wire, stale FCPs
        final String silence = spec.isOn(FaultKind.LINK_BOUNCE) ? null : silence();
        switch (reason)
        {
            case DATA_BAD_CRC:
                return spec.isOn(FaultKind.CORRUPT_DATA) ? FaultKind.CORRUPT_DATA.label() : null;
            case FCP_BAD_LPCRC:
                return spec.isOn(FaultKind.CORRUPT_FCP) ? FaultKind.CORRUPT_FCP.label() : null;
            case DATA_STATE:
            case VL15_STATE:
                return spec.isOn(FaultKind.LINK_BOUNCE) ? FaultKind.LINK_BOUNCE.label() : silence;
            case FCP_STATE:
                // a bounce puts FCPs on the wire to a port going Down; a bring-up costs the port behind what arrives
                // of the peer's normal FCPs until its owed init FCP has gone (docs/flow-control.md, "Link training",
                // rule 1): as many as that, if neither port ever re-initialized; 2 otherwise
                return spec.isOn(FaultKind.LINK_BOUNCE) ? FaultKind.LINK_BOUNCE.label() :
                    null != silence ? silence : count <= 2 || upOnce() ? PEER_ARMED_FIRST : null;
            case FCP_STALE:
                // FCPs a port built before it saw its peer's reset, arriving after it: refused, not applied
                return spec.isOn(FaultKind.LINK_BOUNCE) ? FaultKind.LINK_BOUNCE.label() : silence;
            case VL15_FULL:
                return VL15_UNCREDITED;
            default:
                return null;
        }
    }

    /** Whether both ports came up once and never re-initialized (no silent or closed peer, no re-training). */
    private boolean upOnce()
    {
        final PortCounters tx = rig.tx.counters();
        final PortCounters rx = rig.rxCounters;
        return 0 == tx.linkDowned().get() + tx.linkErrorRecovery().get() + rx.linkDowned().get() +
            rx.linkErrorRecovery().get();
    }

    private void latency(final SoakResult result)
    {
        latency.sampleInterval();
        final Histogram total = latency.total();
        final Histogram steady = latency.steady();
        result.warmupSeconds = SoakSettings.warmupNs(options.seconds) / 1e9;
        result.latencyAfterWarmup = steady.getTotalCount() > 0;
        result.latency.set(result.latencyAfterWarmup ? steady : total);
        result.latencyWholeRun.set(total);
    }

    /** The invariants of link-level flow control, each with the reason when it fails. */
    private void invariants(
        final SoakResult result, final Totals totals, final boolean drained, final boolean creditsRecovered)
    {
        final PortCounters sender = rig.tx.counters();
        final PortCounters receiver = rig.rxCounters;
        final long badCrc = receiver.discards(DiscardReason.DATA_BAD_CRC.id()).get();
        final long stateDiscards = receiver.discards(DiscardReason.DATA_STATE.id()).get();
        final long vl15Flushed = sender.txFlushedMessages(LrhFlyweight.VL15).get();
        result.vl15Flushed = vl15Flushed;
        final long vl15Missing = traffic.smpsSent - result.vl15Received - result.vl15Dropped -
            receiver.discards(DiscardReason.VL15_STATE.id()).get() - vl15Flushed;
        final int violationsBefore = result.violations.size();
        violation(result, drained, "the drain did not finish within " +
            TimeUnit.NANOSECONDS.toMillis(options.drainTimeoutNs) + " ms: packets are still unaccounted for");
        violation(result, totals.lost == 0,
            totals.lost + " data packet(s) neither delivered nor destroyed by an injected fault");
        // with retry a damaged packet that arrives past a gap is discarded by the retry layer before any CRC check
        violation(result, options.retryOn() ? badCrc <= totals.corrupted : totals.corrupted == badCrc,
            totals.corrupted + " data packet(s) corrupted on the wire but " + badCrc + " discarded for a bad CRC");
        violation(result, 0 == result.retryFailures, result.retryFailures +
            " frame(s) link-level retry could not repair");
        violation(result, totals.stateLost == stateDiscards, totals.stateLost +
            " data packet(s) reached a port that did not take data but " + stateDiscards +
            " were discarded for the link state");
        violation(result, vl15Missing == 0,
            vl15Missing + " SMP(s) neither delivered nor dropped for a full VL15 buffer");
        // a flush needs a link error from Armed or Active; only a bounce makes one (a port whose peer re-initialized)
        final long flushed = totals.flushed + vl15Flushed;
        final String silence = options.faults.isOn(FaultKind.LINK_BOUNCE) ? null : silence();
        violation(result, 0 == flushed || options.faults.isOn(FaultKind.LINK_BOUNCE), flushed + " message(s) " +
            (null == silence ? "flushed by a link error without a link bounce" : "flushed at a link error: " + silence));
        for (final SoakResult.Vl v : result.vls)
        {
            final long counted = sender.txFlushedMessages(v.vl).get();
            violation(result, v.flushed == counted, "VL" + v.vl + ": " + v.flushed + " flush completion(s) on SL " +
                SoakSettings.slOf(options.qos, v.vl) + " but tx_flushed_messages " + counted +
                ": the engine's flush reports disagree");
        }
        result.invariants.put("no_loss", result.violations.size() == violationsBefore);

        result.invariants.put("fifo", violation(result, totals.unordered == 0,
            totals.unordered + " data packet(s) out of order or duplicated"));
        final long overflows = receiver.discards(DiscardReason.DATA_OVERFLOW.id()).get() +
            sender.discards(DiscardReason.DATA_OVERFLOW.id()).get();
        result.invariants.put("no_overflow", violation(result, overflows == 0,
            overflows + " data packet(s) discarded for overflowing a receive buffer"));

        // no link reset: Initialize, Armed, Active at the start, then Down, Initialize, Armed, Active per bounce. The
        // two ports of a bounce go down one after the other, so the first one's init FCPs may reach its peer while
        // the peer is still Active: the peer re-trains (link_error_recovery), a bounce's extra transitions. Without
        // a bounce, any reset (a re-training, a peer taken for silent) is a violation.
        final long bounces = faults.detected[FaultKind.LINK_BOUNCE.ordinal()];
        final long expectedTransitions = 3 + 4 * bounces;
        final long linkErrors = sender.linkErrorRecovery().get() + sender.linkDowned().get() +
            receiver.linkErrorRecovery().get() + receiver.linkDowned().get();
        final boolean transitionsExplained = 0 == bounces ?
            sender.linkTransitions().get() == expectedTransitions && receiver.linkTransitions().get() == expectedTransitions &&
            0 == linkErrors :
            sender.linkTransitions().get() >= expectedTransitions && receiver.linkTransitions().get() >= expectedTransitions;
        final boolean noReset = violation(result, transitionsExplained, "link transitions " +
            sender.linkTransitions().get() + "/" + receiver.linkTransitions().get() + ", expected " + expectedTransitions +
            (0 == bounces ? "" : " or more") + ", link errors " + linkErrors + ": a link reset happened" +
            (null == silence ? "" : "; " + silence));
        final boolean recovered = violation(result, creditsRecovered,
            "credits not back to a full window after the drain: " + creditState());
        result.invariants.put("credits_recovered", noReset && recovered);

        result.invariants.put("intact", violation(result, totals.damaged == 0,
            totals.damaged + " data packet(s) delivered with a bad payload checksum"));
        final int discardsBefore = result.violations.size();
        result.discards.forEach((reason, count) -> violation(result, null != result.discardCauses.get(reason),
            count + " discard(s) for " + reason + " that no injected fault or documented cause explains"));
        final long corruptedFcps = rig.links[0].corruptedFcps() + rig.wire.corruptedFcps();
        final long badLpcrc = sender.discards(DiscardReason.FCP_BAD_LPCRC.id()).get() +
            receiver.discards(DiscardReason.FCP_BAD_LPCRC.id()).get();
        violation(result, options.retryOn() ? badLpcrc <= corruptedFcps : corruptedFcps == badLpcrc,
            corruptedFcps + " FCP(s) corrupted on the wire but " + badLpcrc + " discarded for a bad LPCRC");
        result.invariants.put("discards_explained", result.violations.size() == discardsBefore);

        final StringBuilder fewer = new StringBuilder();
        result.faultsScheduled.forEach((kind, asked) ->
        {
            // what a bounce skipped (the link was down) is the bounce's; the rest of a shortfall is the machine's
            final long ran = result.faultsInjected.get(kind);
            final long bounce = result.faultsSkippedForBounce.getOrDefault(kind, 0L);
            if (ran + bounce < asked)
            {
                fewer.append(fewer.length() == 0 ? "" : ", ").append(kind.label()).append(' ').append(ran)
                    .append(" of ").append(asked).append(0 == bounce ? "" : " (" + bounce + " skipped while the " +
                    "link was down for link-bounce)");
            }
        });
        result.invariants.put("faults_ran", violation(result, fewer.length() == 0 || options.allowFewerFaults,
            "scheduled faults not injected (the soak's thread was paused or starved): " + fewer +
            "; --allow-fewer-faults accepts such a run"));

        final String errors = rig.engineErrors();
        result.invariants.put("no_engine_errors", violation(result, errors.isEmpty(), "engine errors: " + errors));
    }

    private static boolean violation(final SoakResult result, final boolean held, final String otherwise)
    {
        if (!held)
        {
            result.violations.add(otherwise);
        }
        return held;
    }

    private String creditState()
    {
        final StringBuilder state = new StringBuilder();
        for (int vl = 0; vl < dataVls; vl++)
        {
            state.append(String.format(Locale.ROOT, "VL%d FCTBS=%d CL=%d ABR=%d free=%d; ", vl,
                rig.tx.counters().txFctbs(vl).get(), rig.tx.counters().txCreditLimit(vl).get(),
                rig.rxCounters.rxAbr(vl).get(), rig.rxCounters.rxFreeBlocks(vl).get()));
        }
        return state.toString();
    }
}
