package io.vlink.nic.link;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The shared-memory link: what the loopback and UDP links are tested for (frames in order with their types, a
 * full ring, rings wrapping, garbage and out-of-bounds positions from the peer), plus what two processes need
 * (a peer that dies mid-frame, a restarted peer's new incarnation, ownership of an end, a stale file reclaimed).
 */
class ShmLinkTest
{
    private static final int CAPACITY = 64 * 1024;

    @TempDir
    File dir;

    private TwoPorts ports;

    private Path file;
    private final List<ShmLink> opened = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        ports = new TwoPorts(dir, "shm");
        file = dir.toPath().resolve("link.shm");
    }

    @AfterEach
    void tearDown()
    {
        opened.forEach(ShmLink::close);
        ports.close();
    }

    private ShmLink open(final ShmLink.Role role)
    {
        final ShmLink link = ShmLink.open(file, role, CAPACITY, ShmLink.Role.A == role ? ports.linkA : ports.linkB);
        opened.add(link);
        return link;
    }

    @Test
    void framesCrossInBothDirectionsInOrderWithTheirTypesAndTheLastEndToCloseRemovesTheFile() throws Exception
    {
        final ShmLink a = open(ShmLink.Role.A);
        assertTrue(Files.exists(file));
        assertEquals(Link.BACK_PRESSURED, a.tryClaim(Link.DATA_FRAME, 100), "no peer: nothing flows");
        assertFalse(a.hasRoomFor(100));
        final ShmLink b = open(ShmLink.Role.B);

        send(a, Link.DATA_FRAME, 4098, (byte)1);
        send(a, Link.LINK_FRAME, 8, (byte)2);
        send(b, Link.DATA_FRAME, 30, (byte)3);

        final List<String> atB = new ArrayList<>();
        assertEquals(2, b.poll((type, buffer, offset, length) ->
            atB.add(type + ":" + length + ":" + buffer.getByte(offset + length - 1)), 10));
        assertEquals(List.of("1:4098:1", "2:8:2"), atB);
        final List<String> atA = new ArrayList<>();
        assertEquals(1, a.poll((type, buffer, offset, length) -> atA.add(type + ":" + length), 10));
        assertEquals(List.of("1:30"), atA);
        assertEquals(0, a.poll((type, buffer, offset, length) -> fail(), 10));
        assertEquals(2, ports.countersA.linkFramesSent().get());
        assertEquals(2, ports.countersB.linkFramesReceived().get());

        send(a, Link.DATA_FRAME, 50, (byte)4);
        a.close();
        assertTrue(Files.exists(file), "the peer is still attached");
        assertEquals(Link.UNKNOWN_INCARNATION, b.peerIncarnation());
        assertEquals(1, b.poll((type, buffer, offset, length) -> assertEquals(50, length), 10),
            "what a peer committed before closing is delivered");
        assertEquals(Link.BACK_PRESSURED, b.tryClaim(Link.DATA_FRAME, 10), "nobody to send to");
        b.close();
        b.close();
        assertFalse(Files.exists(file), "the last end out removes the file");
        try (java.util.stream.Stream<Path> left = Files.list(dir.toPath()))
        {
            assertEquals(List.of(), left.filter(p -> !p.toString().endsWith(".counters")).toList(),
                "nothing left behind, no temporary file either");
        }
    }

    @Test
    void aPeerThatClosesIsReportedOnceAfterEverythingItCommitted()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        final List<String> atB = new ArrayList<>();
        final FrameHandler handler = new FrameHandler()
        {
            @Override
            public void onFrame(final int frameType, final org.agrona.DirectBuffer buffer, final int offset, final int length)
            {
                atB.add("frame " + length);
            }

            @Override
            public void onPeerClosed()
            {
                atB.add("closed");
            }
        };
        b.poll(handler, 10);
        send(a, Link.DATA_FRAME, 50, (byte)4);
        send(a, Link.DATA_FRAME, 60, (byte)5);
        a.close();
        b.poll(handler, 1);
        assertEquals(List.of("frame 50"), atB, "not before the last frame is read");
        b.poll(handler, 10);
        b.poll(handler, 10);
        assertEquals(List.of("frame 50", "frame 60", "closed"), atB, "once, after the frames");
        // a restarted peer attaches: it is reported again when it closes
        final ShmLink again = open(ShmLink.Role.A);
        b.poll(handler, 10);
        again.close();
        b.poll(handler, 10);
        assertEquals(List.of("frame 50", "frame 60", "closed", "closed"), atB);
    }

    @Test
    void incarnationsAndHeartbeatsAreReadableByThePeer()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        assertNotEquals(Link.UNKNOWN_INCARNATION, a.incarnation());
        assertNotEquals(a.incarnation(), b.incarnation());
        assertEquals(b.incarnation(), a.peerIncarnation());
        assertEquals(a.incarnation(), b.peerIncarnation());
        final long before = a.peerHeartbeat();
        b.poll((type, buffer, offset, length) -> { }, 1);
        b.poll((type, buffer, offset, length) -> { }, 1);
        assertEquals(before + 2, a.peerHeartbeat(), "one beat per poll (the receive duty cycle)");
    }

    @Test
    void aFullRingPushesBackWithoutBlockingAndCountsThenDrains()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        int sent = 0;
        while (send(a, Link.DATA_FRAME, 4098, (byte)sent))
        {
            sent++;
        }
        assertTrue(sent >= 14 && sent <= 16, "64 KiB holds 15 records of 4 KiB: " + sent);
        assertTrue(ports.countersA.linkBackPressure().get() >= 1);
        assertFalse(a.hasRoomFor(4098));
        final int[] next = {0};
        assertEquals(sent, b.poll((type, buffer, offset, length) ->
            assertEquals((byte)next[0]++, buffer.getByte(offset + length - 1)), 100));
        assertTrue(a.hasRoomFor(4098));
        assertTrue(send(a, Link.DATA_FRAME, 4098, (byte)7));
    }

    @Test
    void twentyThousandFramesOfRandomLengthsWrapTheRingInOrderAndIntact()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        final Random random = new Random(42);
        final long[] received = {0};
        long sent = 0;
        while (received[0] < 20_000)
        {
            while (sent < 20_000)
            {
                final int length = 1 + random.nextInt(a.maxFrameLength());
                final int offset = a.tryClaim(Link.DATA_FRAME, length);
                if (Link.BACK_PRESSURED == offset)
                {
                    break;
                }
                a.buffer().putByte(offset, (byte)sent);
                a.buffer().putByte(offset + length - 1, (byte)length);
                a.commit(offset);
                sent++;
            }
            b.poll((type, buffer, offset, length) ->
            {
                assertEquals((byte)length, buffer.getByte(offset + length - 1));
                if (length >= 2)
                {
                    assertEquals((byte)received[0], buffer.getByte(offset), "FIFO");
                }
                received[0]++;
            }, 64);
        }
        assertEquals(20_000, received[0]);
        assertEquals(0, ports.countersB.linkLengthDrops().get());
        assertEquals(0, ports.countersB.linkSessionDrops().get());
    }

    @Test
    void garbageFromAHostilePeerIsDroppedAndCountedAndNeverReadOutOfBounds()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final UnsafeBuffer header = a.headerBuffer();
        final UnsafeBuffer ring = a.receiveRing();
        // a hostile end B: a live owner (this process), an incarnation, and whatever it likes in its ring
        final long incarnationB = 0x1234_5678_9ABC_DEF0L;
        final int endB = ShmLink.endIndex(1);
        header.putLongVolatile(endB + ShmLink.PID_OFFSET, ProcessHandle.current().pid());
        header.putLongVolatile(endB + ShmLink.INCARNATION_OFFSET, incarnationB);
        final long session = ShmLink.session(a.incarnation(), incarnationB);
        final int tail = ShmLink.tailIndex(1);
        final List<Integer> delivered = new ArrayList<>();
        final FrameHandler handler = (type, buffer, offset, length) -> delivered.add(length);
        long position = header.getLong(tail);

        // a tail more than a ring ahead; a tail that is not aligned; a tail behind the head
        for (final long bad : new long[] {position + CAPACITY + 8, position + 3, position - 64})
        {
            final long drops = ports.countersA.linkLengthDrops().get();
            header.putLongRelease(tail, bad);
            assertEquals(0, a.poll(handler, 10));
            assertEquals(drops + 1, ports.countersA.linkLengthDrops().get());
            position = bad;
        }
        position = (position + ShmLink.ALIGNMENT - 1) & -ShmLink.ALIGNMENT;
        header.putLongRelease(tail, position);
        a.poll(handler, 10);

        // records that do not parse: each is dropped with everything up to the tail
        final long[][] records =
        {
            {0, 64, Link.DATA_FRAME},                 // length 0
            {Integer.MAX_VALUE, 64, Link.DATA_FRAME}, // longer than the longest frame (and than the ring)
            {-8, 64, Link.LINK_FRAME},                // negative
            {100, 128, 7},                            // unknown type
            {24, 64, ShmLink.PADDING},                // padding that does not run to the end of the ring
            {100, 64, Link.DATA_FRAME},               // a record that runs past the tail (116 bytes, 128 aligned)
        };
        for (final long[] record : records)
        {
            final long drops = ports.countersA.linkLengthDrops().get();
            final int index = (int)(position & (CAPACITY - 1));
            ring.putLong(index, (record[2] << 32) | (record[0] & 0xFFFF_FFFFL));
            ring.putLong(index + ShmLink.SESSION_OFFSET, session);
            position += record[1];
            header.putLongRelease(tail, position);
            assertEquals(0, a.poll(handler, 10), "record " + record[0] + "/" + record[2]);
            assertEquals(drops + 1, ports.countersA.linkLengthDrops().get());
        }

        // a frame of another session: dropped, counted as such; then a good one is delivered
        for (final long stamp : new long[] {session + 1, session})
        {
            final int index = (int)(position & (CAPACITY - 1));
            ring.putLong(index, ((long)Link.DATA_FRAME << 32) | 40);
            ring.putLong(index + ShmLink.SESSION_OFFSET, stamp);
            position += ShmLink.ALIGNMENT; // 16 + 40 bytes, aligned to 64
            header.putLongRelease(tail, position);
        }
        assertEquals(1, a.poll(handler, 10));
        assertEquals(List.of(40), delivered);
        assertEquals(1, ports.countersA.linkSessionDrops().get());
    }

    @Test
    void aPeerThatDiesMidFrameAndRestartsIsANewIncarnationAndGetsNoStaleFrames()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink oldB = open(ShmLink.Role.B);
        send(oldB, Link.DATA_FRAME, 100, (byte)1);   // B to A, not yet polled by A
        send(a, Link.DATA_FRAME, 200, (byte)2);      // A to the old B, never polled by it
        final int halfWritten = oldB.tryClaim(Link.DATA_FRAME, 300);
        assertTrue(halfWritten >= 0);
        oldB.buffer().putByte(halfWritten, (byte)3); // and then the process dies: nothing committed
        opened.remove(oldB);
        oldB.abandon();

        final ShmLink newB = open(ShmLink.Role.B);
        assertNotEquals(oldB.incarnation(), newB.incarnation());
        assertEquals(newB.incarnation(), a.peerIncarnation(), "the peer's restart is visible");
        assertEquals(0, newB.poll((type, buffer, offset, length) -> fail("a frame meant for the old B"), 10));

        final List<Integer> atA = new ArrayList<>();
        final FrameHandler handler = (type, buffer, offset, length) -> atA.add(length);
        assertEquals(0, a.poll(handler, 10), "the old B's frame belongs to a session that ended");
        assertEquals(1, ports.countersA.linkSessionDrops().get());

        send(newB, Link.DATA_FRAME, 400, (byte)4);
        send(a, Link.DATA_FRAME, 500, (byte)5);
        assertEquals(1, a.poll(handler, 10));
        assertEquals(List.of(400), atA, "the half-written frame never appears");
        final List<Integer> atB = new ArrayList<>();
        assertEquals(1, newB.poll((type, buffer, offset, length) -> atB.add(length), 10));
        assertEquals(List.of(500), atB);
    }

    @Test
    void anEndHeldByALiveProcessIsRefusedAndAFileThatIsNotALinkIsLeftAlone() throws Exception
    {
        open(ShmLink.Role.A);
        final IllegalStateException held = assertThrows(IllegalStateException.class, () -> open(ShmLink.Role.A));
        assertTrue(held.getMessage().contains("end A is held by process " + ProcessHandle.current().pid() +
            " (this one)"), held.getMessage());

        final Path other = dir.toPath().resolve("notes.txt");
        Files.writeString(other, "x".repeat(5000));
        final IllegalStateException refused = assertThrows(IllegalStateException.class,
            () -> ShmLink.open(other, ShmLink.Role.A, CAPACITY, ports.linkA));
        assertTrue(refused.getMessage().contains("is not a vlink shm link file (bad magic"), refused.getMessage());
        assertTrue(refused.getMessage().endsWith("remove it or choose another path"), refused.getMessage());
        assertEquals(5000, Files.size(other), "never touched");
    }

    @Test
    void aStaleFileLeftByProcessesThatDiedIsMadeAnew() throws Exception
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        send(a, Link.DATA_FRAME, 100, (byte)1);
        opened.clear();
        a.abandon();
        b.abandon();
        assertTrue(Files.exists(file), "a killed process removes nothing");

        final ShmLink fresh = ShmLink.open(file, ShmLink.Role.B, 2 * CAPACITY, ports.linkB);
        opened.add(fresh);
        assertEquals(2 * CAPACITY, fresh.capacity(), "made anew, with this end's capacity");
        final ShmLink peer = open(ShmLink.Role.A);
        assertEquals(2 * CAPACITY, peer.capacity(), "the file decides the capacity");
        assertEquals(0, fresh.poll((type, buffer, offset, length) -> fail("stale"), 10));
        send(peer, Link.LINK_FRAME, 8, (byte)9);
        assertEquals(1, fresh.poll((type, buffer, offset, length) -> assertEquals(8, length), 10));
    }

    @Test
    void anEndWhoseProcessDiedIsTakenOverWhileThePeerStaysAttached()
    {
        final ShmLink a = open(ShmLink.Role.A);
        final ShmLink b = open(ShmLink.Role.B);
        b.playDead();
        assertEquals(b.incarnation(), a.peerIncarnation(), "dead, but not detached: still the peer a knows");
        final ShmLink takeover = open(ShmLink.Role.B);
        opened.remove(b);
        assertEquals(takeover.incarnation(), a.peerIncarnation());
        send(a, Link.DATA_FRAME, 64, (byte)1);
        assertEquals(1, takeover.poll((type, buffer, offset, length) -> { }, 10));
    }

    private static boolean send(final Link link, final int type, final int length, final byte last)
    {
        final int offset = link.tryClaim(type, length);
        if (Link.BACK_PRESSURED == offset)
        {
            return false;
        }
        link.buffer().putByte(offset + length - 1, last);
        link.commit(offset);
        return true;
    }
}
