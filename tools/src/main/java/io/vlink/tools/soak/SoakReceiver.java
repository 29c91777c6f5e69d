package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.EngineBuilder;
import io.vlink.nic.Port;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.util.Locale;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The receiving end of a two-process soak, run by the peer process the soak spawns ({@code vlink soak --link shm} or
 * {@code --link udp}) or by a {@code vlink soak --serve} that a soak on another host joins ({@code --peer}): engine B
 * with port B on end B of the link's file or on UDP, its link wrapped by a {@link FaultyLink} (the wire's receive
 * side, as in one process), and the receive-side checks of {@link SoakTraffic} (CRC, VL and size, FIFO by sequence
 * number, latency). It obeys the parent's commands and publishes what the parent's checks read through a
 * {@link PeerChannel} (copied to another host by a {@link PeerLine}); at the end, its latency histograms and engine
 * errors. It exits when the parent says so, and at once when the parent's process is gone (its line closed).
 */
public final class SoakReceiver
{
    /** {@code vlink soak --serve}'s TCP port, and the UDP port of its end of the link. */
    public static final int DEFAULT_PORT = PeerLine.DEFAULT_PORT;

    private static final int ACCEPT_POLL_MS = 200;
    private static final int INTERRUPTED = 130;
    private static final long PARENT_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long PUBLISH_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long the end waits for the wire's receiving thread to poll once disarmed (it polls all the time). */
    private static final long QUIET_DEADLINE_NS = TimeUnit.SECONDS.toNanos(5);
    /** How long the results wait for the parent to read them. */
    private static final long RELEASE_DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    private SoakReceiver()
    {
    }

    /**
     * Serve as port B until the parent is done: the peer process the soak started.
     *
     * @param options  the soak's options (the parent's command line); the directory becomes the channel's.
     * @param peerFile the parent's {@link PeerChannel}, beside the link's file.
     * @param err      where a reason for stopping goes.
     * @return 0 when the parent read the results, 1 when the parent vanished or the run could not go on.
     */
    public static int serve(final SoakSettings options, final File peerFile, final PrintWriter err)
    {
        options.directory = peerFile.getAbsoluteFile().getParentFile();
        final Path linkFile = SoakPeer.linkFile(peerFile).toPath();
        try (PeerChannel channel = PeerChannel.open(peerFile))
        {
            final long parentPid = channel.get(PeerChannel.PARENT_PID);
            final ProcessHandle parent = ProcessHandle.of(parentPid).orElse(null);
            final String gone = "the soak (process " + parentPid + ") that started this peer is gone";
            if (null == parent || !parent.isAlive())
            {
                err.println("vlink soak: " + gone);
                return 1;
            }
            final InetAddress loopback = InetAddress.getLoopbackAddress();
            return run(options, channel, () -> parent.isAlive() ? null : gone, builder -> options.udp ?
                builder.udp(new InetSocketAddress(loopback, (int)channel.get(PeerChannel.UDP_PORT_B)),
                new InetSocketAddress(loopback, (int)channel.get(PeerChannel.UDP_PORT_A)), 2, 1)
                .udpKey(options.udpKey) : builder.shm(linkFile, ShmLink.Role.B),
                engine ->
                {
                    if (null != engine)
                    {
                        channel.putCountersPath(engine.countersFile().file().getAbsolutePath());
                    }
                }, () -> false, err);
        }
    }

