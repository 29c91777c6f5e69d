package io.vlink.tools.soak;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.EngineBuilder;
import io.vlink.nic.Port;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.capture.CaptureStoppedException;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.PortCounters;
import org.agrona.IoUtil;
import org.agrona.CloseHelper;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.errors.ErrorLogReader;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The soak's set-up: one engine with two ports back to back (or two engines over UDP on 127.0.0.1 or a shared-memory
 * file, or port A here and port B in a peer process, over UDP or a shared-memory file, or port A here and port B in a
 * {@code vlink soak --serve} on another host, over UDP), each port's link wrapped by a {@link FaultyLink}, brought
 * up to Active; and the two things every part of the soak does with it: run the engines' duty cycles (in invoker
 * mode) and wait, receiving, for a condition.
 * <p>
 * Port B is reached through this class only: its counters ({@link #rxCounters}), its wire's fault counts
 * ({@link #wire}), receiving ({@link #receive(boolean)}), its link state and its link going down and up. In one
 * process these are the port and its link; with a peer process ({@link SoakPeer}), what the peer publishes and obeys.
 */
final class SoakRig implements AutoCloseable
{
    /** Packets taken from port B per poll. */
    static final int POLL_LIMIT = 256;

    private static final long LINK_UP_DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);
    /** How an error log entry of a capture that stopped begins (the exception's class name). */
    private static final String CAPTURE_STOPPED = CaptureStoppedException.class.getName() + ":";
    /**
     * The silence after which a port of a two-process soak takes its link down: two processes are descheduled
     * independently (one engine of a process stops while the other runs), for hundreds of milliseconds on a loaded
     * machine; a peer that dies is seen by its process ending, at once.
     */
    static final long PEER_LINK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);

    final SoakSettings options;
    final NanoClock clock;
    final SoakTraffic traffic;
    final List<Engine> engines = new ArrayList<>(2);
    /**
     * The fault injectors: [0] of what port A receives (FCPs from B), [1] of what port B receives (A's data); [1] is
     * null when port B runs in a peer process.
     */
    final PortFaults[] links = new PortFaults[2];
    /** Port A's flush-error completions: the data packets link errors discarded, per SL. */
    final FlushCompletions flushes = new FlushCompletions();
    /** Port A: sends the data. */
    Port tx;
    /** Port B's counters (with a peer process: its counters file, read live). */
    PortCounters rxCounters;
    /** What the wire destroyed on its way to port B. */
    WireCounts wire;
    /** Port B: receives the data (null when it runs in a peer process). */
    private Port rx;
    /** The peer process that runs port B, or null. */
    private SoakPeer peer;
    private int linkCount;
    /** With a peer process: the link's file. */
    private File linkFile;

    SoakRig(final SoakSettings options, final SoakTraffic traffic)
    {
        this.options = options;
        this.clock = options.clock;
        this.traffic = traffic;
    }

    /**
     * Build the engines and bring the link up.
     *
     * @throws IllegalStateException when the link does not come up within 10 s.
     */
    void start()
    {
        if (null != options.peer)
        {
            // port B on another host, a vlink soak --serve: the run agreed over TCP, the link over UDP
            peer = SoakPeer.join(options.peer, PeerLine.Hello.of(options));
            final PeerLine line = peer.line();
            final Engine a = builder("soak-a", true).linkTimeoutNs(PEER_LINK_TIMEOUT_NS)
                .udp(line.localUdp(), line.remoteUdp(), 1, 2).udpKey(options.udpKey).build();
            engines.add(a);
            tx = a.port(0);
        }
        else if ((options.udp || options.shm) && null != options.peerCommand)
        {
            // port B in a peer process; the link's file (shm), the peer's channel and counters files in one directory
            final File directory =
                null != options.directory ? options.directory : CountersFileDescriptor.defaultDirectory();
            final String name = "soak-" + ProcessHandle.current().pid();
            final InetSocketAddress addressA = options.udp ? freeUdpAddress() : null;
            final InetSocketAddress addressB = options.udp ? freeUdpAddress() : null;
            peer = SoakPeer.start(options.peerCommand, directory, name, channel ->
            {
                if (options.udp)
                {
                    channel.put(PeerChannel.UDP_PORT_A, addressA.getPort());
                    channel.put(PeerChannel.UDP_PORT_B, addressB.getPort());
                }
            });
            final EngineBuilder builder =
                builder("soak-a", true).directory(directory).linkTimeoutNs(PEER_LINK_TIMEOUT_NS);
            if (options.udp)
            {
                builder.udp(addressA, addressB, 1, 2).udpKey(options.udpKey);
            }
            else
            {
                linkFile = SoakPeer.linkFile(directory, name);
                builder.shm(linkFile.toPath(), ShmLink.Role.A);
            }
            final Engine a = builder.build();
            engines.add(a);
            tx = a.port(0);
        }
        else if (options.udp)
        {
            final InetSocketAddress addressA = null == options.udpPorts ? freeUdpAddress() :
                new InetSocketAddress(InetAddress.getLoopbackAddress(), options.udpPorts[0]);
            final InetSocketAddress addressB = null == options.udpPorts ? freeUdpAddress() :
                new InetSocketAddress(InetAddress.getLoopbackAddress(), options.udpPorts[1]);
            final Engine a = builder("soak-a", true).udp(addressA, addressB, 1, 2).udpKey(options.udpKey).build();
            engines.add(a);
            final Engine b = builder("soak-b", false).udp(addressB, addressA, 2, 1).udpKey(options.udpKey).build();
            engines.add(b);
            tx = a.port(0);
            rx = b.port(0);
        }
        else if (options.shm)
        {
            // relative: under the engines' directory, removed when both have closed
            final Path file = Path.of("soak-" + ProcessHandle.current().pid() + SoakPeer.SHM_SUFFIX);
            final Engine a = builder("soak-a", true).shm(file, ShmLink.Role.A).build();
            engines.add(a);
            final Engine b = builder("soak-b", false).shm(file, ShmLink.Role.B).build();
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
        links[0].attach(tx);
        if (null != rx)
        {
            links[1].attach(rx);
            rxCounters = rx.counters();
            wire = links[1];
        }
        else
        {
            wire = peer;
        }
        await(LINK_UP_DEADLINE_NS, () -> tx.linkState() == LinkState.ACTIVE && rxLinkState() == LinkState.ACTIVE,
            "the link to come up (Initialize, Armed, Active)");
        if (null != peer)
        {
            rxCounters = peer.attach(options.qos.dataVls());
        }
    }

    private EngineBuilder builder(final String name, final boolean capture)
    {
        final EngineBuilder builder =
            builder(options, name, capture, () -> linkCount, faults -> links[linkCount++] = faults);
        // engine A (the one that captures) sends the data: its flush-error completions are the soak's flushed count
        return capture ? builder.flushListener(flushes) : builder;
    }

    /**
     * The engine of a soak's port: its settings, clocks and directory, link-level retry on or off, and each port's
     * fault injector.
     *
     * @param options what runs.
     * @param name    the engine's name.
     * @param capture whether this engine writes {@code --capture}.
     * @param stream  the fault stream of each port the engine builds, in order.
     * @param made    told of each port's fault injector.
     * @return the builder, with the link still to choose.
     */
    static EngineBuilder builder(
        final SoakSettings options, final String name, final boolean capture, final IntSupplier stream,
        final Consumer<PortFaults> made)
    {
        final EngineBuilder builder = Engine.builder()
            .name(name)
            .threading(options.threading)
            .idle(options.idle)
            .qos(options.qos)
            .vlBufferBlocks(SoakSettings.VL_BUFFER_BLOCKS)
            .vl15Packets(SoakSettings.VL15_PACKETS)
            .burst(SoakSettings.BURST)
            .clocks(options.clock, SystemEpochClock.INSTANCE);
        PortFaults.install(builder, options, stream, made);
        if (null != options.directory)
        {
            builder.directory(options.directory);
        }
        if (capture && null != options.capture)
        {
            // both directions of the wire, as pcap; over UDP and shm, engine A records what it sends and receives
            builder.capture(options.capture, 64L * 1024 * 1024);
        }
        return builder;
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

    /**
     * @param armed whether the wire faults are injected (off for the drain and the checks).
     */
    void arm(final boolean armed)
    {
        for (final PortFaults link : links)
        {
            if (null != link)
            {
                link.arm(armed);
            }
        }
        if (null != peer)
        {
            peer.arm(armed);
        }
    }

    /**
     * @return whether the fault counts of this process's wires are final ({@link PortFaults#quiet()}): after
     * {@code arm(false)}, once each has polled since. A peer process's are final in its last snapshot
     * ({@link SoakPeer#finish}).
     */
    boolean quiet()
    {
        for (final PortFaults link : links)
        {
            if (null != link && !link.quiet())
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @param cut whether the wire to port B loses every data packet (a link bounce).
     */
    void cut(final boolean cut)
    {
        if (null != peer)
        {
            peer.cut(cut);
        }
        else
        {
            links[1].cut(cut);
        }
    }

    /**
     * Port B receives (polls its packets into the soak's checks), or holds them (a stalled receiver).
     *
     * @param receiving false: nothing is polled (with a peer process: it is told to hold).
     * @return packets received.
     */
    int receive(final boolean receiving)
    {
        if (null != peer)
        {
            return peer.receive(traffic, receiving);
        }
        return receiving ? rx.poll(traffic, POLL_LIMIT) : 0;
    }

    /**
     * @return port B's link state.
     */
    LinkState rxLinkState()
    {
        return null != peer ? peer.linkState() : rx.linkState();
    }

    /**
     * Port B receives nothing until the next {@link #receive(boolean)} or {@link #await}: in one process nothing polls
     * meanwhile anyway; a peer process is told to hold, and this returns once it does.
     */
    void hold()
    {
        if (null != peer)
        {
            peer.hold(this::duty);
        }
    }

    /**
     * @param up whether port B's link goes up or down.
     */
    void rxLink(final boolean up)
    {
        if (null != peer)
        {
            peer.link(up);
        }
        else if (up)
        {
            rx.up();
        }
        else
        {
            rx.down();
        }
    }

    /**
     * @param latency the soak's recorder (its interval is sampled here in one process).
     * @return the latency p99 of the last second's deliveries (with a peer process: of its last whole second).
     */
    long intervalP99(final LatencyRecorder latency)
    {
        if (null != peer)
        {
            return peer.intervalP99();
        }
        final org.HdrHistogram.Histogram interval = latency.sampleInterval();
        return interval.getTotalCount() == 0 ? 0 : interval.getValueAtPercentile(99);
    }

    /**
     * @param latency the soak's recorder; packets delivered from this time on are after the warm-up.
     * @param fromNs  the end of the warm-up.
     */
    void steadyFrom(final LatencyRecorder latency, final long fromNs)
    {
        latency.steadyFrom(fromNs);
        if (null != peer)
        {
            peer.steadyFrom(fromNs);
        }
    }

    /**
     * After the checks' waits: a peer process publishes its final counts and latencies into the soak's.
     *
     * @param latency the soak's recorder.
     */
    void finish(final LatencyRecorder latency)
    {
        if (null != peer)
        {
            peer.finish(traffic, latency, this::duty);
        }
    }

    /**
     * Why the link went down with no bounce injected (a port heard nothing from its peer for the link timeout).
     *
     * @param downs the link's downs outside the bounces, both ports.
     * @return the cause in words: with a peer process, how long it did not run.
     */
    String silenceCause(final long downs)
    {
        final String times = downs + " time(s) outside a link bounce";
        if (null != peer && peer.longestPauseNs() >= PEER_LINK_TIMEOUT_NS)
        {
            return String.format(java.util.Locale.ROOT, "port B's process did not run for %.1f s (stopped or " +
                "starved), longer than the %d s link timeout: the link went down %s", peer.longestPauseNs() / 1e9,
                TimeUnit.NANOSECONDS.toSeconds(PEER_LINK_TIMEOUT_NS), times);
        }
        return "a port heard nothing from its peer for longer than the link timeout (a process or the machine " +
            "paused): the link went down " + times;
    }

    /**
     * @return the peer process that runs port B, or 0 when it runs in this one.
     */
    long peerPid()
    {
        return null != peer ? peer.pid() : 0;
    }

    /**
     * @return port B's {@code HOST:PORT} when it runs on another host, else null.
     */
    String peerAddress()
    {
        return null != peer ? peer.address() : null;
    }

    /**
     * @return whether the run is to stop: Ctrl-C here ({@link SoakSettings#stop}), or at a peer on another
     * host.
     */
    boolean stopRequested()
    {
        return options.stop.getAsBoolean() || (null != peer && peer.stopped());
    }

    /**
     * Tell a peer the soak's verdict, before it is told to stop.
     *
     * @param ok          whether every invariant held.
     * @param interrupted whether Ctrl-C stopped the run.
     */
    void verdict(final boolean ok, final boolean interrupted)
    {
        if (null != peer)
        {
            peer.verdict(ok, interrupted);
        }
    }

    /**
     * In invoker mode the soak's thread runs the engines' duty cycles; otherwise their threads do.
     *
     * @return the work done.
     */
    int duty()
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

    /**
     * Receive (and nothing else) until the condition holds or the deadline passes.
     *
     * @param timeoutNs the most to wait.
     * @param condition what is awaited.
     * @param what      what is awaited, for the exception; null to return false at the deadline instead.
     * @return whether the condition holds.
     */
    boolean await(final long timeoutNs, final BooleanSupplier condition, final String what)
    {
        final long deadlineNs = clock.nanoTime() + timeoutNs;
        while (!condition.getAsBoolean())
        {
            if (clock.nanoTime() - deadlineNs > 0)
            {
                if (null != what)
                {
                    throw new IllegalStateException("timed out waiting for " + what);
                }
                return false;
            }
            if (0 == duty() + receive(true))
            {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /**
     * Run the engines' duty cycles (nothing polled) until the condition holds or the deadline passes.
     *
     * @param deadlineNs when to give up, on the soak's clock.
     * @param condition  what is awaited.
     * @return whether the condition holds.
     */
    boolean spinUntil(final long deadlineNs, final BooleanSupplier condition)
    {
        while (!condition.getAsBoolean())
        {
            if (clock.nanoTime() - deadlineNs >= 0)
            {
                return false;
            }
            if (0 == duty())
            {
                Thread.onSpinWait();
            }
        }
        return true;
    }

    /**
     * @return the engines' error logs, one entry per distinct error; empty when there is none.
     */
    String engineErrors()
    {
        final StringBuilder errors = new StringBuilder();
        for (final Engine engine : engines)
        {
            appendErrors(engine, errors);
        }
        if (null != peer)
        {
            errors.append(peer.errors());
        }
        return errors.toString();
    }

    /**
     * @return what stopped the capture (the engine that writes it), or null: an output's failure, not the data path's.
     */
    CaptureStoppedException captureFailure()
    {
        for (final Engine engine : engines)
        {
            if (null != engine.captureFailure())
            {
                return engine.captureFailure();
            }
        }
        return null;
    }

    /**
     * @param engine an engine.
     * @param errors where its error log goes, one entry per distinct error; a capture that stopped is left out (an
     *               output, reported on its own: {@link #captureFailure()}).
     */
    static void appendErrors(final Engine engine, final StringBuilder errors)
    {
        ErrorLogReader.read(engine.countersFile().errorLogBuffer(), (count, first, last, encoded) ->
        {
            if (!encoded.startsWith(CAPTURE_STOPPED))
            {
                errors.append(count).append(" x ").append(encoded.lines().findFirst().orElse("")).append("; ");
            }
        });
    }

    /**
     * Stop the peer process (reaped), then close the engines; with a peer, the link's file is removed even when the
     * peer died holding its end.
     */
    @Override
    public void close()
    {
        CloseHelper.quietClose(peer);
        for (final Engine engine : engines)
        {
            CloseHelper.quietClose(engine);
        }
        if (null != linkFile)
        {
            IoUtil.deleteIfExists(linkFile);
        }
    }
}
