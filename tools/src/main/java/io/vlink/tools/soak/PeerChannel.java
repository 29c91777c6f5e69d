package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.DataFormatException;

/**
 * The file through which a two-process soak's parent (port A, the sender) and its peer process (port B, the
 * receiver) talk, beside the link's own file: the parent's commands (receive or hold, arm the wire faults, cut the
 * wire, link up or down, done) and the peer's receive-side state (the soak's per-VL receive counts and its wire's
 * fault counts, published as one consistent snapshot under a sequence word; the port's link state; the latency
 * histograms and engine errors at the end). Each word has one writer: the parent writes the command words, the peer
 * every other.
 * <p>
 * Layout (longs, each group on its own cache lines): commands at 0; the peer's words at 128; the snapshot at 256
 * (eleven arrays of 16 VLs, then four longs); the peer's counters file path at 4096; at the end, its engine errors at
 * 8192 and its two latency histograms (HdrHistogram's compressed form) at 73728 and 73728 + 1 MiB.
 */
public final class PeerChannel implements AutoCloseable
{
    // commands: written by the parent
    public static final int PARENT_PID = 0;
    public static final int STEADY_FROM_NS = 8;
    public static final int HOLD = 16;
    public static final int ARMED = 24;
    public static final int CUT = 32;
    public static final int LINK_UP = 40;
    /** 1: receive no more, publish the results; 2: the parent has read them, close and exit. */
    static final int DONE = 48;
    /** With {@code --link udp}: the UDP ports on 127.0.0.1 of port A and port B, written before the peer starts. */
    static final int UDP_PORT_A = 56;
    static final int UDP_PORT_B = 64;
    /** The soak's verdict, written before {@link #DONE} 2: {@link #VERDICT_OK} or {@link #VERDICT_FAILED}. */
    static final int VERDICT = 72;
    static final long VERDICT_OK = 1;
    static final long VERDICT_FAILED = 2;
    /** 1 when Ctrl-C stopped the soak (written with the verdict). */
    static final int INTERRUPTED_RUN = 80;
    /** The words the parent writes that a peer on another host obeys ({@link PeerLine} sends them in this order). */
    static final int[] PARENT_WORDS = {STEADY_FROM_NS, HOLD, ARMED, CUT, LINK_UP, VERDICT, INTERRUPTED_RUN, DONE};

    // the peer's words
    public static final int PEER_PID = 128;
    public static final int READY = 136;
    public static final int LINK_STATE = 144;
    /** The value of {@link #HOLD} the peer obeys: 1 once it polls nothing. */
    public static final int HELD = 152;
    static final int INTERVAL_P99_NS = 160;
    public static final int FINISHED = 168;
    public static final int VERSION = 176;
    /**
     * The longest time between two turns of the peer's loop (its process stopped or starved), in ns: what the parent
     * names when the link went down with no bounce.
     */
    static final int LONGEST_PAUSE_NS = 184;
    /** 1 once Ctrl-C reached a peer that serves on another host ({@code vlink soak --serve}): the soak stops. */
    static final int STOP = 192;
    /**
     * The words the peer writes that {@link PeerLine} sends to a parent on another host, in this order: the finished
     * word last (what it announces is sent before it). Not the snapshot's sequence word: the parent's copy has its own.
     */
    static final int[] PEER_WORDS =
        {PEER_PID, READY, LINK_STATE, HELD, INTERVAL_P99_NS, LONGEST_PAUSE_NS, STOP, FINISHED};

    // the snapshot: arrays of VL_COUNT longs
    public static final int DELIVERED = 0;
    public static final int RECEIVED_BYTES = 1;
    public static final int OUT_OF_ORDER = 2;
    public static final int DUPLICATED = 3;
    public static final int DAMAGED = 4;
    public static final int GAPS = 5;
    public static final int EXPECTED = 6;
    public static final int DROPPED_DATA = 7;
    public static final int CORRUPTED_DATA = 8;
    public static final int BOUNCE_LOST = 9;
    public static final int STATE_LOST = 10;
    private static final int ARRAYS = 11;
    private static final int SNAPSHOT = 256;
    private static final int SCALARS = SNAPSHOT + ARRAYS * VlArbiter.VL_COUNT * Long.BYTES;
    static final int VL15_DELIVERED = 0;
    public static final int DROPPED_FCPS = 1;
    public static final int CORRUPTED_FCPS = 2;
    public static final int CLAMPED = 3;
    private static final int SCALAR_COUNT = 4;
    /** Longs in a snapshot. */
    public static final int SNAPSHOT_LONGS = ARRAYS * VlArbiter.VL_COUNT + SCALAR_COUNT;

