package io.vlink.stress;

import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.infra.results.IIII_Result;
import org.openjdk.jcstress.infra.results.III_Result;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * Small frame rings for the link tests: a {@link LoopbackLink} pair (end 0 transmits, end 1 receives what end 0 sent)
 * and the two ends of a {@link ShmLink} over one region of memory, which stand for the two processes that map its
 * file; the frames every test sends and checks.
 */
final class Frames
{
    /** Bytes of each direction's ring: its largest frame is an eighth, 128 bytes. */
    static final int CAPACITY = 1024;
    /** The incarnation of a shm link's end A in every test (any non-zero value). */
    static final long INCARNATION_A = 0x0A0A_0A0A_0A0A_0A0AL;
    /** The incarnation of a shm link's end B. */
    static final long INCARNATION_B = 0x0B0B_0B0B_0B0B_0B0BL;

    /** One set of counters for every link of the test VM (each end counts on its own thread's counters). */
    static final LinkCounters COUNTERS = counters();

    private Frames()
    {
    }

    /**
     * @return a fresh loopback link: end 0 transmits into the ring end 1 polls.
     */
    static LoopbackLink[] pair()
    {
        return LoopbackLink.ring(CAPACITY, COUNTERS, COUNTERS);
    }

    /**
     * @return a fresh, zeroed region for a shm link's file: its header and two rings of {@link #CAPACITY} bytes.
     */
    static UnsafeBuffer region()
    {
        return OffHeap.allocate((int)ShmLink.fileLength(CAPACITY));
    }

    /**
     * @param region the link's memory.
     * @param role   the end.
     * @return the end ({@link #INCARNATION_A} or {@link #INCARNATION_B}), not attached yet.
     */
    static ShmLink end(final UnsafeBuffer region, final ShmLink.Role role)
    {
        return ShmLink.over(region, role, CAPACITY, ShmLink.Role.A == role ? INCARNATION_A : INCARNATION_B, COUNTERS);
    }

    /**
     * @param region the link's memory.
     * @param role   the end.
     * @return the end, attached.
     */
    static ShmLink attached(final UnsafeBuffer region, final ShmLink.Role role)
    {
        final ShmLink end = end(region, role);
        end.takeEnd();
        return end;
    }

    /**
     * Transmit a data frame whose every int holds {@code value}.
     *
     * @param end    the transmitting end.
     * @param length the frame's bytes (a multiple of 4).
     * @param value  every int of the frame.
     * @throws IllegalStateException when the link refuses the frame.
     */
    static void send(final Link end, final int length, final int value)
    {
        if (!trySend(end, length, value))
        {
            throw new IllegalStateException("the link refused " + length + " bytes");
        }
    }

    /**
     * Transmit a data frame whose every int holds {@code value}, if the link takes it.
     *
     * @param end    the transmitting end.
     * @param length the frame's bytes (a multiple of 4).
     * @param value  every int of the frame.
     * @return whether it was committed (false: back-pressured, or a shm link without a peer).
     */
    static boolean trySend(final Link end, final int length, final int value)
    {
        final int at = end.tryClaim(Link.DATA_FRAME, length);
        if (Link.BACK_PRESSURED == at)
        {
            return false;
        }
        fill(end.buffer(), at, length, value);
        end.commit(at);
        return true;
    }

    /**
     * @param buffer where.
     * @param offset first byte.
     * @param length bytes (a multiple of 4).
     * @param value  every int.
     */
    static void fill(final MutableDirectBuffer buffer, final int offset, final int length, final int value)
    {
        for (int i = 0; i < length; i += Integer.BYTES)
        {
            buffer.putInt(offset + i, value);
        }
    }

    /**
     * Receive every frame committed so far.
     *
     * @param end the receiving end.
     */
    static void drain(final Link end)
    {
        end.poll((final int type, final DirectBuffer buffer, final int offset, final int length) -> { }, 64);
    }

    /**
     * A receiving end's polls, as the receive agent's: the last frame's type, its length and how many of its ints
     * hold the value written (checked only for a frame of {@link Cells#PACKET_SIZE} bytes), the frames and the peer
     * closed notices so far.
     */
    static final class Receiver implements FrameHandler
    {
        private final int value;
        /** The last frame's type (0: none yet). */
        int type;
        /** The last frame's length. */
        int length;
        /** Ints of the last frame holding the value (-1: none yet, -2: a frame of another length). */
        int good = -1;
        /** Frames received. */
        int frames;
        /** Peer closed notices received. */
        int closed;

        /**
         * @param value every int of the frame expected.
         */
        Receiver(final int value)
        {
            this.value = value;
        }

        /**
         * Poll one frame.
         *
         * @param end the receiving end.
         * @param r   r1 = the type (0 = nothing received), r2 = the length, r3 = the ints holding the value (-1 = no
         *            frame, -2 = a frame of another length).
         */
        void receive(final Link end, final III_Result r)
        {
            end.poll(this, 1);
            r.r1 = type;
            r.r2 = length;
            r.r3 = good;
        }

        /**
         * Poll one frame.
         *
         * @param end the receiving end.
         * @param r   r1 to r3 as {@link #receive(Link, III_Result)}; r4 is the caller's.
         */
        void receive(final Link end, final IIII_Result r)
        {
            end.poll(this, 1);
            r.r1 = type;
            r.r2 = length;
            r.r3 = good;
        }

        @Override
        public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
        {
            this.type = frameType;
            this.length = length;
            good = Cells.PACKET_SIZE == length ? Cells.count(buffer, offset, length, value) : -2;
            frames++;
        }

        @Override
        public void onPeerClosed()
        {
            closed++;
        }
    }

    private static LinkCounters counters()
    {
        try
        {
            final File directory = Files.createTempDirectory("vlink-stress").toFile();
            directory.deleteOnExit();
            final CountersFile file = CountersFile.create(directory, "stress", 256, 4096, SystemEpochClock.INSTANCE);
            file.file().deleteOnExit();
            return new PortCounterSet(file, 0, 1).link();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
