package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.CountersSnapshot;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LinkBounceTest} across two processes, over UDP and shm: this process takes its port down and up 20 times,
 * the peer process ({@link BouncePeer}) stays up and re-trains exactly once each time, this port never. After each
 * bounce, once both are Active (the peer read live from its counters file, as {@code vlink stat} reads it: one more
 * {@code link_error_recovery}, exactly four more transitions), this engine runs 200,000 duty cycles without a
 * transition of either port; at the end the peer's port went through exactly its bring-up and four states a bounce.
 * Then 10,000 messages each way arrive in order.
 * <p>
 * Where a run's time goes (it prints each bounce's): every bounce waits rule 4's window, a quarter of the silence limit
 * both sides set ({@link BouncePeer#LINK_TIMEOUT_NS}); the watch of 200,000 duty cycles takes about 0.3 s on a quiet
 * machine; the messages about 1 s. A run (one link kind) takes 15-18 s on a 2-core machine at a load of 3, 25 s beside
 * a build of {@code core} (docs/performance.md, "Build and test times"). No thread of either process spins without
 * yielding (their waits idle as the engines do): such a thread takes a core from both engines, and the watch then
 * takes up to 6 s instead of 0.3 whenever the scheduler puts this engine's thread beside it. Every wait of one run
 * draws on one budget ({@link #BUDGET_SECONDS}), so that a run that stalls fails within it, saying what it was waiting
 * for, with this port's and the peer's state; the JUnit timeout, a little longer, is the backstop for a call that
 * blocks outside those waits (it runs the test on a thread of its own, so that it ends the test even then).
 */
@Tag("long")
class LinkBounceTwoJvmTest
{
    private static final int SECONDS = 120;
    /** The most one run (one link kind) waits in all. */
    private static final int BUDGET_SECONDS = 480;

    private long budgetEndNs;

    @TempDir
    File dir;

    @ParameterizedTest
    @ValueSource(strings = {"udp", "shm"})
    @Timeout(value = BUDGET_SECONDS + 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPortBouncedTwentyTimesCostsThePeerProcessOneRetrainingEachTime(final String kind) throws Exception
    {
        budgetEndNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(BUDGET_SECONDS);
        final String[] childLink;
        final String[] parentLink;
        if ("udp".equals(kind))
        {
            final int portA = freeUdpPort();
            final int portB = freeUdpPort();
            childLink = new String[] {"udp", String.valueOf(portB), String.valueOf(portA)};
            parentLink = new String[] {"udp", String.valueOf(portA), String.valueOf(portB)};
        }
        else
        {
            final String file = dir.toPath().resolve("bounce.shm").toString();
            childLink = new String[] {"shm", file, "b"};
            parentLink = new String[] {"shm", file, "a"};
        }
        final List<String> command = new ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), BouncePeer.class.getName()));
        command.addAll(List.of(childLink));
        command.add(dir.getPath());
        command.add(String.valueOf(SECONDS));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        // the peer's output, read as it comes: Process.destroy closes the stream, and the failure report needs what
        // the peer said on its way out
        final ByteArrayOutputStream peerOutput = new ByteArrayOutputStream();
        final Thread drain = new Thread(() -> copy(child.getInputStream(), peerOutput), "bounce-peer-output");
        drain.setDaemon(true);
        drain.start();
        final LinkBounceTest.CountingClock clock = new LinkBounceTest.CountingClock();
        try
        {
            final EngineBuilder builder = BouncePeer.builder("bounce-parent", dir, link(parentLink))
                .clocks(clock::nanoTime, SystemEpochClock.INSTANCE);
            try (Engine engine = builder.build())
            {
                final Port a = engine.port(0);
                final long[] downs = new long[1];
                try
                {
                    try (Peer peer = new Peer(child.pid()))
                    {
                        bounceAndExchange(kind, a, peer, clock, downs);
                    }
                }
                catch (final AssertionError ex)
                {
                    // what each side saw, for the report: this port now, the peer as it is killed (it says so on its
                    // way out); a link error during the exchange flushes what was queued, and those messages never
                    // arrive
                    final String here = describe(a) + ", link_downed during the exchange " +
                        (a.counters().linkDowned().get() - downs[0]);
                    child.destroy();
                    child.waitFor(10, TimeUnit.SECONDS);
                    drain.join(TimeUnit.SECONDS.toMillis(5));
                    throw new AssertionError(ex.getMessage() + "\n  this port: " + here + "\n  the peer: " +
                        text(peerOutput), ex);
                }
                assertTrue(child.waitFor(secondsLeft(SECONDS), TimeUnit.SECONDS),
                    "timed out waiting for the peer process to finish its exchange and exit");
            }
            drain.join(TimeUnit.SECONDS.toMillis(10));
            final String output = text(peerOutput).trim();
            final String there = output.substring(output.lastIndexOf('\n') + 1);
            System.out.println(kind + " peer: " + there);
            assertEquals(0, child.exitValue(), output);
            // bring-up (Initialize, Armed, Active), then each bounce: Down, Initialize, Armed, Active
            // on a mismatch, the whole output: the peer's discards by reason tell which rule a link error came from
            assertEquals("OK recoveries " + LinkBounceTest.BOUNCES + " downs 0 transitions " +
                (3 + 4 * LinkBounceTest.BOUNCES), there, output);
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    /** Copy the peer's output until it ends (or its stream is closed by destroy). */
    private static void copy(final InputStream in, final ByteArrayOutputStream out)
    {
        final byte[] chunk = new byte[4096];
        try
        {
            for (int n = in.read(chunk); n >= 0; n = in.read(chunk))
            {
                synchronized (out)
                {
                    out.write(chunk, 0, n);
                }
            }
        }
        catch (final IOException ignore)
        {
            // destroyed: what it said so far is in out
        }
    }

    private static String text(final ByteArrayOutputStream out)
    {
        synchronized (out)
        {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static java.util.function.Consumer<EngineBuilder> link(final String[] spec)
    {
        if ("shm".equals(spec[0]))
        {
            return b -> b.shm(java.nio.file.Path.of(spec[1]), ShmLink.Role.parse(spec[2]));
        }
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        return b -> b.udp(new InetSocketAddress(loopback, Integer.parseInt(spec[1])),
            new InetSocketAddress(loopback, Integer.parseInt(spec[2])), 1, 2);
    }

    /** The seconds a wait may take: at most {@code most}, and what is left of the run's budget. */
    private long secondsLeft(final long most)
    {
        return Math.max(0, Math.min(most, TimeUnit.NANOSECONDS.toSeconds(budgetEndNs - System.nanoTime())));
    }

    /** A wait of at most {@code most} seconds within the run's budget; the failure says which ran out. */
    private void await(final long most, final String what, final BooleanSupplier condition)
    {
        final IdleStrategy idle = IdleStrategies.backoff();
        await(most, what, condition, idle::idle);
    }

    /** The same, {@code idle} run between the polls of the condition. */
    private void await(final long most, final String what, final BooleanSupplier condition, final Runnable idle)
    {
        final long seconds = secondsLeft(most);
        Deadline.await(seconds, seconds < most ? what + " (the test's budget of " + BUDGET_SECONDS +
            " s for one link kind ran out)" : what, condition, idle);
    }

    /** The bounces, each watched for transitions once this port is Active again, then the messages both ways. */
    private void bounceAndExchange(
        final String kind, final Port a, final Peer peer, final LinkBounceTest.CountingClock clock, final long[] downs)
    {
        final long startNs = System.nanoTime();
        await(SECONDS, "this port to come up (Active) the first time", () -> a.linkState() == LinkState.ACTIVE);
        await(SECONDS, "the peer to come up (Active) the first time", () -> peer.state() == LinkState.ACTIVE);
        System.out.printf("%s: both Active %.0f ms after the peer process was started%n", kind, msSince(startNs));
        for (int i = 1; i <= LinkBounceTest.BOUNCES; i++)
        {
            final long downNs = System.nanoTime();
            a.down();
            await(10, "this port to go Down at bounce " + i, () -> a.linkState() == LinkState.DOWN);
            final long upNs = System.nanoTime();
            a.up();
            await(SECONDS, "this port to be Active again after bounce " + i + " (the peer re-training)",
                () -> a.linkState() == LinkState.ACTIVE);
            final long retrainings = i;
            await(SECONDS, "the peer to be Active again after bounce " + i + ", re-trained once more",
                () -> peer.state() == LinkState.ACTIVE && peer.retrainings() >= retrainings);
            final long activeNs = System.nanoTime();
            // the peer counts each state before it publishes it: Active read, its transitions are all counted
            final String peerNow = peer.toString();
            assertEquals(retrainings, peer.retrainings(), () -> "the peer re-trains once a bounce: " + peerNow);
            assertEquals(3 + 4 * retrainings, peer.transitions(), () -> "the peer's bring-up and four states a " +
                "bounce: " + peerNow);
            final long transitions = a.counters().linkTransitions().get();
            final long peerTransitions = peer.transitions();
            final long from = clock.reads.get();
            await(SECONDS, LinkBounceTest.WATCHED_DUTY_CYCLES + " duty cycles of this engine after bounce " + i +
                " (the watch for transitions)", () -> clock.reads.get() - from >= LinkBounceTest.WATCHED_DUTY_CYCLES);
            System.out.printf("%s bounce %d: Down %.1f ms, both Active again %.0f ms, %d duty cycles %.0f ms%n",
                kind, i, (upNs - downNs) / 1e6, (activeNs - upNs) / 1e6, LinkBounceTest.WATCHED_DUTY_CYCLES,
                msSince(activeNs));
            final int bounce = i;
            assertEquals(transitions, a.counters().linkTransitions().get(), () -> "after bounce " + bounce +
                " (this port now " + a.linkState() + ", link_error_recovery " +
                a.counters().linkErrorRecovery().get() + ", link_downed " + a.counters().linkDowned().get() + ")");
            assertEquals(peerTransitions, peer.transitions(), () -> "the peer after bounce " + bounce + ": " + peer);
        }
        assertEquals(0, a.counters().linkErrorRecovery().get(), "the bounced port never re-trains");
        downs[0] = a.counters().linkDowned().get();
        final long exchangeNs = System.nanoTime();
        exchange(a);
        System.out.printf("%s: %d messages each way %.0f ms; all %.0f ms%n", kind, LinkBounceTest.MESSAGES,
            msSince(exchangeNs), msSince(startNs));
    }

    private static double msSince(final long startNs)
    {
        return (System.nanoTime() - startNs) / 1e6;
    }

    /** Messages to the peer, which echoes as many once it has them all: every one arrives, in order. */
    private void exchange(final Port a)
    {
        final QueuePair qp = a.createQueuePair(100, 1, 200);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final long[] sent = new long[1];
        final long[] received = new long[1];
        final String[] error = new String[1];
        final int[] work = new int[1];
        final IdleStrategy idle = IdleStrategies.backoff();
        try
        {
            await(SECONDS, "the " + LinkBounceTest.MESSAGES + " messages to the peer and its echo of them", () ->
                exchangeStep(a, qp, message, sent, received, error, work), () -> idle.idle(work[0]));
        }
        catch (final AssertionError ex)
        {
            throw new AssertionError(ex.getMessage() + ": " + sent[0] + " sent, " + received[0] + " echoed back", ex);
        }
        assertEquals(null, error[0]);
    }

    /** One message offered, if any is left and there is room, and what arrived polled; {@code work}: how many. */
    private static boolean exchangeStep(
        final Port a, final QueuePair qp, final UnsafeBuffer message, final long[] sent, final long[] received,
        final String[] error, final int[] work)
    {
        work[0] = 0;
        if (sent[0] < LinkBounceTest.MESSAGES)
        {
            message.putLong(0, sent[0]);
            if (qp.offer(message, 0, 64) >= 0)
            {
                sent[0]++;
                work[0]++;
            }
        }
        work[0] += a.poll(packet ->
        {
            if (packet.buffer().getLong(packet.payloadOffset()) != received[0] && null == error[0])
            {
                error[0] = "got " + packet.buffer().getLong(packet.payloadOffset()) + ", expected " + received[0];
            }
            received[0]++;
        }, 64);
        return received[0] == LinkBounceTest.MESSAGES;
    }

    /**
     * The peer's port as its counters file shows it, live: what the other process's {@code vlink stat} reads. Mapped on
     * the first read (the peer's engine made the file by the time this port first went Active).
     */
    private final class Peer implements AutoCloseable
    {
        private final long pid;
        private CountersFileReader reader;

        Peer(final long pid)
        {
            this.pid = pid;
        }

        private long read(final CounterType type)
        {
            if (null == reader)
            {
                reader = CountersFileReader.open(CountersFileDescriptor.file(dir, BouncePeer.NAME, pid));
            }
            return CountersSnapshot.of(reader.counters()).port(0, type);
        }

        LinkState state()
        {
            return LinkState.get((int)read(CounterType.LINK_STATE));
        }

        long retrainings()
        {
            return read(CounterType.LINK_ERROR_RECOVERY);
        }

        long transitions()
        {
            return read(CounterType.LINK_TRANSITIONS);
        }

        @Override
        public String toString()
        {
            return state() + ", link_error_recovery " + retrainings() + ", link_transitions " + transitions() +
                ", link_downed " + read(CounterType.LINK_DOWNED);
        }

        @Override
        public void close()
        {
            if (null != reader)
            {
                reader.close();
            }
        }
    }

    private static String describe(final Port a)
    {
        final io.vlink.nic.status.PortCounters c = a.counters();
        final StringBuilder out = new StringBuilder(a.linkState().toString())
            .append(", link frames sent ").append(c.linkFramesSent().get())
            .append(" received ").append(c.linkFramesReceived().get())
            .append(", fcp sent ").append(c.fcpSent().get()).append(" received ").append(c.fcpReceived().get())
            .append(" discarded ").append(c.fcpDiscarded().get())
            .append(", link drops: session ").append(c.linkSessionDrops().get())
            .append(" replay ").append(c.linkReplayDrops().get()).append(" length ").append(c.linkLengthDrops().get())
            .append(", downed ").append(c.linkDowned().get());
        for (int vl = 0; vl < UdpPeer.VLS; vl++)
        {
            out.append("; VL").append(vl).append(" tx ").append(c.txPackets(vl).get())
                .append(" rx ").append(c.rxPackets(vl).get()).append(" delivered ").append(c.deliveredPackets(vl).get())
                .append(" FCTBS ").append(c.txFctbs(vl).get()).append(" CL ").append(c.txCreditLimit(vl).get())
                .append(" ABR ").append(c.rxAbr(vl).get()).append(" free ").append(c.rxFreeBlocks(vl).get())
                .append(" stalls ").append(c.creditStalls(vl).get());
        }
        return out.toString();
    }

    private static int freeUdpPort() throws Exception
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
