package io.vlink.nic.status;

import io.vlink.nic.memory.EngineClosedException;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.errors.DistinctErrorLog;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static io.vlink.nic.status.CountersFileDescriptor.*;

/**
 * The writing side of an engine's counters file (layout: {@link CountersFileDescriptor}): counters in an Agrona
 * {@link CountersManager} and a {@link DistinctErrorLog}, all in one memory-mapped file that {@code vlink stat}
 * reads live from another process at no cost to the hot path.
 * <p>
 * Counters are allocated while the engine is built (single-threaded); afterwards each counter has one writer.
 * {@link #close()} unmaps and deletes the file: a file left behind belongs to a process that died, and readers
 * recognise it by its PID and heartbeat. Its counters ({@link EngineCounter}) and accessors refuse every call
 * after that ({@link EngineClosedException}); {@link #snapshot()} taken before keeps the final values.
 */
public final class CountersFile implements AutoCloseable
{
    /** Counters an engine can hold by default: enough for 2 ports of 15 data VLs with every counter. */
    public static final int DEFAULT_MAX_COUNTERS = 1024;
    /** Default error log length: distinct errors are stored once, so this bounds an error storm. */
    public static final int DEFAULT_ERROR_LOG_LENGTH = 1024 * 1024;

    private final File file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final CountersManager countersManager;
    private final DistinctErrorLog errorLog;
    private final AtomicBuffer errorLogBuffer;
    private final String name;
    private final List<EngineCounter> counters = new ArrayList<>();
    private boolean closed;

    private CountersFile(
        final File file,
        final MappedByteBuffer mapped,
        final AtomicBuffer region,
        final String name,
        final int maxCounters,
        final int errorLogLength,
        final EpochClock clock)
    {
        this.file = file;
        this.mapped = mapped;
        this.name = name;
        final int valuesLength = maxCounters * CountersReader.COUNTER_LENGTH;
        final int metadataLength = maxCounters * CountersReader.METADATA_LENGTH;

        header = new UnsafeBuffer(region, 0, HEADER_LENGTH);
        final UnsafeBuffer metadata = new UnsafeBuffer(region, HEADER_LENGTH, metadataLength);
        final UnsafeBuffer values = new UnsafeBuffer(region, HEADER_LENGTH + metadataLength, valuesLength);
        errorLogBuffer = new UnsafeBuffer(region, HEADER_LENGTH + metadataLength + valuesLength, errorLogLength);

        final long now = clock.time();
        header.putInt(METADATA_LENGTH_OFFSET, metadataLength);
        header.putInt(VALUES_LENGTH_OFFSET, valuesLength);
        header.putInt(ERROR_LOG_LENGTH_OFFSET, errorLogLength);
        header.putLong(PID_OFFSET, ProcessHandle.current().pid());
        header.putLong(START_TIMESTAMP_OFFSET, now);
        header.putLong(HEARTBEAT_OFFSET, now);
        final byte[] nameBytes = name.getBytes(StandardCharsets.US_ASCII);
        header.putInt(NAME_LENGTH_OFFSET, nameBytes.length);
        header.putBytes(NAME_OFFSET, nameBytes);

        countersManager = new CountersManager(metadata, values, StandardCharsets.US_ASCII);
        errorLog = new DistinctErrorLog(errorLogBuffer, clock, StandardCharsets.UTF_8);

        // Written last with release semantics: a reader that sees the version sees a complete header.
        header.putIntRelease(VERSION_OFFSET, VERSION);
    }

    /**
     * Create (or replace) the counters file of an engine in this process.
     *
     * @param directory      where counters files live (created if missing).
     * @param name           the engine name (see {@link CountersFileDescriptor#validateName(String)}).
     * @param maxCounters    how many counters the file can hold.
     * @param errorLogLength bytes for the distinct error log.
     * @param clock          the epoch clock for timestamps.
     * @return the mapped, ready file.
     */
    public static CountersFile create(
        final File directory,
        final String name,
        final int maxCounters,
        final int errorLogLength,
        final EpochClock clock)
    {
        validateName(name);
        if (maxCounters <= 0 || errorLogLength <= 0)
        {
            throw new IllegalArgumentException(
                "maxCounters and errorLogLength must be positive: " + maxCounters + ", " + errorLogLength);
        }
        IoUtil.ensureDirectoryExists(directory, "vlink counters directory");
        final File file = CountersFileDescriptor.file(directory, name, ProcessHandle.current().pid());
        if (file.exists() && isOpenedByThisProcess(file))
        {
            throw new IllegalStateException("an engine named '" + name + "' is already running in this process: " +
                "give each engine its own name");
        }
        // a file of ours that is not open was left by an engine of a process that had our PID: replace it
        IoUtil.deleteIfExists(file);
        final long length = fileLength(
            maxCounters * CountersReader.METADATA_LENGTH, maxCounters * CountersReader.COUNTER_LENGTH, errorLogLength);
        // a new file reads as zeros: no need to write them
        final MappedByteBuffer mapped = IoUtil.mapNewFile(file, length, false);
        return new CountersFile(file, mapped, new UnsafeBuffer(mapped), name, maxCounters, errorLogLength, clock);
    }