    /**
     * {@code vlink soak --serve}: port B for the next soak that joins from another host ({@code --peer}), over a
     * {@link PeerLine}. A soak whose run this side refuses (a key on one side only, its UDP port taken) is told why,
     * the refusal is said on stderr, and the next is awaited.
     *
     * @param options   this side's threads, idle strategy, directory and key; the run comes from the soak.
     * @param listen    where soaks join (TCP); this side's end of the link is UDP on the same port.
     * @param out       what is served, who joined, the soak's verdict.
     * @param err       refusals, and why the run ended early.
     * @param interrupt true once Ctrl-C came: the soak is told to stop (or, before one joined, this returns).
     * @return 0 when the soak passed, 1 when it failed or went away, 130 when Ctrl-C stopped it (here or there).
     */
    public static int serve(
        final SoakSettings options, final InetSocketAddress listen, final PrintWriter out, final PrintWriter err,
        final BooleanSupplier interrupt)
    {
        final PeerLine line;
        final PeerLine.Hello hello = new PeerLine.Hello();
        try (ServerSocket server = new ServerSocket())
        {
            server.setReuseAddress(true);
            server.bind(listen);
            server.setSoTimeout(ACCEPT_POLL_MS);
            out.println("vlink soak: serving port B on " + PeerLine.address(server.getInetAddress(),
                server.getLocalPort()) + " (TCP for the run, UDP on the same port for the link); waiting for a " +
                "soak to join: vlink soak --peer THIS_HOST:" + server.getLocalPort());
            out.flush();
            line = awaitSoak(server, options, hello, err, interrupt);
            if (null == line)
            {
                err.println("vlink soak: interrupted: no soak joined");
                err.flush();
                return INTERRUPTED;
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot serve on " + PeerLine.address(listen.getAddress(),
                listen.getPort()) + ": " + PeerLine.reason(ex), ex);
        }
        try (line)
        {
            hello.applyTo(options);
            final long offsetNs = line.clockOffsetNs();
            // the soak's clock: latencies from its intended send times, its end of the warm-up
            options.clock = () -> System.nanoTime() - offsetNs;
            out.println(String.format(Locale.ROOT, "vlink soak: joined by %s: %s s%s, %d data VLs, packets %s, " +
                "seed %d%s; link UDP %s to %s, retry %s", line.remote(), hello.seconds,
                0 == hello.packets ? "" : " or " + hello.packets + " packets", options.qos.dataVls(),
                hello.sizeMin == hello.sizeMax ? hello.sizeMin + " B" : hello.sizeMin + "-" + hello.sizeMax + " B",
                hello.seed, options.faults.any() ? ", faults " + options.faults : "",
                PeerLine.address(line.localUdp().getAddress(), line.localUdp().getPort()),
                PeerLine.address(line.remoteUdp().getAddress(), line.remoteUdp().getPort()), hello.retry ? "on" : "off"));
            out.flush();
            final PeerChannel channel = line.channel();
            final int exit = run(options, channel,
                () -> null == line.gone() ? null : "the soak at " + line.remote() + " (port A) went away before it " +
                "ended: " + line.gone(),
                builder -> builder.udp(line.localUdp(), line.remoteUdp(), 2, 1).udpKey(options.udpKey),
                engine -> line.counters(null == engine ? null : engine.countersFile().countersManager()), interrupt,
                err);
            if (0 != exit)
            {
                return exit;
            }
            final long verdict = channel.get(PeerChannel.VERDICT);
            if (0 == verdict)
            {
                out.println("soak: not run (the soak at " + line.remote() + " stopped before its checks: it says why)");
                out.flush();
                return 1;
            }
            final boolean ok = PeerChannel.VERDICT_OK == verdict;
            final boolean interrupted = 0 != channel.get(PeerChannel.INTERRUPTED_RUN);
            out.println((interrupted ? "soak: interrupted (" + (ok ? "every invariant held" : "FAILED") +
                " for what ran)" : ok ? "soak: ok" : "soak: FAILED") + "; the summary is the soak's, at " +
                line.remote());
            out.flush();
            return interrupted ? INTERRUPTED : ok ? 0 : 1;
        }
    }

    private static PeerLine awaitSoak(
        final ServerSocket server, final SoakSettings served, final PeerLine.Hello hello, final PrintWriter err,
        final BooleanSupplier interrupt)
    {
        while (!interrupt.getAsBoolean())
        {
            try
            {
                return PeerLine.accept(server, served, hello);
            }
            catch (final SocketTimeoutException ex)
            {
                // no soak yet: look at Ctrl-C, wait again
            }
            catch (final IOException ex)
            {
                err.println("vlink soak: " + PeerLine.reason(ex) + "; waiting for the next soak");
                err.flush();
            }
        }
        return null;
    }

    /**
     * Serve as port B until the parent is done.
     *
     * @param options   the run (the parent's), this side's threads, idle strategy and directory.
     * @param channel   the parent's commands and what it reads.
     * @param parent    null while the parent runs; else why it is gone, in words.
     * @param link      chooses port B's link.
     * @param built     with the engine, before the peer says it is ready; with null before the engine closes.
     * @param interrupt true once this side was asked to stop (Ctrl-C): the parent is told, and ends the run.
     * @param err       where a reason for stopping goes.
     * @return 0 when the parent read the results, 1 when the parent vanished or the run could not go on.
     */
    static int run(
        final SoakSettings options, final PeerChannel channel, final Supplier<String> parent,
        final UnaryOperator<EngineBuilder> link, final Consumer<Engine> built, final BooleanSupplier interrupt,
        final PrintWriter err)
    {
        final LatencyRecorder latency = new LatencyRecorder(SoakSettings.HIGHEST_LATENCY_NS);
        final SoakTraffic traffic =
            new SoakTraffic(options.sizeMin, options.sizeMax, options.seed, 1, 2, latency, options.clock);
        final PortFaults[] wire = new PortFaults[1];
        try (Engine engine = link.apply(SoakRig.builder(options, "soak-b", false, () -> 1, faults -> wire[0] = faults)
            .linkTimeoutNs(SoakRig.PEER_LINK_TIMEOUT_NS)).build())
        {
            final Port rx = engine.port(0);
            wire[0].attach(rx);
            built.accept(engine);
            try
            {
                channel.put(PeerChannel.PEER_PID, ProcessHandle.current().pid());
                channel.put(PeerChannel.READY, 1);
                return run(options, channel, parent, interrupt, engine, rx, wire[0], traffic, latency, err);
            }
            finally
            {
                built.accept(null);
            }
        }
    }

    private static int run(
        final SoakSettings options, final PeerChannel channel, final Supplier<String> parent,
        final BooleanSupplier interrupt, final Engine engine, final Port rx, final PortFaults wire,
        final SoakTraffic traffic, final LatencyRecorder latency, final PrintWriter err)
    {
        final NanoClock clock = options.clock;
        final boolean invoker = ThreadingMode.INVOKER == options.threading;
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
        boolean armed = false;
        boolean cut = false;
        boolean up = true;
        boolean steady = false;
        long nextParentCheckNs = clock.nanoTime();
        long nextSampleNs = clock.nanoTime() + SECOND_NS;
        long publishedNs = clock.nanoTime();
        long lastTurnNs = publishedNs;
        long longestPauseNs = 0;
        while (0 == channel.get(PeerChannel.DONE))
        {
            final long nowNs = clock.nanoTime();
            if (nowNs - lastTurnNs > longestPauseNs)
            {
                // a SIGSTOP, or a machine that gave this process no time: the link may have gone down meanwhile
                longestPauseNs = nowNs - lastTurnNs;
                channel.put(PeerChannel.LONGEST_PAUSE_NS, longestPauseNs);
            }
            lastTurnNs = nowNs;
            if (nowNs - nextParentCheckNs >= 0)
            {
                final String gone = parent.get();
                if (null != gone)
                {
                    err.println("vlink soak: " + gone);
                    return 1;
                }
                if (interrupt.getAsBoolean() && 0 == channel.get(PeerChannel.STOP))
                {
                    channel.put(PeerChannel.STOP, 1);
                }
                nextParentCheckNs = nowNs + PARENT_CHECK_NS;
            }
            if (armed != (0 != channel.get(PeerChannel.ARMED)))
            {
                armed = !armed;
                wire.arm(armed);
            }
            if (cut != (0 != channel.get(PeerChannel.CUT)))
            {
                cut = !cut;
                wire.cut(cut);
            }
            if (up != (0 != channel.get(PeerChannel.LINK_UP)))
            {
                up = !up;
                if (up)
                {
                    rx.up();
                }
                else
                {
                    rx.down();
                }
            }
            if (!steady && 0 != channel.get(PeerChannel.STEADY_FROM_NS))
            {
                steady = true;
                latency.steadyFrom(channel.get(PeerChannel.STEADY_FROM_NS));
            }
            int work = invoker ? engine.invoke() : 0;
            final long hold = channel.get(PeerChannel.HOLD);
            channel.put(PeerChannel.HELD, hold);
            if (0 == hold)
            {
                work += rx.poll(traffic, SoakRig.POLL_LIMIT);
            }
            channel.put(PeerChannel.LINK_STATE, rx.linkState().ordinal());
            if (nowNs - nextSampleNs >= 0)
            {
                final Histogram interval = latency.sampleInterval();
                channel.put(PeerChannel.INTERVAL_P99_NS,
                    0 == interval.getTotalCount() ? 0 : interval.getValueAtPercentile(99));
                nextSampleNs += SECOND_NS;
            }
            // after what this thread received, and at least each millisecond for what the engine's threads counted
            if (work > 0 || nowNs - publishedNs >= PUBLISH_NS)
            {
                publish(channel, snapshot, traffic, wire, latency);
                publishedNs = nowNs;
            }
            idle.idle(work);
        }

        // The last snapshot holds every fault this wire will inject: the parent compares its counts with what the
        // ports detected, read after it. The parent disarmed the wire before it said DONE, but a loop that read DONE
        // first never applied that; and a poll that read the wire armed may still be injecting.
        wire.arm(false);
        final long quietDeadlineNs = clock.nanoTime() + QUIET_DEADLINE_NS;
        while (!wire.quiet() && clock.nanoTime() - quietDeadlineNs < 0)
        {
            idle.idle(invoker ? engine.invoke() : 0);
        }
        latency.sampleInterval();
        publish(channel, snapshot, traffic, wire, latency);
        final StringBuilder errors = new StringBuilder();
        SoakRig.appendErrors(engine, errors);
        channel.putErrors(errors.toString());
        channel.putHistograms(latency.total(), latency.steady());
        channel.put(PeerChannel.FINISHED, 1);
        // the parent reads this engine's counters until it has summarized: stay until it says so (or is gone)
        final long deadlineNs = clock.nanoTime() + RELEASE_DEADLINE_NS;
        while (channel.get(PeerChannel.DONE) < 2 && null == parent.get() && clock.nanoTime() - deadlineNs < 0)
        {
            idle.idle(invoker ? engine.invoke() : 0);
        }
        return 0;
    }

    private static void publish(
        final PeerChannel channel, final long[] snapshot, final SoakTraffic traffic, final PortFaults wire,
        final LatencyRecorder latency)
    {
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            snapshot[PeerChannel.at(PeerChannel.DELIVERED, vl)] = traffic.delivered[vl];
            snapshot[PeerChannel.at(PeerChannel.RECEIVED_BYTES, vl)] = traffic.receivedBytes[vl];
            snapshot[PeerChannel.at(PeerChannel.OUT_OF_ORDER, vl)] = traffic.outOfOrder[vl];
            snapshot[PeerChannel.at(PeerChannel.DUPLICATED, vl)] = traffic.duplicated[vl];
            snapshot[PeerChannel.at(PeerChannel.DAMAGED, vl)] = traffic.damaged[vl];
            snapshot[PeerChannel.at(PeerChannel.GAPS, vl)] = traffic.gaps[vl];
            snapshot[PeerChannel.at(PeerChannel.EXPECTED, vl)] = traffic.expected[vl];
            snapshot[PeerChannel.at(PeerChannel.DROPPED_DATA, vl)] = wire.droppedData(vl);
            snapshot[PeerChannel.at(PeerChannel.CORRUPTED_DATA, vl)] = wire.corruptedData(vl);
            snapshot[PeerChannel.at(PeerChannel.BOUNCE_LOST, vl)] = wire.bounceLost(vl);
            snapshot[PeerChannel.at(PeerChannel.STATE_LOST, vl)] = wire.stateLost(vl);
        }
        snapshot[PeerChannel.scalar(PeerChannel.VL15_DELIVERED)] = traffic.vl15Delivered;
        snapshot[PeerChannel.scalar(PeerChannel.DROPPED_FCPS)] = wire.droppedFcps();
        snapshot[PeerChannel.scalar(PeerChannel.CORRUPTED_FCPS)] = wire.corruptedFcps();
        snapshot[PeerChannel.scalar(PeerChannel.CLAMPED)] = latency.clamped();
        channel.publish(snapshot);
    }

    /**
     * @param ordinal a {@link LinkState} ordinal the peer published.
     * @return the state.
     */
    static LinkState linkState(final long ordinal)
    {
        return LinkState.values()[(int)ordinal];
    }
}
