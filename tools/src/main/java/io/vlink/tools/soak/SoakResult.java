package io.vlink.tools.soak;

import io.vlink.tools.json.JsonWriter;
import org.HdrHistogram.Histogram;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Everything a soak run found, as the JSON summary of docs/cli.md presents it (every key there, and a
 * few more). A plain data holder: the soak fills it once the run has drained, then renders it.
 */
public final class SoakResult
{
    /** One data VL's figures. */
    public static final class Vl
    {
        public final int vl;
        /** False for a VL the tables can never serve: reported, not driven. */
        public boolean driven = true;
        /** Why the VL is not driven (null when it is). */
        public String notDrivenReason;
        public long sentPackets;
        public long sentBytes;
        public long receivedPackets;
        public long receivedBytes;
        /** Neither delivered nor destroyed by an injected fault. */
        public long lost;
        /** Destroyed by an injected fault: lost or corrupted on the wire, on the wire at a link bounce, or flushed by
         * the sender at a link error a bounce caused ({@link #flushed} of them). */
        public long faultLost;
        /** Discarded by the sender's transmit flush at a link error (its {@code tx_flushed_messages}). */
        public long flushed;
        /** Delivered with a payload checksum (or VL or size) that does not match: damage the link CRCs missed. */
        public long damaged;
        public long outOfOrder;
        public long duplicated;
        public long creditStalls;
        /** This VL's fraction of all data bytes received. */
        public double share;
        /** The fraction the configuration predicts (arbiter simulation), NaN if not computed. */
        public double predictedShare = Double.NaN;
        /** Cells the sender's injector arbiter gave this VL's buffer class (its {@code tx_cells}). */
        public long injectedCells;
        /** This VL's fraction of the cells of the driven VLs' classes. */
        public double cellShare;
        /** The weight of this VL's buffer class (cells a turn of the class round robin). */
        public int classWeight;
        /** Its weight over the weights of the driven VLs' classes: the share of cells the injection rule gives it when
         * every driven VL is backlogged (docs/injection.md); NaN for a VL not driven. */
        public double weightShare = Double.NaN;

        public Vl(final int vl)
        {
            this.vl = vl;
        }
    }

    public double seconds;
    /** Stopped early by Ctrl-C: {@link #seconds} is the time traffic was offered until then. */
    public boolean interrupted;
    /** With {@code --peer}: Ctrl-C came at the peer's host, not this one. */
    public boolean interruptedAtPeer;
    /** With {@code --link shm} or {@code udp}: the process that ran port B (not this one); 0 when it ran here. */
    public long peerPid;
    /** With {@code --peer}: the {@code HOST:PORT} of the {@code vlink soak --serve} that ran port B, else null. */
    public String peerAddress;
    public String link = "loopback";
    public String threads = "shared";
    public String idle = "backoff";
    public long seed;
    public int dataVls;
    public int packetSizeMin;
    public int packetSizeMax;
    public String faultSpec = "";
    public final List<Vl> vls = new ArrayList<>();
    public long vl15Sent;
    public long vl15Received;
    public long vl15Dropped;
    public long vl15Flushed;
    /** Cells the SMPs took in the sender's cell buffer, and the weight of VL15's buffer class. */
    public long vl15InjectedCells;
    public int vl15ClassWeight;
    /** The largest difference between a driven VL's cell share and its weight share (NaN if not computed). */
    public double maxCellShareError = Double.NaN;
    public long fcpSent;
    public long fcpReceived;
    public long fcpDiscarded;
    /** Whether the links ran link-level retry, and what it did on both ports (the counters of the same names). */
    public boolean retry;
    public long retransmits;
    public long replayRequests;
    public long retryTimeouts;
    public long linkDuplicates;
    public long linkOutOfOrder;
    public long replayFull;
    public long acksSent;
    public long retryFailures;
    public final Map<FaultKind, Long> faultsInjected = new EnumMap<>(FaultKind.class);
    public final Map<FaultKind, Long> faultsDetected = new EnumMap<>(FaultKind.class);
    /** For the timed kinds given: what the schedule asked for while traffic was offered (the unit of injected). */
    public final Map<FaultKind, Long> faultsScheduled = new EnumMap<>(FaultKind.class);
    /**
     * Per timed kind, what its schedule asked for while a link bounce held the soak's thread (the link was down), in
     * the unit of {@link #faultsInjected}: part of {@link #faultsScheduled}, not injected, and not a fault of the
     * run; only kinds that skipped any.
     */
    public final Map<FaultKind, Long> faultsSkippedForBounce = new EnumMap<>(FaultKind.class);
    /** Discards of both ports by reason (the counters' names), only the reasons that counted any. */
    public final Map<String, Long> discards = new LinkedHashMap<>();
    /** Per reason in {@link #discards}: what explains it (a fault kind or a documented cause), null if nothing. */
    public final Map<String, String> discardCauses = new LinkedHashMap<>();
    /**
     * @return the link-level retry line of the summary.
     */
    public String retryText()
    {
        return !retry ? "link retry: off" : String.format(java.util.Locale.ROOT, "link retry: on, retransmits %d, " +
            "replay requests %d, timeouts %d, duplicates %d, out of order %d, acknowledgements %d, replay buffer full " +
            "%d, failures %d", retransmits, replayRequests, retryTimeouts, linkDuplicates, linkOutOfOrder, acksSent,
            replayFull, retryFailures);
    }

