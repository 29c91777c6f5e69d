package io.vlink.nic.link;

import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * Two cache lines before the consumer's field.
 */
abstract class RingConsumerPad1
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The consumer's field: its head, as published.
 */
abstract class RingConsumerFields extends RingConsumerPad1
{
    long head;
}

/**
 * Two cache lines after the consumer's field.
 */
abstract class RingConsumerPad2 extends RingConsumerFields
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The receiving side of the single-producer single-consumer frame ring that {@link RingProducer} writes, shared by
 * {@link LoopbackLink} (a ring in this process) and {@link ShmLink} (a ring in a file two processes map): frames are
 * read in place; a poll reads the producer's tail once (acquire), delivers the records before it, and hands the
 * space back with one release store of the head. Nothing is zeroed after reading.
 * <p>
 * It trusts nothing it reads from the ring (the shm link's producer is another process): the tail must be on the
 * ring's alignment and at most one ring ahead of the head; a record must be a padding record running exactly to the
 * ring's end, or a {@link Link#DATA_FRAME} or {@link Link#LINK_FRAME} of 1 to {@link #maxFrameLength(int)} bytes that
 * ends before the ring's end and before the tail. Anything else is dropped and counted once
 * ({@code link_length_drops}) by skipping to the tail: nothing read from the ring can make this side read outside it.
 * With a header longer than 8 bytes, a record's second long is the session its producer stamped it with: a frame of
 * another session is dropped and counted ({@code link_session_drops}).
 * <p>
 * Threading: the receiving thread only (its head is padded on both sides, as the producer's fields are).
 */
final class RingConsumer extends RingConsumerPad2
{
    /** Where a record's session is, in a header longer than 8 bytes. */
    static final int SESSION_OFFSET = 8;

    private final AtomicBuffer ring;
    private final AtomicBuffer positions;
    private final int tailIndex;
    private final int headIndex;
    private final int capacity;
    private final int mask;
    private final int headerLength;
    private final int maxFrameLength;
    private final int alignment;
    private final boolean stamped;
    private final AtomicCounter framesReceived;
    private final AtomicCounter lengthDrops;
    private final AtomicCounter sessionDrops;

    /**
     * @param ring           the records (capacity bytes from index 0).
     * @param capacity       a power of two.
     * @param positions      where the tail and the head are (may be {@code ring} itself).
     * @param tailIndex      the producer's tail's index in {@code positions}, read here with acquire loads.
     * @param headIndex      the head's index in {@code positions}, written here with release stores.
     * @param headerLength   a record header's bytes: 8, or 16 with the session.
     * @param alignment      where records start and end, as the producer's: {@link RingProducer#ALIGNMENT} or a wider
     *                       power of two; a tail not on it is corrupt.
     * @param framesReceived counts the frames delivered.
     * @param lengthDrops    counts the polls that found the ring corrupt.
     * @param sessionDrops   counts the frames of another session.
     */
    RingConsumer(
        final AtomicBuffer ring,
        final int capacity,
        final AtomicBuffer positions,
        final int tailIndex,
        final int headIndex,
        final int headerLength,
        final int alignment,
        final AtomicCounter framesReceived,
        final AtomicCounter lengthDrops,
        final AtomicCounter sessionDrops)
    {
        this.ring = ring;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.positions = positions;
        this.tailIndex = tailIndex;
        this.headIndex = headIndex;
        this.headerLength = headerLength;
        this.maxFrameLength = maxFrameLength(capacity);
        this.alignment = alignment;
        this.stamped = headerLength > SESSION_OFFSET;
        this.framesReceived = framesReceived;
        this.lengthDrops = lengthDrops;
        this.sessionDrops = sessionDrops;
    }

    /**
     * @param capacity a ring's bytes.
     * @return the longest frame a ring of that capacity carries: an eighth of it, at most
     * {@link Link#MAX_DATA_FRAME_LENGTH}.
     */
    static int maxFrameLength(final int capacity)
    {
        return Math.min(Link.MAX_DATA_FRAME_LENGTH, capacity / 8);
    }

    /**
     * @return the producer's tail (acquire): every record before it is whole.
     */
    long available()
    {
        return positions.getLongAcquire(tailIndex);
    }

    /**
     * Skip every record published so far (the shm link's end attaching: what was written before it is not its).
     */
    void skipToTail()
    {
        head = positions.getLongVolatile(tailIndex);
        positions.putLongVolatile(headIndex, head);
    }

    /**
     * @return whether every record the producer published was read: the tail read again (acquire) is the head.
     */
    boolean drained()
    {
        return head == positions.getLongAcquire(tailIndex);
    }

    /**
     * Deliver the frames published before {@code available}, in order, each read in place; the space goes back to
     * the producer when the poll ends, even when the handler throws (the frame it threw on is consumed).
     *
     * @param handler    receives each frame.
     * @param frameLimit at most this many frames.
     * @param available  the tail, from {@link #available()}.
     * @param session    the session frames must carry (0: none is delivered); ignored with 8-byte headers.
     * @return frames delivered.
     */
    int poll(final FrameHandler handler, final int frameLimit, final long available, final long session)
    {
        final long head = this.head;
        if (available == head)
        {
            return 0; // nothing new: an idle poll is one compare
        }
        final AtomicBuffer buffer = ring;
        long position = head;
        int frames = 0;
        int foreign = 0;
        try
        {
            if (available - position < 0 || available - position > capacity ||
                0 != (available & (alignment - 1)))
            {
                position = corrupt(available);
            }
            while (position < available && frames < frameLimit)
            {
                final int index = (int)(position & mask);
                final long word = buffer.getLong(index);
                final int length = (int)word;
                final int type = (int)(word >>> 32);
                final int toEnd = capacity - index;
                if (RingProducer.PADDING == type)
                {
                    if (length != toEnd || available - position < length)
                    {
                        position = corrupt(available);
                        break;
                    }
                    position += length;
                    continue;
                }
                if ((Link.DATA_FRAME != type && Link.LINK_FRAME != type) || length <= 0 || length > maxFrameLength)
                {
                    position = corrupt(available);
                    break;
                }
                final int record = BitUtil.align(length + headerLength, alignment);
                if (record > toEnd || available - position < record)
                {
                    position = corrupt(available);
                    break;
                }
                // consumed before the handler runs: a handler that throws does not see the frame again
                position += record;
                if (stamped && (0 == session || buffer.getLong(index + SESSION_OFFSET) != session))
                {
                    foreign++;
                    continue;
                }
                frames++;
                handler.onFrame(type, buffer, index + headerLength, length);
            }
        }
        finally
        {
            if (position != head)
            {
                this.head = position;
                positions.putLongRelease(headIndex, position);
            }
            if (frames > 0)
            {
                framesReceived.getAndAddRelease(frames);
            }
            if (foreign > 0)
            {
                sessionDrops.getAndAddRelease(foreign);
            }
        }
        return frames;
    }

    /** What the producer published does not parse: drop all of it, count once. */
    private long corrupt(final long available)
    {
        lengthDrops.incrementRelease();
        return available;
    }
}
