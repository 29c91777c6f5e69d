package io.vlink.nic;

import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.memory.OffHeap;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An int for the gap after the object header (else the JVM places one of the injection agent's ints there, next to
 * whatever precedes this object in memory), then two cache lines before the posting thread's field.
 */
abstract class QueuePairPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The posting (application) thread's field: the completions it last saw.
 */
abstract class QueuePairProducer extends QueuePairPad1
{
    long completedCache;
}

/**
 * Two cache lines between the posting thread's field and the injection agent's.
 */
abstract class QueuePairPad2 extends QueuePairProducer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The injection agent's fields.
 */
abstract class QueuePairConsumer extends QueuePairPad2
{
    long fed;
    // the sequence number after the last message of which a packet was produced (a message in progress is started)
    long started;
    // messages the injection agent flushed that are not reported yet, and the arbiter's count it has seen
    long flushPending;
    long ringFlushedSeen;
    // the arbiter's: messages whose last packet it discarded at a flush (published by the drained generation)
    long ringFlushed;
    DirectBuffer lastRegionBuffer;
    int schedulerIndex = -1;
    int psn;
    int lastRegionKey;
}

/**
 * Two cache lines between the injection agent's fields and the fields both threads read.
 */
abstract class QueuePairPad3 extends QueuePairConsumer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A queue pair's send queue: the application posts messages, the engine's injection agent slices them into
 * packets on the queue pair's SL (SL arbitration with tenure, docs/injection.md).
 * <p>
 * A message is either immediate data, copied here at post time (up to {@link #inlineCapacity()} bytes), or a
 * reference to registered memory ({@link MemoryRegion}), copied once, straight into the cell buffer, when it is
 * sliced. Posting never blocks: a full queue returns {@link #BACK_PRESSURED}. Each accepted message gets a
 * sequence number from 0; {@link #completed()} counts the messages whose bytes are all in the cell buffer, after
 * which referenced memory may be reused.
 * <p>
 * A link error from Armed or Active flushes the port's transmit path (docs/engine.md, "A peer's life and death"):
 * the messages accepted before it and not wholly on the wire are discarded (a message partly sent included: the peer
 * cannot assemble it), counted once in {@link #flushed()} and reported to the engine's {@link FlushListener}; they
 * count as completed too, so their slots and memory are free again. Messages offered after the application saw the
 * port leave Armed or Active ({@link Port#linkState()}) are kept and sent once the link is Active again.
 * <p>
 * One application thread posts to a queue pair; the hand-off to the engine is a single-producer single-consumer
 * ring in off-heap memory: the bytes and the slot's descriptor written, then the slot's sequence word with release;
 * the engine reads the sequence word of the next slot with acquire: it waits on the slot itself, as Agrona's ring
 * buffers wait on a record's header, rather than on a tail word and then the slot (one load fewer in the chain a
 * message waits on). The tail follows with release, for the counts read elsewhere ({@code posted()}). The
 * injection agent hands completions back the same way (the completion word: release after the message's bytes were
 * copied; the posting thread reads it with acquire before it reuses a slot or the message's memory). The tail and
 * the completion word each have two cache lines of their own before them; in this object, the posting thread's
 * fields, the injection agent's and the fields both read are each two cache lines from the next (class-hierarchy
 * padding, as Agrona's and JCTools' queues).
 * Once the engine has closed, every call but the queue pair's fixed numbers throws {@link EngineClosedException}.
 */
public final class QueuePair extends QueuePairPad3
{
    /** {@code offer} result: the queue is full, nothing was posted; try again after the engine made progress. */
    public static final long BACK_PRESSURED = -1;

    static final int KIND_DATA = 0;
    static final int KIND_RAW = 1;
    static final int KIND_SMP = 2;

    static final int INLINE_REGION = -1;

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

    private final Port port;
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

    QueuePair(
        final Port port,
        final int qpn,
        final int sl,
        final int remoteQpn,
        final int kind,
        final int capacity,
        final int inlineCapacity)
    {
        this.port = port;
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
     * @return the port it sends on.
     */
    public Port port()
    {
        return port;
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
    public long offer(final DirectBuffer src, final int offset, final int length)
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
            port.applicationCounters.postBackPressure().increment();
            return BACK_PRESSURED;
        }
        final int index = (int)(tail & mask);
        ring.putBytes(inlineOffset + index * inlineStride, src, offset, length);
        return publish(tail, index, INLINE_REGION, 0, length);
    }

    /**
     * Post a message by reference to registered memory: its bytes are copied once, into the cell buffer, when the
     * engine slices it; they must not change until {@link #completed()} passes the returned sequence number.
     *
     * @param region registered memory of the same engine.
     * @param offset first byte in the region.
     * @param length bytes (at least 1).
     * @return the message's sequence number, or {@link #BACK_PRESSURED} when the queue is full.
     */
    public long offer(final MemoryRegion region, final int offset, final int length)
    {
        checkOpen();
        if (kind != KIND_DATA)
        {
            throw new IllegalStateException("packets and SMPs are posted on the port");
        }
        if (length <= 0 || offset < 0 || (long)offset + length > region.buffer().capacity() ||
            !port.engine().isRegistered(region))
        {
            throw new IllegalArgumentException("message of " + length + " bytes at " + offset +
                " is not within a region registered with this engine");
        }
        final long tail = ring.getLong(TAIL_OFFSET);
        if (isFull(tail))
        {
            port.applicationCounters.postBackPressure().increment();
            return BACK_PRESSURED;
        }
        return publish(tail, (int)(tail & mask), region.key(), offset, length);
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
    void markFlush()
    {
        ring.putLong(FLUSH_MARK_OFFSET, posted());
    }

    // ---------------------------------------------------------------- injection agent side

    /**
     * @return the messages posted when the latest flush was marked (read after the flush epoch, acquire).
     */
    long flushMark()
    {
        return ring.getLong(FLUSH_MARK_OFFSET);
    }

    /**
     * @return the completion word as the injection agent, its only writer, last stored it.
     */
    long completedByEngine()
    {
        return ring.getLong(COMPLETED_OFFSET);
    }

    /**
     * @param messages more flushed messages, reported now.
     */
    void addFlushed(final long messages)
    {
        ring.putLongRelease(FLUSHED_OFFSET, ring.getLong(FLUSHED_OFFSET) + messages);
    }

    /**
     * @return flushed messages not yet in {@link #flushed()} (engine, after every agent stopped).
     */
    long flushedUnreported()
    {
        return flushPending + ringFlushed - ringFlushedSeen;
    }

    int kind()
    {
        return kind;
    }

    long posted()
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
    boolean isPosted(final long sequence)
    {
        return (int)(sequence + 1) ==
            ring.getIntAcquire(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_SEQUENCE_OFFSET);
    }

    int regionOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_REGION_OFFSET);
    }

    int offsetOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_OFFSET_OFFSET);
    }

    int lengthOf(final long sequence)
    {
        return ring.getInt(SLOTS_OFFSET + (int)(sequence & mask) * SLOT_LENGTH + SLOT_LENGTH_OFFSET);
    }

    UnsafeBuffer ring()
    {
        return ring;
    }

    int inlineOffsetOf(final long sequence)
    {
        return inlineOffset + (int)(sequence & mask) * inlineStride;
    }

    void complete(final long sequence)
    {
        ring.putLongRelease(COMPLETED_OFFSET, sequence + 1);
    }

    private void checkOpen()
    {
        if (closed)
        {
            throw new EngineClosedException();
        }
    }

    void free()
    {
        closed = true;
        OffHeap.free(ring);
    }
}
