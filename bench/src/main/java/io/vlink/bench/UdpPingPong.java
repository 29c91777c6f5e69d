package io.vlink.bench;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.PacketHandler;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Round-trip time of one 64-byte message between two processes over the UDP link on 127.0.0.1: the ping side sends,
 * the pong side echoes, the ping side times each round trip. It measures what an application gets from the engine's
 * threading modes and from the way its own thread waits while it polls (README, "Latency on a small machine").
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -cp bench/target/benchmarks.jar \
 *     io.vlink.bench.UdpPingPong MODE ENGINE_IDLE APP_IDLE [ROUND_TRIPS]
 * </pre>
 * MODE: invoker (the application's thread runs the engine's duty cycles), shared, split or dedicated; ENGINE_IDLE:
 * the engine threads' idle strategy (ignored in invoker mode); APP_IDLE: how the application's thread waits when a
 * poll found nothing (spin, yield, backoff, sleep). Both sides run the same configuration; the pong side is started
 * as a second JVM. Bounded: ROUND_TRIPS (default 20,000, the first 2,000 not counted) and 120 s at most.
 */
public final class UdpPingPong
{
    private static final int LENGTH = 64;
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(120);
    /** A round trip not back within this is taken for lost. */
    private static final long LOST_NS = TimeUnit.SECONDS.toNanos(1);

    private int lost;

    private final ThreadingMode mode;
    private final String engineIdle;
    private final String appIdle;

