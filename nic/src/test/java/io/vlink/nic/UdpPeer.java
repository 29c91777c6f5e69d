package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * One side of the two-JVM UDP test: an engine with one port linked over UDP to the other side; it sends
 * {@code count} messages spread over 4 VLs, each carrying its VL's sequence number, and receives as many,
 * checking that none is lost, duplicated or reordered. Run in-process by the test and as {@link #main} in a
 * second JVM.
 */
public final class UdpPeer
{
    static final int VLS = 4;
    static final int LENGTH = 200;

    private UdpPeer()
    {
    }

    /**
     * @param args local port, remote port, message count, counters directory, seconds allowed; or {@code shm}, the
     *             link's file, the role ({@code a} or {@code b}), message count, counters directory, seconds allowed.
     */
    public static void main(final String[] args)
    {
        final String result = "shm".equals(args[0]) ?
            run(link -> link.shm(java.nio.file.Path.of(args[1]), io.vlink.nic.link.ShmLink.Role.parse(args[2])),
                Integer.parseInt(args[3]), new File(args[4]), Integer.parseInt(args[5]), "shm-child") :
            run(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Integer.parseInt(args[2]), new File(args[3]),
                Integer.parseInt(args[4]), "udp-child");
        System.out.println(result);
        System.exit(result.startsWith("OK") ? 0 : 1);
    }

    static String run(
        final int localPort, final int remotePort, final int count, final File dir, final int seconds, final String name)
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        return run(link -> link.udp(
            new InetSocketAddress(loopback, localPort), new InetSocketAddress(loopback, remotePort), 1, 2),
            count, dir, seconds, name);
    }

    /**
     * @param link    sets the engine's link (UDP, shm).
     * @param count   messages to send and to receive.
     * @param dir     the counters directory.
     * @param seconds the most the exchange may take.
     * @param name    the engine's name.
     * @return "OK ..." or "FAIL ...".
     */
    static String run(
        final java.util.function.Consumer<EngineBuilder> link,
        final int count,
        final File dir,
        final int seconds,
        final String name)
    {
        final EngineBuilder builder = Engine.builder()
            .name(name)
            .directory(dir)
            .threading(ThreadingMode.SHARED)
            .idle("backoff")
            .qos(QosConfig.opensmDefaults(VLS))
            .vlBufferBlocks(256)
            // a peer descheduled for a few hundred ms on a loaded 2-core machine is not a dead one here: a link error
            // would flush messages this exchange waits for
            .linkTimeoutNs(TimeUnit.SECONDS.toNanos(5));
        link.accept(builder);
        try (Engine engine = builder.build())
        {
            final Port port = engine.port(0);
            final QueuePair[] qps = new QueuePair[VLS];
            for (int vl = 0; vl < VLS; vl++)
            {
                qps[vl] = port.createQueuePair(10 + vl, vl, 10 + vl);
            }
            final long[] sent = new long[VLS];
            final long[] expected = new long[VLS];
            final String[] error = new String[1];
            final long[] received = new long[1];
            final PacketHandler handler = packet ->
            {
                final int vl = packet.vl();
                final long sequence = packet.buffer().getLong(packet.payloadOffset());
                if (null == error[0] && (vl >= VLS || sequence != expected[vl] || packet.payloadLength() != LENGTH))
                {
                    error[0] = "VL " + vl + ": got " + sequence + ", expected " + (vl < VLS ? expected[vl] : -1);
                }
                if (vl < VLS)
                {
                    expected[vl] = sequence + 1;
                }
                received[0]++;
            };
            final UnsafeBuffer message = new UnsafeBuffer(new byte[LENGTH]);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long posted = 0;
            final org.agrona.concurrent.IdleStrategy idle = io.vlink.nic.agent.IdleStrategies.backoff();
            // done when everything was received and everything posted is on the wire: the peer needs nothing more
            while (received[0] < count || transmitted(port) < count)
            {
                if (System.nanoTime() > deadline)
                {
                    return "FAIL timed out: link " + port.linkState() + ", posted " + posted + ", received " +
                        received[0] + ", discards " + discards(port);
                }
                int work = 0;
                if (posted < count && port.linkState() == LinkState.ACTIVE)
                {
                    final int vl = (int)(posted % VLS);
                    message.putLong(0, sent[vl]);
                    if (QueuePair.BACK_PRESSURED != qps[vl].offer(message, 0, LENGTH))
                    {
                        sent[vl]++;
                        posted++;
                        work++;
                    }
                }
                work += port.poll(handler, 64);
                idle.idle(work);
            }
            if (null != error[0])
            {
                return "FAIL " + error[0];
            }
            final String agentErrors = io.vlink.nic.test.EngineErrors.of(engine.countersFile());
            if (!agentErrors.isEmpty())
            {
                return "FAIL agent errors: " + agentErrors.replace('\n', ' ');
            }
            return "OK posted " + posted + " received " + received[0] + " stalls " + stalls(port) +
                " discards " + discards(port) + " foreign " + port.counters().linkForeignDrops().get() + " ms " +
                (System.nanoTime() - deadline + TimeUnit.SECONDS.toNanos(seconds)) / 1_000_000;
        }
    }

    static long transmitted(final Port port)
    {
        long packets = 0;
        for (int vl = 0; vl < VLS; vl++)
        {
            packets += port.counters().txPackets(vl).get();
        }
        return packets;
    }

    static long stalls(final Port port)
    {
        long stalls = 0;
        for (int vl = 0; vl < VLS; vl++)
        {
            stalls += port.counters().creditStalls(vl).get();
        }
        return stalls;
    }

    /** Discards of data, and of FCPs that were damaged (FCPs refused by the link state during bring-up are
     * part of the protocol: a port still in Initialize drops its Armed peer's normal FCPs). */
    static long discards(final Port port)
    {
        long discards = 0;
        for (int reason = 0; reason < io.vlink.nic.status.DiscardReasons.count(); reason++)
        {
            if (reason != io.vlink.core.credit.DiscardReason.FCP_STATE.id())
            {
                discards += port.counters().discards(reason).get();
            }
        }
        return discards;
    }
}
