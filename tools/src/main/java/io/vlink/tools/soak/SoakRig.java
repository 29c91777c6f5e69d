package io.vlink.tools.soak;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.ShmLink;
import org.agrona.CloseHelper;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.errors.ErrorLogReader;

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

/**
 * The soak's set-up: one engine with two ports back to back (or two engines over UDP on 127.0.0.1, or through a
 * shared-memory file), each port's link
 * wrapped by a {@link FaultyLink}, brought up to Active; and the two things every part of the soak does with it: run
 * the engines' duty cycles (in invoker mode) and wait, receiving, for a condition.
 */
final class SoakRig implements AutoCloseable
{
    /** Packets taken from port B per poll. */
    static final int POLL_LIMIT = 256;

    private static final long LINK_UP_DEADLINE_NS = TimeUnit.SECONDS.toNanos(10);

    final SoakRunner.Options options;
    final NanoClock clock;
    final SoakTraffic traffic;
    final List<Engine> engines = new ArrayList<>(2);
    /** [0] is what port A receives (FCPs from B), [1] what port B receives (A's data). */
    final FaultyLink[] links = new FaultyLink[2];
    /** Port A: sends the data. */
    Port tx;
    /** Port B: receives it. */
    Port rx;
    private int linkCount;

    SoakRig(final SoakRunner.Options options, final SoakTraffic traffic)
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
        if (options.udp)
        {
            final InetSocketAddress addressA = freeUdpAddress();
            final InetSocketAddress addressB = freeUdpAddress();
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
            final Path file = Path.of("soak-" + ProcessHandle.current().pid() + ".shm");
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
        ((FaultyLink)tx.link()).attach(tx);
        ((FaultyLink)rx.link()).attach(rx);
        links[0] = (FaultyLink)tx.link();
        links[1] = (FaultyLink)rx.link();
        await(LINK_UP_DEADLINE_NS, () -> tx.linkState() == LinkState.ACTIVE && rx.linkState() == LinkState.ACTIVE,
            "the link to come up (Initialize, Armed, Active)");
    }

    private Engine.Builder builder(final String name, final boolean capture)
    {
        final Engine.Builder builder = Engine.builder()
            .name(name)
            .threading(options.threading)
            .idle(options.idle)
            .qos(options.qos)
            .vlBufferBlocks(SoakRunner.VL_BUFFER_BLOCKS)
            .vl15Packets(SoakRunner.VL15_PACKETS)
            .burst(SoakRunner.BURST)
            .clocks(clock, SystemEpochClock.INSTANCE)
            .linkWrapper(this::wrap);
        if (null != options.directory)
        {
            builder.directory(options.directory);
        }
        if (capture && null != options.capture)
        {
            // both directions of the wire, as pcap; over UDP, engine A records what it sends and receives
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

    /**
     * @param armed whether the wire faults are injected (off for the drain and the checks).
     */
    void arm(final boolean armed)
    {
        for (final FaultyLink link : links)
        {
            link.arm(armed);
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
            if (0 == duty() + rx.poll(traffic, POLL_LIMIT))
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
            ErrorLogReader.read(engine.countersFile().errorLogBuffer(), (count, first, last, encoded) ->
                errors.append(count).append(" x ").append(encoded.lines().findFirst().orElse("")).append("; "));
        }
        return errors.toString();
    }

    @Override
    public void close()
    {
        for (final Engine engine : engines)
        {
            CloseHelper.quietClose(engine);
        }
    }
}
