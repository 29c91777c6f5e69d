package io.vlink.tools.soak;

import io.vlink.core.credit.Credits;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.status.PortCounters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The soak's timed faults and what each one injected and what was detected: a receiver stall and a VL15 flood once a
 * second, table replacements and link bounces N times a run, evenly spread (over the packets with {@code --packets},
 * over the time otherwise). The wire faults (drops, bit flips) are {@link FaultyLink}'s; their counts join these in
 * the summary. Runs on the soak's thread, one fault at a time.
 */
public final class SoakFaults
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long FAULT_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    /** A VL15 flood's time in each second of the run (a fabric soak's floods too). */
    public static final long FLOOD_OFFSET_NS = SECOND_NS / 4;
    /** A receiver stall's time in each second of the run (a fabric soak's stalls too). */
    public static final long STALL_OFFSET_NS = SECOND_NS / 2;

    /** The faults {@link #due} injects on a schedule (the others are the wire's, by probability). */
    static final FaultKind[] TIMED =
        {FaultKind.STALL_RECEIVER, FaultKind.VL15_FLOOD, FaultKind.RETABLE, FaultKind.LINK_BOUNCE};

    final long[] injected = new long[FaultKind.values().length];
    final long[] detected = new long[FaultKind.values().length];
    /**
     * Once-a-second faults whose time passed while a link bounce held the soak's thread (in the unit of
     * {@link #injected}): the link was down, there was nothing to stall or flood, and they are the bounce's, not a
     * paused machine's.
     */
    final long[] skippedForBounce = new long[FaultKind.values().length];

    private final SoakRig rig;
    private final SoakTraffic traffic;
    private final SharePhases phases;
    private final FaultSpec faults;
    private final QosConfig qos;
    private final QosConfig variant;
    private final boolean[] driven;
    private final int dataVls;

    private long startNs;
    private long lengthNs;
    private long offeredNs;
    private long floods;
    private long stalls;
    private final SoakTimeline timeline;
    private int retables;
    private int bounces;
    private long stallUntilNs;
    private long stallsAtStallStart;
    /** The link's downs (a port that took its peer for silent, both ports) while a bounce was injected. */
    private long bounceDowns;
    /** When each bounce began and ended, on the soak's clock. */
    private final long[] bounceFromNs;
    private final long[] bounceToNs;

    SoakFaults(final SoakRig rig, final SharePhases phases, final SoakTimeline timeline, final boolean[] driven)
    {
        this.rig = rig;
        this.timeline = timeline;
        this.traffic = rig.traffic;
        this.phases = phases;
        this.faults = rig.options.faults;
        this.qos = rig.options.qos;
        this.variant = variantOf(qos);
        this.driven = driven;
        this.dataVls = qos.dataVls();
        final int bounceCount = (int)Math.min(Integer.MAX_VALUE - 8, faults.count(FaultKind.LINK_BOUNCE));
        this.bounceFromNs = new long[bounceCount];
        this.bounceToNs = new long[bounceCount];
    }

    /**
     * @param startNs when traffic starts being offered.
     * @param endNs   when it stops (at the latest).
     */
    void schedule(final long startNs, final long endNs)
    {
        this.startNs = startNs;
        this.lengthNs = endNs - startNs;
    }

    /**
     * @param nowNs the soak's time.
     * @return whether the receiving application is stalled now (nothing may be polled); a stall whose time is over
     * ends here.
     */
    boolean receiverStalled(final long nowNs)
    {
        if (nowNs < stallUntilNs)
        {
            return true;
        }
        if (0 != stallUntilNs)
        {
            endStall();
        }
        return false;
    }

    /**
     * Traffic stopped: ends a stall still running, and fixes how long the schedule ran.
     *
     * @param nowNs the soak's time.
     */
    void stopped(final long nowNs)
    {
        if (0 != stallUntilNs)
        {
            endStall();
        }
        offeredNs = Math.min(nowNs - startNs, lengthNs);
        // the last ones' time may have passed during a bounce at the end
        skipped(FaultKind.VL15_FLOOD, floods, timesBefore(offeredNs, FLOOD_OFFSET_NS), FLOOD_OFFSET_NS);
        skipped(FaultKind.STALL_RECEIVER, stalls, timesBefore(offeredNs, STALL_OFFSET_NS), STALL_OFFSET_NS);
    }

    /**
     * Once-a-second occurrences {@code from} (inclusive) to {@code to} (exclusive) of a kind did not run: those whose
     * time fell in a link bounce are the bounce's.
     */
    private void skipped(final FaultKind kind, final long from, final long to, final long offsetNs)
    {
        if (!faults.isOn(kind))
        {
            return;
        }
        final long unit = FaultKind.VL15_FLOOD == kind ? faults.count(kind) : 1;
        for (long occurrence = from; occurrence < to; occurrence++)
        {
            final long atNs = startNs + offsetNs + occurrence * SECOND_NS;
            for (int i = 0; i < bounces; i++)
            {
                if (atNs - bounceFromNs[i] >= 0 && bounceToNs[i] - atNs >= 0)
                {
                    skippedForBounce[kind.ordinal()] += unit;
                    break;
                }
            }
        }
    }

    /**
     * Inject what is due, one fault at a time: each kind at most once a call, the receiver stall last (it begins a
     * time without polling). A once-a-second fault whose next time has come too (the soak's thread was paused or
     * starved for a second or more) is not caught up: the missed ones are counted and the summary reports them.
     *
     * @param nowNs the soak's time, while traffic is offered and the receiver is not stalled.
     */
    void due(final long nowNs)
    {
        final long sinceNs = nowNs - startNs;
        // once a second: a VL15 flood at +0.25 s, a receiver stall at +0.5 s
        final long flood = occurrence(sinceNs, FLOOD_OFFSET_NS);
        if (faults.isOn(FaultKind.VL15_FLOOD) && flood >= floods)
        {
            skipped(FaultKind.VL15_FLOOD, floods, flood, FLOOD_OFFSET_NS);
            floods = flood + 1;
            timeline.addFault(FaultKind.VL15_FLOOD, sinceNs);
            vl15Flood((int)faults.count(FaultKind.VL15_FLOOD));
        }
        // N times a run, evenly spread: table replacements at k/(N+1), bounces at (k+1/2)/N of the run
        if (retables < faults.count(FaultKind.RETABLE) &&
            reached(sinceNs, retables + 1, faults.count(FaultKind.RETABLE) + 1))
        {
            timeline.addFault(FaultKind.RETABLE, sinceNs);
            retable(retables++, sinceNs);
        }
        if (bounces < faults.count(FaultKind.LINK_BOUNCE) &&
            reached(sinceNs, 2L * bounces + 1, 2 * faults.count(FaultKind.LINK_BOUNCE)))
        {
            bounceFromNs[bounces] = nowNs;
            timeline.addFault(FaultKind.LINK_BOUNCE, sinceNs);
            bounce();
            bounceToNs[bounces] = rig.clock.nanoTime();
            bounces++;
        }
        final long stall = occurrence(sinceNs, STALL_OFFSET_NS);
        if (faults.isOn(FaultKind.STALL_RECEIVER) && stall >= stalls)
        {
            skipped(FaultKind.STALL_RECEIVER, stalls, stall, STALL_OFFSET_NS);
            stalls = stall + 1;
            timeline.addFault(FaultKind.STALL_RECEIVER, sinceNs);
            startStall(nowNs, TimeUnit.MILLISECONDS.toNanos(faults.count(FaultKind.STALL_RECEIVER)));
        }
    }

    /**
     * @param sinceNs  time since traffic started being offered.
     * @param offsetNs the fault's time in each second ({@link #FLOOD_OFFSET_NS}, {@link #STALL_OFFSET_NS}).
     * @return the latest of a once-a-second fault's times that has come (0 at {@code offsetNs}), -1 for none yet.
     */
    public static long occurrence(final long sinceNs, final long offsetNs)
    {
        return sinceNs < offsetNs ? -1 : (sinceNs - offsetNs) / SECOND_NS;
    }

    /**
     * @param kind a timed kind (stall, flood, retable, bounce).
     * @return what the schedule asked for while traffic was offered, in the unit of {@link #injected}: stalls,
     * flood SMPs, replacements, bounces.
     */
    long scheduled(final FaultKind kind)
    {
        if (!faults.isOn(kind))
        {
            return 0;
        }
        switch (kind)
        {
            case VL15_FLOOD:
                return timesBefore(offeredNs, FLOOD_OFFSET_NS) * faults.count(kind);
            case STALL_RECEIVER:
                return timesBefore(offeredNs, STALL_OFFSET_NS);
            case RETABLE:
            case LINK_BOUNCE:
                return faults.count(kind);
            default:
                throw new IllegalArgumentException(kind + " is not a timed fault");
        }
    }

    private static long timesBefore(final long lengthNs, final long offsetNs)
    {
        return lengthNs <= offsetNs ? 0 : (lengthNs - offsetNs - 1) / SECOND_NS + 1;
    }

    /**
     * @return whether the run is {@code numerator / denominator} through: of its packets with {@code --packets} (the
     * same packets in every run), of its time otherwise.
     */
    private boolean reached(final long sinceNs, final long numerator, final long denominator)
    {
        final long packets = rig.options.packets;
        return 0 != packets ? traffic.dataSent >= numerator * packets / denominator :
            sinceNs >= numerator * lengthNs / denominator;
    }

    private void startStall(final long nowNs, final long durationNs)
    {
        injected[FaultKind.STALL_RECEIVER.ordinal()]++;
        stallsAtStallStart = totalStalls();
        stallUntilNs = nowNs + durationNs;
    }

    private void endStall()
    {
        stallUntilNs = 0;
        // the stall is seen when the sender stalled on credits meanwhile (no loss, no overflow): a new stall
        // episode, or a VL whose window is closed now (it may have been blocked since before the stall began)
        if (totalStalls() > stallsAtStallStart || windowClosed())
        {
            detected[FaultKind.STALL_RECEIVER.ordinal()]++;
        }
    }

    private boolean windowClosed()
    {
        final int blocks = Sizes.blocks(rig.options.sizeMin);
        final PortCounters sender = rig.tx.counters();
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (driven[vl] && !Credits.mayTransmit(
                (int)sender.txCreditLimit(vl).get(), (int)sender.txFctbs(vl).get(), blocks))
            {
                return true;
            }
        }
        return false;
    }

    private long totalStalls()
    {
        long total = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            total += rig.tx.counters().creditStalls(vl).get();
        }
        return total;
    }

    /**
     * @return SMPs received by port B, dropped for a full VL15 buffer, or discarded for its link state.
     */
    long vl15Accounted()
    {
        final PortCounters counters = rig.rxCounters;
        return counters.rxPackets(LrhFlyweight.VL15).get() + counters.vl15Drops().get() +
            counters.discards(DiscardReason.VL15_STATE.id()).get() + vl15Flushed();
    }

    /**
     * @return SMPs the sender put on the wire or flushed at a link error: every SMP it accepted, once it has none
     * queued.
     */
    long vl15SentOrFlushed()
    {
        return rig.tx.counters().txPackets(LrhFlyweight.VL15).get() + vl15Flushed();
    }

    private long vl15Flushed()
    {
        return rig.tx.counters().txFlushedMessages(LrhFlyweight.VL15).get();
    }

    private void vl15Flood(final int extra)
    {
        final Port tx = rig.tx;
        final PortCounters rx = rig.rxCounters;
        // every SMP so far accounted for and the VL15 buffer emptied, so that exactly `extra` find it full
        if (!rig.await(FAULT_DEADLINE_NS, () -> vl15SentOrFlushed() == traffic.smpsSent &&
            vl15Accounted() == traffic.smpsSent &&
            traffic.vl15Delivered == rx.rxPackets(LrhFlyweight.VL15).get(), null))
        {
            return;
        }
        // nothing is received until every flood SMP arrived or was dropped
        rig.hold();
        final long dropsBefore = rx.vl15Drops().get();
        final int total = SoakSettings.VL15_PACKETS + extra;
        final long deadlineNs = rig.clock.nanoTime() + FAULT_DEADLINE_NS;
        int posted = 0;
        // nothing polls until every flood SMP arrived or was dropped
        while (posted < total && rig.clock.nanoTime() - deadlineNs < 0)
        {
            if (tx.postSmp(traffic.smp(), 0, traffic.prepareSmp(true)) != QueuePair.BACK_PRESSURED)
            {
                posted++;
                traffic.smpAccepted();
            }
            else if (0 == rig.duty())
            {
                Thread.onSpinWait();
            }
        }
        rig.spinUntil(deadlineNs, () -> vl15Accounted() == traffic.smpsSent);
        injected[FaultKind.VL15_FLOOD.ordinal()] += Math.max(0, posted - SoakSettings.VL15_PACKETS);
        detected[FaultKind.VL15_FLOOD.ordinal()] += rx.vl15Drops().get() - dropsBefore;
    }

    private void retable(final int index, final long sinceStartNs)
    {
        final Port tx = rig.tx;
        final QosConfig replacement = index % 2 == 0 ? variant : qos;
        injected[FaultKind.RETABLE.ordinal()]++;
        tx.replaceQos(replacement);
        final long[] bytesBefore = traffic.phaseBytes.clone();
        if (rig.await(FAULT_DEADLINE_NS, () -> tx.currentQos() == replacement, null))
        {
            detected[FaultKind.RETABLE.ordinal()]++;
        }
        // the bytes of the phase that ends; the next phase counts from here
        phases.nextPhase(bytesBefore, replacement, sinceStartNs);
        java.util.Arrays.fill(traffic.phaseBytes, 0);
    }

    private void bounce()
    {
        final Port tx = rig.tx;
        injected[FaultKind.LINK_BOUNCE.ordinal()]++;
        // the physical link goes down: what is on the wire is lost (counted per VL by the wire) until it is up again.
        // The receiving port goes down and stays down until the sender, hearing nothing for the link timeout, takes
        // the link for lost: a link error, so the sender flushes what it held (its tx_flushed_messages) and
        // re-initializes; then the receiver comes back and both train as at the first bring-up
        rig.cut(true);
        final long downsBefore = tx.counters().linkDowned().get();
        final long bothBefore = linkDowns();
        rig.rxLink(false);
        if (rig.await(FAULT_DEADLINE_NS,
            () -> rig.rxLinkState() == LinkState.DOWN && tx.counters().linkDowned().get() > downsBefore, null))
        {
            rig.rxLink(true);
            if (rig.await(FAULT_DEADLINE_NS,
                () -> tx.linkState() == LinkState.ACTIVE && rig.rxLinkState() == LinkState.ACTIVE, null))
            {
                detected[FaultKind.LINK_BOUNCE.ordinal()]++;
            }
        }
        rig.cut(false);
        bounceDowns += linkDowns() - bothBefore;
    }

    private long linkDowns()
    {
        return rig.tx.counters().linkDowned().get() + rig.rxCounters.linkDowned().get();
    }

    /**
     * @return the link's downs, both ports, while no bounce was injected: a port that heard nothing from its peer for
     * the link timeout (a process stopped or starved).
     */
    long downsOutsideBounces()
    {
        return linkDowns() - bounceDowns;
    }

    /**
     * The alternative tables {@code retable} switches to: the same VLs served, the low table's non-zero weights in
     * reverse order, so the shares change visibly.
     *
     * @param qos the configured settings.
     * @return the variant.
     */
    public static QosConfig variantOf(final QosConfig qos)
    {
        final VlArbTable low = qos.low();
        final List<Integer> weights = new ArrayList<>();
        for (int i = 0; i < low.size(); i++)
        {
            if (low.weight(i) != 0)
            {
                weights.add(low.weight(i));
            }
        }
        final int[] pairs = new int[2 * low.size()];
        int next = weights.size() - 1;
        for (int i = 0; i < low.size(); i++)
        {
            pairs[2 * i] = low.vl(i);
            pairs[2 * i + 1] = low.weight(i) != 0 ? weights.get(next--) : 0;
        }
        return qos.toBuilder().vlarbLow(VlArbTable.of(pairs)).build();
    }
}
