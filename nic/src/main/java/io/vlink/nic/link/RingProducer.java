package io.vlink.nic.link;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;

/**
 * Two cache lines before the producer's fields.
 */
abstract class RingProducerPad1
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The producer's fields: the tail as published, the tail of the frame claimed, the consumer's head it last saw.
 */
abstract class RingProducerFields extends RingProducerPad1
{
    long tail;
    long claimedTail;
    long headCache;
}

/**
 * Two cache lines after the producer's fields.
 */
abstract class RingProducerPad2 extends RingProducerFields
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The transmitting side of a single-producer single-consumer frame ring ({@link RingConsumer} is the receiving side),
 * shared by {@link LoopbackLink} (a ring in this process) and {@link ShmLink} (a ring in a file two processes map):
 * a frame is claimed in place, preceded by a
 * padding record to the ring's end when it would not fit before it, written by the caller, and published by
 * {@link #commit()} with one release store of the tail; the consumer's head is read (acquire) only when the cached
 * one says the ring is full.
 * <p>
 * A record is a header of {@code headerLength} bytes, whose first long is {@code (type << 32) | length} (type
 * {@link #PADDING} for the padding record, whose length runs to the ring's end), then the frame, aligned to the
 * ring's alignment (8 bytes, or wider: the shm link's 64, a record a cache line of its own).
 * What follows the first long of a header (the shm link's session) is the caller's. Positions are longs that only
 * grow; a record's index is the position masked by the capacity.
 * <p>
 * Threading: the transmitting thread only. Its fields are padded on both sides (class-hierarchy padding, as Agrona's
 * and JCTools' queues), so that its writes invalidate no line the receiving thread reads.
 */
final class RingProducer extends RingProducerPad2
{
    /** The type of the record that skips the rest of the ring. */
    static final int PADDING = 0;
    /** Records start and end on 8 bytes at least (the loopback's); a ring may align them wider. */
    static final int ALIGNMENT = 8;

    private final AtomicBuffer ring;
    private final AtomicBuffer positions;
    private final int tailIndex;
    private final int headIndex;
    private final int capacity;
    private final int mask;
    private final int headerLength;
    private final int alignment;
    private final int writeAheadBytes;

    /**
     * @param ring         the records (capacity bytes from index 0).
     * @param capacity     a power of two.
     * @param positions    where the tail and the head are (may be {@code ring} itself).
     * @param tailIndex    the tail's index in {@code positions}, written here with release stores.
     * @param headIndex    the consumer's head's index in {@code positions}, read here with acquire loads.
     * @param headerLength a record header's bytes (8 or more, a multiple of 8).
     * @param alignment    where records start and end: {@link #ALIGNMENT} or a wider power of two, as the consumer's.
     * @param writeAheadBytes after each commit, the first word of each cache line in this many bytes after the tail
     *                     is written (zero), inside the free space only: 0 for none ({@link #commit()}).
     */
    RingProducer(
        final AtomicBuffer ring,
        final int capacity,
        final AtomicBuffer positions,
        final int tailIndex,
        final int headIndex,
        final int headerLength,
        final int alignment,
        final int writeAheadBytes)
    {
        this.alignment = alignment;
        this.writeAheadBytes = writeAheadBytes;
        this.ring = ring;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.positions = positions;
        this.tailIndex = tailIndex;
        this.headIndex = headIndex;
        this.headerLength = headerLength;
    }

    /**
     * A link's check of a claim's arguments (the ring carries these two frame types only, as {@link RingConsumer}
     * accepts).
     *
     * @param frameType      {@link Link#DATA_FRAME} or {@link Link#LINK_FRAME}.
     * @param length         the frame's bytes.
     * @param maxFrameLength the ring's longest frame.
     * @throws IllegalArgumentException naming what is wrong.
     */
    static void checkFrame(final int frameType, final int length, final int maxFrameLength)
    {
        if (length <= 0 || length > maxFrameLength)
        {
            throw new IllegalArgumentException("frame length " + length + " outside 1.." + maxFrameLength);
        }
        if (Link.DATA_FRAME != frameType && Link.LINK_FRAME != frameType)
        {
            throw new IllegalArgumentException("frame type must be DATA_FRAME or LINK_FRAME: " + frameType);
        }
    }

    /**
     * Go on from a tail (a ring whose producer this replaces: the shm link's end taken over); a new ring starts at 0.
     *
     * @param tail where the ring's tail is (on the ring's alignment); the consumer's head is read again.
     */
    void reset(final long tail)
    {
        this.tail = tail;
        this.claimedTail = tail;
        this.headCache = positions.getLongVolatile(headIndex);
    }

    /**
     * Claim room for a frame: its header's first long is written; the rest is the caller's until {@link #commit()}.
     *
     * @param frameType the frame's type (positive).
     * @param length    the frame's bytes.
     * @return the index of the record's header in the ring, or {@link Link#BACK_PRESSURED} when the ring is full.
     */
    int claim(final int frameType, final int length)
    {
        final int record = BitUtil.align(length + headerLength, alignment);
        final long tail = this.tail;
        final int index = (int)(tail & mask);
        final int toEnd = capacity - index;
        final int padding = record > toEnd ? toEnd : 0;
        if (tail + padding + record - headCache > capacity)
        {
            headCache = positions.getLongAcquire(headIndex);
            if (tail + padding + record - headCache > capacity)
            {
                return Link.BACK_PRESSURED;
            }
        }
        int at = index;
        if (0 != padding)
        {
            // the rest of the ring is skipped: a padding record to its end, published with the frame
            ring.putLong(index, ((long)PADDING << 32) | padding);
            at = 0;
        }
        ring.putLong(at, ((long)frameType << 32) | length);
        claimedTail = tail + padding + record;
        return at;
    }

    /**
     * @param length a frame's bytes.
     * @return whether a claim of that length would succeed now.
     */
    boolean hasRoomFor(final int length)
    {
        // a claim may first pad the rest of the ring, which is shorter than the record: twice the record suffices
        final long needed = 2L * BitUtil.align(length + headerLength, alignment);
        if (capacity - (tail - headCache) >= needed)
        {
            return true;
        }
        headCache = positions.getLongAcquire(headIndex);
        return capacity - (tail - headCache) >= needed;
    }

    /**
     * Publish the claimed frame (and its padding): one release store of the tail. Then, with a write-ahead, a zero in
     * the first word of each cache line the next record will start in: the consumer reads only before the tail, so
     * these lines are this side's to write, and writing them now, while the consumer fetches the frame just
     * published, takes them from the consumer's cache (where they lie since it read them a ring ago) off the next
     * frame's path: writing a frame and reading it back for its CRCs then waits on no other core. Only inside the
     * free space as last seen (before the head a ring ahead): never on a record the consumer has not released.
     */
    void commit()
    {
        final long tail = claimedTail;
        this.tail = tail;
        positions.putLongRelease(tailIndex, tail);
        if (0 != writeAheadBytes)
        {
            final long end = Math.min(tail + writeAheadBytes, headCache + capacity);
            for (long position = tail; position + Long.BYTES <= end; position += BitUtil.CACHE_LINE_LENGTH)
            {
                ring.putLong((int)(position & mask), 0L);
            }
        }
    }

    /**
     * Forget the claimed frame: nothing was published, the next claim takes the same space (and writes any padding
     * again).
     */
    void abort()
    {
        claimedTail = tail;
    }
}
