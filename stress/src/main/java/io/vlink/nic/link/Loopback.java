package io.vlink.nic.link;

import io.vlink.nic.status.CountersFile;
import io.vlink.stress.Cells;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.SystemEpochClock;
import org.openjdk.jcstress.infra.results.III_Result;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;

/**
 * Small loopback rings for the {@link LoopbackLink} tests: end 0 transmits, end 1 receives what end 0 sent.
 */
final class Loopback
{
    /** Bytes of each direction's ring: its largest frame is an eighth, 128 bytes. */
    static final int CAPACITY = 1024;

    /** One set of counters for every ring of the test VM (each end counts on its own thread's counters). */
    private static final LinkCounters COUNTERS = counters();

    private Loopback()
    {
    }

    /**
     * @return a fresh link: end 0 transmits into the ring end 1 polls.
     */
    static LoopbackLink[] pair()
    {
        return LoopbackLink.ring(CAPACITY, COUNTERS, COUNTERS);
    }

    /**
     * Transmit a data frame whose every int holds {@code value}.
     *
     * @param end    the transmitting end.
     * @param length the frame's bytes (a multiple of 4).
     * @param value  every int of the frame.
     */
    static void send(final LoopbackLink end, final int length, final int value)
    {
        final int at = end.tryClaim(Link.DATA_FRAME, length);
        if (Link.BACK_PRESSURED == at)
        {
            throw new IllegalStateException("the ring has no room for " + length + " bytes");
        }
        fill(end.buffer(), at, length, value);
        end.commit(at);
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
    static void drain(final LoopbackLink end)
    {
        end.poll((final int type, final DirectBuffer buffer, final int offset, final int length) -> { }, 64);
    }

    /**
     * A receiving end's one poll, as the receive agent's: the frame's type, its length and how many of its ints
     * hold the value written (checked only for a frame of {@link Cells#PACKET_SIZE} bytes).
     */
    static final class Receiver implements FrameHandler
    {
        private final int value;
        private int type;
        private int length;
        private int good = -1;

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
        void receive(final LoopbackLink end, final III_Result r)
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
