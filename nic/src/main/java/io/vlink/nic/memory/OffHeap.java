package io.vlink.nic.memory;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Off-heap memory of the engine: every buffer is allocated and freed here, so that closing an engine provably
 * gives back all of it ({@link #allocatedBytes()} returns to where it was). Not for the hot path: buffers are
 * allocated when an engine is built and freed when it closes.
 */
public final class OffHeap
{
    private static final AtomicLong ALLOCATED_BYTES = new AtomicLong();
    private static final AtomicLong ALLOCATED_BUFFERS = new AtomicLong();

    private OffHeap()
    {
    }

    /**
     * @param length bytes, zeroed.
     * @return a buffer over fresh direct memory (aligned for atomic access), to be given back with {@link #free}.
     */
    public static UnsafeBuffer allocate(final int length)
    {
        if (length <= 0)
        {
            throw new IllegalArgumentException("length must be positive: " + length);
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(length));
        ALLOCATED_BYTES.addAndGet(length);
        ALLOCATED_BUFFERS.incrementAndGet();
        return buffer;
    }

    /**
     * Free a buffer from {@link #allocate}. The buffer must not be used afterwards.
     *
     * @param buffer the buffer, or null (ignored).
     */
    public static void free(final UnsafeBuffer buffer)
    {
        if (null != buffer && null != buffer.byteBuffer())
        {
            final ByteBuffer byteBuffer = buffer.byteBuffer();
            final int length = byteBuffer.capacity();
            buffer.wrap(new byte[0]);
            BufferUtil.free(byteBuffer);
            ALLOCATED_BYTES.addAndGet(-length);
            ALLOCATED_BUFFERS.decrementAndGet();
        }
    }

    /**
     * @return off-heap bytes currently allocated through this class, by every engine of the process.
     */
    public static long allocatedBytes()
    {
        return ALLOCATED_BYTES.get();
    }

    /**
     * @return off-heap buffers currently allocated through this class.
     */
    public static long allocatedBuffers()
    {
        return ALLOCATED_BUFFERS.get();
    }
}
