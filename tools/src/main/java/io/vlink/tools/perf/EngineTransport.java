package io.vlink.tools.perf;

import io.vlink.core.credit.Credits;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.EngineBuilder;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.MemoryRegion;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.PacketHandler;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.PortCounters;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * {@code vlink perf} through the engine: one port linked over UDP or shared memory, a queue pair per SL used, messages
 * posted with {@code qp.offer} and received with {@code port.poll}. In invoker mode the application's thread runs the
 * engine's duty cycles ({@link #duty()}).
 * <p>
 * Over UDP the server does not know its client beforehand, and the UDP link accepts only its configured peer: as
 * perftest exchanges its parameters out of band, the client first says {@code VLPERF HELLO} to the server's port from
 * the port its engine will then bind, and the server answers {@code VLPERF OK}; then each builds its engine with the
 * other's address.
 */
public final class EngineTransport implements PerfTransport
{
    static final byte[] HELLO = "VLPERF HELLO".getBytes(StandardCharsets.US_ASCII);
    static final byte[] OK = "VLPERF OK".getBytes(StandardCharsets.US_ASCII);
    private static final long HELLO_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(100);

    private final Engine engine;
    private final Port port;
    private final boolean invoker;
    private final QueuePair[] qps = new QueuePair[16];
    private final UnsafeBuffer large;
    private final MemoryRegion region;
    private final String description;
    private MessageHandler handler;
    private final PacketHandler receiver = packet -> handler.onMessage(packet.buffer(), packet.payloadOffset());
    private long peerIncarnation = Link.UNKNOWN_INCARNATION;
    private long offered;

    private EngineTransport(final EngineBuilder builder, final String description)
    {
        engine = builder.build();
        try
        {
            port = engine.port(0);
            invoker = ThreadingMode.INVOKER == engine.threading();
            // large messages are data messages, whose bytes are all zero (kind DATA): posted by reference from here
            large = OffHeap.allocate(PerfPeer.MAX_SIZE);
            region = engine.registerMemory(large);
        }
        catch (final RuntimeException ex)
        {
            engine.close();
            throw ex;
        }
        this.description = description;
    }

    // The engines' link timeout is the tool's own patience with a silent peer (--peer-timeout, at least the engine's
    // default), so that a busy machine's pauses do not take the link down in the middle of a run.
    private static EngineBuilder builder(
        final String name, final ThreadingMode threads, final String idle, final long linkTimeoutNs, final Boolean retry)
    {
        final EngineBuilder builder = Engine.builder()
            .name(name + "-" + ProcessHandle.current().pid())
            .threading(threads)
            .idle(idle)
            .linkTimeoutNs(Math.max(EngineConfiguration.DEFAULT_LINK_TIMEOUT_NS, linkTimeoutNs))
            .qos(QosConfig.opensmDefaults(8));
        return null == retry ? builder : builder.retry(retry);
    }

    /**
     * @param file    the link's file.
     * @param role    A for the server, B for the client.
     * @param threads the engine's threads.
     * @param idle    the engine threads' idle strategy.
     * @param linkTimeoutNs how long the engine waits for a silent peer.
     * @param retry   link-level retry on or off, or null for the engine's default (off over shm).
     * @return the transport (the link may not be up yet: {@link #ready()}).
     */
    public static EngineTransport shm(
        final Path file, final ShmLink.Role role, final ThreadingMode threads, final String idle, final long linkTimeoutNs,
        final Boolean retry)
    {
        return new EngineTransport(builder(ShmLink.Role.A == role ? "perf-server" : "perf-client", threads, idle,
            linkTimeoutNs, retry)
            .shm(file.toAbsolutePath(), role), "shm " + file.toAbsolutePath());
    }

