package io.vlink.tools.soak;

import io.vlink.core.arb.SimulatedPort;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.status.PortCounters;
import org.HdrHistogram.Histogram;
import org.agrona.CloseHelper;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * Runs one soak (docs/cli.md, {@code vlink soak}): two ports back to back (loopback peer, or UDP on
 * 127.0.0.1 with both engines in this process), data from port A to port B on every data VL the tables can serve
 * plus SMPs on VL15, faults injected on a schedule, a live line each second, then a drain and the checks of
 * the invariants of docs/soak.md.
 * <p>
 * One application thread (the caller's) sends, receives, injects the faults and reports; the engine runs on its
 * own thread(s). Every wait is bounded by a deadline.
 */
public final class SoakRunner
{
    /** SMPs a second sent on VL15 as regular traffic. */
    public static final int VL15_RATE = 1000;
    /** Receive buffer of each data VL, in 64-byte blocks (the whole credit window). */
    public static final int VL_BUFFER_BLOCKS = 2048;
    /** The VL15 buffer, in packets. */
    public static final int VL15_PACKETS = 4;

    /**
     * Packets the arbiter sends per duty cycle: small enough that what is in flight over a credit round trip
     * (about three duty cycles) stays below one credit window of 4 KiB packets (2048 blocks = 32 packets), so that the
     * shares are set by the arbitration tables, not by the credit loop.
     */
    public static final int BURST = 8;

    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long LINK_UP_DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    private static final long FAULT_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    private static final long CREDIT_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    private static final int POLL_LIMIT = 256;
    private static final int POSTS_PER_VL = 64;
    private static final int SIMULATED_GRANTS = 200_000;

    /** What to run. */
    public static final class Options
    {
        public double seconds = 10;
        public QosConfig qos = QosConfig.seedExample();
        public int sizeMin = 4096;
        public int sizeMax = 4096;
        /** Data packets a second over all driven VLs (shared evenly); 0: every VL backlogged. */
        public long rate;
        public boolean udp;
        public ThreadingMode threading = ThreadingMode.SHARED;
        public String idle = "backoff";
        public FaultSpec faults = FaultSpec.none();
        public long seed = 1;
        public Path capture;
        /** Where the engines' counters files go (null: the default directory). */
        public File directory;
        /**
         * Wraps each port's link under the fault injector, unseen by the soak's accounting: for tests that play an
         * engine bug (a packet silently lost or duplicated) and expect the soak to catch it.
         */
        public UnaryOperator<Link> tamper = UnaryOperator.identity();
        /** The most the drain waits for every packet to be accounted for. */
        public long drainTimeoutNs = TimeUnit.SECONDS.toNanos(15);
    }

    /** What a run produced. */
    public static final class Outcome
    {
        public final SoakResult result;
        public final SoakTimeline timeline;
        public final Histogram latency;

        Outcome(final SoakResult result, final SoakTimeline timeline, final Histogram latency)
        {
            this.result = result;
            this.timeline = timeline;
            this.latency = latency;
        }
    }

    private final Options options;
    private final PrintWriter live;
    private final QosConfig qos;
    private final int dataVls;
    private final boolean[] driven = new boolean[16];
    private final int[] slOf = new int[16];
    private final String[] notDriven = new String[16];
    private final LatencyRecorder latency = new LatencyRecorder(TimeUnit.MINUTES.toNanos(10));
    private final SoakTraffic traffic;
    private final SoakTimeline timeline;
    private final List<Engine> engines = new ArrayList<>(2);
    private final FaultyLink[] links = new FaultyLink[2];
    private int linkCount;
    private Port tx;
    private Port rx;

    // open loop
    private long periodNs;
    private final long[] nextIntendedNs = new long[16];
    private long nextSmpNs;
    private long smpsSent;

    // faults
    private final long[] injected = new long[FaultKind.values().length];
    private final long[] detected = new long[FaultKind.values().length];
    private final QosConfig variant;
    private final List<QosConfig> phaseQos = new ArrayList<>();
    private final List<long[]> phaseBytes = new ArrayList<>();
    private long stallUntilNs;
    private long stallsAtStallStart;

    // reporting
    private final long[] lastStalls = new long[16];
    private final long[] lastDelivered = new long[16];
    private long lastVl15;

    private SoakRunner(final Options options, final PrintWriter live)
    {
        this.options = options;
        this.live = live;
        this.qos = options.qos;
        this.dataVls = qos.dataVls();
        final String[] reasons = notDrivenReasons(qos);
        for (int vl = 0; vl < dataVls; vl++)
        {
            slOf[vl] = slOf(qos, vl);
            driven[vl] = null == reasons[vl];
            notDriven[vl] = reasons[vl];
        }
        this.traffic = new SoakTraffic(options.sizeMin, options.sizeMax, options.seed, 1, 2, latency);
        this.timeline = new SoakTimeline(dataVls);
        this.variant = variantOf(qos);
    }

    /**
     * Run a soak.
     *
     * @param options what to run.
     * @param live    where the live line goes each second.
     * @return the result, the per-second timeline and every latency.
     */
    public static Outcome run(final Options options, final PrintWriter live)
    {
        return new SoakRunner(options, live).run();
    }

    /**
     * @param qos a configuration.
     * @return per VL, why it is not driven (null when it is).
     */
    public static String[] notDrivenReasons(final QosConfig qos)
    {
        final boolean[] servable = SoakTraffic.servableVls(qos);
        final String[] reasons = new String[16];
        for (int vl = 0; vl < qos.dataVls(); vl++)
        {
            reasons[vl] = !servable[vl] ? "in neither arbitration table with a non-zero weight" :
                slOf(qos, vl) < 0 ? "no SL maps to it" : null;
        }
        return reasons;
    }

    /**
     * @param qos a configuration.
     * @param vl  a data VL.
     * @return the lowest SL that SL2VL maps to the VL, or -1.
     */
    static int slOf(final QosConfig qos, final int vl)
    {
        for (int sl = 0; sl < 16; sl++)
        {
            if (qos.sl2vl(sl) == vl)
            {
                return sl;
            }
        }
        return -1;
    }

    private Outcome run()
    {
        try
        {
            start();
            final long startNs = System.nanoTime();
            final long endNs = startNs + (long)(options.seconds * SECOND_NS);
            offerLoop(startNs, endNs);
            final long offeredNs = System.nanoTime() - startNs;
            final boolean drained = drain();
            final boolean creditsRecovered = awaitCredits();
            final SoakResult result = summarize(offeredNs / 1e9, drained, creditsRecovered);
            return new Outcome(result, timeline, latency.total());
        }
        finally
        {
            for (final Engine engine : engines)
            {
                CloseHelper.quietClose(engine);
            }
        }
    }

    // ---------------------------------------------------------------- set-up

    private void start()
    {
        if (options.udp)
        {
            final InetSocketAddress addressA = freeUdpAddress();
            final InetSocketAddress addressB = freeUdpAddress();
            final Engine a = builder("soak-a", true).udp(addressA, addressB, 1, 2).build();
            engines.add(a);
            final Engine b = builder("soak-b", false).udp(addressB, addressA, 2, 1).build();
            engines.add(b);
            tx = a.port(0);
            rx = b.port(0);
        }
        else
        {
            final Engine engine = builder("soak", true).loopback().build();
            engines.add(engine);
            tx = engine.port(0);
            rx = engine.port(1);
        }
        // links[0] is what A receives (FCPs from B), links[1] what B receives (A's data)
        ((FaultyLink)tx.link()).attach(tx);
        ((FaultyLink)rx.link()).attach(rx);
        links[0] = (FaultyLink)tx.link();
        links[1] = (FaultyLink)rx.link();
        await(LINK_UP_DEADLINE_NS, () -> tx.linkState() == LinkState.ACTIVE && rx.linkState() == LinkState.ACTIVE,
            "the link to come up (Initialize, Armed, Active)");
        phaseQos.add(qos);
        phaseBytes.add(new long[16]);
        arm(true);
    }

    private Engine.Builder builder(final String name, final boolean capture)
    {
        final Engine.Builder builder = Engine.builder()
            .name(name)
            .threading(options.threading)
            .idle(options.idle)
            .qos(qos)
            .vlBufferBlocks(VL_BUFFER_BLOCKS)
            .vl15Packets(VL15_PACKETS)
            .burst(BURST)
            .linkWrapper(this::wrap);
        if (null != options.directory)
        {
            builder.directory(options.directory);
        }
        if (capture && null != options.capture)
        {
            // both directions of the wire, as pcap (docs/wire.md); over UDP, engine A records what it sends and receives
            builder.capture(options.capture, 64L * 1024 * 1024);
        }
        return builder;
    }

    private Link wrap(final Link link)
    {
        return new FaultyLink(options.tamper.apply(link), options.faults, options.seed, linkCount++);
    }

    private static InetSocketAddress freeUdpAddress()
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return new InetSocketAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free UDP port on 127.0.0.1", ex);
        }
    }

    private void arm(final boolean armed)
    {
        for (final FaultyLink link : links)
        {
            link.arm(armed);
        }
    }

    // ---------------------------------------------------------------- the run

    /** In invoker mode the soak's thread runs the engines' duty cycles; otherwise their threads do. */
    private int duty()
    {
        int work = 0;
        if (ThreadingMode.INVOKER == options.threading)
        {
            for (final Engine engine : engines)
            {
                work += engine.invoke();
            }
        }
        return work;
    }

    private void offerLoop(final long startNs, final long endNs)
    {
        int drivenCount = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            drivenCount += driven[vl] ? 1 : 0;
            nextIntendedNs[vl] = startNs;
        }
        periodNs = options.rate > 0 && drivenCount > 0 ? Math.max(1, drivenCount * SECOND_NS / options.rate) : 0;
        nextSmpNs = startNs;

        final FaultSchedule schedule = new FaultSchedule(startNs, endNs);
        long nextReportNs = startNs + SECOND_NS;
        int second = 0;
        long nowNs = startNs;
        final long lateDeadlineNs = endNs + FAULT_DEADLINE_NS;
        while (nowNs < endNs || (behindSchedule(endNs) && nowNs < lateDeadlineNs))
        {
            if (nowNs >= stallUntilNs)
            {
                if (0 != stallUntilNs)
                {
                    endStall();
                }
                rx.poll(traffic, POLL_LIMIT);
            }
            offer(Math.min(nowNs, endNs - 1));
            duty();
            nowNs = System.nanoTime();
            if (nowNs >= stallUntilNs && nowNs < endNs)
            {
                schedule.due(nowNs);
            }
            if (nowNs >= nextReportNs)
            {
                report(++second);
                nextReportNs += SECOND_NS;
            }
        }
        if (0 != stallUntilNs)
        {
            endStall();
        }
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
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (!driven[vl])
            {
                continue;
            }
            final int sl = slOf[vl];
            for (int i = 0; i < POSTS_PER_VL; i++)
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
                    intendedNs = System.nanoTime();
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
        if (nowNs >= nextSmpNs && tx.postSmp(traffic.smp(), 0, SoakTraffic.SMP_LENGTH) != QueuePair.BACK_PRESSURED)
        {
            smpsSent++;
            nextSmpNs += SECOND_NS / VL15_RATE;
            if (nextSmpNs < nowNs - SECOND_NS)
            {
                nextSmpNs = nowNs;
            }
        }
    }

    /** Receive (and nothing else) until the condition holds or the deadline passes. */
    private boolean await(final long timeoutNs, final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = System.nanoTime() + timeoutNs;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                if (null != what)
                {
                    throw new IllegalStateException("timed out waiting for " + what);
                }
                return false;
            }
            if (0 == duty() + rx.poll(traffic, POLL_LIMIT))
            {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    private void report(final int second)
    {
        final Histogram interval = latency.sampleInterval();
        final long[] stalls = new long[16];
        final StringBuilder line = new StringBuilder(200);
        line.append(String.format(Locale.ROOT, "%4ds", second));
        long bytes = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            final long now = tx.counters().creditStalls(vl).get();
            stalls[vl] = now - lastStalls[vl];
            lastStalls[vl] = now;
            bytes += traffic.intervalBytes[vl];
            if (driven[vl])
            {
                line.append(" vl").append(vl).append('=').append(rate(traffic.delivered[vl] - lastDelivered[vl]));
            }
            lastDelivered[vl] = traffic.delivered[vl];
        }
        line.append(" vl15=").append(rate(traffic.vl15Delivered - lastVl15)).append(" pkt/s");
        lastVl15 = traffic.vl15Delivered;
        long stallSum = 0;
        for (final long s : stalls)
        {
            stallSum += s;
        }
        final long p99 = interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(99);
        line.append(String.format(Locale.ROOT, " | %.1f MB/s | stalls %d | discards %d | p99 %s",
            bytes / 1e6, stallSum, discards(), nanos(p99)));
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
            total += rx.counters().discards(reason).get() + tx.counters().discards(reason).get();
        }
        return total;
    }

    static String rate(final long perSecond)
    {
        if (perSecond >= 10_000_000)
        {
            return String.format(Locale.ROOT, "%.0fM", perSecond / 1e6);
        }
        if (perSecond >= 10_000)
        {
            return String.format(Locale.ROOT, "%.0fk", perSecond / 1e3);
        }
        return Long.toString(perSecond);
    }

    /**
     * @param ns nanoseconds.
     * @return a short human form: {@code 850ns}, {@code 12.3us}, {@code 4.56ms}, {@code 1.23s}.
     */
    public static String nanos(final long ns)
    {
        if (ns < 1_000)
        {
            return ns + "ns";
        }
        if (ns < 1_000_000)
        {
            return String.format(Locale.ROOT, "%.1fus", ns / 1e3);
        }
        if (ns < 1_000_000_000)
        {
            return String.format(Locale.ROOT, "%.2fms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.2fs", ns / 1e9);
    }

    // ---------------------------------------------------------------- faults

    /** When each scheduled fault is due. */
    private final class FaultSchedule
    {
        private final long startNs;
        private final long lengthNs;
        private int floods;
        private int stalls;
        private int retables;
        private int bounces;

        FaultSchedule(final long startNs, final long endNs)
        {
            this.startNs = startNs;
            this.lengthNs = endNs - startNs;
        }

        void due(final long nowNs)
        {
            final long sinceNs = nowNs - startNs;
            final FaultSpec faults = options.faults;
            // once a second: a VL15 flood at +0.25 s, a receiver stall at +0.5 s
            if (faults.isOn(FaultKind.VL15_FLOOD) && sinceNs >= floods * SECOND_NS + SECOND_NS / 4)
            {
                floods++;
                vl15Flood((int)faults.count(FaultKind.VL15_FLOOD));
            }
            else if (faults.isOn(FaultKind.STALL_RECEIVER) && sinceNs >= stalls * SECOND_NS + SECOND_NS / 2)
            {
                stalls++;
                startStall(nowNs, TimeUnit.MILLISECONDS.toNanos(faults.count(FaultKind.STALL_RECEIVER)));
            }
            // N times a run, evenly spread: table replacements at k/(N+1), bounces at (k+1/2)/N of the run
            else if (retables < faults.count(FaultKind.RETABLE) &&
                sinceNs >= (retables + 1) * lengthNs / (faults.count(FaultKind.RETABLE) + 1))
            {
                retable(retables++);
            }
            else if (bounces < faults.count(FaultKind.LINK_BOUNCE) &&
                sinceNs >= (2L * bounces + 1) * lengthNs / (2 * faults.count(FaultKind.LINK_BOUNCE)))
            {
                bounces++;
                bounce();
            }
        }
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
        // the stall is seen when the sender stalled on credits meanwhile (docs/cli.md: no loss, no overflow): a new stall
        // episode, or a VL whose window is closed now (it may have been blocked since before the stall began)
        if (totalStalls() > stallsAtStallStart || windowClosed())
        {
            detected[FaultKind.STALL_RECEIVER.ordinal()]++;
        }
    }

    private boolean windowClosed()
    {
        final int blocks = Sizes.blocks(options.sizeMin);
        for (int vl = 0; vl < dataVls; vl++)
        {
            final long fctbs = tx.counters().txFctbs(vl).get();
            final long limit = tx.counters().txCreditLimit(vl).get();
            // docs/flow-control.md: a packet of NP blocks may go iff (CL - (FCTBS + NP)) mod 4096 <= 2048
            if (driven[vl] && ((limit - fctbs - blocks) & 0xFFF) > 2048)
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
            total += tx.counters().creditStalls(vl).get();
        }
        return total;
    }

    private long vl15Accounted()
    {
        final PortCounters counters = rx.counters();
        return counters.rxPackets(15).get() + counters.vl15Drops.get() +
            counters.discards(DiscardReason.VL15_STATE.id()).get();
    }

    private void vl15Flood(final int extra)
    {
        // every SMP so far accounted for and the VL15 buffer emptied, so that exactly `extra` find it full
        if (!await(FAULT_DEADLINE_NS, () -> tx.counters().txPackets(15).get() == smpsSent &&
            vl15Accounted() == smpsSent && rx.pending(15) == 0, null))
        {
            return;
        }
        final long dropsBefore = rx.counters().vl15Drops.get();
        final int total = VL15_PACKETS + extra;
        final long deadlineNs = System.nanoTime() + FAULT_DEADLINE_NS;
        int posted = 0;
        // nothing polls until every flood SMP arrived or was dropped
        while (posted < total && System.nanoTime() - deadlineNs < 0)
        {
            if (tx.postSmp(traffic.smp(), 0, SoakTraffic.FLOOD_SMP_LENGTH) != QueuePair.BACK_PRESSURED)
            {
                posted++;
                smpsSent++;
            }
            else if (0 == duty())
            {
                Thread.onSpinWait();
            }
        }
        while (vl15Accounted() != smpsSent && System.nanoTime() - deadlineNs < 0)
        {
            if (0 == duty())
            {
                Thread.onSpinWait();
            }
        }
        injected[FaultKind.VL15_FLOOD.ordinal()] += Math.max(0, posted - VL15_PACKETS);
        detected[FaultKind.VL15_FLOOD.ordinal()] += rx.counters().vl15Drops.get() - dropsBefore;
    }

    private void retable(final int index)
    {
        final QosConfig replacement = index % 2 == 0 ? variant : qos;
        injected[FaultKind.RETABLE.ordinal()]++;
        tx.replaceQos(replacement);
        final long[] bytesBefore = traffic.phaseBytes.clone();
        if (await(FAULT_DEADLINE_NS, () -> tx.currentQos() == replacement, null))
        {
            detected[FaultKind.RETABLE.ordinal()]++;
        }
        // the bytes of the phase that ends; the next phase counts from here
        phaseBytes.set(phaseBytes.size() - 1, bytesBefore);
        Arrays.fill(traffic.phaseBytes, 0);
        phaseQos.add(replacement);
        phaseBytes.add(new long[16]);
    }

    private void bounce()
    {
        injected[FaultKind.LINK_BOUNCE.ordinal()]++;
        // the physical link goes down: what is on the wire is lost (counted per VL by the wire) until it is up again
        links[1].cut(true);
        tx.down();
        rx.down();
        if (await(FAULT_DEADLINE_NS, () -> tx.linkState() == LinkState.DOWN && rx.linkState() == LinkState.DOWN, null))
        {
            tx.up();
            rx.up();
            if (await(FAULT_DEADLINE_NS,
                () -> tx.linkState() == LinkState.ACTIVE && rx.linkState() == LinkState.ACTIVE, null))
            {
                detected[FaultKind.LINK_BOUNCE.ordinal()]++;
            }
        }
        links[1].cut(false);
    }

    /**
     * The alternative tables {@code retable} switches to: the same VLs served, the low table's non-zero weights in
     * reverse order, so the shares change visibly.
     *
     * @param qos the configured settings.
     * @return the variant.
     */
    static QosConfig variantOf(final QosConfig qos)
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

    // ---------------------------------------------------------------- drain and checks

    private boolean drain()
    {
        // stop offering and injecting; wait until every packet sent is delivered or destroyed by a fault
        arm(false);
        phaseBytes.set(phaseBytes.size() - 1, traffic.phaseBytes.clone());
        final boolean drained = await(options.drainTimeoutNs, this::accounted, null);
        phaseBytes.set(phaseBytes.size() - 1, traffic.phaseBytes.clone());
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
        return tx.counters().txPackets(15).get() == smpsSent && vl15Accounted() == smpsSent &&
            traffic.vl15Delivered == rx.counters().rxPackets(15).get();
    }

    private long faultLost(final int vl)
    {
        final FaultyLink wire = links[1];
        return wire.droppedData(vl) + wire.corruptedData(vl) + wire.bounceLost(vl) + wire.stateLost(vl);
    }

    private long unaccounted(final int vl)
    {
        return traffic.sent[vl] - (traffic.delivered[vl] - traffic.duplicated[vl]) - traffic.damaged[vl] -
            faultLost(vl);
    }

    private boolean creditsRecovered()
    {
        final PortCounters sender = tx.counters();
        final PortCounters receiver = rx.counters();
        for (int vl = 0; vl < dataVls; vl++)
        {
            final long fctbs = sender.txFctbs(vl).get();
            final long limit = sender.txCreditLimit(vl).get();
            final long abr = receiver.rxAbr(vl).get();
            final long free = receiver.rxFreeBlocks(vl).get();
            // docs/flow-control.md: FCTBS == ABR once synchronized, and the window CL - FCTBS is the receiver's
            // min(free, 2048) with its whole buffer free again
            if (fctbs != abr || free != VL_BUFFER_BLOCKS || ((limit - fctbs) & 0xFFF) != Math.min(free, 2048))
            {
                return false;
            }
        }
        return true;
    }

    private boolean awaitCredits()
    {
        return await(CREDIT_DEADLINE_NS, this::creditsRecovered, null);
    }

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
    }

    private SoakResult summarize(final double seconds, final boolean drained, final boolean creditsRecovered)
    {
        final SoakResult result = new SoakResult();
        result.seconds = seconds;
        result.link = options.udp ? "udp" : "loopback";
        result.threads = options.threading.name().toLowerCase(Locale.ROOT);
        // the engine's idle strategy does not apply when the soak's thread runs its duty cycles
        result.idle = ThreadingMode.INVOKER == options.threading ? "none" : options.idle;
        result.seed = options.seed;
        result.dataVls = dataVls;
        result.packetSizeMin = options.sizeMin;
        result.packetSizeMax = options.sizeMax;
        result.faultSpec = options.faults.toString();

        final Totals totals = vls(result);
        final PortCounters sender = tx.counters();
        final PortCounters receiver = rx.counters();
        result.vl15Sent = smpsSent;
        result.vl15Received = traffic.vl15Delivered;
        result.vl15Dropped = receiver.vl15Drops.get();
        result.fcpSent = sender.fcpSent.get() + receiver.fcpSent.get();
        result.fcpReceived = sender.fcpReceived.get() + receiver.fcpReceived.get();
        result.fcpDiscarded = sender.fcpDiscarded.get() + receiver.fcpDiscarded.get();
        faults(result, totals);
        latency(result);
        invariants(result, totals, drained, creditsRecovered);
        return result;
    }

    private Totals vls(final SoakResult result)
    {
        final double[] predicted = predictedShares();
        final Totals totals = new Totals();
        final FaultyLink wire = links[1];
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
            v.damaged = traffic.damaged[vl];
            v.lost = Math.max(0, unaccounted(vl));
            v.outOfOrder = traffic.outOfOrder[vl];
            v.duplicated = traffic.duplicated[vl];
            v.creditStalls = tx.counters().creditStalls(vl).get();
            v.predictedShare = predicted[vl];
            result.vls.add(v);
            totals.lost += v.lost;
            totals.missing += traffic.missing(vl);
            totals.unordered += v.outOfOrder + v.duplicated;
            totals.damaged += v.damaged;
            totals.dropped += wire.droppedData(vl);
            totals.corrupted += wire.corruptedData(vl);
            totals.bounceLost += wire.bounceLost(vl);
            totals.stateLost += wire.stateLost(vl);
        }
        result.computeShares();
        double maxError = 0;
        for (final SoakResult.Vl v : result.vls)
        {
            maxError = Math.max(maxError, Math.abs(v.share - v.predictedShare));
        }
        result.maxShareError = maxError;
        return totals;
    }

    private void faults(final SoakResult result, final Totals totals)
    {
        final PortCounters sender = tx.counters();
        final PortCounters receiver = rx.counters();
        final long badCrc = receiver.discards(DiscardReason.DATA_BAD_CRC.id()).get();
        final long stateDiscards = receiver.discards(DiscardReason.DATA_STATE.id()).get();
        injected[FaultKind.DROP_DATA.ordinal()] = totals.dropped;
        injected[FaultKind.CORRUPT_DATA.ordinal()] = totals.corrupted;
        injected[FaultKind.DROP_FCP.ordinal()] = links[0].droppedFcps() + links[1].droppedFcps();
        injected[FaultKind.CORRUPT_FCP.ordinal()] = links[0].corruptedFcps() + links[1].corruptedFcps();
        // the receiver's sequence gaps not explained by what it discarded (bad CRC, link state), found damaged, or
        // the wire lost at a link bounce
        detected[FaultKind.DROP_DATA.ordinal()] =
            totals.missing - badCrc - stateDiscards - totals.damaged - totals.bounceLost;
        detected[FaultKind.CORRUPT_DATA.ordinal()] = badCrc;
        detected[FaultKind.CORRUPT_FCP.ordinal()] = sender.discards(DiscardReason.FCP_BAD_LPCRC.id()).get() +
            receiver.discards(DiscardReason.FCP_BAD_LPCRC.id()).get();
        for (final FaultKind kind : FaultKind.values())
        {
            if (options.faults.values().containsKey(kind))
            {
                result.faultsInjected.put(kind, injected[kind.ordinal()]);
                if (FaultKind.DROP_FCP != kind)
                {
                    // a lost FCP leaves nothing to detect (docs/cli.md); credits recover from later FCPs
                    result.faultsDetected.put(kind, detected[kind.ordinal()]);
                }
            }
        }
    }

    private void latency(final SoakResult result)
    {
        latency.sampleInterval();
        final Histogram total = latency.total();
        if (total.getTotalCount() > 0)
        {
            result.latencyP50Ns = total.getValueAtPercentile(50);
            result.latencyP99Ns = total.getValueAtPercentile(99);
            result.latencyP999Ns = total.getValueAtPercentile(99.9);
            result.latencyMaxNs = total.getMaxValue();
        }
    }

    /** The invariants of docs/soak.md ("Drain, then check"), each with the reason when it fails. */
    private void invariants(
        final SoakResult result, final Totals totals, final boolean drained, final boolean creditsRecovered)
    {
        final PortCounters sender = tx.counters();
        final PortCounters receiver = rx.counters();
        final long badCrc = receiver.discards(DiscardReason.DATA_BAD_CRC.id()).get();
        final long stateDiscards = receiver.discards(DiscardReason.DATA_STATE.id()).get();
        final long vl15Missing = smpsSent - result.vl15Received - result.vl15Dropped -
            receiver.discards(DiscardReason.VL15_STATE.id()).get();
        final int violationsBefore = result.violations.size();
        violation(result, drained, "the drain did not finish within " +
            TimeUnit.NANOSECONDS.toMillis(options.drainTimeoutNs) + " ms: packets are still unaccounted for");
        violation(result, totals.lost == 0,
            totals.lost + " data packet(s) neither delivered nor destroyed by an injected fault");
        violation(result, totals.corrupted == badCrc,
            totals.corrupted + " data packet(s) corrupted on the wire but " + badCrc + " discarded for a bad CRC");
        violation(result, totals.stateLost == stateDiscards, totals.stateLost +
            " data packet(s) reached a port that did not take data but " + stateDiscards +
            " were discarded for the link state");
        violation(result, vl15Missing == 0,
            vl15Missing + " SMP(s) neither delivered nor dropped for a full VL15 buffer");
        result.invariants.put("no_loss", result.violations.size() == violationsBefore);

        result.invariants.put("fifo", violation(result, totals.unordered == 0,
            totals.unordered + " data packet(s) out of order or duplicated"));
        final long overflows = receiver.discards(DiscardReason.DATA_OVERFLOW.id()).get() +
            sender.discards(DiscardReason.DATA_OVERFLOW.id()).get();
        result.invariants.put("no_overflow", violation(result, overflows == 0,
            overflows + " data packet(s) discarded for overflowing a receive buffer"));

        // no link reset: Initialize, Armed, Active at the start, then Down, Initialize, Armed, Active per bounce
        final long expectedTransitions = 3 + 4 * detected[FaultKind.LINK_BOUNCE.ordinal()];
        final boolean noReset = violation(result, sender.linkTransitions.get() == expectedTransitions &&
            receiver.linkTransitions.get() == expectedTransitions, "link transitions " +
            sender.linkTransitions.get() + "/" + receiver.linkTransitions.get() + ", expected " + expectedTransitions +
            ": a link reset happened");
        final boolean recovered = violation(result, creditsRecovered,
            "credits not back to a full window after the drain: " + creditState());
        result.invariants.put("credits_recovered", noReset && recovered);

        result.invariants.put("intact", violation(result, totals.damaged == 0,
            totals.damaged + " data packet(s) delivered with a bad payload checksum"));
        final String errors = engineErrors();
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
                tx.counters().txFctbs(vl).get(), tx.counters().txCreditLimit(vl).get(),
                rx.counters().rxAbr(vl).get(), rx.counters().rxFreeBlocks(vl).get()));
        }
        return state.toString();
    }

    private String engineErrors()
    {
        final StringBuilder errors = new StringBuilder();
        for (final Engine engine : engines)
        {
            ErrorLogReader.read(engine.countersFile().errorLogBuffer(), (count, first, last, encoded) ->
                errors.append(count).append(" x ").append(encoded.lines().findFirst().orElse("")).append("; "));
        }
        return errors.toString();
    }

    /**
     * The shares the configuration predicts: core's arbiter in simulation, every driven VL backlogged with packets
     * of the run's sizes, unlimited credits; with table replacements, each phase's prediction weighted by the bytes
     * received in it.
     */
    private double[] predictedShares()
    {
        final double[] shares = new double[16];
        long total = 0;
        for (final long[] bytes : phaseBytes)
        {
            for (final long b : bytes)
            {
                total += b;
            }
        }
        for (int phase = 0; phase < phaseQos.size(); phase++)
        {
            long bytes = 0;
            for (final long b : phaseBytes.get(phase))
            {
                bytes += b;
            }
            final double weight = total == 0 ? (phase == 0 ? 1 : 0) : (double)bytes / total;
            if (weight > 0)
            {
                final double[] phaseShares = simulatedShares(phaseQos.get(phase));
                for (int vl = 0; vl < 16; vl++)
                {
                    shares[vl] += weight * phaseShares[vl];
                }
            }
        }
        return shares;
    }

    private double[] simulatedShares(final QosConfig config)
    {
        final SimulatedPort port = new SimulatedPort();
        final SplittableRandom sizes = new SplittableRandom(options.seed);
        for (int vl = 0; vl < dataVls; vl++)
        {
            if (driven[vl])
            {
                for (int i = 0; i < SIMULATED_GRANTS; i++)
                {
                    port.enqueue(vl, options.sizeMin == options.sizeMax ? options.sizeMin :
                        options.sizeMin + 4 * sizes.nextInt((options.sizeMax - options.sizeMin) / 4 + 1), 1);
                }
            }
        }
        final VlArbiter arbiter = new VlArbiter(config, port);
        final long[] bytes = new long[16];
        long total = 0;
        for (int i = 0; i < SIMULATED_GRANTS; i++)
        {
            final int grant = arbiter.next();
            if (VlArbiter.GRANT_NONE == grant)
            {
                break;
            }
            final int size = port.send(grant);
            bytes[VlArbiter.vl(grant)] += size;
            total += size;
        }
        final double[] shares = new double[16];
        for (int vl = 0; vl < 16; vl++)
        {
            shares[vl] = total == 0 ? 0 : (double)bytes[vl] / total;
        }
        return shares;
    }
}
