package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
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

    private CountersFile countersFile;
    private PortCounters countersA;
    private PortCounters countersB;
    private UdpLink a;
    private UdpLink b;
    private long offHeapBefore;

    @BeforeEach
    void setUp() throws Exception
    {
        offHeapBefore = OffHeap.allocatedBytes();
        countersFile = CountersFile.create(dir, "udp", 512, 4096, SystemEpochClock.INSTANCE);
        countersA = new PortCounters(countersFile, 0, 8);
        countersB = new PortCounters(countersFile, 1, 8);
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        // Reserve B's port first so A can name it as its peer.
        final int portB;
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(loopback, 0));
            portB = ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
        a = new UdpLink(new InetSocketAddress(loopback, 0), new InetSocketAddress(loopback, portB), 4098, countersA);
        b = new UdpLink(new InetSocketAddress(loopback, portB), a.localAddress(), 4098, countersB);
    }

    @AfterEach
    void tearDown()
    {
        a.close();
        b.close();
        countersFile.close();
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
        assertEquals(3, countersA.linkFramesSent.get());
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
        // From the real peer: too long (the kernel truncates into the fixed buffer), too short, empty.
        final int[] lengths = {4099, 9000, 60000, 7, 1, 0};
        try (DatagramChannel fromPeerAddress = DatagramChannel.open())
        {
            final InetSocketAddress aAddress = a.localAddress();
            a.close();
            fromPeerAddress.bind(aAddress);
            for (final int length : lengths)
            {
                final byte[] bytes = new byte[length];
                random.nextBytes(bytes);
                fromPeerAddress.send(ByteBuffer.wrap(bytes), b.localAddress());
            }
            fromPeerAddress.send(ByteBuffer.wrap(new byte[8]), b.localAddress());
        }
        final List<Integer> delivered = new ArrayList<>();
        Deadline.await(10, "every datagram to be looked at",
            () ->
            {
                b.poll((type, buffer, offset, length) -> delivered.add(length), 3);
                return countersB.linkFramesReceived.get() == 20 + lengths.length + 1;
            });
        assertEquals(20, countersB.linkForeignDrops.get());
        assertEquals(lengths.length, countersB.linkLengthDrops.get());
        assertEquals(List.of(8), delivered);
    }
}
