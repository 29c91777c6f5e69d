package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The peer process of {@link LinkBounceTwoJvmTest}: an engine with one port over UDP or shm that stays up while the
 * other process takes its port down and up. It receives {@link LinkBounceTest#MESSAGES} messages (in order), sends as
 * many back, and prints what its port went through: {@code OK recoveries R downs D transitions T}. It gives up after
 * the seconds given without progress (a link transition, a message in or out), and says what it saw when it gives up
 * or is killed.
 */
public final class BouncePeer
{
    /** The peer's engine name: its counters file is {@code bounce-peer-PID.counters} in the directory given. */
    static final String NAME = "bounce-peer";
    /**
     * The silence limit of both ports: ten times the engine's default, so that a process descheduled for a while on a
     * loaded 2-core machine is not taken for a dead one. Every bounce waits rule 4's window, a quarter of it (0.5 s:
     * docs/flow-control.md, "Link training", rule 4), which is also how long a peer process may stall without making
     * rule 4's guess wrong (an extra re-training): the larger the limit, the longer each bounce.
     */
    static final long LINK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(2);
    static final long FCP_PERIOD_NS = 100_000;

    private BouncePeer()
    {
    }

    static EngineBuilder builder(final String name, final File dir, final Consumer<EngineBuilder> link)
    {
        final EngineBuilder builder = Engine.builder().name(name).directory(dir).threading(ThreadingMode.SHARED)
            .idle("backoff").vlBufferBlocks(64).fcpPeriodNs(FCP_PERIOD_NS).linkTimeoutNs(LINK_TIMEOUT_NS);
        link.accept(builder);
        return builder;
    }

    static Consumer<EngineBuilder> link(final String[] args, final int from)
    {
        if ("shm".equals(args[from]))
        {
            return b -> b.shm(Path.of(args[from + 1]), ShmLink.Role.parse(args[from + 2]));
        }
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final int local = Integer.parseInt(args[from + 1]);
        final int remote = Integer.parseInt(args[from + 2]);
        return b -> b.udp(new InetSocketAddress(loopback, local), new InetSocketAddress(loopback, remote), 2, 1);
    }

    /**
     * @param args {@code udp local remote} or {@code shm file role}, then the counters directory and the seconds
     *             allowed without progress.
     */
    public static void main(final String[] args)
    {
        final File dir = new File(args[3]);
        // the budget runs from the last progress (a link transition, a message in or out), not from the start: the
        // other process's bounces come first and may take most of a loaded machine's minutes, and this process must
        // not give up (and close, which takes the other port down) while the other one still waits for it
        final long budgetNs = TimeUnit.SECONDS.toNanos(Long.parseLong(args[4]));
        String result;
        String discards;
        try (Engine engine = builder(NAME, dir, link(args, 0)).build())
        {
            final Port port = engine.port(0);
            final QueuePair qp = port.createQueuePair(200, 2, 100);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
            final long[] received = new long[1];
            final long[] sent = new long[1];
            final String[] error = new String[1];
            // killed by the other process when it gives up: what this side saw, for its report
            final Thread report = new Thread(() -> System.out.println("killed: " + status(port, received[0], sent[0])));
            Runtime.getRuntime().addShutdownHook(report);
            // idle as the engine's thread does: a thread that spins without yielding takes a core from the engines of
            // both processes on a 2-core machine, and the other process's duty cycles run up to twenty times slower
            // whenever the scheduler puts its engine's thread beside this one
            final IdleStrategy idle = IdleStrategies.backoff();
            long progress = -1;
            long deadline = 0;
            while (received[0] < LinkBounceTest.MESSAGES || sent[0] < LinkBounceTest.MESSAGES ||
                UdpPeer.transmitted(port) < LinkBounceTest.MESSAGES)
            {
                final long now = System.nanoTime();
                final long seen = port.counters().linkTransitions().get() + received[0] + UdpPeer.transmitted(port);
                if (seen != progress)
                {
                    progress = seen;
                    deadline = now + budgetNs;
                }
                else if (now - deadline > 0)
                {
                    break;
                }
                int work = port.poll(packet ->
                {
                    if (packet.buffer().getLong(packet.payloadOffset()) != received[0] && null == error[0])
                    {
                        error[0] = "got " + packet.buffer().getLong(packet.payloadOffset()) + ", expected " + received[0];
                    }
                    received[0]++;
                }, 64);
                if (received[0] == LinkBounceTest.MESSAGES && sent[0] < LinkBounceTest.MESSAGES &&
                    port.linkState() == LinkState.ACTIVE)
                {
                    message.putLong(0, sent[0]);
                    if (qp.offer(message, 0, 64) >= 0)
                    {
                        sent[0]++;
                        work++;
                    }
                }
                idle.idle(work);
            }
            Runtime.getRuntime().removeShutdownHook(report);
            // which rule a link error came from: a stale run (FCP_STALE discards) or the peer's init FCP after its
            // normal ones (a re-training with none)
            discards = "discards " + discards(port);
            result = null != error[0] ? "FAIL " + error[0] : received[0] < LinkBounceTest.MESSAGES ||
                sent[0] < LinkBounceTest.MESSAGES ? "FAIL no progress for " + args[4] + " s: " +
                status(port, received[0], sent[0]) :
                "OK recoveries " + port.counters().linkErrorRecovery().get() + " downs " +
                port.counters().linkDowned().get() + " transitions " + port.counters().linkTransitions().get();
        }
        System.out.println(discards);
        System.out.println(result);
        System.exit(result.startsWith("OK") ? 0 : 1);
    }

    private static String discards(final Port port)
    {
        final StringBuilder text = new StringBuilder();
        for (int reason = 0; reason < io.vlink.nic.status.DiscardReasons.count(); reason++)
        {
            final long count = port.counters().discards(reason).get();
            if (0 != count)
            {
                text.append(io.vlink.nic.status.DiscardReasons.name(reason)).append(' ').append(count).append(' ');
            }
        }
        return text.length() == 0 ? "none" : text.toString().trim();
    }

    private static String status(final Port port, final long received, final long sent)
    {
        final io.vlink.nic.status.PortCounters c = port.counters();
        return "received " + received + ", sent " + sent + ", transmitted " + UdpPeer.transmitted(port) + ", " +
            port.linkState() + ", recoveries " + c.linkErrorRecovery().get() + ", downs " + c.linkDowned().get() +
            ", transitions " + c.linkTransitions().get() + ", link frames received " + c.linkFramesReceived().get() +
            ", link drops: replay " + c.linkReplayDrops().get() + " session " + c.linkSessionDrops().get() +
            ", FCTBS " + c.txFctbs(0).get() + " CL " + c.txCreditLimit(0).get() + " ABR " + c.rxAbr(0).get() +
            ", discards " + discards(port);
    }
}
