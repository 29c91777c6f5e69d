package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The frames a {@link RetryLink} holds until its peer acknowledges them, by link sequence number: an off-heap byte
 * ring (each frame written once, in place, by the transmitting thread, 8-byte aligned; a frame that would not fit
 * before the end starts at the beginning) and, per sequence number, where the frame is and its type and length.
 * Frames are released oldest first. Bounded in bytes and in frames; allocation-free after construction.
 * Single-threaded (the transmitting thread).
 */
final class ReplayBuffer
{
    private final UnsafeBuffer buffer;
    private final int capacity;
    private final int slotMask;
    private final long[] positions;
    private final int[] lengths;
    private final byte[] types;
    private long head;
    private long tail;
    private long claimed;

    /**
     * @param capacity bytes of frames held: a power of two.
     * @param slots    frames held at most: a power of two.
     */
    ReplayBuffer(final int capacity, final int slots)
    {
        if (!BitUtil.isPowerOfTwo(capacity) || !BitUtil.isPowerOfTwo(slots))
        {
            throw new IllegalArgumentException("replay buffer " + capacity + " bytes, " + slots +
                " frames: both must be powers of two");
        }
        this.capacity = capacity;
        this.slotMask = slots - 1;
        this.buffer = OffHeap.allocate(capacity);
        this.positions = new long[slots];
        this.lengths = new int[slots];
        this.types = new byte[slots];
    }

    /**
     * @return the memory claimed offsets refer to.
     */
    UnsafeBuffer buffer()
    {
        return buffer;
    }

    /**
     * @return the most frames held.
     */
    int slots()
    {
        return slotMask + 1;
    }

    /** Where a frame of {@code length} bytes would start: at the tail, or at the ring's start when it would wrap. */
    private long place(final int length)
    {
        final int offset = (int)tail & (capacity - 1);
        return offset + length > capacity ? tail + capacity - offset : tail;
    }

    /**
     * @param length a frame's length.
     * @return whether {@link #claim} of that length succeeds now.
     */
    boolean hasRoom(final int length)
    {
        return length <= capacity && place(length) + length - head <= capacity;
    }

    /**
     * Claim room for one frame (only when {@link #hasRoom}); nothing is held until {@link #commit}.
     *
     * @param length the frame's length.
     * @return the offset in {@link #buffer()} to write it at.
     */
    int claim(final int length)
    {
        claimed = place(length);
        return (int)claimed & (capacity - 1);
    }

    /**
     * Hold the frame last claimed.
     *
     * @param sequence its link sequence number.
     * @param type     its frame type.
     * @param length   its length.
     */
    void commit(final int sequence, final int type, final int length)
    {
        final int slot = sequence & slotMask;
        positions[slot] = claimed;
        lengths[slot] = length;
        types[slot] = (byte)type;
        tail = claimed + BitUtil.align(length, 8);
    }

    /**
     * Release every frame before {@code oldest}.
     *
     * @param oldest the oldest frame still held.
     * @param empty  whether no frame is held any more.
     */
    void release(final int oldest, final boolean empty)
    {
        head = empty ? tail : positions[oldest & slotMask];
    }

    /**
     * Release everything (a new session).
     */
    void clear()
    {
        head = tail;
    }

    int offset(final int sequence)
    {
        return (int)positions[sequence & slotMask] & (capacity - 1);
    }

    int length(final int sequence)
    {
        return lengths[sequence & slotMask];
    }

    int type(final int sequence)
    {
        return types[sequence & slotMask];
    }

    /**
     * Free the memory. Idempotent.
     */
    void close()
    {
        OffHeap.free(buffer);
    }
}
