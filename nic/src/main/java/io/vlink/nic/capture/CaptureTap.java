package io.vlink.nic.capture;

import io.vlink.core.capture.Pcap;
import io.vlink.nic.link.Link;
import io.vlink.nic.memory.OffHeap;
import org.agrona.DirectBuffer;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.agrona.concurrent.status.AtomicCounter;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The capture tap: records both directions of the wire as pcap with link type 197 (ERF), as {@code ibdump} writes
 * and Wireshark reads (docs/wire.md, Captures): interface 0 is what the first port sends, 1 what its peer sends, each
 * packet recorded where it enters the wire, in wire order.
 * <p>
 * Costs nothing when off: an engine without a capture holds no tap (agents test one null field) and never loads
 * Chronicle's classes. When on, the agents that see packets copy each into an Agrona
 * {@link ManyToOneRingBuffer} with its timestamp and interface ({@link #record}: lock-free, never blocks; a
 * record that does not fit is dropped and counted), and the tap's own agent drains the ring into a memory-mapped
 * file that grows past 2 GiB ({@link MappedCaptureFile}, Chronicle Bytes).
 * <p>
 * A capture never takes the data path down with it. If the file cannot be created, cannot grow (the file system is
 * full) or cannot be cut to length, the capture stops: the failure is counted ({@code capture_errors}) and handed to
 * the engine's error handler once, later frames are not recorded (and not counted as drops), and the engine goes on
 * moving packets. The file keeps every whole record written before the failure and is cut to them when the engine
 * closes, so it decodes.
 */
public final class CaptureTap implements AutoCloseable
{
    /** Bytes of the hand-off ring. */
    public static final int RING_LENGTH = 4 * 1024 * 1024;

    private static final int TIMESTAMP_OFFSET = 0;
    private static final int IFACE_OFFSET = 8;
    private static final int PACKET_OFFSET = 16;

    private final Path path;
    private final long chunkLength;
    private final EpochNanoClock clock;
    private final AtomicCounter drops;
    private final AtomicCounter errors;
    private final ErrorHandler errorHandler;
    private final FileOpener opener;
    private final UnsafeBuffer ringBuffer;
    private final ManyToOneRingBuffer ring;
    private final UnsafeBuffer record = new UnsafeBuffer(new byte[Pcap.RECORD_OVERHEAD + Link.MAX_DATA_FRAME_LENGTH]);
    private final MessageHandler writer = this::onRecord;
    private CaptureFile file;
    private long records;
    private volatile CaptureStoppedException failure;
    private volatile boolean stopped;
    private boolean closed;

    /**
     * Creates the capture file: the seam where tests put a file that fails.
     */
    interface FileOpener
    {
        /**
         * @param path            the file (replaced).
         * @param chunkLength     bytes mapped at a time.
         * @param maxRecordLength the longest record.
         * @return the open file.
         * @throws IOException if it cannot be created.
         */
        CaptureFile open(Path path, long chunkLength, int maxRecordLength) throws IOException;
    }

    CaptureTap(
        final Path path,
        final long chunkLength,
        final EpochNanoClock clock,
        final AtomicCounter drops,
        final AtomicCounter errors,
        final ErrorHandler errorHandler,
        final FileOpener opener)
    {
        this.path = path;
        this.chunkLength = chunkLength;
        this.clock = clock;
        this.drops = drops;
        this.errors = errors;
        this.errorHandler = errorHandler;
        this.opener = opener;
        ringBuffer = OffHeap.allocate(RING_LENGTH + RingBufferDescriptor.TRAILER_LENGTH);
        ring = new ManyToOneRingBuffer(ringBuffer);
    }

    /**
     * Open a capture. The file itself is created by the tap's agent when it starts.
     *
     * @param path        the pcap file (replaced).
     * @param chunkLength bytes mapped at a time as the file grows.
     * @param clock       the timestamps' clock.
     * @param drops        counts records that could not be captured (the tap fell behind).
     * @param errors       counts failures of the file that stopped the capture (at most one per capture, and one
     *                     more if cutting the file on close fails).
     * @param errorHandler told of each such failure.
     * @return the tap.
     */
    public static CaptureTap open(
        final Path path,
        final long chunkLength,
        final EpochNanoClock clock,
        final AtomicCounter drops,
        final AtomicCounter errors,
        final ErrorHandler errorHandler)
    {
        return new CaptureTap(path, chunkLength, clock, drops, errors, errorHandler, MappedCaptureFile::new);
    }

    /**
     * Any thread. Copy one frame into the tap, as it enters the wire.
     *
     * @param iface     0 for the first port's transmissions, 1 for its peer's.
     * @param frameType {@link Link#DATA_FRAME} or {@link Link#LINK_FRAME}.
     * @param buffer    the frame's bytes.
     * @param offset    its first byte.
     * @param length    its length on the wire.
     */
    public void record(final int iface, final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        if (stopped)
        {
            return;
        }
        final int index = ring.tryClaim(frameType, PACKET_OFFSET + length);
        if (index < 0)
        {
            drops.incrementRelease();
            return;
        }
        final UnsafeBuffer ringBuffer = this.ringBuffer;
        ringBuffer.putLong(index + TIMESTAMP_OFFSET, clock.nanoTime());
        ringBuffer.putInt(index + IFACE_OFFSET, iface);
        ringBuffer.putBytes(index + PACKET_OFFSET, buffer, offset, length);
        ring.commit(index);
    }

    /**
     * @return records written to the file so far (read from the tap's thread, or after close).
     */
    public long records()
    {
        return records;
    }

    /**
     * @return whether a failure of the file stopped the capture.
     */
    public boolean stopped()
    {
        return stopped;
    }

    /**
     * @return what stopped the capture first, or null while it runs (any thread).
     */
    public CaptureStoppedException failure()
    {
        return failure;
    }

    /**
     * @return the agent that writes the file; the engine runs it with its other agents.
     */
    public Agent agent()
    {
        return new Agent()
        {
            @Override
            public void onStart()
            {
                openFile();
            }

            @Override
            public int doWork()
            {
                return drain();
            }

            @Override
            public void onClose()
            {
                // the other agents have stopped: everything they recorded is in the ring
                while (drain() > 0)
                {
                    Thread.onSpinWait();
                }
                closeFile();
            }

            @Override
            public String roleName()
            {
                return "capture";
            }
        };
    }

    private void openFile()
    {
        if (null == file && !stopped)
        {
            try
            {
                file = opener.open(path, chunkLength, record.capacity());
                final UnsafeBuffer header = new UnsafeBuffer(new byte[Pcap.FILE_HEADER_LENGTH]);
                Pcap.writeFileHeader(header, 0);
                file.append(header, 0, Pcap.FILE_HEADER_LENGTH);
            }
            catch (final IOException | RuntimeException | InternalError ex)
            {
                fail("cannot create the capture file", ex);
            }
            catch (final AssertionError | LinkageError ex)
            {
                // Chronicle Bytes reaching JDK internals the JVM was not opened for: the capture stops, the engine runs
                fail("cannot map the capture file: the JVM needs the capture flags the README lists " +
                    "(--add-opens java.base/sun.nio.ch=ALL-UNNAMED and the others)", ex);
            }
        }
    }

    private int drain()
    {
        if (null == file)
        {
            openFile();
        }
        return stopped ? 0 : ring.read(writer, 256);
    }

    /**
     * Stops the capture for good: counted, reported once, the file kept as far as it was written.
     */
    private void fail(final String what, final Throwable cause)
    {
        final CaptureStoppedException stop = new CaptureStoppedException(path, records, what, cause);
        if (null == failure)
        {
            failure = stop;
        }
        stopped = true;
        errors.incrementRelease();
        errorHandler.onError(stop);
    }

    private void onRecord(final int frameType, final org.agrona.MutableDirectBuffer buffer, final int index, final int length)
    {
        if (stopped)
        {
            return;
        }
        final int packetLength = length - PACKET_OFFSET;
        Pcap.writeRecordHeader(
            record,
            0,
            buffer.getLong(index + TIMESTAMP_OFFSET),
            Link.LINK_FRAME == frameType ? Pcap.ERF_TYPE_INFINIBAND_LINK : Pcap.ERF_TYPE_INFINIBAND,
            buffer.getInt(index + IFACE_OFFSET),
            false,
            packetLength);
        record.putBytes(Pcap.RECORD_OVERHEAD, buffer, index + PACKET_OFFSET, packetLength);
        try
        {
            file.append(record, 0, Pcap.RECORD_OVERHEAD + packetLength);
            records++;
        }
        catch (final IOException | RuntimeException | InternalError ex)
        {
            fail("cannot write record " + (records + 1), ex);
        }
    }

    private void closeFile()
    {
        if (null != file)
        {
            try
            {
                file.close();
            }
            catch (final IOException | RuntimeException | InternalError ex)
            {
                fail("cannot cut the file to its " + records + " records", ex);
            }
        }
    }

    /**
     * Free the hand-off ring (the agent closes the file when the engine stops it). Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            OffHeap.free(ringBuffer);
        }
    }
}
