package io.vlink.tools.perf;

import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The two sides of a {@code vlink perf} run, over any {@link PerfTransport}, as perftest runs them. Once the link is
 * up the client says what it runs (SETUP: test, SL, warm-up, iterations or duration, and its address, as perftest
 * exchanges its parameters and addresses) and the server answers with its own address (HELLO), so that both print
 * the same run. Then, for each size, the client says START, the server READY, and the client warms up for a time
 * (latency: one message in flight, echoed; bandwidth: as fast as the transport takes them), says MEASURE, and
 * <ul>
 *     <li>latency: sends one message and waits for the server's echo of the same size, one in flight; each side times
 *     the round trip as it sees it (the client from its send to the echo, the server from its echo to the next
 *     message) and reports half of it;</li>
 *     <li>bandwidth: sends as fast as the transport takes messages and times from the first to the server's report
 *     that it received the last; the server times from the first to the last it received;</li>
 * </ul>
 * Warm-up messages are not counted: the server counts from MEASURE, which follows the last of them on the same queue
 * pair. END closes a size (the server prints its row), BYE the run. Control messages are 64 bytes; every message's
 * first byte is its kind.
 * <p>
 * The application's thread waits by spinning, then yielding ({@code Thread.yield}), never parking: a message that
 * arrives while it waits is seen within a yield. Every wait once the link is up is bounded: a peer that sends nothing
 * for the peer timeout, or whose end of the link closes, restarts or whose process ends, is gone
 * ({@link PeerVanishedException}); nothing arriving while the link stays up means a message was lost (on a UDP wire
 * without link-level retry), discarded by a port, or never sent, and the exception says so with what this side's
 * link and port counted ({@link PerfTransport#diagnosis()}).
 */
public final class PerfPeer
{
    /** The largest message: one packet of the largest MTU. */
    public static final int MAX_SIZE = 4096;
    /** Spins before the application's wait yields. */
    public static final long WAIT_SPINS = 1_000;
    /** Each size after the first warms up for this fraction of the first size's warm-up. */
    public static final int LATER_SIZE_WARMUP_DIVISOR = 10;

    static final byte DATA = 0;
    static final byte SETUP = 1;
    static final byte HELLO = 2;
    static final byte START = 3;
    static final byte READY = 4;
    static final byte MEASURE = 5;
    static final byte END = 6;
    static final byte REPORT = 7;
    static final byte BYE = 8;
    static final int TEST_LATENCY = 1;
    static final int TEST_BANDWIDTH = 2;
    static final int CONTROL_LENGTH = 64;
    static final int TEST_OFFSET = 1;
    static final int SL_OFFSET = 2;
    static final int SIZE_OFFSET = 4;
    static final int A_OFFSET = 8;
    static final int B_OFFSET = 16;
    static final int C_OFFSET = 24;
    static final int LID_OFFSET = 32;
    static final int QPN_OFFSET = 36;
    static final int PSN_OFFSET = 40;
    static final int HAS_ADDRESS_OFFSET = 44;

    private static final int CHECK_EVERY_IDLE = 256;
    private static final int CONTROL_QUEUE = 16;
    /** Longs kept per queued control message: its first 48 bytes, and the data messages counted before it. */
    private static final int CONTROL_STRIDE = 7;
    private static final long GONE_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long PEAK_WINDOW_NS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final long HIGHEST_NS = TimeUnit.SECONDS.toNanos(60);

    /** What to run. */
    public static final class Settings
    {
        /** Bandwidth (send-bw) rather than latency (send-lat, ring-lat). */
        public boolean bandwidth;
        public int[] sizes = {2};
        /** Measured messages per size (when {@link #durationNs} is 0). */
        public long iterations = 1000;
        /** Measure for this long per size instead of a number of messages (0: by iterations). */
        public long durationNs;
        /** The warm-up before the first size; each later size warms for a tenth of it. Not counted. */
        public long warmupNs = TimeUnit.SECONDS.toNanos(1);
        public int sl;
        /** A peer that sends nothing for this long is gone. */
        public long peerTimeoutNs = TimeUnit.SECONDS.toNanos(5);
        /** How long a client waits for the link to come up. */
        public long linkUpTimeoutNs = TimeUnit.SECONDS.toNanos(10);

        /**
         * @param index the size's place in {@link #sizes}.
         * @return how long it warms up.
         */
        public long warmupNs(final int index)
        {
            return 0 == index ? warmupNs : warmupNs / LATER_SIZE_WARMUP_DIVISOR;
        }
    }

    /** What both sides know once the client said what it runs: the client's settings and both addresses. */
    public record Connected(Settings run, PerfTransport.Address local, PerfTransport.Address remote, int mtu,
        int maxInline)
    {
    }

    /** Told as a run goes. */
    public interface Listener
    {
        /**
         * The link is up and the run is known (on the server: the client's settings).
         *
         * @param connected the run and both addresses.
         */
        void connected(Connected connected);

        /**
         * The first size's warm-up starts.
         *
         * @param warmupNs how long it lasts.
         */
        void warming(long warmupNs);

        /**
         * @param row a size measured.
         */
        void row(PerfRow row);
    }

    private final Settings settings;
    private final IdleStrategy idle = new BackoffIdleStrategy(WAIT_SPINS, Long.MAX_VALUE, 1, 1);
    private final UnsafeBuffer data = new UnsafeBuffer(new byte[MAX_SIZE]);
    private final UnsafeBuffer control = new UnsafeBuffer(new byte[CONTROL_LENGTH]);
    private final Histogram roundTrips = new Histogram(1, HIGHEST_NS, 3);
    private final PerfTransport.MessageHandler handler = this::onMessage;
    private PerfTransport transport;

    // what arrived (the handler runs on this thread, inside poll): data counted, control messages queued with the
    // data count at their arrival, as one poll may deliver several (END then BYE) and data behind them
    private long dataReceived;
    private final long[] controls = new long[CONTROL_STRIDE * CONTROL_QUEUE];
    private int controlHead;
    private int controlTail;
    private boolean controlPending;
    private byte controlKind;
    private int controlTest;
    private int controlSl;
    private int controlSize;
    private long controlA;
    private long controlB;
    private long controlC;
    private long controlDataBefore;
    private PerfTransport.Address controlAddress;

    // the peer watch
    private boolean progressed;
    private int idleLoops;
    private long lastProgressNs;
    private long lastGoneCheckNs;

    /**
     * @param settings what to run (on the server: replaced by what the client says).
     */
    public PerfPeer(final Settings settings)
    {
        this.settings = settings;
    }

    private void onMessage(final DirectBuffer buffer, final int offset)
    {
        final byte kind = buffer.getByte(offset);
        if (DATA == kind)
        {
            dataReceived++;
            return;
        }
        if (controlTail - controlHead == CONTROL_QUEUE)
        {
            throw new PeerVanishedException("it sent more than " + CONTROL_QUEUE + " control messages unanswered");
        }
        final int at = CONTROL_STRIDE * (controlTail++ % CONTROL_QUEUE);
        for (int i = 0; i < CONTROL_STRIDE - 1; i++)
        {
            controls[at + i] = buffer.getLong(offset + 8 * i);
        }
        controls[at + CONTROL_STRIDE - 1] = dataReceived;
        controlPending = true;
    }

    /** @return the data messages that had arrived before the next control message. */
    private long nextControlDataBefore()
    {
        return controls[CONTROL_STRIDE * (controlHead % CONTROL_QUEUE) + CONTROL_STRIDE - 1];
    }

    /** Take the next control message into the control fields. */
    private void nextControl()
    {
        final int at = CONTROL_STRIDE * (controlHead++ % CONTROL_QUEUE);
        for (int i = 0; i < CONTROL_STRIDE - 1; i++)
        {
            control.putLong(8 * i, controls[at + i]);
        }
        controlKind = control.getByte(0);
        controlTest = control.getByte(TEST_OFFSET);
        controlSl = control.getByte(SL_OFFSET);
        controlSize = control.getInt(SIZE_OFFSET);
        controlA = control.getLong(A_OFFSET);
        controlB = control.getLong(B_OFFSET);
        controlC = control.getLong(C_OFFSET);
        controlAddress = 0 == control.getByte(HAS_ADDRESS_OFFSET) ? null : new PerfTransport.Address(
            control.getInt(LID_OFFSET), control.getInt(QPN_OFFSET), control.getInt(PSN_OFFSET));
        controlDataBefore = controls[at + CONTROL_STRIDE - 1];
        controlPending = controlHead != controlTail;
    }

    // ---------------------------------------------------------------- client

    /**
     * Run every size against a server.
     *
     * @param transport linked to the server.
     * @param listener  told of the run, its warm-up and each row as it is measured.
     * @return messages the server did not receive (bandwidth over a lossy link), 0 otherwise.
     * @throws PeerVanishedException when the server does not come up or goes away.
     */
    public long client(final PerfTransport transport, final Listener listener)
    {
        this.transport = transport;
        awaitLink();
        final PerfTransport.Address local = transport.address(settings.sl);
        send(SETUP, 0, settings.warmupNs, settings.iterations, settings.durationNs, local);
        awaitControl(HELLO);
        listener.connected(new Connected(settings, local, controlAddress, transport.mtu(),
            transport.maxInline(settings.sl)));
        long lost = 0;
        for (int i = 0; i < settings.sizes.length; i++)
        {
            final int size = settings.sizes[i];
            final long warmupNs = settings.warmupNs(i);
            if (0 == i)
            {
                listener.warming(warmupNs);
            }
            send(START, size, warmupNs, 0, 0, null);
            awaitControl(READY);
            final long warmed = settings.bandwidth ? bandwidthWarmup(size, warmupNs) : latencyWarmup(size, warmupNs);
            send(MEASURE, size, warmed, 0, 0, null);
            if (settings.bandwidth)
            {
                final long[] posted = new long[1];
                final PerfRow row = bandwidthClient(size, warmed, posted);
                lost += Math.max(0, posted[0] - controlB);
                listener.row(row);
            }
            else
            {
                listener.row(latencyClient(size, warmed));
            }
        }
        send(BYE, 0, 0, 0, 0, null);
        awaitControl(BYE);
        return lost;
    }

    private void awaitLink()
    {
        final long deadline = System.nanoTime() + settings.linkUpTimeoutNs;
        while (!transport.ready())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new PeerVanishedException("no server: the link did not come up within " +
                    seconds(settings.linkUpTimeoutNs) + " s (" + transport.describe() + ")");
            }
            idle.idle(step());
        }
        idle.reset();
        lastProgressNs = System.nanoTime();
    }

    /** One message in flight, echoed, for the warm-up's time. @return messages sent. */
    private long latencyWarmup(final int size, final long warmupNs)
    {
        final long deadline = System.nanoTime() + warmupNs;
        long sent = 0;
        while (System.nanoTime() - deadline < 0)
        {
            final long target = dataReceived + 1;
            offer(data, size);
            sent++;
            while (dataReceived < target)
            {
                watch(step());
            }
        }
        return sent;
    }

    /** As fast as the transport takes them, for the warm-up's time. @return messages sent. */
    private long bandwidthWarmup(final int size, final long warmupNs)
    {
        final long deadline = System.nanoTime() + warmupNs;
        long sent = 0;
        while (0 != (sent & 255) || System.nanoTime() - deadline < 0)
        {
            offer(data, size);
            sent++;
        }
        return sent;
    }

    private PerfRow latencyClient(final int size, final long warmed)
    {
        roundTrips.reset();
        final long duration = settings.durationNs;
        final long deadline = 0 == duration ? Long.MAX_VALUE : System.nanoTime() + duration;
        final long total = 0 == duration ? settings.iterations : Long.MAX_VALUE;
        long i = 0;
        while (i < total)
        {
            final long sentNs = System.nanoTime();
            if (sentNs - deadline >= 0)
            {
                break;
            }
            final long target = dataReceived + 1;
            offer(data, size);
            while (dataReceived < target)
            {
                watch(step());
            }
            roundTrips.recordValue(Math.min(HIGHEST_NS, System.nanoTime() - sentNs));
            i++;
        }
        send(END, size, warmed, i, 0, null);
        return PerfRow.latency(size, roundTrips, warmed);
    }

    private PerfRow bandwidthClient(final int size, final long warmed, final long[] posted)
    {
        final long startNs = System.nanoTime();
        final long deadline = 0 == settings.durationNs ? Long.MAX_VALUE : startNs + settings.durationNs;
        final long total = 0 == settings.durationNs ? settings.iterations : Long.MAX_VALUE;
        long count = 0;
        long markNs = startNs;
        long markCount = 0;
        double peak = 0;
        while (count < total)
        {
            if (transport.offer(data, size, settings.sl))
            {
                count++;
                progressed = true;
                if (0 == (count & 1023))
                {
                    final long now = System.nanoTime();
                    if (now - markNs >= PEAK_WINDOW_NS)
                    {
                        peak = Math.max(peak, (double)(count - markCount) / (now - markNs));
                        markNs = now;
                        markCount = count;
                    }
                    if (now - deadline >= 0)
                    {
                        break;
                    }
                }
            }
            else
            {
                watch(step());
            }
        }
        send(END, size, warmed, count, 0, null);
        awaitControl(REPORT);
        posted[0] = count;
        return PerfRow.bandwidth(size, count, System.nanoTime() - startNs, peak, warmed);
    }

    // ---------------------------------------------------------------- server

    /**
     * Serve clients until one completes a run: a client that vanishes is reported and the next one awaited.
     *
     * @param transports opens a fresh transport for each client (over UDP: waits for the client's hello).
     * @param listener   told of each client's run, its warm-up and each row as it is measured.
     * @param vanished   told, in one line, about each client that vanished.
     */
    public void server(final Supplier<PerfTransport> transports, final Listener listener,
        final Consumer<String> vanished)
    {
        while (true)
        {
            String reason = null;
            try (PerfTransport transport = transports.get())
            {
                this.transport = transport;
                if (serveClient(listener))
                {
                    return;
                }
            }
            catch (final PeerVanishedException ex)
            {
                reason = ex.getMessage();
            }
            // said once the old link is closed: a client started on hearing it finds the new one
            vanished.accept(reason);
        }
    }

    private boolean serveClient(final Listener listener)
    {
        // a new client, a new transport: nothing of the last one is kept. Cleared before the wait for the link, not
        // after it: the poll that brings the client's SETUP may be the one that makes the link ready (an Armed port
        // goes Active on its first data packet), and a SETUP cleared away would leave both sides waiting
        controlPending = false;
        controlHead = 0;
        controlTail = 0;
        dataReceived = 0;
        while (!transport.ready())
        {
            idle.idle(step());
        }
        idle.reset();
        lastProgressNs = System.nanoTime();
        awaitControl(SETUP);
        // the client's run is this run: what the server prints and measures
        settings.bandwidth = TEST_BANDWIDTH == controlTest;
        settings.sl = controlSl;
        settings.warmupNs = controlA;
        settings.iterations = controlB;
        settings.durationNs = controlC;
        final PerfTransport.Address remote = controlAddress;
        final PerfTransport.Address local = transport.address(settings.sl);
        send(HELLO, 0, 0, 0, 0, local);
        listener.connected(new Connected(settings, local, remote, transport.mtu(), transport.maxInline(settings.sl)));
        boolean open = false;
        boolean measuring = false;
        boolean first = true;
        final boolean bandwidth = settings.bandwidth;
        int size = 0;
        long base = 0;
        long warmed = 0;
        long echoed = 0;
        long echoNs = 0;
        long firstNs = 0;
        long markNs = 0;
        long markCount = 0;
        double peak = 0;
        while (true)
        {
            final int work = step();
            // a control message that arrived before the next message to echo (MEASURE, END) is taken first
            final boolean controlFirst = controlPending && nextControlDataBefore() <= echoed;
            if (!controlFirst && open && !bandwidth && dataReceived > echoed)
            {
                // latency: each message is echoed at once; the time since the last echo is a round trip
                final long arrivedNs = System.nanoTime();
                if (measuring && 0 != echoNs)
                {
                    roundTrips.recordValue(Math.min(HIGHEST_NS, arrivedNs - echoNs));
                }
                offer(data, size);
                echoNs = System.nanoTime();
                echoed++;
                continue;
            }
            if (measuring && bandwidth && dataReceived > base)
            {
                final long counted = dataReceived - base;
                if (0 == firstNs)
                {
                    firstNs = System.nanoTime();
                    markNs = firstNs;
                }
                else if (counted - markCount >= 1024)
                {
                    final long now = System.nanoTime();
                    if (now - markNs >= PEAK_WINDOW_NS)
                    {
                        peak = Math.max(peak, (double)(counted - markCount) / (now - markNs));
                        markNs = now;
                        markCount = counted;
                    }
                }
            }
            if (controlPending)
            {
                nextControl();
                switch (controlKind)
                {
                    case START:
                        if (first)
                        {
                            first = false;
                            listener.warming(controlA);
                        }
                        open = true;
                        measuring = false;
                        size = controlSize;
                        echoed = controlDataBefore;
                        echoNs = 0;
                        roundTrips.reset();
                        send(READY, size, 0, 0, 0, null);
                        break;
                    case MEASURE:
                        // every warm-up message came before MEASURE on the same queue pair; the round trip from the
                        // last warm-up echo to the first measured message is the first measured one, as the client's
                        measuring = true;
                        warmed = controlA;
                        base = controlDataBefore;
                        firstNs = 0;
                        markCount = 0;
                        peak = 0;
                        roundTrips.reset();
                        break;
                    case END:
                        if (bandwidth)
                        {
                            final long counted = Math.max(0, dataReceived - base);
                            listener.row(PerfRow.bandwidth(size, counted,
                                0 == firstNs ? 0 : System.nanoTime() - firstNs, peak, warmed));
                            send(REPORT, size, warmed, counted, 0, null);
                        }
                        else
                        {
                            listener.row(PerfRow.latency(size, roundTrips, warmed));
                        }
                        open = false;
                        measuring = false;
                        break;
                    case BYE:
                        send(BYE, 0, 0, 0, 0, null);
                        while (!transport.flushed())
                        {
                            watch(step());
                        }
                        return true;
                    default:
                        throw new PeerVanishedException("it sent a message of unknown kind " + controlKind);
                }
                continue;
            }
            watch(work);
        }
    }

    // ---------------------------------------------------------------- both

    /** One duty cycle (invoker mode) and one poll; a message received is progress. */
    private int step()
    {
        final int work = transport.duty();
        final int polled = transport.poll(handler);
        if (polled > 0)
        {
            progressed = true;
        }
        return work + polled;
    }

    private void offer(final DirectBuffer message, final int length)
    {
        while (!transport.offer(message, length, settings.sl))
        {
            watch(step());
        }
        progressed = true;
    }

    private void send(final byte kind, final int size, final long a, final long b, final long c,
        final PerfTransport.Address address)
    {
        control.setMemory(0, CONTROL_LENGTH, (byte)0);
        control.putByte(0, kind);
        control.putByte(TEST_OFFSET, (byte)(settings.bandwidth ? TEST_BANDWIDTH : TEST_LATENCY));
        control.putByte(SL_OFFSET, (byte)settings.sl);
        control.putInt(SIZE_OFFSET, size);
        control.putLong(A_OFFSET, a);
        control.putLong(B_OFFSET, b);
        control.putLong(C_OFFSET, c);
        if (null != address)
        {
            control.putInt(LID_OFFSET, address.lid());
            control.putInt(QPN_OFFSET, address.qpn());
            control.putInt(PSN_OFFSET, address.psn());
            control.putByte(HAS_ADDRESS_OFFSET, (byte)1);
        }
        offer(control, CONTROL_LENGTH);
    }

    private void awaitControl(final byte kind)
    {
        while (!controlPending)
        {
            watch(step());
        }
        nextControl();
        if (controlKind != kind)
        {
            throw new PeerVanishedException("it sent a message of kind " + controlKind + " where " + kind +
                " was due: is it another version of vlink perf, or another test?");
        }
    }

    /** Idle when nothing was done; now and then, see whether the peer is still there. */
    private void watch(final int work)
    {
        if (work > 0)
        {
            idle.reset();
            idleLoops = 0;
            return;
        }
        idle.idle();
        if (++idleLoops < CHECK_EVERY_IDLE)
        {
            return;
        }
        idleLoops = 0;
        final long now = System.nanoTime();
        if (progressed)
        {
            progressed = false;
            lastProgressNs = now;
            return;
        }
        if (now - lastProgressNs > settings.peerTimeoutNs)
        {
            final boolean up = transport.ready();
            throw new PeerVanishedException("nothing arrived for " + seconds(now - lastProgressNs) + " s" +
                (up ? " while the link stayed up: a message was lost, discarded or never sent (" +
                transport.diagnosis() + ")" : ""), up);
        }
        if (now - lastGoneCheckNs > GONE_CHECK_NS)
        {
            lastGoneCheckNs = now;
            final String gone = transport.peerGone();
            // a peer that wrote its last message and then closed, between this side's poll and the check, is not
            // gone before that message is read: poll once more
            if (null != gone && 0 == step())
            {
                throw new PeerVanishedException(gone);
            }
        }
    }

    private static String seconds(final long nanos)
    {
        return String.format(java.util.Locale.ROOT, "%.1f", nanos / 1e9);
    }
}
