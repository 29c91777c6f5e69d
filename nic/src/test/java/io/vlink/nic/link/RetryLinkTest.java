package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.LinkCounters;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link RetryLink} over a loopback pair with a wire below it that loses, duplicates and damages frames, on an
 * injected clock: every frame arrives once and in order, a damaged frame is asked for again, a full replay buffer is
 * back-pressure, a lost acknowledgement is repaired by the retry timer, a restarted peer starts a new session, and
 * malformed frames are counted, never thrown.
 */
class RetryLinkTest
{
    private static final long TIMEOUT_NS = 1_000_000;

    @TempDir
    File dir;

    private TwoPorts ports;

    private final long[] now = {1};
    private final NanoClock clock = () -> now[0];

    /** A wire below retry that loses, duplicates or holds back what its end receives. */
    private static final class Wire extends ForwardingLink
    {
        final SplittableRandom random;
        double loss;
        double duplication;
        boolean cut;
        long incarnation = UNKNOWN_INCARNATION;
        long peer = UNKNOWN_INCARNATION;
        int frames;

        Wire(final Link delegate, final long seed)
        {
            super(delegate);
            random = new SplittableRandom(seed);
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            return delegate.poll((type, buffer, offset, length) ->
            {
                frames++;
                if (cut || random.nextDouble() < loss)
                {
                    return;
                }
                handler.onFrame(type, buffer, offset, length);
                if (random.nextDouble() < duplication)
                {
                    handler.onFrame(type, buffer, offset, length);
                }
            }, frameLimit);
        }

        @Override
        public long incarnation()
        {
            return incarnation;
        }

        @Override
        public long peerIncarnation()
        {
            return peer;
        }
    }

    @BeforeEach
    void setUp()
    {
        ports = new TwoPorts(dir, "retry");
    }

    @AfterEach
    void tearDown()
    {
        ports.close();
    }

    private Wire[] wires(final long seed)
    {
        final LoopbackLink[] ends = LoopbackLink.pair(1 << 20, ports.linkA, ports.linkB);
        return new Wire[]{new Wire(ends[0], seed), new Wire(ends[1], seed + 1)};
    }

    private RetryLink retry(final Link wire, final LinkCounters counters, final int replayBytes)
    {
        return new RetryLink(wire, counters, clock, replayBytes, TIMEOUT_NS, RetryLink.DEFAULT_BURST);
    }

    /** Send one data frame of {@code length} bytes whose first int is {@code value}, if there is room. */
    private static boolean send(final Link link, final int value, final int length)
    {
        if (!link.hasRoomFor(length))
        {
            return false;
        }
        final int offset = link.tryClaim(Link.DATA_FRAME, length);
        assertTrue(offset >= 0, "room was promised");
        link.buffer().putInt(offset, value);
        link.buffer().putByte(offset + length - 1, (byte)value);
        link.commit(offset);
        return true;
    }

    /** One turn of both ends: each transmits its due, then each receives; the clock moves 10 us. */
    private void turn(final RetryLink a, final RetryLink b, final FrameHandler atB)
    {
        a.flush();
        b.flush();
        b.poll(atB, 64);
        a.poll((type, buffer, offset, length) -> { }, 64);
        now[0] += 10_000;
    }

