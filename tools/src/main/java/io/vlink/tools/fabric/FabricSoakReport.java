package io.vlink.tools.fabric;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.fabric.Topology;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.status.CreditRecovery;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.status.ReadableCounter;
import io.vlink.tools.json.JsonWriter;
import io.vlink.tools.soak.FaultKind;
import io.vlink.tools.soak.SoakResult;
import io.vlink.tools.soak.SoakRunner;
import io.vlink.tools.soak.SoakSettings;
import io.vlink.tools.soak.SoakTimeline;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A fabric soak's verdict and report, once traffic stopped: the invariants it is held to (docs/soak.md,
 * docs/fabric.md: credits recovered, nothing lost or damaged that a fault does not explain, no
 * deadlock), the summary, the JSON and the comparison with a two-port soak ({@code --baseline}).
 */
final class FabricSoakReport
{
    private final FabricSoak run;

    FabricSoakReport(final FabricSoak run)
    {
        this.run = run;
    }

    /**
     * {@code vlink soak}'s two ports back to back, run after the fabric.
     *
     * @param threads         its threading mode, as {@code vlink soak --threads} names it.
     * @param packetsPerSecond data packets delivered a second (every VL), while traffic was offered.
     * @param steadyPacketsPerSecond the same over its whole seconds after the fabric's warm-up.
     * @param ok              whether every invariant of the soak held.
     */
    record Baseline(String threads, double packetsPerSecond, double steadyPacketsPerSecond, boolean ok)
    {
    }

