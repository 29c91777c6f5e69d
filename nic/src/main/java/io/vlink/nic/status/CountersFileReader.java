package io.vlink.nic.status;

import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;

import static io.vlink.nic.status.CountersFileDescriptor.*;

/**
 * The reading side of a counters file ({@link CountersFileDescriptor}), for {@code vlink stat} and tests: maps an
 * engine's file read-only and reads its counters and error log live, from any process.
 * <p>
 * A file is untrusted input: its version, section lengths and file size are checked before anything is mapped
 * beyond the header, and a file that fails a check is refused with a message, never read out of bounds.
 */
public final class CountersFileReader implements AutoCloseable
{
    /** A heartbeat older than this marks a running engine as {@link EngineLiveness#SILENT}. */
    public static final long DEFAULT_LIVENESS_TIMEOUT_MS = 5_000;

    private final File file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final CountersReader counters;
    private final UnsafeBuffer errorLog;

    private CountersFileReader(final File file, final MappedByteBuffer mapped, final AtomicBuffer region)
    {
        this.file = file;
        this.mapped = mapped;
        header = new UnsafeBuffer(region, 0, HEADER_LENGTH);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        final int errorLogLength = header.getInt(ERROR_LOG_LENGTH_OFFSET);
        counters = new CountersReader(
            new UnsafeBuffer(region, HEADER_LENGTH, metadataLength),
            new UnsafeBuffer(region, HEADER_LENGTH + metadataLength, valuesLength),
            StandardCharsets.US_ASCII);
        errorLog = new UnsafeBuffer(region, HEADER_LENGTH + metadataLength + valuesLength, errorLogLength);
    }

    /**
     * Map a counters file for reading.
     *
     * @param file a counters file.
     * @return the reader.
     * @throws IllegalStateException with a reason when the file is not a complete counters file of this version.
     */
    public static CountersFileReader open(final File file)
    {
        final long fileLength;
        try (RandomAccessFile raf = new RandomAccessFile(file, "r"))
        {
            fileLength = raf.length();
            if (fileLength < HEADER_LENGTH)
            {
                throw new IllegalStateException(file + ": too short for a vlink counters file");
            }
            final MappedByteBuffer headerMap = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, HEADER_LENGTH);
            final long length;
            try
            {
                length = checkHeader(file.toString(), new UnsafeBuffer(headerMap), fileLength);
            }
            finally
            {
                IoUtil.unmap(headerMap);
            }
            final MappedByteBuffer mapped = raf.getChannel().map(FileChannel.MapMode.READ_ONLY, 0, length);
            return new CountersFileReader(file, mapped, new UnsafeBuffer(mapped));
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(file + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * A reader of counters in memory the caller holds: for the stress tests, where it stands for {@code vlink stat}
     * reading another process's file ({@link #file()} is null, {@link #close()} unmaps nothing).
     *
     * @param region the memory of a {@link CountersFile}.
     * @return the reader.
     * @throws IllegalStateException as {@link #open}.
     */
    public static CountersFileReader over(final UnsafeBuffer region)
    {
        checkHeader("counters in memory", region, region.capacity());
        return new CountersFileReader(null, null, region);
    }

    /**
     * The version (acquire) first: a reader that sees it sees the header written before it.
     *
     * @return the bytes of the whole file the header describes.
     */
    private static long checkHeader(final String where, final AtomicBuffer header, final long fileLength)
    {
        final int version = header.getIntVolatile(VERSION_OFFSET);
        final int metadataLength = header.getInt(METADATA_LENGTH_OFFSET);
        final int valuesLength = header.getInt(VALUES_LENGTH_OFFSET);
        final int errorLogLength = header.getInt(ERROR_LOG_LENGTH_OFFSET);
        if (0 == version)
        {
            throw new IllegalStateException(where + ": engine starting or closing (no version yet)");
        }
        if (VERSION != version)
        {
            throw new IllegalStateException(
                where + ": counters file version " + version + ", this vlink reads version " + VERSION);
        }
        final long length = fileLength(metadataLength, valuesLength, errorLogLength);
        if (valuesLength <= 0 || errorLogLength <= 0 ||
            valuesLength % CountersReader.COUNTER_LENGTH != 0 ||
            (long)metadataLength != (long)valuesLength / CountersReader.COUNTER_LENGTH * CountersReader.METADATA_LENGTH ||
            length > fileLength)
        {
            throw new IllegalStateException(where + ": section lengths do not fit the file");
        }
        return length;
    }

    /**
     * @return the file read.
     */
    public File file()
    {
        return file;
    }

    /**
     * @return the engine name.
     */
    public String name()
    {
        return CountersFileDescriptor.name(header);
    }

    /**
     * @return the PID of the engine's process.
     */
    public long pid()
    {
        return header.getLong(PID_OFFSET);
    }

    /**
     * @return when the engine started, epoch ms.
     */
    public long startTimestampMs()
    {
        return header.getLong(START_TIMESTAMP_OFFSET);
    }

    /**
     * @return the latest heartbeat, epoch ms.
     */
    public long heartbeatMs()
    {
        return header.getLongAcquire(HEARTBEAT_OFFSET);
    }

    /**
     * @return false once the engine has closed (it zeroes the version before deleting the file).
     */
    public boolean isOpen()
    {
        return VERSION == header.getIntVolatile(VERSION_OFFSET);
    }

    /**
     * @return the engine's counters, read live.
     */
    public CountersReader counters()
    {
        return counters;
    }

    /**
     * @return the engine's distinct error log (read it with Agrona's {@code ErrorLogReader}).
     */
    public AtomicBuffer errorLog()
    {
        return errorLog;
    }

    /**
     * @param nowMs            the current epoch time in ms.
     * @param livenessTimeoutMs how old a heartbeat may be for a running engine to count as live.
     * @return whether the engine behind the file is running and responsive.
     */
    public EngineLiveness liveness(final long nowMs, final long livenessTimeoutMs)
    {
        final Optional<ProcessHandle> process = ProcessHandle.of(pid());
        if (process.isEmpty() || !process.get().isAlive() || startedAfterFile(process.get()))
        {
            return EngineLiveness.DEAD;
        }
        return nowMs - heartbeatMs() > livenessTimeoutMs ? EngineLiveness.SILENT : EngineLiveness.LIVE;
    }

    // A reused PID: the process holding it now started after the engine wrote its file.
    private boolean startedAfterFile(final ProcessHandle process)
    {
        final Optional<Instant> started = process.info().startInstant();
        return started.isPresent() && started.get().toEpochMilli() > startTimestampMs() + 1_000;
    }

    /**
     * Unmap the file.
     */
    @Override
    public void close()
    {
        if (null != mapped)
        {
            IoUtil.unmap(mapped);
        }
    }
}