    @Test
    void everyFrameArrivesOnceAndInOrderOverAWireThatLosesAndDuplicatesBothWays()
    {
        final Wire[] wires = wires(7);
        for (final Wire wire : wires)
        {
            wire.loss = 0.03;
            wire.duplication = 0.03;
        }
        final RetryLink a = retry(wires[0], ports.linkA, 1 << 16);
        final RetryLink b = retry(wires[1], ports.linkB, 1 << 16);
        final List<Integer> received = new ArrayList<>();
        final FrameHandler atB = (type, buffer, offset, length) ->
        {
            assertEquals(Link.DATA_FRAME, type);
            final int value = buffer.getInt(offset);
            assertEquals(16 + value % 500, length, "length of " + value);
            assertEquals((byte)value, buffer.getByte(offset + length - 1));
            received.add(value);
        };
        final int frames = 5000;
        int sent = 0;
        for (int turns = 0; received.size() < frames; turns++)
        {
            assertTrue(turns < 200_000, "stalled at " + received.size());
            for (int i = 0; i < 8 && sent < frames && send(a, sent, 16 + sent % 500); i++)
            {
                sent++;
            }
            turn(a, b, atB);
        }
        for (int i = 0; i < frames; i++)
        {
            assertEquals(i, received.get(i));
        }
        assertTrue(ports.countersA.linkRetransmits().get() > 0);
        assertTrue(ports.countersB.linkReplayRequests().get() > 0);
        assertTrue(ports.countersB.linkOutOfOrder().get() > 0);
        assertTrue(ports.countersB.linkDuplicates().get() > 0, "the wire duplicates");
        assertEquals(0, ports.countersB.linkRetryFailures().get());
        for (int i = 0; i < 200; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(frames, received.size(), "nothing more once all is acknowledged");
        assertTrue(a.hasRoomFor(a.maxFrameLength()), "every frame acknowledged: the window is open");
        a.close();
        b.close();
    }

    @Test
    void aDamagedFrameIsAskedForAgainUpToTheLimitThenLetThrough()
    {
        final Wire[] wires = wires(1);
        final RetryLink a = retry(wires[0], ports.linkA, 1 << 16);
        final RetryLink b = retry(wires[1], ports.linkB, 1 << 16);
        final List<Integer> received = new ArrayList<>();
        final int[] rejections = {0};
        final int[] rejectValue = {3};
        final FrameHandler atB = (type, buffer, offset, length) ->
        {
            final int value = buffer.getInt(offset);
            if (value == rejectValue[0] && rejections[0] < RetryLink.REJECT_LIMIT + 1)
            {
                rejections[0]++;
                b.rejectFrame();
                return;
            }
            received.add(value);
        };
        for (int i = 0; i < 6; i++)
        {
            assertTrue(send(a, i, 64));
        }
        for (int i = 0; i < 20 && received.size() < 6; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(List.of(0, 1, 2), received.subList(0, 3));
        // 3 rejected REJECT_LIMIT + 1 times: asked for again each time, then let through as it is (not taken here)
        for (int i = 0; i < 400 && received.size() < 5; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(RetryLink.REJECT_LIMIT + 1, rejections[0]);
        assertEquals(List.of(0, 1, 2, 4, 5), received);
        assertEquals(RetryLink.REJECT_LIMIT, ports.countersB.linkReplayRequests().get());
        assertEquals(1, ports.countersB.linkRetryFailures().get(), "given up once");
        assertTrue(ports.countersA.linkRetransmits().get() >= RetryLink.REJECT_LIMIT);

        // once rejected, asked again and then taken: nothing lost, nothing given up
        rejectValue[0] = 7;
        rejections[0] = RetryLink.REJECT_LIMIT;
        assertTrue(send(a, 6, 64));
        assertTrue(send(a, 7, 64));
        for (int i = 0; i < 20 && received.size() < 7; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(List.of(0, 1, 2, 4, 5, 6, 7), received);
        assertEquals(1, ports.countersB.linkRetryFailures().get());
        a.close();
        b.close();
    }

    @Test
    void aFullReplayBufferPushesBackAndALostAcknowledgementIsRepairedByTheTimersProbe()
    {
        final Wire[] wires = wires(2);
        final RetryLink a = retry(wires[0], ports.linkA, RetryLink.MIN_REPLAY_BUFFER_BYTES);
        final RetryLink b = retry(wires[1], ports.linkB, RetryLink.MIN_REPLAY_BUFFER_BYTES);
        assertEquals(256, a.windowFrames());
        int sent = 0;
        while (send(a, sent, 64))
        {
            sent++;
            a.flush();
        }
        assertEquals(256, sent, "one slot per 256 bytes of the replay buffer");
        assertEquals(1, ports.countersA.linkReplayFull().get(), "one episode");
        assertFalse(a.hasRoomFor(64));
        assertEquals(Link.BACK_PRESSURED, a.tryClaim(Link.DATA_FRAME, 64));
        assertEquals(1, ports.countersA.linkReplayFull().get(), "still the same episode");

        // B receives everything, but every acknowledgement is lost on the way back
        wires[0].cut = true;
        final int[] received = {0};
        final FrameHandler atB = (type, buffer, offset, length) -> assertEquals(received[0]++, buffer.getInt(offset));
        for (int i = 0; i < 10; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(256, received[0]);
        assertFalse(a.hasRoomFor(64), "no acknowledgement came");
        assertEquals(0, ports.countersA.linkRetryTimeouts().get());
        now[0] += TIMEOUT_NS;
        wires[0].cut = false;
        for (int i = 0; i < 20; i++)
        {
            turn(a, b, atB);
        }
        assertEquals(1, ports.countersA.linkRetryTimeouts().get(), "the timer sent the oldest frame again");
        assertEquals(1, ports.countersA.linkRetransmits().get(), "alone: a probe");
        assertEquals(1, ports.countersB.linkDuplicates().get(), "delivered already: discarded, and acknowledged again");
        assertEquals(256, received[0]);
        assertTrue(a.hasRoomFor(64), "acknowledged at last");
        assertTrue(ports.countersB.linkAcksSent().get() >= 2);
        a.close();
        b.close();
    }

    @Test
    void aPeerThatRestartsStartsANewSessionAndGetsNothingOfTheOldOne()
    {
        final Wire[] wires = wires(3);
        wires[0].incarnation = 11;
        wires[0].peer = 22;
        wires[1].incarnation = 22;
        wires[1].peer = 11;
        final RetryLink a = retry(wires[0], ports.linkA, 1 << 16);
        final RetryLink b = retry(wires[1], ports.linkB, 1 << 16);
        final List<Integer> atB = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            assertTrue(send(a, i, 64));
        }
        b.poll((type, buffer, offset, length) -> atB.add(buffer.getInt(offset)), 3);
        assertEquals(List.of(0, 1, 2), atB);

        // B restarts with a new incarnation before it read 3 and 4 (a new retry link on the same wire end); A's wire
        // now knows the new peer
        wires[1].incarnation = 33;
        wires[0].peer = 33;
        final RetryLink newB = retry(wires[1], ports.linkB, 1 << 16);
        final List<Integer> atNewB = new ArrayList<>();
        assertTrue(send(a, 100, 64), "a new session: the old frames are gone, the window is open");
        for (int i = 0; i < 10; i++)
        {
            a.flush();
            newB.flush();
            newB.poll((type, buffer, offset, length) -> atNewB.add(buffer.getInt(offset)), 64);
            a.poll((type, buffer, offset, length) -> { }, 64);
            now[0] += 10_000;
        }
        assertEquals(List.of(100), atNewB, "3 and 4 were for the old incarnation");
        assertEquals(2, ports.countersB.linkOutOfOrder().get(), "3 and 4 of the old session's numbering, after a gap");
        a.close();
        newB.close();
        b.close();
    }

    @Test
    void malformedFramesAreCountedAndNeverThrown()
    {
        final LoopbackLink[] ends = LoopbackLink.pair(1 << 20, ports.linkA, ports.linkB);
        final RetryLink b = retry(ends[1], ports.linkB, 1 << 16);
        final UnsafeBuffer frame = new UnsafeBuffer(new byte[256]);
        final SplittableRandom random = new SplittableRandom(5);
        int malformed = 0;
        // short, a bad magic, an unknown kind, an acknowledgement with a frame after it, a data header with none
        malformed += raw(ends[0], frame, 5, 0);
        malformed += raw(ends[0], frame, 32, 0x41010000);
        malformed += raw(ends[0], frame, 32, 0x52090000);
        malformed += raw(ends[0], frame, 32, 0x52030000);
        malformed += raw(ends[0], frame, RetryLink.HEADER_LENGTH, 0x52010000);
        for (int i = 0; i < 2000; i++)
        {
            final int length = 1 + random.nextInt(255);
            for (int j = 0; j < length; j++)
            {
                frame.putByte(j, (byte)random.nextInt());
            }
            malformed += raw(ends[0], frame, length, frame.getInt(0, ByteOrder.BIG_ENDIAN) & 0x00FFFFFF);
            b.poll((type, buffer, offset, length2) -> { }, 64);
        }
        b.poll((type, buffer, offset, length) -> { }, 64);
        assertEquals(malformed, ports.countersB.linkLengthDrops().get());
        b.flush();
        b.close();
        ends[0].close();
    }

    /** Put raw bytes on the wire below retry, the first int replaced; returns 1 (one malformed frame). */
    private static int raw(final Link link, final UnsafeBuffer frame, final int length, final int first)
    {
        if (length >= 4)
        {
            frame.putInt(0, first, ByteOrder.BIG_ENDIAN);
        }
        final int offset = link.tryClaim(Link.DATA_FRAME, length);
        link.buffer().putBytes(offset, frame, 0, length);
        link.commit(offset);
        return 1;
    }

    @Test
    void settingsAreCheckedAndAWireItCannotWrapIsClosed()
    {
        final long before = OffHeap.allocatedBytes();
        final LoopbackLink[] ends = LoopbackLink.pair(1 << 20, ports.linkA, ports.linkB);
        assertThrows(IllegalArgumentException.class, () -> new RetryLink(ends[0], ports.linkA, clock, 3 << 20, TIMEOUT_NS, 64));
        assertThrows(IllegalArgumentException.class, () -> new RetryLink(ends[0], ports.linkA, clock, 1 << 15, TIMEOUT_NS, 64));
        assertThrows(IllegalArgumentException.class, () -> new RetryLink(ends[0], ports.linkA, clock, 1 << 16, 99_999, 64));
        assertThrows(IllegalArgumentException.class, () -> new RetryLink(ends[0], ports.linkA, clock, 1 << 16, TIMEOUT_NS, 0));
        assertThrows(IllegalArgumentException.class,
            () -> RetryLink.over(ends[0], ports.linkA, clock, 1 << 16, 1_000_000_001L, 64));
        final RetryLink link = RetryLink.over(ends[1], ports.linkB, clock, 1 << 16, RetryLink.MIN_RETRY_TIMEOUT_NS, 64);
        assertEquals(ends[1], link.wire());
        assertEquals(ends[1].maxFrameLength() - RetryLink.HEADER_LENGTH, link.maxFrameLength());
        assertThrows(IllegalArgumentException.class, () -> link.tryClaim(Link.DATA_FRAME, link.maxFrameLength() + 1));
        assertThrows(IllegalArgumentException.class, () -> link.tryClaim(0, 64));
        link.close();
        link.close();
        assertEquals(before, OffHeap.allocatedBytes(), "the wire over() could not wrap was closed, and the link's");
    }
}