    int baseline(final int exit, final JsonWriter json)
    {
        final SoakSettings soak = new SoakSettings();
        soak.seconds = run.options.seconds;
        soak.sizeMin = run.options.size;
        soak.sizeMax = run.options.size;
        soak.seed = run.options.seed;
        soak.threading = run.options.baselineThreading;
        soak.directory = run.options.directory;
        soak.clock = run.options.clock;
        soak.stop = run.options.stop;
        final SoakRunner.Outcome outcome = SoakRunner.run(soak, null);
        final SoakResult result = outcome.result;
        long delivered = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            delivered += vl.receivedPackets;
        }
        run.stopped |= result.interrupted;
        final double fabricRate = run.elapsedNs > 0 ? run.traffic.receivedTotal / (run.elapsedNs / 1e9) : 0;
        // the soak's timeline has each whole second's bytes: the seconds from the end of the same warm-up on
        final SoakTimeline timeline = outcome.timeline;
        final int from = (int)Math.ceil(run.warmupSeconds());
        final int to = Math.min(timeline.seconds(), (int)Math.floor(run.options.seconds));
        long steadyBytes = 0;
        for (int second = from; second < to; second++)
        {
            steadyBytes += timeline.totalBytes(second);
        }
        final double wholeRate = result.seconds > 0 ? delivered / result.seconds : 0;
        final Baseline baseline = new Baseline(run.options.baselineThreading.name().toLowerCase(Locale.ROOT), wholeRate,
            to > from ? steadyBytes / (double)run.options.size / (to - from) : wholeRate, result.ok());
        final double ratio = baseline.steadyPacketsPerSecond() > 0 ?
            run.steadyRate() / baseline.steadyPacketsPerSecond() : 0;
        final double wholeRatio = baseline.packetsPerSecond() > 0 ? fabricRate / baseline.packetsPerSecond() : 0;
        run.summaryText += String.format(Locale.ROOT, "baseline: vlink soak, 2 ports back to back, threads %s: %,.0f " +
            "pkt/s after the warm-up (%,.0f over the run); fabric/baseline %.2f after the warm-up (%.2f over the " +
            "runs)%s%n", baseline.threads(), baseline.steadyPacketsPerSecond(), baseline.packetsPerSecond(), ratio,
            wholeRatio, baseline.ok() ? "" : " (the baseline soak FAILED an invariant: " + result.violations + ")");
        json.field("baseline_pkt_s", baseline.packetsPerSecond())
            .field("baseline_pkt_s_after_warmup", baseline.steadyPacketsPerSecond())
            .field("baseline_threads", baseline.threads())
            .field("baseline_ok", baseline.ok()).field("ratio", ratio).field("ratio_whole_run", wholeRatio);
        return FabricSoak.EXIT_OK == exit && !baseline.ok() ? FabricSoak.EXIT_FAILED : exit;
    }

    /**
     * Wait for the credits to come back on every cable: {@link FabricSoak#CREDIT_SETTLE_NS} of the clock and, with a
     * switch thread, {@link FabricSoak#CREDIT_SETTLE_SWITCH_CYCLES} of its duty cycles (a switch thread the machine
     * starved through the time has not had its chance: the FCPs waiting on its links are not applied yet), within
     * {@link FabricSoak#CREDIT_SETTLE_CAP_NS} whatever happens.
     */
    void settleCredits()
    {
        final long startNs = run.options.clock.nanoTime();
        final long deadline = startNs + FabricSoak.CREDIT_SETTLE_NS;
        final long cap = startNs + FabricSoak.CREDIT_SETTLE_CAP_NS;
        final long cycles = run.fabric.hasSwitchThread() ?
            run.fabric.switchDutyCycles() + FabricSoak.CREDIT_SETTLE_SWITCH_CYCLES : 0;
        do
        {
            for (int i = 0; i < 64; i++)
            {
                run.fabric.invoke();
            }
            // the pause lets the switch thread run a duty cycle since the last check first (Fabric.pauseSwitches)
            try (Fabric.Paused paused = run.fabric.pauseSwitches())
            {
                run.unrecovered = CreditRecovery.unrecovered(run.fabric.topology(), run.fabric::counters,
                    run.fabric.configuration().portSettings().vlBufferBlocks());
            }
        }
        while (!run.unrecovered.isEmpty() && run.options.clock.nanoTime() - cap < 0 &&
            (run.options.clock.nanoTime() - deadline < 0 || run.fabric.switchDutyCycles() - cycles < 0));
    }

    int verdict(final boolean deadlocked)
    {
        long lost = 0;
        long outOfOrder = 0;
        long damaged = 0;
        for (int i = 0; i < run.n; i++)
        {
            lost += run.traffic.sentTo[i] - run.traffic.received[i];
            outOfOrder += run.traffic.outOfOrder[i];
            damaged += run.traffic.damaged[i];
        }
        run.invariants.put("no_deadlock", !deadlocked);
        if (!run.partial)
        {
            // with faults, every packet lost was lost or corrupted (and discarded) on a faulty wire
            // and every flood SMP was stored or dropped (and counted) at the switch port it was sent to
            run.invariants.put("no_loss", !deadlocked && lost == run.faults.faultLost() && 0 == run.floodUnaccounted);
        }
        run.invariants.put("fifo", outOfOrder == 0);
        run.invariants.put("no_damage", damaged == 0);
        run.invariants.put("discards_explained", unexplainedDiscards().isEmpty());
        if (!run.stopped && null == run.peerGone)
        {
            // a run stopped where it was has packets and credits in flight: not checked
            run.invariants.put("credits_recovered", !deadlocked && run.unrecovered.isEmpty());
        }
        if (deadlocked)
        {
            return FabricSoak.EXIT_DEADLOCK;
        }
        if (null != run.peerGone)
        {
            return FabricSoak.EXIT_PEER_GONE;
        }
        return run.invariants.containsValue(false) ? FabricSoak.EXIT_FAILED : FabricSoak.EXIT_OK;
    }

    /**
     * @return discards no fault explains: anything but a bring-up's FCP_STATE and, on a port behind a faulty wire,
     * exactly the data packets and FCPs the wire damaged discarded for their CRCs. A port that came up once and never
     * re-initialized discarded only FCPs of a peer that was ahead of it: in Initialize, a port that sees the peer start
     * owes it an init FCP and discards the normal FCPs the peer, Armed already, sends until its own has gone
     * (docs/flow-control.md, "Link training", rule 1), as many as arrive in that time; one that re-initialized may
     * discard 2 (a re-training on a cable no fault touched must not hide behind them).
     */
    List<String> unexplainedDiscards()
    {
        final List<String> unexplained = new ArrayList<>();
        for (final Topology.Node node : run.options.topology.nodes())
        {
            for (int p = node.isSwitch() ? 0 : 1; p <= node.portCount(); p++)
            {
                final PortCounters c = run.fabric.counters(node, p);
                if (null == c)
                {
                    continue;
                }
                final boolean upOnce = 0 == c.linkDowned().get() && 0 == c.linkErrorRecovery().get();
                for (final DiscardReason reason : DiscardReason.values())
                {
                    final long count = c.discards(reason.id()).get();
                    final boolean crc = DiscardReason.DATA_BAD_CRC == reason || DiscardReason.FCP_BAD_LPCRC == reason;
                    final long damaged = crc ? run.faults.faultDamaged(node, p, reason) : 0;
                    final long flooded = DiscardReason.VL15_FULL == reason ? run.faults.floodDropped(node, p) : -1;
                    if (crc && count != damaged)
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count +
                            ", the wire into it damaged " + damaged);
                    }
                    else if (flooded >= 0 && count != flooded)
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count +
                            ", the floods into it dropped " + flooded);
                    }
                    else if (!crc && flooded < 0 && count > 0 && !(DiscardReason.FCP_STATE == reason && (count <= 2 || upOnce)) &&
                        !(run.faults.bounced(node, p) && FabricSoak.BOUNCE_DISCARDS.contains(reason)))
                    {
                        unexplained.add(node.id() + "[" + p + "] " + DiscardReasons.name(reason.id()) + " " + count);
                    }
                }
            }
        }
        return unexplained;
    }

    void summary(final PrintWriter text)
    {
        final double seconds = run.elapsedNs / 1e9;
        text.println(String.format(Locale.ROOT, "%s: %s, pattern %s, %d CA ports%s, %d switch%s%s, %.1f s: " +
            "sent %,d, delivered %,d (%,.0f pkt/s; %,.0f pkt/s after a %.1f s warm-up)", run.options.title, run.options.label,
            run.options.pattern.label(), run.n, run.partial ? " (" + run.local.length + " here)" : "", run.fabric.switches().size(),
            run.fabric.switches().size() == 1 ? "" : "es", run.partial ? " here" : "", seconds, run.traffic.sentTotal, run.traffic.receivedTotal,
            seconds > 0 ? run.traffic.receivedTotal / seconds : 0.0, run.steadyRate(), run.warmupSeconds()));
        text.println(String.format(Locale.ROOT, "%-24s %6s %12s %12s %8s %8s %10s %10s", "CA port", "lid", "sent",
            "received", "lost", "order", "p50 us", "p99 us"));
        for (final int i : run.local)
        {
            final Fabric.Endpoint e = run.endpointAt[i];
            text.println(String.format(Locale.ROOT, "%-24s %6d %12d %12d %8s %8d %10.1f %10.1f", e.name(), e.lid(),
                run.traffic.sent[i], run.traffic.received[i],
                run.partial ? "-" : Long.toString(run.traffic.sentTo[i] - run.traffic.received[i]), run.traffic.outOfOrder[i],
                percentile(i, 50), percentile(i, 99)));
        }
        text.println(String.format(Locale.ROOT, "%-24s %-20s %12s %8s %8s  %s", "switch port", "to", "tx packets",
            "util", "stalls", "discards"));
        for (final PortRow row : portRows(seconds))
        {
            text.println(String.format(Locale.ROOT, "%-24s %-20s %12d %7.3f%% %8d  %s", row.port, row.remote,
                row.txPackets, 100 * row.utilization, row.stalls, row.discards));
        }
        if (!run.cycle.isEmpty() || run.stalledQueued > 0)
        {
            text.println("deadlock: no packet moved for " + run.options.stallMs + " ms with " + run.stalledQueued +
                " packets queued; credit loop: " + (run.cycle.isEmpty() ? "none found (a stalled receiver?)" :
                cycleText()));
        }
        if (run.options.faults.any())
        {
            final StringBuilder line = new StringBuilder("faults (injected/detected) on ")
                .append(null == run.options.faultNode ? "every cable" :
                    run.options.faultNode.id() + "[" + run.options.faultPort + "]").append(':');
            faultCounts().forEach((kind, counts) -> line.append(' ').append(kind.label()).append(' ')
                .append(counts[0]).append('/').append(counts[1] < 0 ? "-" : Long.toString(counts[1])));
            text.println(line);
        }
        for (final Map.Entry<String, Boolean> inv : run.invariants.entrySet())
        {
            text.println("invariant " + inv.getKey() + ": " + (inv.getValue() ? "held" : "FAILED"));
        }
        if (run.partial && !run.stopped)
        {
            text.println("end-to-end loss: every process's JSON lists sent_to and received_from per CA port; their " +
                "sums over the processes must match (docs/fabric.md)");
        }
        if (run.stopped)
        {
            text.println("stopped before the end: the invariants hold for what ran");
        }
        if (null != run.peerGone)
        {
            text.println("ended early: " + run.peerGone + "; the invariants hold for what ran");
        }
        for (final String end : run.unrecovered)
        {
            text.println("credits not recovered: " + end);
        }
        for (final String d : unexplainedDiscards())
        {
            text.println("unexplained discards: " + d);
        }
        text.flush();
    }

    /**
     * @return per fault kind given: {injected, detected}, detected -1 where nothing can detect it (a lost FCP).
     * A lost data packet is detected as one its destination never received, a damaged one as a discard for its CRC
     * at the port behind the wire (the first hop), a damaged FCP as one discarded for its LPCRC.
     */
    Map<FaultKind, long[]> faultCounts()
    {
        long droppedData = 0;
        long corruptedData = 0;
        long droppedFcps = 0;
        long corruptedFcps = 0;
        long badCrc = 0;
        long badLpcrc = 0;
        for (final FabricSoak.FaultyEnd end : run.faultyEnds)
        {
            for (int vl = 0; vl < io.vlink.core.arb.VlArbiter.VL_COUNT; vl++)
            {
                droppedData += end.link().droppedData(vl);
                corruptedData += end.link().corruptedData(vl);
            }
            droppedFcps += end.link().droppedFcps();
            corruptedFcps += end.link().corruptedFcps();
            final PortCounters c = run.fabric.counters(end.node(), end.port());
            badCrc += c.discards(DiscardReason.DATA_BAD_CRC.id()).get();
            badLpcrc += c.discards(DiscardReason.FCP_BAD_LPCRC.id()).get();
        }
        long lost = 0;
        for (int i = 0; i < run.n; i++)
        {
            lost += run.traffic.sentTo[i] - run.traffic.received[i];
        }
        final Map<FaultKind, long[]> counts = new LinkedHashMap<>();
        final long[][] values = {
            {droppedData, run.partial ? -1 : Math.max(0, lost - badCrc - (run.faults.faultLost() - droppedData - corruptedData))}, {corruptedData, badCrc}, {droppedFcps, -1},
            {corruptedFcps, badLpcrc}};
        final FaultKind[] kinds = {FaultKind.DROP_DATA, FaultKind.CORRUPT_DATA, FaultKind.DROP_FCP,
            FaultKind.CORRUPT_FCP};
        for (int k = 0; k < kinds.length; k++)
        {
            if (run.options.faults.isOn(kinds[k]))
            {
                counts.put(kinds[k], values[k]);
            }
        }
        for (final FaultKind kind : new FaultKind[]{FaultKind.STALL_RECEIVER, FaultKind.VL15_FLOOD, FaultKind.RETABLE,
            FaultKind.LINK_BOUNCE})
        {
            if (run.options.faults.isOn(kind))
            {
                counts.put(kind, new long[]{run.timedInjected[kind.ordinal()], run.timedDetected[kind.ordinal()]});
            }
        }
        return counts;
    }

    String cycleText()
    {
        final StringBuilder sb = new StringBuilder();
        for (final Fabric.Buffer b : run.cycle)
        {
            sb.append(b).append(" -> ");
        }
        return sb.append(run.cycle.get(0)).toString();
    }

    double percentile(final int i, final double p)
    {
        return run.traffic.latency[i].getTotalCount() == 0 ? 0 : run.traffic.latency[i].getValueAtPercentile(p) / 1e3;
    }

    /** A cabled switch port's line of the summary. */
    record PortRow(
        String switchId, int number, String port, String remote, long txPackets, double utilization, long stalls,
        Map<String, Long> discards)
    {
    }

    List<PortRow> portRows(final double seconds)
    {
        final List<PortRow> rows = new ArrayList<>();
        for (final Topology.Node node : run.options.topology.switches())
        {
            final Switch sw = run.fabric.switchOf(node);
            if (null == sw)
            {
                continue;
            }
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link cable = node.link(p);
                if (null == cable)
                {
                    continue;
                }
                final PortCounters c = sw.counters(p);
                final long bytes = sum(c, c::txBytes);
                rows.add(new PortRow(node.id(), p, node.id() + "[" + p + "]",
                    cable.remote().id() + "[" + cable.remotePort() + "]", sum(c, c::txPackets),
                    seconds > 0 ? bytes * 8.0 / (seconds * cable.rate().dataBitsPerSecond()) : 0, sum(c, c::creditStalls),
                    discards(c)));
            }
        }
        return rows;
    }

    /** @return a per-VL counter summed over the port's data VLs. */
    static long sum(final PortCounters c, final java.util.function.IntFunction<ReadableCounter> perVl)
    {
        long total = 0;
        for (int vl = 0; vl < c.dataVls(); vl++)
        {
            total += perVl.apply(vl).get();
        }
        return total;
    }

    static Map<String, Long> discards(final PortCounters c)
    {
        final Map<String, Long> map = new LinkedHashMap<>();
        for (final DiscardReason reason : DiscardReason.values())
        {
            final long count = c.discards(reason.id()).get();
            if (count > 0)
            {
                map.put(DiscardReasons.name(reason.id()), count);
            }
        }
        return map;
    }

    /** @return the JSON summary of the fabric, its object left open for the baseline's fields. */
    JsonWriter json(final int exit)
    {
        final double seconds = run.elapsedNs / 1e9;
        final JsonWriter json = new JsonWriter().beginObject()
            .field("ok", FabricSoak.EXIT_OK == exit)
            .field("topology", run.options.label)
            .field("pattern", run.options.pattern.label())
            .field("seconds", seconds)
            .field("size", run.options.size)
            .field("seed", run.options.seed)
            .field("sent", run.traffic.sentTotal)
            .field("delivered", run.traffic.receivedTotal)
            .field("packets_per_second", seconds > 0 ? run.traffic.receivedTotal / seconds : 0.0)
            .field("warmup_seconds", run.warmupSeconds())
            .field("packets_per_second_after_warmup", run.steadyRate())
            .field("drained", run.drained)
            .field("threads", run.threads())
            .field("exit", exit);
        json.field("stopped", run.stopped);
        json.field("peer_gone", run.peerGone);
        json.name("nodes").beginArray();
        for (final Topology.Node node : run.options.topology.nodes())
        {
            if (run.fabric.isLocal(node))
            {
                json.value(node.id());
            }
        }
        json.endArray();
        json.name("cas").beginArray();
        for (final int i : run.local)
        {
            final Fabric.Endpoint e = run.endpointAt[i];
            json.beginObject().field("name", e.name()).field("lid", e.lid()).field("sent", run.traffic.sent[i])
                .field("received", run.traffic.received[i]);
            if (!run.partial)
            {
                json.field("lost", run.traffic.sentTo[i] - run.traffic.received[i]);
            }
            json.field("out_of_order", run.traffic.outOfOrder[i]).field("damaged", run.traffic.damaged[i])
                .field("latency_p50_us", percentile(i, 50)).field("latency_p99_us", percentile(i, 99));
            json.name("sent_to").beginObject();
            for (int d = 0; d < run.n; d++)
            {
                if (run.traffic.pairSent[i * run.n + d] > 0)
                {
                    json.field(run.names[d], run.traffic.pairSent[i * run.n + d]);
                }
            }
            json.endObject().name("received_from").beginObject();
            for (int src = 0; src < run.n; src++)
            {
                if (run.traffic.pairReceived[src * run.n + i] > 0)
                {
                    json.field(run.names[src], run.traffic.pairReceived[src * run.n + i]);
                }
            }
            json.endObject().endObject();
        }
        json.endArray();
        if (run.options.faults.any())
        {
            json.name("faults").beginObject().field("cable", null == run.options.faultNode ? null :
                run.options.faultNode.id() + "[" + run.options.faultPort + "]");
            final Map<FaultKind, long[]> counts = faultCounts();
            json.name("injected").beginObject();
            counts.forEach((kind, c) -> json.field(kind.label(), c[0]));
            json.endObject().name("detected").beginObject();
            counts.forEach((kind, c) ->
            {
                if (c[1] >= 0)
                {
                    json.field(kind.label(), c[1]);
                }
            });
            json.endObject().endObject();
        }
        json.name("switch_ports").beginArray();
        for (final PortRow row : portRows(seconds))
        {
            json.beginObject().field("switch", row.switchId).field("port", row.number).field("remote", row.remote)
                .field("tx_packets", row.txPackets).field("utilization", row.utilization)
                .field("credit_stalls", row.stalls);
            json.name("discards").beginObject();
            for (final Map.Entry<String, Long> d : row.discards.entrySet())
            {
                json.field(d.getKey(), d.getValue());
            }
            json.endObject().endObject();
        }
        json.endArray();
        json.name("invariants").beginObject();
        for (final Map.Entry<String, Boolean> inv : run.invariants.entrySet())
        {
            json.field(inv.getKey(), inv.getValue());
        }
        json.endObject();
        json.name("deadlock");
        if (run.cycle.isEmpty() && run.stalledQueued == 0)
        {
            json.value((String)null);
        }
        else
        {
            json.beginObject().field("stall_ms", run.options.stallMs).field("queued", run.stalledQueued);
            json.name("cycle").beginArray();
            for (final Fabric.Buffer b : run.cycle)
            {
                json.beginObject().field("switch", b.switchId()).field("port", b.port()).field("vl", b.vl())
                    .endObject();
            }
            json.endArray().endObject();
        }
        return json;
    }

    static String escape(final String s)
    {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
