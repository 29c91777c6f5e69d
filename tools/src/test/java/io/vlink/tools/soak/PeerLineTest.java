package io.vlink.tools.soak;

import io.vlink.core.qos.QosConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The soak's line between two hosts, both ends in this process over 127.0.0.1: the run crosses whole (a QoS that is
 * not the default, sizes, seed, faults); each side's writes reach the other's copy of the channel (the soak's
 * commands, the peer's words, snapshot, counters and results); a side that closes is gone for the other; a run one
 * side refuses is an exception naming the peer and the reason.
 */
class PeerLineTest
{
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(20);
    private static final io.vlink.nic.link.LinkKey KEY = io.vlink.nic.link.LinkKey.of(1, 2);

    private ServerSocket server;
    private PeerLine soak;
    private PeerLine peer;

    @AfterEach
    void close() throws IOException
    {
        for (final PeerLine line : new PeerLine[]{soak, peer})
        {
            if (null != line)
            {
                line.close();
            }
        }
        if (null != server)
        {
            server.close();
        }
    }

    private PeerLine.Hello connect(final SoakSettings options, final boolean peerKeyed) throws Exception
    {
        final SoakSettings served = new SoakSettings();
        served.udpKey = peerKeyed ? KEY : null;
        return connect(options, served);
    }

    private PeerLine.Hello connect(final SoakSettings options, final SoakSettings served) throws Exception
    {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        final PeerLine.Hello accepted = new PeerLine.Hello();
        final CompletableFuture<PeerLine> accepting = CompletableFuture.supplyAsync(() ->
        {
            try
            {
                return PeerLine.accept(server, served, accepted);
            }
            catch (final IOException ex)
            {
                return null;
            }
        });
        try
        {
            soak = PeerLine.join(new InetSocketAddress("127.0.0.1", server.getLocalPort()),
                PeerLine.Hello.of(options));
        }
        finally
        {
            peer = accepting.get(20, TimeUnit.SECONDS);
        }
        return accepted;
    }

    @Test
    void theRunCrossesWholeAndEachSidesWritesReachTheOther() throws Exception
    {
        final SoakSettings options = new SoakSettings();
        options.qos = QosConfig.builder().dataVls(4).highLimit(3).vlarbHigh("1:8").vlarbLow("0:16,2:32,3:255")
            .sl2vl("3,2,1,0").build();
        options.sizeMin = 64;
        options.sizeMax = 2048;
        options.seed = 42;
        options.seconds = 7.5;
        options.packets = 12_345;
        options.faults = FaultSpec.parse("drop-data=0.001,link-bounce=2");
        final PeerLine.Hello hello = connect(options, false);

        final SoakSettings served = new SoakSettings();
        hello.applyTo(served);
        assertEquals(options.qos, served.qos);
        assertEquals(64, served.sizeMin);
        assertEquals(2048, served.sizeMax);
        assertEquals(42, served.seed);
        assertEquals(7.5, served.seconds);
        assertEquals(12_345, served.packets);
        assertEquals(options.faults.toString(), served.faults.toString());
        assertTrue(served.udp);
        assertEquals(soak.localUdp(), peer.remoteUdp(), "the soak's end of the link, as the peer has it");
        assertEquals(peer.localUdp(), soak.remoteUdp(), "the peer's end of the link, as the soak has it");
        assertEquals(server.getLocalPort(), peer.localUdp().getPort(), "the peer's UDP port is its TCP port");
        assertTrue(Math.abs(soak.clockOffsetNs()) < TimeUnit.SECONDS.toNanos(1), "one clock: " + soak.clockOffsetNs());
        assertEquals(1, soak.channel().get(PeerChannel.LINK_UP), "both copies start with the link up");
        assertEquals(1, peer.channel().get(PeerChannel.LINK_UP));

        // the soak's commands reach the peer
        soak.channel().put(PeerChannel.HOLD, 1);
        soak.channel().put(PeerChannel.LINK_UP, 0);
        await(() -> 1 == peer.channel().get(PeerChannel.HOLD) && 0 == peer.channel().get(PeerChannel.LINK_UP));

        // the peer's counters, snapshot, words and results reach the soak, in the order they were written
        final CountersManager counters = new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.METADATA_LENGTH)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(64 * CountersReader.COUNTER_LENGTH)), StandardCharsets.US_ASCII);
        final AtomicCounter first = counters.newCounter("first");
        final AtomicCounter second = counters.newCounter("second");
        first.set(7);
        second.set(11);
        peer.counters(counters);
        final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
        for (int i = 0; i < snapshot.length; i++)
        {
            snapshot[i] = 1000 + i;
        }
        peer.channel().publish(snapshot);
        peer.channel().put(PeerChannel.READY, 1);
        await(() -> 1 == soak.channel().get(PeerChannel.READY));
        final CountersReader mirror = soak.mirror();
        assertNotNull(mirror, "the counters' metadata comes before the ready word");
        assertEquals("first", mirror.getCounterLabel(first.id()));
        assertEquals(7, mirror.getCounterValue(first.id()));
        final long[] read = new long[PeerChannel.SNAPSHOT_LONGS];
        assertTrue(soak.channel().read(read));
        assertArrayEquals(snapshot, read, "the snapshot comes before the words that follow it");
        second.set(12);
        await(() -> 12 == mirror.getCounterValue(second.id()));
        // a counter added later: its metadata again
        final AtomicCounter third = counters.newCounter("third");
        third.set(3);
        await(() -> null != soak.mirror() && "third".equals(soak.mirror().getCounterLabel(third.id())) &&
            3 == soak.mirror().getCounterValue(third.id()));
        peer.counters(null);

        peer.channel().putErrors("1 x java.lang.IllegalStateException: boom; ");
        peer.channel().put(PeerChannel.FINISHED, 1);
        await(() -> 1 == soak.channel().get(PeerChannel.FINISHED));
        assertEquals("1 x java.lang.IllegalStateException: boom; ", soak.channel().errors(),
            "the results come before the finished word");

        assertNull(soak.gone());
        peer.close();
        await(() -> null != soak.gone());
        assertEquals("it closed the connection", soak.gone());
    }

    @Test
    void aRunTheServerRefusesIsOneLineNamingThePeerAndWhy() throws Exception
    {
        final SoakSettings options = new SoakSettings();
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> connect(options, true));
        assertEquals("the peer at 127.0.0.1:" + server.getLocalPort() + " refused the soak: this peer authenticates " +
            "the link (--key) and the soak does not: give both the same --key FILE", refused.getMessage());
        assertNull(peer, "the server takes no line for a run it refused");
    }

    @Test
    void theSoaksRetryGoesToAPeerThatGaveNoneAndAPeerThatGaveAnotherRefuses() throws Exception
    {
        final SoakSettings options = new SoakSettings();
        options.retry = false;
        final SoakSettings served = new SoakSettings();
        final PeerLine.Hello hello = connect(options, served);
        hello.applyTo(served);
        assertEquals(Boolean.FALSE, served.retry, "the soak's --retry off, carried to the peer");
        assertFalse(served.retryOn());
        close();
        soak = null;
        peer = null;

        final SoakSettings retrying = new SoakSettings();
        retrying.retry = true;
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> connect(options, retrying));
        assertTrue(refused.getMessage().endsWith("refused the soak: the soak runs link-level retry off and this peer " +
            "--retry on: give both the same --retry, or none to this peer (it takes the soak's)"), refused.getMessage());
    }

    @Test
    void aSoakWithAnotherKeyIsRefusedNamingBothCheckValuesNeverTheKeys() throws Exception
    {
        final SoakSettings options = new SoakSettings();
        options.udpKey = io.vlink.nic.link.LinkKey.of(1, 3);
        final SoakSettings served = new SoakSettings();
        served.udpKey = KEY;
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> connect(options, served));
        assertTrue(refused.getMessage().endsWith(String.format("refused the soak: the soak's key and this peer's " +
            "differ (key check values %016x and %016x): give both the same --key FILE", options.udpKey.check(),
            KEY.check())), refused.getMessage());
        assertFalse(refused.getMessage().contains(KEY.format()));
        close();
        soak = null;
        peer = null;

        options.udpKey = io.vlink.nic.link.LinkKey.of(1, 2);
        assertTrue(connect(options, served).keyed, "the same key: joined");
    }

    @Test
    void noPeerThereIsOneLine() throws Exception
    {
        final int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = closed.getLocalPort();
        }
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> PeerLine.join(
            new InetSocketAddress("127.0.0.1", port), new PeerLine.Hello()));
        assertTrue(ex.getMessage().startsWith("could not join the peer at 127.0.0.1:" + port + ": "), ex.getMessage());
    }

    private static void await(final BooleanSupplier condition)
    {
        final long deadlineNs = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "not within 20 s");
            Thread.onSpinWait();
        }
    }
}
