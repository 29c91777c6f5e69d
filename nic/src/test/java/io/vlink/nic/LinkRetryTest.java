package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LinkKey;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Link-level retry in the engine: a wire below the retry layer that loses and damages frames loses no message (the
 * damaged ones fail the receiver's CRC check and are asked for again), while with retry off the same wire loses what
 * it destroys and the credit layer recovers as the seed says; over UDP a stranger's garbage flood that overflows the
 * receiver's socket buffer costs retransmissions, not messages; ends that disagree on retry never train a session.
 */
class LinkRetryTest
{
    private static final int MESSAGES = 12_000;
    private static final int QPS = 3;

    @TempDir
    File dir;

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);

    /** A wire that loses and damages data packets and FCPs with a seeded probability each (below retry or not). */
    private static final class DamagingWire extends ForwardingLink
    {
        private final SplittableRandom random;
        private final double loss;
        private final double damage;
        private final int packetOffset;
        private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[Link.MAX_DATA_FRAME_LENGTH + 64]);
        private FrameHandler handler;
        long lost;
        long damaged;
        private final FrameHandler damaging = this::onFrame;

        DamagingWire(final Link delegate, final long seed, final double loss, final double damage, final int packetOffset)
        {
            super(delegate);
            this.random = new SplittableRandom(seed);
            this.loss = loss;
            this.damage = damage;
            this.packetOffset = packetOffset;
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            this.handler = handler;
            return delegate.poll(damaging, frameLimit);
        }

        private void onFrame(final int type, final DirectBuffer buffer, final int offset, final int length)
        {
            if (length <= packetOffset)
            {
                handler.onFrame(type, buffer, offset, length);
                return;
            }
            final double draw = random.nextDouble();
            if (draw < loss)
            {
                lost++;
                return;
            }
            if (draw < loss + damage)
            {
                damaged++;
                buffer.getBytes(offset, scratch, 0, length);
                // the bytes a CRC covers: every byte of a data packet, bytes 0-5 of an FCP (6-7 are ignored)
                final int bytes = Link.LINK_FRAME_LENGTH == length - packetOffset ? 6 : length - packetOffset;
                final int bit = random.nextInt(bytes * 8);
                final int at = packetOffset + (bit >>> 3);
                scratch.putByte(at, (byte)(scratch.getByte(at) ^ (1 << (bit & 7))));
                handler.onFrame(type, scratch, 0, length);
                return;
            }
            handler.onFrame(type, buffer, offset, length);
        }
    }

    private long[] sendAndReceive(final Engine engine, final Port a, final Port b, final int messages)
    {
        final QueuePair[] qps = new QueuePair[QPS];
        for (int i = 0; i < QPS; i++)
        {
            qps[i] = a.createQueuePair(10 + i, 2 * i, 20 + i);
        }
        final long[] next = new long[QPS];
        final long[] received = new long[QPS];
        final long[] outOfOrder = {0};
        final int[] sent = {0};
        final PacketHandler handler = packet ->
        {
            final int qp = packet.destQp() - 20;
            if (packet.buffer().getLong(packet.payloadOffset()) != received[qp])
            {
                outOfOrder[0]++;
            }
            received[qp] = packet.buffer().getLong(packet.payloadOffset()) + 1;
        };
        Deadline.await(60, "every message delivered", () -> received[0] + received[1] + received[2] >= messages, () ->
        {
            for (int i = 0; i < QPS && sent[0] < messages; i++)
            {
                message.putLong(0, next[i]);
                if (qps[i].offer(message, 0, message.capacity()) >= 0)
                {
                    next[i]++;
                    sent[0]++;
                }
            }
            clock.addAndGet(20_000);
            engine.invoke();
            b.poll(handler, 256);
        });
        return new long[]{received[0] + received[1] + received[2], outOfOrder[0]};
    }

    @Test
    void aWireBelowRetryThatLosesAndDamagesFramesLosesNoMessage()
    {
        final DamagingWire[] wires = new DamagingWire[2];
        final int[] ports = {0};
        try (Engine engine = Engine.builder().name("retry").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8)).clocks(clock::get, SystemEpochClock.INSTANCE).retry(true)
            .wireWrapper(link -> wires[ports[0]] = new DamagingWire(link, 31 + ports[0]++, 0.02, 0.01,
                RetryLink.HEADER_LENGTH))
            .build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> b.linkState() == LinkState.ACTIVE, () ->
            {
                clock.addAndGet(20_000);
                engine.invoke();
            });
            final long[] result = sendAndReceive(engine, a, b, MESSAGES);
            assertEquals(MESSAGES, result[0], "every message");
            assertEquals(0, result[1], "in order");
            EngineErrors.assertNone(engine.countersFile());
            assertTrue(wires[1].lost > 0 && wires[1].damaged > 0, "the wire to B lost and damaged frames");
            assertTrue(a.counters().linkRetransmits().get() > wires[1].lost, "each lost frame sent again, and more");
            assertTrue(b.counters().linkReplayRequests().get() > 0);
            final long badCrc = b.counters().discards(DiscardReason.DATA_BAD_CRC.id()).get();
            assertTrue(badCrc > 0 && badCrc <= wires[1].damaged,
                "damaged frames reached the CRC check (or were discarded after a gap first): " + badCrc);
            assertEquals(0, b.counters().linkRetryFailures().get());
            assertEquals(0, b.counters().discards(DiscardReason.DATA_OVERFLOW.id()).get());
            assertEquals(0, a.counters().linkDowned().get() + b.counters().linkDowned().get() +
                a.counters().linkErrorRecovery().get() + b.counters().linkErrorRecovery().get(), "no link error");
        }
    }

    @Test
    void withRetryOffTheSameWireLosesWhatItDestroysAndTheCreditsRecover()
    {
        final DamagingWire[] wires = new DamagingWire[2];
        final int[] ports = {0};
        try (Engine engine = Engine.builder().name("seed").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8)).clocks(clock::get, SystemEpochClock.INSTANCE)
            .wireWrapper(link -> wires[ports[0]] = new DamagingWire(link, 31 + ports[0]++, 0.02, 0.01, 0))
            .build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            assertFalse(a.link() instanceof RetryLink, "off by default on loopback");
            Deadline.await(10, "link active", () -> b.linkState() == LinkState.ACTIVE, () ->
            {
                clock.addAndGet(20_000);
                engine.invoke();
            });
            // only 95 % of what is sent can arrive: stop at that and count
            final long[] result = sendAndReceive(engine, a, b, MESSAGES * 95 / 100);
            assertTrue(result[1] > 0, "gaps: lost messages");
            assertEquals(0, a.counters().linkRetransmits().get());
            assertTrue(b.counters().discards(DiscardReason.DATA_BAD_CRC.id()).get() > 0, "dropped on a CRC error");
            assertEquals(0, b.counters().linkDowned().get() + b.counters().linkErrorRecovery().get(),
                "the credit layer recovers without a link reset");
        }
    }

    @Test
    @Tag("long")
    void aStrangersGarbageFloodThatOverflowsTheSocketBufferCostsRetransmissionsNotMessages() throws IOException
    {
        final long offHeapBefore = OffHeap.allocatedBytes();
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final InetSocketAddress addressA = new InetSocketAddress(loopback, freePort());
        final InetSocketAddress addressB = new InetSocketAddress(loopback, freePort());
        final LinkKey key = LinkKey.random();
        try (Engine a = udpEngine("flood-a", addressA, addressB, 1, 2, key, true);
            Engine b = udpEngine("flood-b", addressB, addressA, 2, 1, key, true);
            DatagramChannel stranger = DatagramChannel.open())
        {
            stranger.bind(new InetSocketAddress(loopback, 0));
            Deadline.await(10, "both Active", () -> a.port(0).linkState() == LinkState.ACTIVE &&
                b.port(0).linkState() == LinkState.ACTIVE, () -> invoke(a, b));
            final QueuePair qp = a.port(0).createQueuePair(5, 0, 6);
            final ByteBuffer garbage = ByteBuffer.allocateDirect(1200);
            final SplittableRandom random = new SplittableRandom(772);
            final long[] received = {0};
            final long[] outOfOrder = {0};
            final PacketHandler handler = packet ->
            {
                if (packet.buffer().getLong(packet.payloadOffset()) != received[0]++)
                {
                    outOfOrder[0]++;
                }
            };
            final int messages = 3000;
            long sent = 0;
            long flood = 0;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (received[0] < messages)
            {
                assertTrue(System.nanoTime() < deadline, "stalled at " + received[0] + " of " + messages);
                if (sent < messages && flood < 60_000)
                {
                    // a burst of garbage while B does not read: its socket buffer overflows; then A sends into it
                    for (int i = 0; i < 2_000; i++, flood++)
                    {
                        garbage.clear();
                        garbage.putLong(0, random.nextLong());
                        stranger.send(garbage, addressB);
                    }
                }
                for (int i = 0; i < 64 && sent < messages; i++)
                {
                    message.putLong(0, sent);
                    if (qp.offer(message, 0, message.capacity()) < 0)
                    {
                        break;
                    }
                    sent++;
                }
                clock.addAndGet(50_000);
                a.invoke();
                b.invoke();
                b.port(0).poll(handler, 256);
            }
            assertEquals(0, outOfOrder[0]);
            final long foreign = b.port(0).counters().linkForeignDrops().get();
            assertTrue(foreign > 0 && foreign <= flood, "the flood reached B: " + foreign + " of " + flood);
            assertTrue(foreign < flood, "and overflowed its socket buffer: " + foreign + " of " + flood + " read");
            assertTrue(a.port(0).counters().linkRetransmits().get() > 0, "what the kernel dropped was sent again");
            assertTrue(b.port(0).counters().linkReplayRequests().get() + a.port(0).counters().linkRetryTimeouts().get() > 0);
            assertEquals(0, b.port(0).counters().linkMacDrops().get(), "the stranger's garbage is not even a datagram of ours");
            EngineErrors.assertNone(a.countersFile());
            EngineErrors.assertNone(b.countersFile());
        }
        assertEquals(offHeapBefore, OffHeap.allocatedBytes());
    }

    @Test
    void endsThatDisagreeOnRetryNeverTrainASession() throws IOException
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final InetSocketAddress addressA = new InetSocketAddress(loopback, freePort());
        final InetSocketAddress addressB = new InetSocketAddress(loopback, freePort());
        try (Engine a = udpEngine("agree-a", addressA, addressB, 1, 2, null, true);
            Engine b = udpEngine("agree-b", addressB, addressA, 2, 1, null, false))
        {
            Deadline.await(10, "HELLOs refused on both sides", () ->
                a.port(0).counters().linkSessionDrops().get() > 2 && b.port(0).counters().linkSessionDrops().get() > 2,
                () -> invoke(a, b));
            assertEquals(LinkState.INITIALIZE, a.port(0).linkState());
            assertEquals(LinkState.INITIALIZE, b.port(0).linkState());
        }
    }

    private Engine udpEngine(
        final String name, final InetSocketAddress local, final InetSocketAddress remote, final int localLid,
        final int remoteLid, final LinkKey key, final boolean retry)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(2)).clocks(clock::get, SystemEpochClock.INSTANCE)
            .udp(local, remote, localLid, remoteLid).udpKey(key).retry(retry).build();
    }

    private void invoke(final Engine a, final Engine b)
    {
        clock.addAndGet(50_000);
        a.invoke();
        b.invoke();
    }

    private static int freePort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
