package io.vlink.nic.agent;

import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.ApplicationCounters;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An int for the gap after the object header (else the JVM places one of the injection agent's ints there, next to
 * whatever precedes this object in memory), then two cache lines before the posting thread's field.
 */
abstract class SendQueuePad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The posting (application) thread's field: the completions it last saw.
 */
abstract class SendQueueProducer extends SendQueuePad1
{
    long completedCache;
}

/**
 * Two cache lines between the posting thread's field and the injection agent's.
 */
abstract class SendQueuePad2 extends SendQueueProducer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The injection agent's fields.
 */
abstract class SendQueueConsumer extends SendQueuePad2
{
    long fed;
    // the sequence number after the last message of which a packet was produced (a message in progress is started)
    long started;
    // messages the injection agent flushed that are not reported yet, and the arbiter's count it has seen
    long flushPending;
    long ringFlushedSeen;
    // the arbiter's: messages whose last packet it discarded at a flush (published by the drained generation)
    public long ringFlushed;
    DirectBuffer lastRegionBuffer;
    int schedulerIndex = -1;
    int psn;
    int lastRegionKey;
}

/**
 * Two cache lines between the injection agent's fields and the fields both threads read.
 */
abstract class SendQueuePad3 extends SendQueueConsumer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A send queue as the engine's agents see it: the ring through which one application thread hands messages to the
 * injection agent, and the agents' per-queue state. A data queue pair's application side is
 * {@code io.vlink.nic.QueuePair}, which holds one (its {@link #owner()}); a port's ready packets and SMPs go through
 * send queues of their own.
 * <p>
 * One application thread posts to a send queue; the hand-off to the engine is a single-producer single-consumer
 * ring in off-heap memory: the bytes and the slot's descriptor written, then the slot's sequence word with release;
 * the engine reads the sequence word of the next slot with acquire: it waits on the slot itself, as Agrona's ring
 * buffers wait on a record's header, rather than on a tail word and then the slot (one load fewer in the chain a
 * message waits on). The tail follows with release, for the counts read elsewhere ({@code posted()}). The
 * injection agent hands completions back the same way (the completion word: release after the message's bytes were
 * copied; the posting thread reads it with acquire before it reuses a slot or the message's memory). The tail and
 * the completion word each have two cache lines of their own before them; in this object, the posting thread's
 * fields, the injection agent's and the fields both read are each two cache lines from the next (class-hierarchy
 * padding, as Agrona's and JCTools' queues).
 * Once the engine has closed, every call but the queue's fixed numbers throws {@link EngineClosedException}.
 */
public final class SendQueue extends SendQueuePad3
{
    /** {@code offer} result: the queue is full, nothing was posted; try again after the engine made progress. */
    public static final long BACK_PRESSURED = -1;

    /** A queue pair's messages, sliced into packets. */
    public static final int KIND_DATA = 0;
    /** Ready packets on an SL. */
    public static final int KIND_RAW = 1;
    /** SMPs on VL15. */
    public static final int KIND_SMP = 2;

    public static final int INLINE_REGION = -1;

    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int TAIL_OFFSET = PAD;
    private static final int COMPLETED_OFFSET = 2 * PAD;
    // the credit agent's flush mark and the injection agent's flushed count: written only at link errors
    private static final int FLUSH_MARK_OFFSET = 3 * PAD;
    private static final int FLUSHED_OFFSET = FLUSH_MARK_OFFSET + Long.BYTES;
    private static final int SLOTS_OFFSET = 4 * PAD;
    private static final int SLOT_LENGTH = 16;
    private static final int SLOT_REGION_OFFSET = 0;
    private static final int SLOT_OFFSET_OFFSET = 4;
    private static final int SLOT_LENGTH_OFFSET = 8;
    // the message's sequence number + 1 (low 32 bits), written last: a slot's previous message is capacity earlier,
    // and a slot never written holds 0, which is no message's word before 2^32 - 1 messages went through it
    private static final int SLOT_SEQUENCE_OFFSET = 12;

    private final Object owner;
    private final ApplicationCounters counters;
    private final int qpn;
    private final int sl;
    private final int remoteQpn;
    private final int kind;
    private final int capacity;
    private final int mask;
    private final int inlineCapacity;
    private final int inlineStride;
    private final int inlineOffset;
    private final UnsafeBuffer ring;
    // set once by the engine's close before the ring is freed: one plain read on the posting path (read-mostly)
    private boolean closed;

    /**
     * @param owner          the application's handle of the queue (a queue pair), told with its flushes; or null.
     * @param counters       what the application's posts count (its back-pressure).
     * @param qpn            the queue pair number.
     * @param sl             the service level.
     * @param remoteQpn      the destination queue pair number.
     * @param kind           {@link #KIND_DATA}, {@link #KIND_RAW} or {@link #KIND_SMP}.
     * @param capacity       the most messages waiting (rounded up to a power of two).
     * @param inlineCapacity the most bytes of immediate data a message carries.
     */
    public SendQueue(
        final Object owner,
        final ApplicationCounters counters,
        final int qpn,
        final int sl,
        final int remoteQpn,
        final int kind,
        final int capacity,
        final int inlineCapacity)
    {
        this.owner = owner;
        this.counters = counters;
        this.qpn = qpn;
        this.sl = sl;
        this.remoteQpn = remoteQpn;
        this.kind = kind;
        this.capacity = BitUtil.findNextPositivePowerOfTwo(capacity);
        this.mask = this.capacity - 1;
        this.inlineCapacity = inlineCapacity;
        this.inlineStride = BitUtil.align(inlineCapacity, 8);
        this.inlineOffset = SLOTS_OFFSET + this.capacity * SLOT_LENGTH;
        ring = OffHeap.allocate(inlineOffset + this.capacity * inlineStride);
    }

    /**
     * Test seam: the PSN the queue's next packet carries (the injection agent's count, set before traffic flows).
     *
     * @param psn 0 to 2^24 - 1.
     */
    public void nextPsn(final int psn)
    {
        this.psn = psn;
    }

    /**
     * @return the application's handle of the queue, or null.
     */
    public Object owner()
    {
        return owner;
    }

    /**
     * @return the queue pair number.
     */
    public int qpn()
    {
        return qpn;
    }

    /**
     * @return the service level its packets carry (mapped to a VL by the port's SL2VL table).
     */
    public int sl()
    {
        return sl;
    }

    /**
     * @return the destination queue pair number its packets carry in the BTH.
     */
    public int remoteQpn()
    {
        return remoteQpn;
    }

    /**
     * @return the most bytes an immediate-data message may carry.
     */
    public int inlineCapacity()
    {
        return inlineCapacity;
    }

    /**
     * @return how many messages may wait in the queue.
     */
    public int capacity()
    {
        return capacity;
    }

    /**
     * Post a message of immediate data: its bytes are copied now.
     *
     * @param src    the bytes.
     * @param offset first byte.
     * @param length 1 to {@link #inlineCapacity()} bytes.
     * @return the message's sequence number, or {@link #BACK_PRESSURED} when the queue is full.
     */
    public long offerInline(final DirectBuffer src, final int offset, final int length)
    {
        checkOpen();
        if (length <= 0 || length > inlineCapacity)
        {
            throw new IllegalArgumentException(
                "immediate data of " + length + " bytes: 1 to " + inlineCapacity + " (larger: post a MemoryRegion)");
        }
        final long tail = ring.getLong(TAIL_OFFSET);
        if (isFull(tail))
        {
            counters.postBackPressure().increment();
            return BACK_PRESSURED;
        }
        final int index = (int)(tail & mask);
        ring.putBytes(inlineOffset + index * inlineStride, src, offset, length);
        return publish(tail, index, INLINE_REGION, 0, length);
    }

    /**
     * Post a message by reference to memory the engine registered: its bytes are copied once, into the cell buffer,
     * when the injection agent slices it; the caller has checked the region and the bounds.
     *
     * @param regionKey the region's key.
     * @param offset    first byte in the region.
     * @param length    bytes (at least 1).
     * @return the message's sequence number, or {@link #BACK_PRESSURED} when the queue is full.
     */
    public long offerRegion(final int regionKey, final int offset, final int length)
    {
        final long tail = ring.getLong(TAIL_OFFSET);
        if (isFull(tail))
        {
            counters.postBackPressure().increment();
            return BACK_PRESSURED;
        }
        return publish(tail, (int)(tail & mask), regionKey, offset, length);
    }

    private boolean isFull(final long tail)
    {
        if (tail - completedCache >= capacity)
        {
            completedCache = ring.getLongAcquire(COMPLETED_OFFSET);
            return tail - completedCache >= capacity;
        }
        return false;
    }

    private long publish(final long tail, final int index, final int region, final int offset, final int length)
    {
        final int slot = SLOTS_OFFSET + index * SLOT_LENGTH;
        ring.putInt(slot + SLOT_REGION_OFFSET, region);
        ring.putInt(slot + SLOT_OFFSET_OFFSET, offset);
        ring.putInt(slot + SLOT_LENGTH_OFFSET, length);
        ring.putIntRelease(slot + SLOT_SEQUENCE_OFFSET, (int)(tail + 1));
        ring.putLongRelease(TAIL_OFFSET, tail + 1);
        return tail;
    }

    /**
     * @return messages completed: every byte of each is in the cell buffer (in posting order).
     */
    public long completed()
    {
        checkOpen();
        return ring.getLongAcquire(COMPLETED_OFFSET);
    }

    /**
     * @return messages accepted and then discarded by link errors (not sent, or only partly), monotonic; readable
     * from any thread.
     */
    public long flushed()
    {
        checkOpen();
        return ring.getLongAcquire(FLUSHED_OFFSET);
    }

    // ---------------------------------------------------------------- credit agent side

    /**
     * Credit agent, at a link error that flushes, before it publishes the flush epoch: the messages posted so far are
     * the ones the flush discards (unless wholly sent already).
     */
    public void markFlush()
    {
        ring.putLong(FLUSH_MARK_OFFSET, posted());
    }

    // ---------------------------------------------------------------- injection agent side

    /**
     * @return the messages posted when the latest flush was marked (read after the flush epoch, acquire).
     */
    public long flushMark()
    {
        return ring.getLong(FLUSH_MARK_OFFSET);
    }

    /**
     * @return the completion word as the injection agent, its only writer, last stored it.
     */
    public long completedByEngine()
    {
        return ring.getLong(COMPLETED_OFFSET);
    }

    /**
     * @param messages more flushed messages, reported now.
     */
    public void addFlushed(final long messages)
    {
        ring.putLongRelease(FLUSHED_OFFSET, ring.getLong(FLUSHED_OFFSET) + messages);
    }

    /**
     * @return flushed messages not yet in {@link #flushed()} (engine, after every agent stopped).
     */
    public long flushedUnreported()
    {
        return flushPending + ringFlushed - ringFlushedSeen;
    }

    /**
     * @return {@link #KIND_DATA}, {@link #KIND_RAW} or {@link #KIND_SMP}.
     */
    public int kind()
    {
        return kind;
    }

    /**
     * @return messages posted (acquire).
     */
    public long posted()
    {
        return ring.getLongAcquire(TAIL_OFFSET);
    }

    /**
     * Injection agent: has the application posted message {@code sequence} (the slot's sequence word, acquire: its
     * descriptor and bytes are then visible)? Only for the message after the last one seen posted.
     *
     * @param sequence the message's sequence number.
     * @return true once it is posted.
     */
    public boolean isPosted(final long sequence)
    {
        return (int)(sequence + 1) ==
            ring.getIntAcquire(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_SEQUENCE_OFFSET);
    }

    public int regionOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_REGION_OFFSET);
    }

    public int offsetOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_OFFSET_OFFSET);
    }

    public int lengthOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_LENGTH_OFFSET);
    }

    public UnsafeBuffer ring()
    {
        return ring;
    }

    public int inlineOffsetOf(final long sequence)
    {
        return inlineOffset + (int)(sequence & mask) * inlineStride;
    }

    public void complete(final long sequence)
    {
        ring.putLongRelease(COMPLETED_OFFSET, sequence + 1);
    }

    /**
     * @throws EngineClosedException once the engine has closed.
     */
    public void checkOpen()
    {
        if (closed)
        {
            throw new EngineClosedException();
        }
    }

    /**
     * Engine, once every agent stopped: refuse every call, then give the memory back.
     */
    public void free()
    {
        closed = true;
        OffHeap.free(ring);
    }
}