    private static final int COUNTERS_PATH = 4096;
    public static final int ERRORS = 8192;
    private static final int ERRORS_MAX = 64 * 1024 - Integer.BYTES;
    private static final int TOTAL_HISTOGRAM = ERRORS + 64 * 1024;
    private static final int HISTOGRAM_MAX = 1024 * 1024 - Integer.BYTES;
    private static final int STEADY_HISTOGRAM = TOTAL_HISTOGRAM + 1024 * 1024;
    /** The peer's results at the end, each its length then its bytes: the errors and the two histograms. */
    static final int[] RESULTS = {ERRORS, TOTAL_HISTOGRAM, STEADY_HISTOGRAM};
    /** The channel's bytes. */
    static final int LENGTH = STEADY_HISTOGRAM + 1024 * 1024;

    private final File file;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer buffer;

    private PeerChannel(final File file, final MappedByteBuffer mapped, final UnsafeBuffer buffer)
    {
        this.file = file;
        this.mapped = mapped;
        this.buffer = buffer;
    }

    /**
     * A channel over memory the caller holds instead of a file: for the stress tests, whose two threads on one
     * buffer stand for the parent and the peer. Its words, snapshot and counters path only (the errors and the
     * histograms need the file's length).
     *
     * @param buffer at least {@value #ERRORS} bytes, zeroed.
     * @return the channel ({@link #close()} leaves the buffer alone).
     */
    public static PeerChannel over(final UnsafeBuffer buffer)
    {
        if (buffer.capacity() < ERRORS)
        {
            throw new IllegalArgumentException("a peer channel needs " + ERRORS + " bytes: " + buffer.capacity());
        }
        return new PeerChannel(null, null, buffer);
    }

    /**
     * The parent: make the file (zeros: nothing armed, receiving, link up once the peer sees it).
     *
     * @param file where.
     * @return the channel.
     */
    public static PeerChannel create(final File file)
    {
        final MappedByteBuffer mapped = IoUtil.mapNewFile(file, LENGTH, false);
        return new PeerChannel(file, mapped, new UnsafeBuffer(mapped)).started();
    }

    /**
     * The parent's words as a run starts: the link up, nothing else asked; this process's id.
     *
     * @return this.
     */
    PeerChannel started()
    {
        buffer.putLongVolatile(LINK_UP, 1);
        buffer.putLongVolatile(PARENT_PID, ProcessHandle.current().pid());
        return this;
    }

    /**
     * The peer: map the parent's file.
     *
     * @param file where.
     * @return the channel.
     * @throws IllegalStateException when the file is not a peer channel of this size.
     */
    public static PeerChannel open(final File file)
    {
        if (!file.isFile() || file.length() != LENGTH)
        {
            throw new IllegalStateException(file + " is not a soak peer file");
        }
        final MappedByteBuffer mapped = IoUtil.mapExistingFile(file, "soak peer");
        return new PeerChannel(file, mapped, new UnsafeBuffer(mapped));
    }

    public File file()
    {
        return file;
    }

    public long get(final int offset)
    {
        return buffer.getLongVolatile(offset);
    }

    public void put(final int offset, final long value)
    {
        buffer.putLongOrdered(offset, value);
    }

    /**
     * The peer, its only writer: publish a snapshot (readers see all of it or retry).
     *
     * @param values {@link #SNAPSHOT_LONGS} longs: the arrays, then the scalars.
     */
    public void publish(final long[] values)
    {
        final long version = buffer.getLong(VERSION) + 1;
        buffer.putLongOrdered(VERSION, version);
        // a store-store fence after the odd version: the values are not seen before it
        java.lang.invoke.VarHandle.storeStoreFence();
        for (int i = 0; i < SNAPSHOT_LONGS; i++)
        {
            buffer.putLong(SNAPSHOT + i * Long.BYTES, values[i]);
        }
        buffer.putLongOrdered(VERSION, version + 1);
    }

