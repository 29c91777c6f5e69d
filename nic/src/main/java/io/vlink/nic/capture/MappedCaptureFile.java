package io.vlink.nic.capture;

import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A capture file mapped into memory a window at a time: a {@link MappedByteBuffer} of {@code chunkLength} bytes;
 * a record that would cross the window's end unmaps it and maps the next window from the record's start, so the
 * file passes 2 GiB (a single {@code MappedByteBuffer} cannot) without a system call per record. Records are copied
 * straight from the caller's buffer into the mapping. Used by one thread (the capture agent); on close the file is
 * unmapped and cut to the bytes written. Plain JDK and Agrona: no JVM flag beyond Agrona's.
 * <p>
 * A store into a mapped page that the file system cannot back (it is full) is not an error a program can handle:
 * the JVM raises {@code InternalError} from the faulting copy, anywhere in it. So no byte is ever written to the
 * mapping beyond what the file really holds: the file is extended ahead of the writer in steps of
 * {@link #EXTEND_STEP} by writing zeros through a {@link FileChannel} (which reports a full file system as an
 * {@link IOException}), after checking that the file system has the space. A record that would cross the extended
 * length waits for the next step, and if that step fails nothing of the record is written.
 */
final class MappedCaptureFile implements CaptureFile
{
    /** Bytes the file is extended by, ahead of the writer. */
    static final int EXTEND_STEP = 1024 * 1024;

    /**
     * How much space a file system has for the capture. Tests inject a full one.
     */
    interface Space
    {
        /**
         * @return bytes the capture may still take.
         * @throws IOException if the file system cannot say.
         */
        long usable() throws IOException;
    }

    private static final ByteBuffer ZEROS = ByteBuffer.allocateDirect(64 * 1024);

    private final Path path;
    private final Space space;
    private final FileChannel channel;
    private final long chunkLength;
    private final UnsafeBuffer window = new UnsafeBuffer(0, 0);
    private MappedByteBuffer mapped;
    private long windowStart;
    private long position;
    private long extended;
    private boolean closed;

    MappedCaptureFile(final Path path, final long chunkLength, final int maxRecordLength) throws IOException
    {
        this(path, chunkLength, maxRecordLength, null);
    }

    MappedCaptureFile(final Path path, final long chunkLength, final int maxRecordLength, final Space space)
        throws IOException
    {
        if (chunkLength < maxRecordLength || chunkLength > Integer.MAX_VALUE)
        {
            throw new IllegalArgumentException("a capture window of " + chunkLength + " bytes: it must hold a record of " +
                maxRecordLength + " bytes and be below 2 GiB");
        }
        this.path = path;
        this.chunkLength = chunkLength;
        Files.deleteIfExists(path);
        channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        try
        {
            if (null == space)
            {
                final FileStore store = Files.getFileStore(path);
                this.space = store::getUsableSpace;
            }
            else
            {
                this.space = space;
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
    }

    @Override
    public void append(final DirectBuffer buffer, final int offset, final int length) throws IOException
    {
        final long end = position + length;
        while (end > extended)
        {
            extend();
        }
        if (null == mapped || end > windowStart + chunkLength)
        {
            map(position);
        }
        window.putBytes((int)(position - windowStart), buffer, offset, length);
        position = end;
    }

    /** The next window, from {@code start}: only pages the file already holds are ever written ({@link #extend}). */
    private void map(final long start) throws IOException
    {
        unmap();
        mapped = channel.map(FileChannel.MapMode.READ_WRITE, start, chunkLength);
        windowStart = start;
        window.wrap(mapped);
    }

    private void unmap()
    {
        if (null != mapped)
        {
            window.wrap(0, 0);
            IoUtil.unmap(mapped);
            mapped = null;
        }
    }

    private void extend() throws IOException
    {
        final long usable = space.usable();
        if (usable < EXTEND_STEP)
        {
            throw new IOException("no space left on the file system: " + usable + " bytes free, the capture grows by " +
                EXTEND_STEP);
        }
        long position = extended;
        final long end = extended + EXTEND_STEP;
        while (position < end)
        {
            final ByteBuffer zeros = ZEROS.duplicate();
            zeros.limit((int)Math.min(zeros.capacity(), end - position));
            position += channel.write(zeros, position);
        }
        extended = end;
    }

    @Override
    public long length()
    {
        return position;
    }

    @Override
    public void close() throws IOException
    {
        if (!closed)
        {
            closed = true;
            try
            {
                unmap();
            }
            finally
            {
                try
                {
                    channel.truncate(position);
                }
                finally
                {
                    channel.close();
                }
            }
        }
    }
}
