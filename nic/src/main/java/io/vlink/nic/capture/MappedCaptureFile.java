package io.vlink.nic.capture;

import net.openhft.chronicle.bytes.MappedBytes;
import org.agrona.DirectBuffer;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A capture file over Chronicle Bytes' {@link MappedBytes}: memory-mapped in chunks that are added as it grows, so
 * it passes 2 GiB (a single {@code MappedByteBuffer} cannot) without a system call per record. Used by one thread
 * (the capture agent); on close the file is cut to the bytes written.
 */
final class MappedCaptureFile implements CaptureFile
{
    private final Path path;
    private final MappedBytes bytes;
    private final byte[] scratch;
    private boolean closed;

    MappedCaptureFile(final Path path, final long chunkLength, final int maxRecordLength)
    {
        this.path = path;
        try
        {
            Files.deleteIfExists(path);
            bytes = MappedBytes.mappedBytes(path.toFile(), chunkLength, chunkLength / 4);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot create capture file " + path + ": " + ex.getMessage(), ex);
        }
        bytes.singleThreadedCheckDisabled(true);
        scratch = new byte[maxRecordLength];
    }

    @Override
    public void append(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.getBytes(offset, scratch, 0, length);
        bytes.write(scratch, 0, length);
    }

    @Override
    public long length()
    {
        return bytes.writePosition();
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            final long length = bytes.writePosition();
            bytes.releaseLast();
            try (RandomAccessFile file = new RandomAccessFile(path.toFile(), "rw"))
            {
                file.setLength(length);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot finish capture file " + path + ": " + ex.getMessage(), ex);
            }
        }
    }
}