    /**
     * The parent: read the latest snapshot whole.
     *
     * @param values where, {@link #SNAPSHOT_LONGS} longs.
     * @return whether a consistent snapshot was read (false: the peer was writing on every try).
     */
    public boolean read(final long[] values)
    {
        for (int attempt = 0; attempt < 100; attempt++)
        {
            final long before = buffer.getLongVolatile(VERSION);
            if ((before & 1) != 0)
            {
                Thread.onSpinWait();
                continue;
            }
            for (int i = 0; i < SNAPSHOT_LONGS; i++)
            {
                values[i] = buffer.getLong(SNAPSHOT + i * Long.BYTES);
            }
            java.lang.invoke.VarHandle.loadLoadFence();
            if (buffer.getLongVolatile(VERSION) == before)
            {
                return true;
            }
        }
        return false;
    }

    public static int at(final int array, final int vl)
    {
        return array * VlArbiter.VL_COUNT + vl;
    }

    public static int scalar(final int index)
    {
        return ARRAYS * VlArbiter.VL_COUNT + index;
    }

    public void putCountersPath(final String path)
    {
        putString(COUNTERS_PATH, ERRORS - COUNTERS_PATH - Integer.BYTES, path);
    }

    public String countersPath()
    {
        return getString(COUNTERS_PATH);
    }

    public void putErrors(final String errors)
    {
        putString(ERRORS, ERRORS_MAX, errors);
    }

    public String errors()
    {
        return getString(ERRORS);
    }

    public void putHistograms(final Histogram total, final Histogram steady)
    {
        putHistogram(TOTAL_HISTOGRAM, total);
        putHistogram(STEADY_HISTOGRAM, steady);
    }

    public Histogram totalHistogram()
    {
        return histogram(TOTAL_HISTOGRAM);
    }

    public Histogram steadyHistogram()
    {
        return histogram(STEADY_HISTOGRAM);
    }

    private void putHistogram(final int offset, final Histogram histogram)
    {
        final ByteBuffer encoded = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(encoded);
        if (length > HISTOGRAM_MAX)
        {
            throw new IllegalStateException("a latency histogram of " + length + " bytes does not fit the peer file");
        }
        buffer.putBytes(offset + Integer.BYTES, encoded.array(), 0, length);
        buffer.putIntOrdered(offset, length);
    }

    private Histogram histogram(final int offset)
    {
        final int length = buffer.getIntVolatile(offset);
        if (length <= 0 || length > HISTOGRAM_MAX)
        {
            throw new IllegalStateException("the peer's latency histogram is missing or damaged (" + length + " bytes)");
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset + Integer.BYTES, bytes);
        try
        {
            return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(bytes), 0);
        }
        catch (final DataFormatException ex)
        {
            throw new IllegalStateException("the peer's latency histogram is damaged: " + ex.getMessage(), ex);
        }
    }

    private void putString(final int offset, final int max, final String value)
    {
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        final int length = Math.min(bytes.length, max);
        buffer.putBytes(offset + Integer.BYTES, bytes, 0, length);
        buffer.putIntOrdered(offset, length);
    }

    /**
     * @param offset one of {@link #RESULTS}.
     * @return its bytes as written (empty when not yet written).
     */
    byte[] result(final int offset)
    {
        final int length = buffer.getIntVolatile(offset);
        final byte[] bytes = new byte[Math.max(0, length)];
        buffer.getBytes(offset + Integer.BYTES, bytes);
        return bytes;
    }

    /**
     * A copy of the peer's result from another host: the bytes, then the length, as the peer wrote them.
     *
     * @param offset one of {@link #RESULTS}.
     * @param bytes  its bytes.
     */
    public void putResult(final int offset, final byte[] bytes)
    {
        buffer.putBytes(offset + Integer.BYTES, bytes);
        buffer.putIntOrdered(offset, bytes.length);
    }

    private String getString(final int offset)
    {
        final int length = buffer.getIntVolatile(offset);
        if (length <= 0)
        {
            return "";
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset + Integer.BYTES, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public void close()
    {
        if (null != mapped)
        {
            IoUtil.unmap(mapped);
        }
    }
}
