package io.vlink.nic.capture;

import net.openhft.chronicle.bytes.MappedBytes;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A capture file over Chronicle Bytes' {@link MappedBytes}: memory-mapped in chunks that are added as it grows, so
 * it passes 2 GiB (a single {@code MappedByteBuffer} cannot) without a system call per record. Used by one thread
 * (the capture agent); on close the file is cut to the bytes written.
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
    /** SLF4J's system property for the level of its own diagnostics (not of any application logging). */
    static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";

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

    static
    {
        // Chronicle Bytes logs through SLF4J. An application that embeds vlink without an SLF4J binding would get
        // SLF4J's "no providers" warning on stderr the first time a capture starts: keep SLF4J's own diagnostics to
        // errors unless the application chose a level (its logging, and any binding it has, are untouched).
        if (null == System.getProperty(SLF4J_VERBOSITY))
        {
            System.setProperty(SLF4J_VERBOSITY, "ERROR");
        }
    }

    private final Path path;
    private final Space space;
    private final FileChannel channel;
    private final MappedBytes bytes;
    private final byte[] scratch;
    private long extended;
    private boolean closed;

    MappedCaptureFile(final Path path, final long chunkLength, final int maxRecordLength) throws IOException
    {
        this(path, chunkLength, maxRecordLength, null);
    }

    MappedCaptureFile(final Path path, final long chunkLength, final int maxRecordLength, final Space space)
        throws IOException
    {
        this.path = path;
        Files.deleteIfExists(path);
        channel = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
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
            bytes = MappedBytes.mappedBytes(path.toFile(), chunkLength, chunkLength / 4);
        }
        catch (final IOException | RuntimeException ex)
        {
            channel.close();
            throw ex;
        }
        bytes.singleThreadedCheckDisabled(true);
        scratch = new byte[maxRecordLength];
    }

    @Override
    public void append(final DirectBuffer buffer, final int offset, final int length) throws IOException
    {
        final long end = bytes.writePosition() + length;
        while (end > extended)
        {
            extend();
        }
        buffer.getBytes(offset, scratch, 0, length);
        bytes.write(scratch, 0, length);
    }

    private void extend() throws IOException
    {
        final long usable = space.usable();
        if (usable < EXTEND_STEP)
        {
            // the system's words for a full file system (ENOSPC), then the figures
            throw new IOException("No space left on device (" + usable + " bytes free, the capture grows by " +
                EXTEND_STEP + " at a time)");
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
        return bytes.writePosition();
    }

    @Override
    public void close() throws IOException
    {
        if (!closed)
        {
            closed = true;
            final long length = bytes.writePosition();
            try
            {
                bytes.releaseLast();
            }
            finally
            {
                try
                {
                    channel.truncate(length);
                }
                finally
                {
                    channel.close();
                }
            }
        }
    }
}
