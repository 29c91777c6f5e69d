package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.test.Deadline;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class UdpLinkTest
{
    @TempDir
    File dir;

    private TwoPorts ports;

    private UdpLink a;
    private UdpLink b;
    private long offHeapBefore;

    @BeforeEach
    void setUp() throws Exception
    {
        offHeapBefore = OffHeap.allocatedBytes();
        ports = new TwoPorts(dir, "udp");
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        // B's port first, so that A can name it as its peer
        final int portB = freePort();
        a = new UdpLink(new InetSocketAddress(loopback, 0), new InetSocketAddress(loopback, portB), 4098, ports.linkA);
        b = new UdpLink(new InetSocketAddress(loopback, portB), a.localAddress(), 4098, ports.linkB);
        establish(a, b);
    }

    /** @return a UDP port of the loopback address that was free a moment ago. */
    static int freePort() throws IOException
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }

    /** Both ends train their session: HELLOs cross while each end polls. */
    static void establish(final UdpLink a, final UdpLink b)
    {
        final FrameHandler none = (type, buffer, offset, length) -> fail("no frame before the session");
        Deadline.await(10, "the session", () -> a.established() && b.established(), () ->
        {
            a.poll(none, 4);
            b.poll(none, 4);
        });
    }

    @AfterEach
    void tearDown()
    {
        a.close();
        b.close();
        ports.close();
        assertEquals(offHeapBefore, OffHeap.allocatedBytes());
    }

    @Test
    void framesCrossOnePerDatagramAndTheTypeFollowsTheLength()
    {
        assertTrue(LoopbackLinkTest.send(a, Link.DATA_FRAME, 4098, (byte)7));
        assertTrue(LoopbackLinkTest.send(a, Link.LINK_FRAME, 8, (byte)8));
        assertTrue(LoopbackLinkTest.send(a, Link.DATA_FRAME, 10, (byte)9));
        final List<String> got = new ArrayList<>();
        Deadline.await(10, "three frames", () ->
        {
            b.poll((type, buffer, offset, length) -> got.add(type + ":" + length + ":" + buffer.getByte(offset + length - 1)), 10);
            return got.size() == 3;
        });
        assertEquals(List.of("1:4098:7", "2:8:8", "1:10:9"), got);
        assertEquals(3, ports.countersA.linkFramesSent().get());
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(Link.DATA_FRAME, 8));
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(Link.LINK_FRAME, 12));
        assertThrows(IllegalArgumentException.class, () -> a.tryClaim(Link.DATA_FRAME, 4099));
    }

    @Test
    void sendingAndReceivingAllocatesNothingInSteadyState()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        final int[] received = new int[1];
        final FrameHandler handler = (type, buffer, offset, length) -> received[0]++;
        exchange(2_000, handler, received);
        final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
        exchange(20_000, handler, received);
        final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
        // an address per datagram would be 480 KB or more; what is left is the JIT's and the JDK's own bookkeeping
        assertTrue(allocated < 20_000, "allocated " + allocated + " bytes over 20,000 datagrams");
    }

    private void exchange(final int frames, final FrameHandler handler, final int[] received)
    {
        final int target = received[0] + frames;
        final long deadline = System.nanoTime() + 30_000_000_000L;
        int sent = 0;
        while (received[0] < target)
        {
            // a few in flight at a time: loopback UDP drops what overflows the socket buffer
            if (sent - (received[0] - (target - frames)) < 8 && sent < frames &&
                LoopbackLinkTest.send(a, Link.DATA_FRAME, 1026, (byte)1))
            {
                sent++;
            }
            b.poll(handler, 16);
            assertTrue(System.nanoTime() < deadline, "timed out");
        }
    }

    @Test
    void dropsAndCountsDatagramsFromStrangersAndOfBadLengthsWhateverTheirBytes() throws Exception
    {
        final Random random = new Random(42);
        try (DatagramChannel stranger = DatagramChannel.open())
        {
            stranger.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            for (int i = 0; i < 20; i++)
            {
                final byte[] bytes = new byte[1 + random.nextInt(5000)];
                random.nextBytes(bytes);
                stranger.send(ByteBuffer.wrap(bytes), b.localAddress());
            }
        }
        // From the real peer's address: too long (the kernel truncates into the fixed buffer), too short, empty,
        // and a bare FCP without the link header.
        final int[] lengths = {UdpLink.HEADER_LENGTH + 4099, 9000, 60000, 7, 1, 0, 8};
        final long receivedBefore = ports.countersB.linkFramesReceived().get();
        try (DatagramChannel fromPeerAddress = DatagramChannel.open())
        {
            final InetSocketAddress aAddress = a.localAddress();
            a.closeWithoutNotice();
            fromPeerAddress.bind(aAddress);
            for (final int length : lengths)
            {
                final byte[] bytes = new byte[length];
                random.nextBytes(bytes);
                fromPeerAddress.send(ByteBuffer.wrap(bytes), b.localAddress());
            }
        }
        final List<Integer> delivered = new ArrayList<>();
        Deadline.await(10, "every datagram to be looked at",
            () ->
            {
                b.poll((type, buffer, offset, length) -> delivered.add(length), 3);
                return ports.countersB.linkFramesReceived().get() == receivedBefore + 20 + lengths.length;
            });
        assertEquals(20, ports.countersB.linkForeignDrops().get());
        assertEquals(lengths.length, ports.countersB.linkLengthDrops().get());
        assertEquals(List.of(), delivered);
    }

    @Test
    void aReplayedDatagramOfTheSessionIsDroppedAndCounted() throws Exception
    {
        // a's datagrams, as the wire carried them, sent again from a's address by someone who recorded them
        try (DatagramChannel tap = DatagramChannel.open())
        {
            tap.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            final UdpLink recorder = a;
            assertTrue(LoopbackLinkTest.send(recorder, Link.DATA_FRAME, 64, (byte)5));
            final List<byte[]> datagrams = new ArrayList<>();
            Deadline.await(10, "the frame", () ->
            {
                b.poll((type, buffer, offset, length) ->
                {
                    final byte[] whole = new byte[UdpLink.HEADER_LENGTH + length];
                    buffer.getBytes(offset - UdpLink.HEADER_LENGTH, whole);
                    datagrams.add(whole);
                }, 4);
                return datagrams.size() == 1;
            });
            final InetSocketAddress aAddress = a.localAddress();
            a.closeWithoutNotice();
            try (DatagramChannel spoof = DatagramChannel.open())
            {
                spoof.bind(aAddress);
                for (int i = 0; i < 10; i++)
                {
                    spoof.send(ByteBuffer.wrap(datagrams.get(0)), b.localAddress());
                }
            }
            final List<Integer> delivered = new ArrayList<>();
            Deadline.await(10, "the replays", () ->
            {
                b.poll((type, buffer, offset, length) -> delivered.add(length), 4);
                return ports.countersB.linkReplayDrops().get() == 10;
            });
            assertEquals(List.of(), delivered);
        }
    }

    @Test
    void aFrameOfAnotherSessionIsDroppedAndAForgedHelloDoesNotBreakTheSession() throws Exception
    {
        final InetSocketAddress aAddress = a.localAddress();
        final long aNonce = a.nonce();
        a.closeWithoutNotice();
        try (DatagramChannel spoof = DatagramChannel.open())
        {
            spoof.bind(aAddress);
            spoof.configureBlocking(false);
            // a guess: a's nonce is known (an old capture), b's is not
            final ByteBuffer frame = ByteBuffer.allocate(UdpLink.HEADER_LENGTH + 64);
            frame.putShort(UdpLink.MAGIC).put(UdpLink.VERSION).put(UdpLink.TYPE_FRAME).putInt(0)
                .putLong(aNonce).putLong(12345L).putLong(1).position(frame.capacity()).flip();
            spoof.send(frame, b.localAddress());
            // a HELLO from "a restarted peer" that cannot read b's answers
            final ByteBuffer hello = ByteBuffer.allocate(UdpLink.HEADER_LENGTH);
            hello.putShort(UdpLink.MAGIC).put(UdpLink.VERSION).put(UdpLink.TYPE_HELLO).putInt(UdpLink.FLAG_ESTABLISHED)
                .putLong(777L).putLong(0L).putLong(0).flip();
            final ByteBuffer answer = ByteBuffer.allocate(128);
            // the "restarted peer" repeats its HELLO, as a real one does, until b answers (b answers a stranger at
            // most once per HELLO interval)
            Deadline.await(10, "b's answer to the HELLO", () ->
            {
                answer.clear();
                try
                {
                    spoof.send(hello.duplicate(), b.localAddress());
                    b.poll((type, buffer, offset, length) -> fail("nothing is delivered"), 4);
                    return null != spoof.receive(answer);
                }
                catch (final IOException ex)
                {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            // b names itself to the stranger, but keeps its session with a
            answer.flip();
            assertEquals(UdpLink.TYPE_HELLO, answer.get(3));
            assertEquals(b.nonce(), answer.getLong(8));
            assertEquals(777L, answer.getLong(16));
            assertEquals(1, ports.countersB.linkSessionDrops().get());
            assertTrue(b.established());
            assertEquals(1, b.sessions());
        }
    }

    @Test
    void aPeerThatClosesSaysSoAndTheSessionEndsAfterWhatItSentBefore()
    {
        assertTrue(LoopbackLinkTest.send(a, Link.DATA_FRAME, 100, (byte)5));
        a.close();
        final List<String> got = new ArrayList<>();
        final FrameHandler handler = new FrameHandler()
        {
            @Override
            public void onFrame(final int frameType, final org.agrona.DirectBuffer buffer, final int offset, final int length)
            {
                got.add("frame " + length);
            }

            @Override
            public void onPeerClosed()
            {
                got.add("closed");
            }
        };
        Deadline.await(10, "the frame, then the notice", () ->
        {
            b.poll(handler, 4);
            return got.size() == 2;
        });
        assertEquals(List.of("frame 100", "closed"), got);
        assertFalse(b.established(), "no session after the peer closed");
        assertFalse(b.hasRoomFor(100), "nothing can be sent until a peer trains a new session");
    }

    @Test
    void aRestartedPeerTrainsANewSessionAndItsOldIncarnationsFramesAreDropped()
    {
        final InetSocketAddress aAddress = a.localAddress();
        final long oldNonce = a.nonce();
        a.closeWithoutNotice();   // killed: the restart, not a BYE, ends its session
        final UdpLink restarted = new UdpLink(aAddress, b.localAddress(), 4098, ports.linkA);
        try
        {
            assertNotEquals(oldNonce, restarted.nonce());
            establish(restarted, b);
            assertEquals(2, b.sessions());
            assertTrue(LoopbackLinkTest.send(restarted, Link.DATA_FRAME, 100, (byte)3));
            final List<Integer> got = new ArrayList<>();
            Deadline.await(10, "the new session's frame", () ->
            {
                b.poll((type, buffer, offset, length) -> got.add(length), 4);
                return got.size() == 1;
            });
            assertEquals(List.of(100), got);
        }
        finally
        {
            restarted.close();
        }
    }

    @Test
    void anAuthenticatedLinkDropsDatagramsWithABadMacAndCarriesTheRest() throws Exception
    {
        final InetSocketAddress aAddress = a.localAddress();
        final InetSocketAddress bAddress = b.localAddress();
        a.close();
        b.close();
        final LinkKey key = LinkKey.of(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        final UdpLink c = authenticated(aAddress, bAddress, ports.linkA, key);
        final UdpLink d = authenticated(bAddress, aAddress, ports.linkB, key);
        try
        {
            establish(c, d);
            assertTrue(c.authenticated());
            assertTrue(LoopbackLinkTest.send(c, Link.LINK_FRAME, 8, (byte)4));
            final List<Integer> got = new ArrayList<>();
            Deadline.await(10, "the authenticated frame", () ->
            {
                d.poll((type, buffer, offset, length) -> got.add(length), 4);
                return got.size() == 1;
            });
            assertEquals(List.of(8), got);
            c.close();
            // from c's address, naming the session's nonces, with a MAC made without the key
            try (DatagramChannel spoof = DatagramChannel.open())
            {
                spoof.bind(aAddress);
                final ByteBuffer bad = ByteBuffer.allocate(UdpLink.HEADER_LENGTH + 8 + UdpLink.MAC_LENGTH);
                bad.putShort(UdpLink.MAGIC).put(UdpLink.VERSION).put(UdpLink.TYPE_FRAME).putInt(0)
                    .putLong(c.nonce()).putLong(d.nonce()).putLong(99).putLong(0).putLong(0x1234L).flip();
                spoof.send(bad, bAddress);
            }
            Deadline.await(10, "the forged datagram", () ->
            {
                d.poll((type, buffer, offset, length) -> fail("a forged frame is never delivered"), 4);
                return ports.countersB.linkMacDrops().get() == 1;
            });
            assertEquals(0, ports.countersB.linkSessionDrops().get(), "the MAC is checked before anything else is read");
        }
        finally
        {
            c.close();
            d.close();
        }
    }

    @Test
    void endsWithDifferentKeysNeverTrainASession()
    {
        final InetSocketAddress aAddress = a.localAddress();
        final InetSocketAddress bAddress = b.localAddress();
        a.close();
        b.close();
        final UdpLink c = authenticated(aAddress, bAddress, ports.linkA, LinkKey.of(1, 2));
        final UdpLink d = authenticated(bAddress, aAddress, ports.linkB, LinkKey.of(1, 3));
        try
        {
            Deadline.await(10, "HELLOs both ways", () -> ports.countersA.linkMacDrops().get() > 0 && ports.countersB.linkMacDrops().get() > 0,
                () ->
                {
                    c.poll((type, buffer, offset, length) -> fail("no frame"), 4);
                    d.poll((type, buffer, offset, length) -> fail("no frame"), 4);
                });
            assertFalse(c.established());
            assertFalse(d.established());
            assertEquals(Link.BACK_PRESSURED, c.tryClaim(Link.LINK_FRAME, 8), "no session: nothing is sent");
        }
        finally
        {
            c.close();
            d.close();
        }
    }

    @Test
    void aKeysCheckValueTellsTwoKeysApartAndIsTheMacOfTheFixedBlock()
    {
        final LinkKey key = LinkKey.of(0x0706050403020100L, 0x0f0e0d0c0b0a0908L);
        final org.agrona.concurrent.UnsafeBuffer block = new org.agrona.concurrent.UnsafeBuffer(
            "vlink key check\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(SipHash.hash(0x0706050403020100L, 0x0f0e0d0c0b0a0908L, block, 0, 16), key.check());
        assertEquals(key.check(), LinkKey.parse("k", key.format()).check(), "the same key, read back: the same value");
        assertNotEquals(LinkKey.of(1, 2).check(), LinkKey.of(1, 3).check());
        assertNotEquals(LinkKey.of(1, 2).check(), LinkKey.of(2, 1).check());
    }

    @Test
    void aHelloThatCannotBeSentIsCountedAsAHelloSendErrorAndNotAsAReceiveError() throws IOException
    {
        final PortCounterSet set = new PortCounterSet(ports.countersFile, 2, 8);
        final PortCounters view = set.view();
        final DatagramChannel closed = DatagramChannel.open();
        closed.close();
        final long nonce = 0x0A0A_0A0A_0A0A_0A0AL;
        final UdpLink c = UdpLink.over(closed, new InetSocketAddress(InetAddress.getLoopbackAddress(), 9), 64,
            set.link(), nonce);
        try
        {
            // the peer's HELLO, naming this end: the receiving thread answers with its own, into the closed channel
            final org.agrona.concurrent.UnsafeBuffer datagram = c.receiveBuffer();
            datagram.putShort(UdpLink.MAGIC_OFFSET, UdpLink.MAGIC, java.nio.ByteOrder.BIG_ENDIAN);
            datagram.putByte(UdpLink.VERSION_OFFSET, UdpLink.VERSION);
            datagram.putByte(UdpLink.TYPE_OFFSET, UdpLink.TYPE_HELLO);
            datagram.putInt(UdpLink.FLAGS_OFFSET, 0, java.nio.ByteOrder.BIG_ENDIAN);
            datagram.putLong(UdpLink.SENDER_OFFSET, 0x0B0B_0B0B_0B0B_0B0BL, java.nio.ByteOrder.BIG_ENDIAN);
            datagram.putLong(UdpLink.RECEIVER_OFFSET, nonce, java.nio.ByteOrder.BIG_ENDIAN);
            datagram.putLong(UdpLink.SEQUENCE_OFFSET, 0, java.nio.ByteOrder.BIG_ENDIAN);
            c.onDatagram((type, buffer, offset, length) -> fail("a HELLO is no frame"), UdpLink.HEADER_LENGTH);

            assertEquals(1, view.linkHelloSendErrors().get(), "the HELLO that did not go");
            assertEquals(0, view.linkReceiveErrors().get(), "nothing failed to arrive");
            assertEquals(0, view.linkSendErrors().get(), "no frame failed to go");
        }
        finally
        {
            c.close();
        }
    }

    private static UdpLink authenticated(
        final InetSocketAddress local, final InetSocketAddress peer, final LinkCounters counters, final LinkKey key)
    {
        return new UdpLink(local, peer, 4098, counters, key, org.agrona.concurrent.SystemNanoClock.INSTANCE, 1_000_000L);
    }
}
