package io.vlink.nic.ring;

import io.vlink.core.wire.LrhFlyweight;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An int for the gap after the object header, then two cache lines before the producer's count.
 */
abstract class VlRingsPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The producer's count of the descriptors it offered, on every VL: written by the producer only.
 */
abstract class VlRingsOffered extends VlRingsPad1
{
    long offered;
}

/**
 * Two cache lines between the producer's count and the fields both threads read.
 */
abstract class VlRingsPad2 extends VlRingsOffered
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The per-VL transmit rings between the injection side and the VL arbiter: one JCTools {@link SpscAtomicArrayQueue}
 * per VL (data VLs and VL15), carrying references to preallocated descriptors, never packet bytes. The atomic variant
 * (its elements in an {@code AtomicReferenceArray}) rather than {@code SpscArrayQueue}: the same orderings without
 * {@code sun.misc.Unsafe}, which JDK 24 and later warn about on stderr, for about 1 % of a 64-byte packet's CPU
 * (docs/performance.md, "The per-VL rings without sun.misc.Unsafe"). The packet
 * itself stays in the shared cell buffer until the arbiter frames it onto the wire.
 * <p>
 * One producer thread (injection) and one consumer thread (the arbiter) per ring; JCTools orders the element
 * store before the index store (release) and the consumer's load after it (acquire), so the descriptor's plain
 * fields, written before {@link #offer}, are visible to the consumer after {@link #peek}.
 * <p>
 * The producer also counts what it offered, on every VL, in one word stored with release after each offer
 * ({@link #offered()}, read with acquire): a consumer that counts what it takes out knows that every ring is empty
 * when the two counts are equal, without looking at each ring (an idle arbiter's duty cycle). The count has two
 * cache lines of its own each side (class-hierarchy padding).
 *
 * @param <E> the descriptor type.
 */
public final class VlRings<E> extends VlRingsPad2
{
    /** VL indexes run 0..15. */
    public static final int VL_SLOTS = LrhFlyweight.VL_COUNT;

    private static final VarHandle OFFERED;

    static
    {
        try
        {
            OFFERED = MethodHandles.lookup().findVarHandle(VlRingsOffered.class, "offered", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final SpscAtomicArrayQueue<E>[] rings;

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
        rings = new SpscAtomicArrayQueue[VL_SLOTS];
        for (int vl = 0; vl < dataVls; vl++)
        {
            rings[vl] = new SpscAtomicArrayQueue<>(capacity);
        }
        rings[15] = new SpscAtomicArrayQueue<>(capacity);
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
        if (rings[vl].offer(descriptor))
        {
            // after the element: a consumer that sees the new count sees the descriptor in its ring
            OFFERED.setRelease(this, offered + 1);
            return true;
        }
        return false;
    }

    /**
     * Any thread, normally the consumer: the descriptors offered so far on every VL (acquire). Every descriptor the
     * count includes is in its ring, or was taken out of it, when a read that follows this one looks.
     *
     * @return descriptors offered since the rings were made.
     */
    public long offered()
    {
        return (long)OFFERED.getAcquire(this);
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
