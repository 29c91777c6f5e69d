package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class LoopbackLinkTest
{
    @TempDir
    File dir;

    private CountersFile countersFile;
    private PortCounters countersA;
    private PortCounters countersB;
    private LinkCounters linkA;
    private LinkCounters linkB;

    @BeforeEach
    void setUp()
    {
        countersFile = CountersFile.create(dir, "loop", 512, 4096, SystemEpochClock.INSTANCE);
        final PortCounterSet setA = new PortCounterSet(countersFile, 0, 8);
        final PortCounterSet setB = new PortCounterSet(countersFile, 1, 8);
        linkA = setA.link();
        linkB = setB.link();
        countersA = setA.view();
        countersB = setB.view();
    }

    @AfterEach
    void tearDown()
    {
        countersFile.close();
    }

    @Test
    void framesCrossInBothDirectionsInOrderWithTheirTypesAndMemoryIsFreedWhenBothEndsClose()
    {
        final long before = OffHeap.allocatedBytes();
        final LoopbackLink[] ends = LoopbackLink.pair(64 * 1024, linkA, linkB);
        assertTrue(OffHeap.allocatedBytes() > before);

        send(ends[0], Link.DATA_FRAME, 4098, (byte)1);
        send(ends[0], Link.LINK_FRAME, 8, (byte)2);
        send(ends[1], Link.DATA_FRAME, 30, (byte)3);

        final List<String> atB = new ArrayList<>();
        assertEquals(2, ends[1].poll((type, buffer, offset, length) ->
            atB.add(type + ":" + length + ":" + buffer.getByte(offset + length - 1)), 10));
        assertEquals(List.of("1:4098:1", "2:8:2"), atB);

        final List<String> atA = new ArrayList<>();
        assertEquals(1, ends[0].poll((type, buffer, offset, length) -> atA.add(type + ":" + length), 10));
        assertEquals(List.of("1:30"), atA);
        assertEquals(0, ends[0].poll((type, buffer, offset, length) -> fail(), 10));
        assertEquals(2, countersA.linkFramesSent().get());
        assertEquals(2, countersB.linkFramesReceived().get());

        ends[0].close();
        assertTrue(OffHeap.allocatedBytes() > before, "the peer still uses the rings");
        ends[1].close();
        ends[1].close();
        assertEquals(before, OffHeap.allocatedBytes());
    }

    @Test
    void aFullRingPushesBackWithoutBlockingAndCounts()
    {
        final LoopbackLink[] ends = LoopbackLink.pair(64 * 1024, linkA, linkB);
        try
        {
            int sent = 0;
            while (send(ends[0], Link.DATA_FRAME, 4098, (byte)sent))
            {
                sent++;
            }
            assertTrue(sent >= 14 && sent <= 16, "64 KiB holds about 15 such frames: " + sent);
            assertEquals(1, countersA.linkBackPressure().get());
            assertEquals(1, ends[1].poll((type, buffer, offset, length) -> assertEquals(0, buffer.getByte(offset + 4097)), 1));
            assertEquals(sent - 1, ends[1].poll((type, buffer, offset, length) -> { }, 100));
            assertTrue(send(ends[0], Link.DATA_FRAME, 4098, (byte)1));
            assertThrows(IllegalArgumentException.class, () -> ends[0].tryClaim(Link.DATA_FRAME, 100_000));
            // the ring carries data and link frames only, as its receiving side (shared with the shm link) accepts
            assertThrows(IllegalArgumentException.class, () -> ends[0].tryClaim(3, 64));
        }
        finally
        {
            ends[0].close();
            ends[1].close();
        }
    }

    @Test
    void framesOfEveryLengthWrapTheRingManyTimesInOrderAndIntact()
    {
        final LoopbackLink[] ends = LoopbackLink.pair(64 * 1024, linkA, linkB);
        try
        {
            final java.util.Random random = new java.util.Random(66);
            final java.util.ArrayDeque<Integer> inFlight = new java.util.ArrayDeque<>();
            final int[] received = new int[1];
            long sent = 0;
            while (sent < 20_000)
            {
                final int length = 1 + random.nextInt(random.nextBoolean() ? 64 : ends[0].maxFrameLength());
                if (ends[0].hasRoomFor(length))
                {
                    assertTrue(send(ends[0], 1 + (length & 1), length, (byte)length));
                    inFlight.add(length);
                    sent++;
                }
                else
                {
                    assertTrue(ends[1].poll((type, buffer, offset, frameLength) ->
                    {
                        final int expected = inFlight.remove();
                        assertEquals(expected, frameLength);
                        assertEquals(1 + (expected & 1), type);
                        assertEquals((byte)expected, buffer.getByte(offset));
                        assertEquals((byte)expected, buffer.getByte(offset + frameLength - 1));
                        received[0]++;
                    }, 1 + random.nextInt(8)) > 0);
                }
            }
            while (!inFlight.isEmpty())
            {
                ends[1].poll((type, buffer, offset, frameLength) ->
                {
                    assertEquals(inFlight.remove().intValue(), frameLength);
                    received[0]++;
                }, 100);
            }
            assertEquals(sent, received[0]);
            assertEquals(sent, countersB.linkFramesReceived().get());
            assertEquals(0, countersA.linkBackPressure().get(), "hasRoomFor said yes only when a claim succeeds");
        }
        finally
        {
            ends[0].close();
            ends[1].close();
        }
    }

    static boolean send(final Link link, final int type, final int length, final byte fill)
    {
        final int offset = link.tryClaim(type, length);
        if (offset < 0)
        {
            return false;
        }
        link.buffer().setMemory(offset, length, fill);
        link.commit(offset);
        return true;
    }
}