    /**
     * Counters over memory the caller holds instead of a file: for the stress tests, where a thread reading the
     * same memory ({@link CountersFileReader#over}) stands for {@code vlink stat} in another process.
     * {@link #close()} then closes the counters and nothing else.
     *
     * @param region         {@link CountersFileDescriptor#fileLength} bytes for these lengths, zeroed.
     * @param name           the engine name.
     * @param maxCounters    how many counters it can hold.
     * @param errorLogLength bytes for the distinct error log.
     * @param clock          the epoch clock for timestamps.
     * @return the counters, their header published.
     */
    public static CountersFile over(
        final UnsafeBuffer region,
        final String name,
        final int maxCounters,
        final int errorLogLength,
        final EpochClock clock)
    {
        return new CountersFile(null, null, region, name, maxCounters, errorLogLength, clock);
    }

    private static boolean isOpenedByThisProcess(final File file)
    {
        try (CountersFileReader reader = CountersFileReader.open(file))
        {
            return reader.isOpen() && reader.pid() == ProcessHandle.current().pid() &&
                reader.liveness(System.currentTimeMillis(), Long.MAX_VALUE) != EngineLiveness.DEAD;
        }
        catch (final IllegalStateException ex)
        {
            return false;
        }
    }

    /**
     * @return the file, for tools and tests.
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
        return name;
    }

    /**
     * @return the counters manager over the mapped file.
     */
    public CountersManager countersManager()
    {
        checkOpen();
        return countersManager;
    }

    /**
     * @return the distinct error log in the mapped file.
     */
    public DistinctErrorLog errorLog()
    {
        checkOpen();
        return errorLog;
    }

    /**
     * @return the error log's buffer, for reading it back in-process.
     */
    public AtomicBuffer errorLogBuffer()
    {
        checkOpen();
        return errorLogBuffer;
    }

    /**
     * Allocate a counter with its key and a readable label.
     *
     * @param type   what it counts.
     * @param port   the port, or {@link CounterKey#NONE} for engine counters.
     * @param vl     the VL, or {@link CounterKey#NONE} unless the scope is {@link CounterScope#VL}.
     * @param reason the discard reason id, or {@link CounterKey#NONE} unless the scope is {@link CounterScope#REASON}.
     * @return the counter, whose single writer is the agent that owns what it counts.
     */
    public AtomicCounter newCounter(final CounterType type, final int port, final int vl, final int reason)
    {
        final StringBuilder label = new StringBuilder(64).append(name);
        if (CounterKey.NONE != port)
        {
            label.append(" port ").append(port);
        }
        if (CounterKey.NONE != vl)
        {
            label.append(" vl ").append(vl);
        }
        label.append(' ').append(type.counterName());
        if (CounterKey.NONE != reason)
        {
            label.append(' ').append(DiscardReasons.name(reason));
        }
        checkOpen();
        final int id = countersManager.allocate(
            label.toString(), type.typeId(), (keyBuffer) -> CounterKey.write(keyBuffer, port, vl, reason));
        final EngineCounter counter = new EngineCounter(countersManager.valuesBuffer(), id, countersManager);
        counters.add(counter);
        return counter;
    }

    /**
     * @return the value of every counter now (exact once every writer stopped), on the heap.
     */
    public CountersSnapshot snapshot()
    {
        checkOpen();
        return CountersSnapshot.of(countersManager);
    }

    /**
     * Tell readers this engine is alive. Cheap (one ordered store); call it about once a second.
     *
     * @param nowMs the epoch time in ms.
     */
    public void heartbeat(final long nowMs)
    {
        checkOpen();
        header.putLongRelease(HEARTBEAT_OFFSET, nowMs);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new EngineClosedException();
        }
    }

    /**
     * @return true once closed.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Unmap and delete the file. Call only after every thread writing counters has stopped. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            for (final EngineCounter counter : counters)
            {
                counter.fileClosed();
            }
            header.putIntRelease(VERSION_OFFSET, 0);
            if (null != mapped)
            {
                IoUtil.unmap(mapped);
                IoUtil.deleteIfExists(file);
            }
        }
    }
}
