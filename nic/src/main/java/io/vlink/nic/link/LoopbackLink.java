package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.LinkCounters;
import org.agrona.BitUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loopback peer: two ports wired back to back in one process through two off-heap single-producer
 * single-consumer frame rings, one per direction. The embedded default link: nothing to install, no system call.
 * <p>
 * A frame is written once, by the transmitter, straight into the ring ({@code tryClaim}/{@code commit}); the
 * receiver reads it in place. Each record is an 8-byte header (frame length, frame type) and the frame, aligned to
 * 8 bytes; a frame that would not fit before the end of the ring is preceded by a padding record to the end. The
 * producer publishes its tail with a release store at each commit, the consumer reads it with one acquire per poll
 * and hands its head back with one release store per poll: unlike an Agrona {@code OneToOneRingBuffer}, whose
 * records carry their own commit flag, nothing is zeroed after reading, and a poll costs two ordered accesses
 * whatever the number of frames. The memory of both rings is freed when both ends are closed.
 * <p>
 * The two sides are {@link RingProducer} and {@link RingConsumer}, which {@link ShmLink} shares.
 * <p>
 * Layout, as Agrona's ring buffers and JCTools' queues: after each ring, the tail and the head each with two cache
 * lines of their own before them and two after the head; the transmitting thread's fields (in its
 * {@link RingProducer}) and the receiving thread's (in its {@link RingConsumer}) each have two cache lines on both
 * sides (class-hierarchy padding), so that neither thread's writes invalidate a line the other reads.
 */
public final class LoopbackLink implements Link
{
    /** Default bytes of each direction's ring: 1 MiB holds 250 4-KiB packets in flight. */
    public static final int DEFAULT_CAPACITY = 1024 * 1024;

    private static final int HEADER_LENGTH = 8;
    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int TRAILER_LENGTH = 3 * PAD;

    private final UnsafeBuffer transmitBuffer;
    private final int maxFrameLength;
    private final Shared shared;
    private final LinkCounters counters;
    private final RingProducer producer;
    private final RingConsumer consumer;
    private boolean closed;

    private LoopbackLink(
        final UnsafeBuffer transmitBuffer,
        final UnsafeBuffer receiveBuffer,
        final int capacity,
        final Shared shared,
        final LinkCounters counters)
    {
        final int tailIndex = capacity + PAD;
        final int headIndex = capacity + 2 * PAD;
        this.transmitBuffer = transmitBuffer;
        this.maxFrameLength = RingConsumer.maxFrameLength(capacity);
        this.shared = shared;
        this.counters = counters;
        // records on the narrowest alignment and no write-ahead: both ends are this process's threads
        this.producer = new RingProducer(transmitBuffer, capacity, transmitBuffer, tailIndex, headIndex, HEADER_LENGTH,
            RingProducer.ALIGNMENT, 0);
        this.consumer = new RingConsumer(receiveBuffer, capacity, receiveBuffer, tailIndex, headIndex, HEADER_LENGTH,
            RingProducer.ALIGNMENT, counters.framesReceived(), counters.lengthDrops(), counters.sessionDrops());
    }

    /**
     * Create the two ends of a loopback link.
     *
     * @param capacity  bytes of each direction's ring (a power of two, at least 64 KiB).
     * @param countersA counters of the port on end 0.
     * @param countersB counters of the port on end 1.
     * @return end 0 (what it transmits, end 1 receives) and end 1.
     */
    public static LoopbackLink[] pair(final int capacity, final LinkCounters countersA, final LinkCounters countersB)
    {
        if (capacity < 64 * 1024 || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("loopback capacity must be a power of two >= 64 KiB: " + capacity);
        }
         return ring(capacity, countersA, countersB);
    }

    /**
     * Create the two ends of a loopback link of any power-of-two capacity: the stress tests' small rings (at most
     * an eighth of the capacity per frame).
     *
     * @param capacity  bytes of each direction's ring (a power of two).
     * @param countersA counters of the port on end 0.
     * @param countersB counters of the port on end 1.
     * @return end 0 and end 1.
     */
    public static LoopbackLink[] ring(final int capacity, final LinkCounters countersA, final LinkCounters countersB)
    {
        final UnsafeBuffer aToB = OffHeap.allocate(capacity + TRAILER_LENGTH);
        final UnsafeBuffer bToA = OffHeap.allocate(capacity + TRAILER_LENGTH);
        aToB.verifyAlignment();
        bToA.verifyAlignment();
        final Shared shared = new Shared(aToB, bToA);
        return new LoopbackLink[]
        {
            new LoopbackLink(aToB, bToA, capacity, shared, countersA),
            new LoopbackLink(bToA, aToB, capacity, shared, countersB),
        };
    }

    @Override
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        RingProducer.checkFrame(frameType, length, maxFrameLength);
        final int at = producer.claim(frameType, length);
        if (BACK_PRESSURED == at)
        {
            counters.backPressure().incrementRelease();
            return BACK_PRESSURED;
        }
        return at + HEADER_LENGTH;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return producer.hasRoomFor(length);
    }

    @Override
    public AtomicBuffer buffer()
    {
        return transmitBuffer;
    }

    @Override
    public void commit(final int offset)
    {
        producer.commit();
        counters.framesSent().incrementRelease();
    }

    @Override
    public void abort(final int offset)
    {
        // nothing was published: the next claim takes the same space (and writes any padding again)
        producer.abort();
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        return consumer.poll(handler, frameLimit, consumer.available(), 0);
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            shared.release();
        }
    }

    private static final class Shared
    {
        private final AtomicInteger ends = new AtomicInteger(2);
        private final UnsafeBuffer aToB;
        private final UnsafeBuffer bToA;

        Shared(final UnsafeBuffer aToB, final UnsafeBuffer bToA)
        {
            this.aToB = aToB;
            this.bToA = bToA;
        }

        void release()
        {
            if (0 == ends.decrementAndGet())
            {
                OffHeap.free(aToB);
                OffHeap.free(bToA);
            }
        }
    }
}