    /** Latency percentiles, in ns. */
    public static final class Latency
    {
        public long p50Ns;
        public long p99Ns;
        public long p999Ns;
        public long maxNs;

        /**
         * @param histogram latencies in ns; nothing when it is empty.
         */
        public void set(final Histogram histogram)
        {
            if (histogram.getTotalCount() > 0)
            {
                p50Ns = histogram.getValueAtPercentile(50);
                p99Ns = histogram.getValueAtPercentile(99);
                p999Ns = histogram.getValueAtPercentile(99.9);
                maxNs = histogram.getMaxValue();
            }
        }

        /**
         * @return {@code p50 1.94ms, p99 92.21ms, p99.9 155.45ms, max 181.80ms}, each in the unit that fits.
         */
        public String text()
        {
            return "p50 " + SoakSettings.nanos(p50Ns) + ", p99 " + SoakSettings.nanos(p99Ns) + ", p99.9 " +
                SoakSettings.nanos(p999Ns) + ", max " + SoakSettings.nanos(maxNs);
        }

        void toJson(final JsonWriter json)
        {
            json.field("p50", p50Ns).field("p99", p99Ns).field("p999", p999Ns).field("max", maxNs);
        }
    }

    /** The headline latency: after the warm-up, or of the whole run when nothing was delivered after it. */
    public final Latency latency = new Latency();
    /** The latency of every packet, the warm-up's included. */
    public final Latency latencyWholeRun = new Latency();
    /** The warm-up {@link #latency} leaves out, in seconds: the first 10 % of the run, at most 2 s. */
    public double warmupSeconds;
    /** Whether {@link #latency} is after the warm-up (false: the run ended within it, so it is the whole run's). */
    public boolean latencyAfterWarmup;
    /** The largest difference between a VL's share and its predicted share (NaN if not computed). */
    public double maxShareError = Double.NaN;
    /** Invariant name (as in docs/cli.md: no_loss, fifo, no_overflow, credits_recovered, ...) to whether it held. */
    public final Map<String, Boolean> invariants = new LinkedHashMap<>();
    /** Why an invariant failed, for the people reading the summary. */
    public final List<String> violations = new ArrayList<>();

    /**
     * @return the latency as the summary says it: after the warm-up, with the whole run's beside it.
     */
    public String latencyText()
    {
        final String warmup = String.format(Locale.ROOT, "%.1f s", warmupSeconds);
        return latencyAfterWarmup ?
            latency.text() + " after a " + warmup + " warm-up (whole run: " + latencyWholeRun.text() + ")" :
            latency.text() + " (the whole run: it ended within its " + warmup + " warm-up)";
    }

    /**
     * @return the AND of every invariant (false when none was checked).
     */
    public boolean ok()
    {
        if (invariants.isEmpty())
        {
            return false;
        }
        for (final boolean held : invariants.values())
        {
            if (!held)
            {
                return false;
            }
        }
        return true;
    }

    public Vl vl(final int vl)
    {
        for (final Vl v : vls)
        {
            if (v.vl == vl)
            {
                return v;
            }
        }
        throw new IllegalArgumentException("no VL " + vl + " in the result");
    }

    /**
     * Sets each VL's {@code share} from the bytes received.
     */
    public void computeShares()
    {
        long total = 0;
        for (final Vl v : vls)
        {
            total += v.receivedBytes;
        }
        for (final Vl v : vls)
        {
            v.share = total == 0 ? 0.0 : (double)v.receivedBytes / total;
        }
    }

    /**
     * Sets each driven VL's {@code cellShare} and {@code weightShare} among the driven VLs, and the largest difference.
     */
    public void computeCellShares()
    {
        long cells = 0;
        long weights = 0;
        for (final Vl v : vls)
        {
            cells += v.driven ? v.injectedCells : 0;
            weights += v.driven ? v.classWeight : 0;
        }
        double maxError = 0;
        for (final Vl v : vls)
        {
            if (v.driven)
            {
                v.cellShare = cells == 0 ? 0.0 : (double)v.injectedCells / cells;
                v.weightShare = (double)v.classWeight / weights;
                maxError = Math.max(maxError, Math.abs(v.cellShare - v.weightShare));
            }
        }
        maxCellShareError = maxError;
    }

