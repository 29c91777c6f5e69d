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
 * The two sides of a {@code vlink perf} run, over any {@link PerfTransport}, as perftest runs them: the client says
 * which test and size (START), the server answers (READY); then
 * <ul>
 *     <li>latency: the client sends one message and waits for the server's echo of the same size, one in flight; each
 *     side times the round trip as it sees it (the client from its send to the echo, the server from its echo to the
 *     next message) and reports half of it;</li>
 *     <li>bandwidth: the client sends as fast as the transport takes messages and times from the first to the
 *     server's report that it received the last; the server times from the first to the last it received;</li>
 * </ul>
 * after its warm-up messages, which are not counted. END closes a size (the server prints its row), BYE the run.
 * Control messages are 32 bytes; every message's first byte is its kind.
 * <p>
 * The application's thread waits by spinning, then yielding ({@code Thread.yield}), never parking: a message that
 * arrives while it waits is seen within a yield. A peer that sends nothing for the peer timeout, or whose end of
 * the link closes, restarts or whose process ends, is gone ({@link PeerVanishedException}).
 */
public final class PerfPeer
{
    /** The largest message: one packet of the largest MTU. */
    public static final int MAX_SIZE = 4096;
    /** Spins before the application's wait yields. */
    public static final long WAIT_SPINS = 1_000;

    static final byte DATA = 0;
    static final byte START = 1;
    static final byte READY = 2;
    static final byte END = 3;
    static final byte REPORT = 4;
    static final byte BYE = 5;
    static final int TEST_LATENCY = 1;
    static final int TEST_BANDWIDTH = 2;
    static final int CONTROL_LENGTH = 32;
    static final int TEST_OFFSET = 1;
    static final int SL_OFFSET = 2;
    static final int SIZE_OFFSET = 4;
    static final int WARMUP_OFFSET = 8;
    static final int COUNT_OFFSET = 16;

