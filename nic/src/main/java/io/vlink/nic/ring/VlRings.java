package io.vlink.nic.ring;

import io.vlink.core.wire.LrhFlyweight;
import org.jctools.queues.SpscArrayQueue;

/**
 * The per-VL transmit rings between the injection side and the VL arbiter: one JCTools {@link SpscArrayQueue}
 * per VL (data VLs and VL15), carrying references to preallocated descriptors, never packet bytes. The packet
 * itself stays in the shared cell buffer until the arbiter frames it onto the wire.
 * <p>
 * One producer thread (injection) and one consumer thread (the arbiter) per ring; JCTools orders the element
 * store before the index store (release) and the consumer's load after it (acquire), so the descriptor's plain
 * fields, written before {@link #offer}, are visible to the consumer after {@link #peek}.
 *
 * @param <E> the descriptor type.
 */
public final class VlRings<E>
{
    /** VL indexes run 0..15. */
    public static final int VL_SLOTS = LrhFlyweight.VL_COUNT;

    private final SpscArrayQueue<E>[] rings;

    /**
     * @param dataVls  the port's data VLs (VL0..dataVls-1); VL15 always has a ring.
     * @param capacity each ring's capacity (rounded up to a power of two by JCTools).
     */
    @SuppressWarnings("unchecked")
    public VlRings(final int dataVls, final int capacity)
    {
        if (dataVls < 1 || dataVls > 15)
        {
            throw new IllegalArgumentException("data VLs must be 1..15: " + dataVls);
        }
        rings = new SpscArrayQueue[VL_SLOTS];
        for (int vl = 0; vl < dataVls; vl++)
        {
            rings[vl] = new SpscArrayQueue<>(capacity);
        }
        rings[15] = new SpscArrayQueue<>(capacity);
    }

    /**
     * @param vl a VL.
     * @return true if the port has that VL.
     */
    public boolean hasVl(final int vl)
    {
        return vl >= 0 && vl < VL_SLOTS && null != rings[vl];
    }

    /**
     * Producer side.
     *
     * @param vl         the VL.
     * @param descriptor the packet's descriptor.
     * @return false when the ring is full (back-pressure: the caller keeps the packet and retries).
     */
    public boolean offer(final int vl, final E descriptor)
    {
        return rings[vl].offer(descriptor);
    }

    /**
     * Consumer side.
     *
     * @param vl the VL.
     * @return the head descriptor without removing it, or null if the VL has nothing waiting.
     */
    public E peek(final int vl)
    {
        return rings[vl].peek();
    }

    /**
     * Consumer side.
     *
     * @param vl the VL.
     * @return the head descriptor, removed, or null if the VL has nothing waiting.
     */
    public E poll(final int vl)
    {
        return rings[vl].poll();
    }

    /**
     * @param vl the VL.
     * @return descriptors waiting (approximate when read by a third thread).
     */
    public int size(final int vl)
    {
        return rings[vl].size();
    }

    /**
     * @param vl the VL.
     * @return the ring's capacity.
     */
    public int capacity(final int vl)
    {
        return rings[vl].capacity();
    }
}
