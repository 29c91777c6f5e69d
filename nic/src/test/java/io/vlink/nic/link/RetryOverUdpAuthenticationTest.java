package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link-level retry over an authenticated UDP link (docs/engine.md, "What the UDP link defends against"): an attacker
 * who sends from the peer's address and knows the session (both nonces, the peer's incarnation, what to acknowledge),
 * but not the key, can neither acknowledge frames (the sender would free what the peer never had) nor make the sender
 * replay them; the very same datagrams sealed with the key do both, so the forgeries are well-formed and refused only
 * for their MAC.
 */
class RetryOverUdpAuthenticationTest
{
    private static final int FRAMES = 10;
    private static final LinkKey KEY = LinkKey.of(0x1122334455667788L, 0x99AABBCCDDEEFF00L);
    private static final LinkKey NOT_THE_KEY = LinkKey.of(0x1122334455667788L, 0x99AABBCCDDEEFF01L);

    @TempDir
    File dir;

    private TwoPorts ports;

    private final long[] now = {1};
    private UdpLink wireA;
    private UdpLink wireB;
    private RetryLink a;
    private RetryLink b;
    private long offHeapBefore;
    private long forgedSequence = 1_000_000;

    @BeforeEach
    void setUp() throws IOException
    {
        offHeapBefore = OffHeap.allocatedBytes();
        ports = new TwoPorts(dir, "retry-auth");
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final int portB = UdpLinkTest.freePort();
        wireA = new UdpLink(new InetSocketAddress(loopback, 0), new InetSocketAddress(loopback, portB),
            UdpLink.MAX_FRAME_LENGTH, ports.linkA, KEY, SystemNanoClock.INSTANCE, 1_000_000L, true);
        wireB = new UdpLink(new InetSocketAddress(loopback, portB), wireA.localAddress(),
            UdpLink.MAX_FRAME_LENGTH, ports.linkB, KEY, SystemNanoClock.INSTANCE, 1_000_000L, true);
        // the retry timer's clock stands still: no probe, no acknowledgement of its own is ever due
        a = new RetryLink(wireA, ports.linkA, () -> now[0], RetryLink.MIN_REPLAY_BUFFER_BYTES,
            RetryLink.MAX_RETRY_TIMEOUT_NS, RetryLink.DEFAULT_BURST);
        b = new RetryLink(wireB, ports.linkB, () -> now[0], RetryLink.MIN_REPLAY_BUFFER_BYTES,
            RetryLink.MAX_RETRY_TIMEOUT_NS, RetryLink.DEFAULT_BURST);
        UdpLinkTest.establish(wireA, wireB);
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
    void withoutTheKeyAnAttackerAtThePeersAddressCanNeitherAcknowledgeFramesNorTriggerReplays() throws IOException
    {
        for (int i = 0; i < FRAMES; i++)
        {
            assertTrue(send(a, i), "frame " + i);
        }
        a.flush();
        assertEquals(FRAMES, a.unacknowledged(), "held until port B acknowledges them");
        final InetSocketAddress addressB = wireB.localAddress();
        final long nonceA = wireA.nonce();
        final long nonceB = wireB.nonce();
        // port B dies before it reads anything; the attacker takes its address and knows the session
        wireB.closeWithoutNotice();
        try (DatagramChannel attacker = DatagramChannel.open())
        {
            attacker.bind(addressB);
            attacker.send(forged(nonceB, nonceA, RetryLink.FLAG_ACK, FRAMES, NOT_THE_KEY), wireA.localAddress());
            awaitRefusedOrTaken(1);
            assertEquals(FRAMES, a.unacknowledged(), "a forged acknowledgement frees nothing");
            attacker.send(forged(nonceB, nonceA,
                RetryLink.FLAG_ACK | RetryLink.FLAG_REPLAY | RetryLink.FLAG_DAMAGED, 0, NOT_THE_KEY), wireA.localAddress());
            awaitRefusedOrTaken(2);
            assertEquals(0, ports.countersA.linkRetransmits().get(), "a forged replay request sends nothing again");
            assertEquals(FRAMES, a.unacknowledged());
            assertEquals(0, ports.countersA.linkRetryFailures().get());

            // the same datagrams sealed with the key: a replay of every frame, then all of them acknowledged
            attacker.send(forged(nonceB, nonceA,
                RetryLink.FLAG_ACK | RetryLink.FLAG_REPLAY | RetryLink.FLAG_DAMAGED, 0, KEY), wireA.localAddress());
            Deadline.await(10, "the keyed replay request", () -> FRAMES == ports.countersA.linkRetransmits().get(), this::turnA);
            attacker.send(forged(nonceB, nonceA, RetryLink.FLAG_ACK, FRAMES, KEY), wireA.localAddress());
            Deadline.await(10, "the keyed acknowledgement", () -> 0 == a.unacknowledged(), this::turnA);
            assertEquals(2, ports.countersA.linkMacDrops().get());
        }
    }

    /** Port A's turns until it refused the forgeries for their MAC, or took one (a failure the asserts show). */
    private void awaitRefusedOrTaken(final long macDrops)
    {
        Deadline.await(10, "the forgery refused, or taken", () -> macDrops == ports.countersA.linkMacDrops().get() ||
            a.unacknowledged() < FRAMES || ports.countersA.linkRetransmits().get() > 0, this::turnA);
        for (int i = 0; i < 3; i++)
        {
            turnA();
        }
    }

    private void turnA()
    {
        a.poll((type, buffer, offset, length) ->
        {
            throw new AssertionError("port B never sends a frame");
        }, 16);
        a.flush();
    }

    /** A datagram of the session from port B: a retry acknowledgement (kind 3), sealed with {@code key}. */
    private ByteBuffer forged(final long sender, final long receiver, final int flags, final int ack, final LinkKey key)
    {
        final int length = UdpLink.HEADER_LENGTH + RetryLink.HEADER_LENGTH;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[length + UdpLink.MAC_LENGTH]);
        buffer.putShort(UdpLink.MAGIC_OFFSET, UdpLink.MAGIC, ByteOrder.BIG_ENDIAN);
        buffer.putByte(UdpLink.VERSION_OFFSET, UdpLink.VERSION);
        buffer.putByte(UdpLink.TYPE_OFFSET, UdpLink.TYPE_FRAME);
        buffer.putLong(UdpLink.SENDER_OFFSET, sender, ByteOrder.BIG_ENDIAN);
        buffer.putLong(UdpLink.RECEIVER_OFFSET, receiver, ByteOrder.BIG_ENDIAN);
        buffer.putLong(UdpLink.SEQUENCE_OFFSET, forgedSequence++, ByteOrder.BIG_ENDIAN);
        final int retry = UdpLink.HEADER_LENGTH;
        buffer.putInt(retry, (RetryLink.MAGIC << 24) | (RetryLink.KIND_ACK << 16) | flags, ByteOrder.BIG_ENDIAN);
        buffer.putInt(retry + RetryLink.ACK_OFFSET, ack, ByteOrder.BIG_ENDIAN);
        buffer.putLong(retry + RetryLink.INCARNATION_OFFSET, sender, ByteOrder.BIG_ENDIAN);
        buffer.putLong(length, SipHash.hash(key.k0(), key.k1(), buffer, 0, length), ByteOrder.LITTLE_ENDIAN);
        return ByteBuffer.wrap(buffer.byteArray());
    }

    private static boolean send(final Link link, final int value)
    {
        final int length = 100;
        if (!link.hasRoomFor(length))
        {
            return false;
        }
        final int offset = link.tryClaim(Link.DATA_FRAME, length);
        link.buffer().putInt(offset, value);
        link.commit(offset);
        return true;
    }
}