    /**
     * Wait for a client's hello on the UDP port, answer it, then link to it.
     *
     * @param port    the server's UDP port.
     * @param threads the engine's threads.
     * @param idle    the engine threads' idle strategy.
     * @param linkTimeoutNs how long the engine waits for a silent peer.
     * @param retry   link-level retry on or off, or null for the engine's default (on over UDP).
     * @return the transport linked to the client that said hello.
     */
    public static EngineTransport udpServer(
        final int port, final ThreadingMode threads, final String idle, final long linkTimeoutNs, final Boolean retry)
    {
        final InetSocketAddress local = new InetSocketAddress(port);
        final SocketAddress client;
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(local);
            final ByteBuffer datagram = ByteBuffer.allocate(64);
            SocketAddress from;
            do
            {
                datagram.clear();
                from = channel.receive(datagram);
                datagram.flip();
            }
            while (!is(datagram, HELLO));
            client = from;
            for (int i = 0; i < 3; i++)
            {
                channel.send(ByteBuffer.wrap(OK), client);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("UDP port " + port + ": " + ex.getMessage(), ex);
        }
        return new EngineTransport(builder("perf-server", threads, idle, linkTimeoutNs, retry)
            .udp(local, (InetSocketAddress)client, 1, 2), "udp " + local + " <-> " + client);
    }