    private static final int CHECK_EVERY_IDLE = 256;
    private static final int CONTROL_QUEUE = 16;
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
        /** Messages per size sent first and not counted. */
        public long warmup = 1000;
        public int sl;
        /** A peer that sends nothing for this long is gone. */
        public long peerTimeoutNs = TimeUnit.SECONDS.toNanos(5);
        /** How long a client waits for the link to come up. */
        public long linkUpTimeoutNs = TimeUnit.SECONDS.toNanos(10);
    }

    private final Settings settings;
    private final IdleStrategy idle = new BackoffIdleStrategy(WAIT_SPINS, Long.MAX_VALUE, 1, 1);
    private final UnsafeBuffer data = new UnsafeBuffer(new byte[MAX_SIZE]);
    private final UnsafeBuffer control = new UnsafeBuffer(new byte[CONTROL_LENGTH]);
    private final Histogram roundTrips = new Histogram(1, HIGHEST_NS, 3);
    private final PerfTransport.MessageHandler handler = this::onMessage;
    private PerfTransport transport;

    // what arrived (the handler runs on this thread, inside poll): data counted, control messages queued, as one
    // poll may deliver several (END then BYE)
    private long dataReceived;
    private final long[] controls = new long[4 * CONTROL_QUEUE];
    private int controlHead;
    private int controlTail;
    private boolean controlPending;
    private byte controlKind;
    private int controlTest;
    private int controlSl;
    private int controlSize;
    private long controlWarmup;
    private long controlCount;

    // the peer watch
    private boolean progressed;
    private int idleLoops;
    private long lastProgressNs;
    private long lastGoneCheckNs;

    /**
     * @param settings what to run.
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
        final int at = 4 * (controlTail++ % CONTROL_QUEUE);
        controls[at] = buffer.getLong(offset);
        controls[at + 1] = buffer.getLong(offset + WARMUP_OFFSET);
        controls[at + 2] = buffer.getLong(offset + COUNT_OFFSET);
        controlPending = true;
    }

    /** Take the next control message into the control fields. */
    private void nextControl()
    {
        final int at = 4 * (controlHead++ % CONTROL_QUEUE);
        control.putLong(0, controls[at]);
        controlKind = control.getByte(0);
        controlTest = control.getByte(TEST_OFFSET);
        controlSl = control.getByte(SL_OFFSET);
        controlSize = control.getInt(SIZE_OFFSET);
        controlWarmup = controls[at + 1];
        controlCount = controls[at + 2];
        controlPending = controlHead != controlTail;
    }

    // ---------------------------------------------------------------- client

    /**
     * Run every size against a server.
     *
     * @param transport linked to the server.
     * @param connected told once the link is up.
     * @param rows      receives each row as it is measured.
     * @return messages the server did not receive (bandwidth over a lossy link), 0 otherwise.
     * @throws PeerVanishedException when the server does not come up or goes away.
     */
    public long client(final PerfTransport transport, final Runnable connected, final Consumer<PerfRow> rows)
    {
        this.transport = transport;
        awaitLink();
        connected.run();
        long lost = 0;
        for (final int size : settings.sizes)
        {
            send(START, size, settings.warmup, 0);
            awaitControl(READY);
            if (settings.bandwidth)
            {
                final long[] posted = new long[1];
                final PerfRow row = bandwidthClient(size, posted);
                lost += Math.max(0, posted[0] - controlCount);
                rows.accept(row);
            }
            else
            {
                rows.accept(latencyClient(size));
            }
        }
        send(BYE, 0, 0, 0);
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

    private PerfRow latencyClient(final int size)
    {
        roundTrips.reset();
        final long warmup = settings.warmup;
        final long total = warmup + settings.iterations;
        final long duration = settings.durationNs;
        long deadline = Long.MAX_VALUE;
        long i = 0;
        while (0 == duration ? i < total : true)
        {
            final long sentNs = System.nanoTime();
            if (i == warmup && 0 != duration)
            {
                deadline = sentNs + duration;
            }
            else if (sentNs - deadline >= 0)
            {
                break;
            }
            final long target = dataReceived + 1;
            offer(data, size);
            while (dataReceived < target)
            {
                watch(step());
            }
            if (i >= warmup)
            {
                roundTrips.recordValue(Math.min(HIGHEST_NS, System.nanoTime() - sentNs));
            }
            i++;
        }
        send(END, size, warmup, i - warmup);
        return PerfRow.latency(size, roundTrips);
    }

    private PerfRow bandwidthClient(final int size, final long[] posted)
    {
        for (long i = 0; i < settings.warmup; i++)
        {
            offer(data, size);
        }
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
        send(END, size, settings.warmup, count);
        awaitControl(REPORT);
        posted[0] = count;
        return PerfRow.bandwidth(size, count, System.nanoTime() - startNs, peak);
    }

    // ---------------------------------------------------------------- server

    /**
     * Serve clients until one completes a run: a client that vanishes is reported and the next one awaited.
     *
     * @param transports opens a fresh transport for each client (over UDP: waits for the client's hello).
     * @param connected  told each time a client's link is up.
     * @param rows       receives each row as it is measured.
     * @param vanished   told, in one line, about each client that vanished.
     */
    public void server(
        final Supplier<PerfTransport> transports,
        final Runnable connected,
        final Consumer<PerfRow> rows,
        final Consumer<String> vanished)
    {
        while (true)
        {
            String reason = null;
            try (PerfTransport transport = transports.get())
            {
                this.transport = transport;
                if (serveClient(connected, rows))
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

    private boolean serveClient(final Runnable connected, final Consumer<PerfRow> rows)
    {
        while (!transport.ready())
        {
            idle.idle(step());
        }
        idle.reset();
        connected.run();
        controlPending = false;
        controlHead = 0;
        controlTail = 0;
        dataReceived = 0;
        lastProgressNs = System.nanoTime();
        boolean open = false;
        boolean bandwidth = false;
        int size = 0;
        long base = 0;
        long warmup = 0;
        long echoed = 0;
        long echoNs = 0;
        long firstNs = 0;
        long markNs = 0;
        long markCount = 0;
        double peak = 0;
        while (true)
        {
            final int work = step();
            if (open && !bandwidth && dataReceived > echoed)
            {
                // latency: each message is echoed at once; the time since the last echo is a round trip
                final long arrivedNs = System.nanoTime();
                if (echoed - base >= warmup && 0 != echoNs)
                {
                    roundTrips.recordValue(Math.min(HIGHEST_NS, arrivedNs - echoNs));
                }
                offer(data, size);
                echoNs = System.nanoTime();
                echoed++;
                continue;
            }
            if (open && bandwidth && dataReceived - base > warmup)
            {
                final long counted = dataReceived - base - warmup;
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
                        open = true;
                        bandwidth = TEST_BANDWIDTH == controlTest;
                        size = controlSize;
                        warmup = controlWarmup;
                        base = dataReceived;
                        echoed = dataReceived;
                        echoNs = 0;
                        firstNs = 0;
                        markCount = 0;
                        peak = 0;
                        roundTrips.reset();
                        settings.sl = controlSl;
                        send(READY, size, warmup, 0);
                        break;
                    case END:
                        if (bandwidth)
                        {
                            final long counted = Math.max(0, dataReceived - base - warmup);
                            rows.accept(PerfRow.bandwidth(size, counted, 0 == firstNs ? 0 : System.nanoTime() - firstNs, peak));
                            send(REPORT, size, warmup, counted);
                        }
                        else
                        {
                            rows.accept(PerfRow.latency(size, roundTrips));
                        }
                        break;
                    case BYE:
                        send(BYE, 0, 0, 0);
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

    private void send(final byte kind, final int size, final long warmup, final long count)
    {
        control.putByte(0, kind);
        control.putByte(TEST_OFFSET, (byte)(settings.bandwidth ? TEST_BANDWIDTH : TEST_LATENCY));
        control.putByte(SL_OFFSET, (byte)settings.sl);
        control.putInt(SIZE_OFFSET, size);
        control.putLong(WARMUP_OFFSET, warmup);
        control.putLong(COUNT_OFFSET, count);
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
                " was due: is it another vlink perf test?");
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
            throw new PeerVanishedException("nothing arrived for " + seconds(now - lastProgressNs) + " s");
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
