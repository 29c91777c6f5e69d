package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;

import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The soak's run loop on the application thread: offers data on every driven VL (backlogged, or open loop on a
 * schedule) and SMPs on VL15, polls port B unless the receiver is stalled, runs the engines in invoker mode, lets
 * the due fault happen, and prints the live line each second.
 */
final class SoakLoop
{
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long LATE_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    private static final int POSTS_PER_VL = 64;

    private final SoakRig rig;
    private final SoakTraffic traffic;
    private final SoakFaults faults;
    private final LatencyRecorder latency;
    private final SoakTimeline timeline;
    private final PrintWriter live;
    private final boolean[] driven;
    private final int[] slOf;
    private final int dataVls;
    private final long packets;

    // open loop
    private long periodNs;
    private final long[] nextIntendedNs = new long[VlArbiter.VL_COUNT];
    private long nextSmpNs;

    // the live line
    private final long[] lastStalls = new long[VlArbiter.VL_COUNT];
    private final long[] lastDelivered = new long[VlArbiter.VL_COUNT];
    private long lastVl15;

    SoakLoop(
        final SoakRig rig, final SoakFaults faults, final LatencyRecorder latency, final SoakTimeline timeline,
        final PrintWriter live, final boolean[] driven, final int[] slOf)
    {
        this.rig = rig;
        this.traffic = rig.traffic;
        this.faults = faults;
        this.latency = latency;
        this.timeline = timeline;
        this.live = live;
        this.driven = driven;
        this.slOf = slOf;
        this.dataVls = rig.options.qos.dataVls();
        this.packets = rig.options.packets;
    }

    /**
     * Offer traffic from {@code startNs} to {@code endNs} (open loop: and what was intended before the end).
     *
     * @param startNs when traffic starts, on the soak's clock.
     * @param endNs   when it stops.
     */
    void run(final long startNs, final long endNs)
    {
        int drivenCount = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            drivenCount += driven[vl] ? 1 : 0;
            nextIntendedNs[vl] = startNs;
        }
        final long rate = rig.options.rate;
        periodNs = rate > 0 && drivenCount > 0 ? Math.max(1, drivenCount * SECOND_NS / rate) : 0;
        nextSmpNs = startNs;

        faults.schedule(startNs, endNs);
        long nextReportNs = startNs + SECOND_NS;
        int second = 0;
        long nowNs = startNs;
        final long lateDeadlineNs = endNs + LATE_DEADLINE_NS;
        while ((nowNs < endNs || (behindSchedule(endNs) && nowNs < lateDeadlineNs)) && !allOffered() &&
            !rig.stopRequested())
        {
            rig.receive(!faults.receiverStalled(nowNs));
            offer(Math.min(nowNs, endNs - 1));
            rig.duty();
            nowNs = rig.clock.nanoTime();
            if (!faults.receiverStalled(nowNs) && nowNs < endNs)
            {
                faults.due(nowNs);
            }
            if (nowNs >= nextReportNs)
            {
                report(++second);
                nextReportNs += SECOND_NS;
            }
        }
        faults.stopped(nowNs);
    }

    /** With {@code --packets}: every packet asked for was accepted. */
    private boolean allOffered()
    {
        return 0 != packets && traffic.dataSent >= packets;
    }

    /** Open loop: packets intended before the end are sent even when the run is late with them. */
    private boolean behindSchedule(final long endNs)
    {
        if (0 == periodNs)
        {
            return false;
        }
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (driven[vl] && nextIntendedNs[vl] < endNs)
            {
                return true;
            }
        }
        return false;
    }

    private void offer(final long nowNs)
    {
        final Port tx = rig.tx;
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (!driven[vl])
            {
                continue;
            }
            final int sl = slOf[vl];
            for (int i = 0; i < POSTS_PER_VL && !allOffered(); i++)
            {
                final long intendedNs;
                if (0 != periodNs)
                {
                    intendedNs = nextIntendedNs[vl];
                    if (intendedNs > nowNs)
                    {
                        break;
                    }
                }
                else
                {
                    intendedNs = rig.clock.nanoTime();
                }
                final int length = traffic.prepare(vl, intendedNs);
                if (QueuePair.BACK_PRESSURED == tx.postPacket(sl, traffic.buffer(vl), 0, length))
                {
                    break;
                }
                traffic.accepted(vl);
                nextIntendedNs[vl] += periodNs;
            }
        }
        if (nowNs >= nextSmpNs && tx.postSmp(traffic.smp(), 0, traffic.prepareSmp(false)) != QueuePair.BACK_PRESSURED)
        {
            traffic.smpAccepted();
            nextSmpNs += SECOND_NS / SoakSettings.VL15_RATE;
            if (nextSmpNs < nowNs - SECOND_NS)
            {
                nextSmpNs = nowNs;
            }
        }
    }

    private void report(final int second)
    {
        final long[] stalls = new long[VlArbiter.VL_COUNT];
        final StringBuilder line = new StringBuilder(200);
        line.append(String.format(Locale.ROOT, "%4ds", second));
        long bytes = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            final long now = rig.tx.counters().creditStalls(vl).get();
            stalls[vl] = now - lastStalls[vl];
            lastStalls[vl] = now;
            bytes += traffic.intervalBytes[vl];
            if (driven[vl])
            {
                line.append(" vl").append(vl).append('=').append(SoakSettings.rate(traffic.delivered[vl] - lastDelivered[vl]));
            }
            lastDelivered[vl] = traffic.delivered[vl];
        }
        line.append(" vl15=").append(SoakSettings.rate(traffic.vl15Delivered - lastVl15)).append(" pkt/s");
        lastVl15 = traffic.vl15Delivered;
        long stallSum = 0;
        for (final long s : stalls)
        {
            stallSum += s;
        }
        final long p99 = rig.intervalP99(latency);
        line.append(String.format(Locale.ROOT, " | %.1f MB/s | stalls %d | discards %d | p99 %s",
            bytes / 1e6, stallSum, discards(), SoakSettings.nanos(p99)));
        timeline.addSecond(traffic.intervalBytes, stalls, p99);
        Arrays.fill(traffic.intervalBytes, 0);
        if (null != live)
        {
            live.println(line);
            live.flush();
        }
    }

    private long discards()
    {
        long total = 0;
        for (int reason = 0; reason < DiscardReason.values().length; reason++)
        {
            total += rig.rxCounters.discards(reason).get() + rig.tx.counters().discards(reason).get();
        }
        return total;
    }
}