    /**
     * Say hello to the server until it answers, then link to it from the same local port.
     *
     * @param server    the server's address.
     * @param threads   the engine's threads.
     * @param idle      the engine threads' idle strategy.
     * @param timeoutNs how long to wait for the answer.
     * @param linkTimeoutNs how long the engine waits for a silent peer.
     * @param retry   link-level retry on or off, or null for the engine's default (on over UDP).
     * @return the transport.
     * @throws PeerVanishedException when no server answers in time.
     */
    public static EngineTransport udpClient(
        final InetSocketAddress server, final ThreadingMode threads, final String idle, final long timeoutNs,
        final long linkTimeoutNs, final Boolean retry)
    {
        final InetSocketAddress local;
        InetSocketAddress answered = null;
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(new InetSocketAddress(server.getAddress().isLoopbackAddress() ?
                InetAddress.getLoopbackAddress() : null, 0));
            channel.configureBlocking(false);
            local = (InetSocketAddress)channel.getLocalAddress();
            final ByteBuffer datagram = ByteBuffer.allocate(64);
            final long deadline = System.nanoTime() + timeoutNs;
            long lastHello = 0;
            boolean first = true;
            while (null == answered)
            {
                final long now = System.nanoTime();
                if (now - deadline > 0)
                {
                    throw new PeerVanishedException("no vlink perf server answered at " + server + " within " +
                        TimeUnit.NANOSECONDS.toMillis(timeoutNs) / 1000.0 + " s");
                }
                if (first || now - lastHello >= HELLO_INTERVAL_NS)
                {
                    channel.send(ByteBuffer.wrap(HELLO), server);
                    lastHello = now;
                    first = false;
                }
                datagram.clear();
                final SocketAddress from = channel.receive(datagram);
                datagram.flip();
                if (null != from && is(datagram, OK))
                {
                    answered = (InetSocketAddress)from;
                }
                else if (null == from)
                {
                    Thread.onSpinWait();
                    Thread.yield();
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("UDP to " + server + ": " + ex.getMessage(), ex);
        }
        return new EngineTransport(builder("perf-client", threads, idle, linkTimeoutNs, retry).udp(local, answered, 2, 1),
            "udp " + local + " <-> " + answered);
    }

    private static boolean is(final ByteBuffer datagram, final byte[] expected)
    {
        return datagram.remaining() == expected.length && datagram.equals(ByteBuffer.wrap(expected));
    }

    @Override
    public boolean ready()
    {
        if (LinkState.ACTIVE != port.linkState())
        {
            return false;
        }
        if (Link.UNKNOWN_INCARNATION == peerIncarnation)
        {
            peerIncarnation = port.link().peerIncarnation();
        }
        return true;
    }

    private QueuePair queuePair(final int sl)
    {
        QueuePair qp = qps[sl];
        if (null == qp)
        {
            qp = port.createQueuePair(1 + sl, sl, 1 + sl);
            qps[sl] = qp;
        }
        return qp;
    }

    /**
     * {@inheritDoc} The PSN is the queue pair's first: a queue pair made for the run starts at 0 (docs/engine.md).
     */
    @Override
    public Address address(final int sl)
    {
        return new Address(port.localLid(), queuePair(sl).qpn(), 0);
    }

    @Override
    public int mtu()
    {
        return port.mtu();
    }

    @Override
    public int maxInline(final int sl)
    {
        return queuePair(sl).inlineCapacity();
    }

    @Override
    public boolean offer(final DirectBuffer message, final int length, final int sl)
    {
        final QueuePair qp = queuePair(sl);
        final long result = length <= qp.inlineCapacity() ? qp.offer(message, 0, length) : qp.offer(region, 0, length);
        if (QueuePair.BACK_PRESSURED == result)
        {
            return false;
        }
        offered++;
        return true;
    }

    @Override
    public boolean flushed()
    {
        long sent = 0;
        for (int vl = 0; vl < port.dataVls(); vl++)
        {
            sent += port.counters().txPackets(vl).get();
        }
        return sent >= offered;
    }

    @Override
    public int poll(final MessageHandler handler)
    {
        this.handler = handler;
        return port.poll(receiver, 64);
    }

    @Override
    public int duty()
    {
        return invoker ? engine.invoke() : 0;
    }

    @Override
    public String peerGone()
    {
        return PerfTransport.gone(port.link(), peerIncarnation);
    }

    @Override
    public String describe()
    {
        return description;
    }

    /**
     * {@inheritDoc} Over a lossless wire (the shm rings) or with link-level retry, what the wire carries arrives: a
     * message that never came was discarded by a port (counted by reason here or at the peer) or never sent.
     */
    @Override
    public String diagnosis()
    {
        final PortCounters counters = port.counters();
        final Link link = port.link();
        final boolean retry = link instanceof RetryLink;
        final StringBuilder text = new StringBuilder("this side: link ").append(port.linkState());
        if (retry)
        {
            text.append(", link-level retry on (what the wire drops is sent again: ")
                .append(counters.linkRetransmits().get()).append(" retransmits, ")
                .append(counters.linkRetryTimeouts().get()).append(" retry timeouts, ")
                .append(counters.linkRetryFailures().get()).append(" frames given up)");
        }
        else if (link instanceof ShmLink)
        {
            text.append(", shm rings (the wire drops nothing)");
        }
        else
        {
            text.append(", link-level retry off (a frame the wire drops is lost)");
        }
        long sent = 0;
        long received = 0;
        long delivered = 0;
        final StringBuilder credits = new StringBuilder();
        for (int vl = 0; vl < port.dataVls(); vl++)
        {
            sent += counters.txPackets(vl).get();
            received += counters.rxPackets(vl).get();
            delivered += counters.deliveredPackets(vl).get();
            final int available = Credits.distance((int)counters.txCreditLimit(vl).get(), (int)counters.txFctbs(vl).get());
            credits.append(0 == vl ? "" : " ").append(available > Credits.MAX_CREDIT ? 0 : available);
        }
        text.append("; data packets ").append(offered).append(" posted, ").append(sent).append(" sent, ")
            .append(received).append(" received, ").append(delivered).append(" delivered; send credits by VL [")
            .append(credits).append("] blocks; link errors ").append(counters.linkErrorRecovery().get())
            .append(", downed ").append(counters.linkDowned().get()).append("; discards:");
        final int before = text.length();
        for (int reason = 0; reason < DiscardReasons.count(); reason++)
        {
            final long count = counters.discards(reason).get();
            if (0 != count)
            {
                text.append(' ').append(DiscardReasons.name(reason)).append(' ').append(count);
            }
        }
        return text.length() == before ? text.append(" none").toString() : text.toString();
    }

    @Override
    public void close()
    {
        CloseHelper.quietClose(engine);
        OffHeap.free(large);
    }
}
