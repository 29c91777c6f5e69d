package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.PortCounters;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBuffer;
import org.agrona.concurrent.ringbuffer.RecordDescriptor;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The loopback peer: two ports wired back to back in one process through two off-heap Agrona
 * {@link OneToOneRingBuffer}s, one per direction. The embedded default link: nothing to install, no system call.
 * <p>
 * A frame is written once, by the transmitter, straight into the ring ({@code tryClaim}/{@code commit}); the
 * receiver reads it in place. The ring's message type is the frame type. The memory of both rings is freed when
 * both ends are closed.
 */
public final class LoopbackLink implements Link
{
    /** Default bytes of each direction's ring: 1 MiB holds 250 4-KiB packets in flight. */
    public static final int DEFAULT_CAPACITY = 1024 * 1024;

    private final OneToOneRingBuffer transmitRing;
    private final OneToOneRingBuffer receiveRing;
    private final AtomicBuffer transmitBuffer;
    private final Shared shared;
    private final PortCounters counters;
    private final MessageHandler dispatcher = this::onMessage;
    private FrameHandler handler;
    private boolean closed;

    private LoopbackLink(
        final OneToOneRingBuffer transmitRing,
        final OneToOneRingBuffer receiveRing,
        final Shared shared,
        final PortCounters counters)
    {
        this.transmitRing = transmitRing;
        this.receiveRing = receiveRing;
        this.transmitBuffer = transmitRing.buffer();
        this.shared = shared;
        this.counters = counters;
    }

    /**
     * Create the two ends of a loopback link.
     *
     * @param capacity  bytes of each direction's ring (a power of two, at least 64 KiB).
     * @param countersA counters of the port on end 0.
     * @param countersB counters of the port on end 1.
     * @return end 0 (what it transmits, end 1 receives) and end 1.
     */
    public static LoopbackLink[] pair(final int capacity, final PortCounters countersA, final PortCounters countersB)
    {
        if (capacity < 64 * 1024 || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("loopback capacity must be a power of two >= 64 KiB: " + capacity);
        }
        final UnsafeBuffer aToB = OffHeap.allocate(capacity + RingBufferDescriptor.TRAILER_LENGTH);
        final UnsafeBuffer bToA = OffHeap.allocate(capacity + RingBufferDescriptor.TRAILER_LENGTH);
        final OneToOneRingBuffer ringAToB = new OneToOneRingBuffer(aToB);
        final OneToOneRingBuffer ringBToA = new OneToOneRingBuffer(bToA);
        final Shared shared = new Shared(aToB, bToA);
        return new LoopbackLink[]
        {
            new LoopbackLink(ringAToB, ringBToA, shared, countersA),
            new LoopbackLink(ringBToA, ringAToB, shared, countersB),
        };
    }

    @Override
    public int maxFrameLength()
    {
        return Math.min(MAX_DATA_FRAME_LENGTH, transmitRing.maxMsgLength());
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        if (length <= 0 || length > maxFrameLength())
        {
            throw new IllegalArgumentException("frame length " + length + " outside 1.." + maxFrameLength());
        }
        final int index = transmitRing.tryClaim(frameType, length);
        if (index < 0)
        {
            counters.linkBackPressure.incrementRelease();
            return BACK_PRESSURED;
        }
        return index;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        // A claim needs the aligned record contiguous; at the wrap it may first pad the rest of the ring,
        // which is shorter than the record: twice the record always suffices.
        final long used = transmitRing.producerPosition() - transmitRing.consumerPosition();
        final int record = BitUtil.align(length + RecordDescriptor.HEADER_LENGTH, RecordDescriptor.ALIGNMENT);
        return transmitRing.capacity() - used >= 2L * record;
    }

    @Override
    public AtomicBuffer buffer()
    {
        return transmitBuffer;
    }

    @Override
    public void commit(final int offset)
    {
        transmitRing.commit(offset);
        counters.linkFramesSent.incrementRelease();
    }

    @Override
    public void abort(final int offset)
    {
        transmitRing.abort(offset);
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        this.handler = handler;
        return receiveRing.read(dispatcher, frameLimit);
    }

    private void onMessage(final int msgTypeId, final DirectBuffer buffer, final int index, final int length)
    {
        counters.linkFramesReceived.incrementRelease();
        handler.onFrame(msgTypeId, buffer, index, length);
    }

    /**
     * @return the receive ring, for tests and diagnostics.
     */
    RingBuffer receiveRing()
    {
        return receiveRing;
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