    /**
     * @return the JSON summary, one document.
     */
    public String toJson()
    {
        final JsonWriter json = new JsonWriter();
        json.beginObject()
            .field("ok", ok())
            .name("seconds").value(seconds, 3)
            .field("interrupted", interrupted)
            .field("link", link);
        if (0 == peerPid)
        {
            json.field("peer_pid", (String)null);
        }
        else
        {
            json.field("peer_pid", peerPid);
        }
        json.field("peer", peerAddress);
        json.field("threads", threads)
            .field("idle", idle)
            .field("seed", seed)
            .field("data_vls", dataVls);
        if (packetSizeMin == packetSizeMax)
        {
            json.field("packet_size", packetSizeMin);
        }
        else
        {
            json.name("packet_size").value((String)null);
            json.name("packet_sizes").beginObject().field("min", packetSizeMin).field("max", packetSizeMax).endObject();
        }
        json.field("faults_spec", faultSpec);

        json.name("vls").beginArray();
        for (final Vl v : vls)
        {
            json.beginObject()
                .field("vl", v.vl)
                .field("driven", v.driven);
            if (null != v.notDrivenReason)
            {
                json.field("not_driven_reason", v.notDrivenReason);
            }
            json
                .field("sent_packets", v.sentPackets)
                .field("sent_bytes", v.sentBytes)
                .field("received_packets", v.receivedPackets)
                .field("received_bytes", v.receivedBytes)
                .field("lost", v.lost)
                .field("fault_lost", v.faultLost)
                .field("flushed", v.flushed)
                .field("damaged", v.damaged)
                .field("out_of_order", v.outOfOrder)
                .field("duplicated", v.duplicated)
                .field("credit_stalls", v.creditStalls)
                .name("share").value(v.share, 4)
                .name("predicted_share").value(v.predictedShare, 4)
                .field("injected_cells", v.injectedCells)
                .name("cell_share").value(v.cellShare, 4)
                .field("class_weight", v.classWeight)
                .name("weight_share").value(v.weightShare, 4)
                .endObject();
        }
        json.endArray();

        json.name("max_share_error").value(maxShareError, 4);
        json.name("max_cell_share_error").value(maxCellShareError, 4);

        json.name("vl15").beginObject()
            .field("sent", vl15Sent).field("received", vl15Received).field("dropped", vl15Dropped)
            .field("flushed", vl15Flushed).field("injected_cells", vl15InjectedCells)
            .field("class_weight", vl15ClassWeight).endObject();
        json.name("fcp").beginObject()
            .field("sent", fcpSent).field("received", fcpReceived).field("discarded", fcpDiscarded).endObject();
        json.name("link_retry").beginObject().field("on", retry)
            .field("retransmits", retransmits).field("replay_requests", replayRequests)
            .field("retry_timeouts", retryTimeouts).field("duplicates", linkDuplicates)
            .field("out_of_order", linkOutOfOrder).field("replay_full", replayFull).field("acks_sent", acksSent)
            .field("failures", retryFailures).endObject();

        json.name("faults").beginObject();
        faultMap(json, "injected", faultsInjected);
        faultMap(json, "detected", faultsDetected);
        faultMap(json, "scheduled", faultsScheduled);
        faultMap(json, "skipped_for_bounce", faultsSkippedForBounce);
        json.endObject();

        json.name("discards").beginObject();
        discards.forEach((reason, count) ->
        {
            json.name(reason).beginObject().field("count", count);
            json.name("cause").value(discardCauses.get(reason));
            json.endObject();
        });
        json.endObject();

        json.name("latency_ns").beginObject();
        latency.toJson(json);
        json.name("warmup_seconds").value(warmupSeconds, 3)
            .field("after_warmup", latencyAfterWarmup)
            .name("whole_run").beginObject();
        latencyWholeRun.toJson(json);
        json.endObject().endObject();

        json.name("invariants").beginObject();
        invariants.forEach(json::field);
        json.endObject();

        json.name("violations").beginArray();
        violations.forEach(json::value);
        json.endArray();

        return json.endObject().toString();
    }

    private static void faultMap(final JsonWriter json, final String name, final Map<FaultKind, Long> counts)
    {
        json.name(name).beginObject();
        counts.forEach((kind, count) -> json.field(kind.label(), count));
        json.endObject();
    }
}