    private UdpPingPong(final ThreadingMode mode, final String engineIdle, final String appIdle)
    {
        this.mode = mode;
        this.engineIdle = engineIdle;
        this.appIdle = appIdle;
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length >= 6 && "pong".equals(args[0]))
        {
            // the second JVM: pong MODE ENGINE_IDLE APP_IDLE LOCAL_PORT REMOTE_PORT
            final UdpPingPong pong = new UdpPingPong(mode(args[1]), args[2], args[3]);
            pong.pong(Integer.parseInt(args[4]), Integer.parseInt(args[5]));
            return;
        }
        if (args.length < 3)
        {
            System.err.println("usage: UdpPingPong invoker|shared|split|dedicated ENGINE_IDLE APP_IDLE [ROUND_TRIPS]");
            System.exit(2);
        }
        final int roundTrips = args.length > 3 ? Integer.parseInt(args[3]) : 20_000;
        final int pingPort = freeUdpPort();
        final int pongPort = freeUdpPort();
        final List<String> command = new ArrayList<>(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            UdpPingPong.class.getName(), "pong", args[0], args[1], args[2],
            String.valueOf(pongPort), String.valueOf(pingPort)));
        final Process pong = new ProcessBuilder(command).inheritIO().start();
        try
        {
            final UdpPingPong ping = new UdpPingPong(mode(args[0]), args[1], args[2]);
            final long[] rtt = ping.ping(pingPort, pongPort, roundTrips);
            Arrays.sort(rtt);
            System.out.printf(Locale.ROOT,
                "%s engine-idle=%s app-idle=%s round trips %d: p50 %.1f us, p90 %.1f us, p99 %.1f us, p99.9 %.1f us, " +
                "max %.1f us, lost %d%n", args[0], args[1], args[2], rtt.length, percentile(rtt, 50),
                percentile(rtt, 90), percentile(rtt, 99), percentile(rtt, 99.9), rtt[rtt.length - 1] / 1e3, ping.lost);
        }
        finally
        {
            if (!pong.waitFor(30, TimeUnit.SECONDS))
            {
                pong.destroyForcibly();
            }
        }
    }

    private static ThreadingMode mode(final String name)
    {
        return ThreadingMode.valueOf(name.toUpperCase(Locale.ROOT));
    }

    private static double percentile(final long[] sorted, final double p)
    {
        return sorted[Math.min(sorted.length - 1, (int)Math.ceil(p / 100 * sorted.length) - 1)] / 1e3;
    }

    private Engine engine(final String name, final int localPort, final int remotePort, final int localLid)
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        return Engine.builder()
            .name(name)
            .threading(mode)
            .idle(engineIdle)
            .qos(QosConfig.opensmDefaults(1))
            .udp(new InetSocketAddress(loopback, localPort), new InetSocketAddress(loopback, remotePort),
                localLid, 3 - localLid)
            .build();
    }

    /** Runs the engine's duty cycles on this thread in invoker mode; polls; waits as told when nothing happened. */
    private int turn(final Engine engine, final Port port, final PacketHandler handler)
    {
        return (ThreadingMode.INVOKER == mode ? engine.invoke() : 0) + port.poll(handler, 16);
    }

    private void awaitActive(final Engine engine, final Port port, final IdleStrategy idle, final long deadlineNs)
    {
        while (port.linkState() != LinkState.ACTIVE)
        {
            check(deadlineNs, "the link to come up");
            idle.idle(ThreadingMode.INVOKER == mode ? engine.invoke() : 0);
        }
    }

    private static void check(final long deadlineNs, final String what)
    {
        if (System.nanoTime() - deadlineNs > 0)
        {
            throw new IllegalStateException("timed out waiting for " + what);
        }
    }

    private long[] ping(final int localPort, final int remotePort, final int roundTrips)
    {
        final int warmup = Math.min(2_000, roundTrips / 10);
        final long[] rtt = new long[roundTrips - warmup];
        long[] measured = rtt;
        final long deadlineNs = System.nanoTime() + DEADLINE_NS;
        try (Engine engine = engine("ping", localPort, remotePort, 1))
        {
            final Port port = engine.port(0);
            final IdleStrategy idle = IdleStrategies.supplier(appIdle).get();
            awaitActive(engine, port, idle, deadlineNs);
            final QueuePair qp = port.createQueuePair(16, 0, 17);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            final long[] echoed = new long[1];
            final PacketHandler handler = packet -> echoed[0] = packet.buffer().getLong(packet.payloadOffset());
            for (int i = 0; i < roundTrips; i++)
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    // out of time (a starved configuration): what was measured
                    System.err.println("UdpPingPong: 120 s were over after " + i + " round trips");
                    measured = Arrays.copyOf(rtt, Math.max(1, i - warmup));
                    break;
                }
                final long sentNs = System.nanoTime();
                message.putLong(0, sentNs);
                while (QueuePair.BACK_PRESSURED == qp.offer(message, 0, LENGTH))
                {
                    check(deadlineNs, "the queue pair to take a message");
                    idle.idle(turn(engine, port, handler));
                }
                while (echoed[0] != sentNs && System.nanoTime() - sentNs < LOST_NS)
                {
                    idle.idle(turn(engine, port, handler));
                }
                if (echoed[0] != sentNs)
                {
                    // a datagram the kernel dropped (the link layer does not resend): counted, charged as 1 s
                    lost++;
                }
                if (i >= warmup)
                {
                    rtt[i - warmup] = System.nanoTime() - sentNs;
                }
            }
            message.putLong(0, -1);
            while (QueuePair.BACK_PRESSURED == qp.offer(message, 0, LENGTH))
            {
                idle.idle(turn(engine, port, handler));
            }
            // let the stop message reach the wire before the engine closes
            final long lingerNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() - lingerNs < 0)
            {
                idle.idle(turn(engine, port, handler));
            }
        }
        return measured;
    }

    private void pong(final int localPort, final int remotePort)
    {
        final long deadlineNs = System.nanoTime() + DEADLINE_NS;
        try (Engine engine = engine("pong", localPort, remotePort, 2))
        {
            final Port port = engine.port(0);
            final IdleStrategy idle = IdleStrategies.supplier(appIdle).get();
            awaitActive(engine, port, idle, deadlineNs);
            final QueuePair qp = port.createQueuePair(17, 0, 16);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            final boolean[] pending = new boolean[1];
            final PacketHandler handler = packet ->
            {
                packet.buffer().getBytes(packet.payloadOffset(), message, 0, LENGTH);
                pending[0] = true;
            };
            while (System.nanoTime() - deadlineNs < 0)
            {
                int work = turn(engine, port, handler);
                if (pending[0])
                {
                    if (-1 == message.getLong(0))
                    {
                        return;
                    }
                    if (QueuePair.BACK_PRESSURED != qp.offer(message, 0, LENGTH))
                    {
                        pending[0] = false;
                        work++;
                    }
                }
                idle.idle(work);
            }
        }
    }

    private static int freeUdpPort() throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
