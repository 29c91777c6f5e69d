package io.vlink.nic.agent;

import io.vlink.core.port.ReceiveBuffers;
import io.vlink.nic.ring.ReceiveRing;
import org.agrona.DirectBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An int for the gap after the object header, then two cache lines before the receive agent's count.
 */
abstract class RingBuffersPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The receive agent's count of the packets it stored, in every VL's ring.
 */
abstract class RingBuffersStored extends RingBuffersPad1
{
    long stored;
}

/**
 * Two cache lines after the count.
 */
abstract class RingBuffersPad2 extends RingBuffersStored
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A port's receive rings as its datapath sees them ({@link ReceiveBuffers}): the receive agent stores each packet it
 * admits in its VL's ring ({@link ReceiveRing#offer}) and counts it, every VL together, with a release store after
 * the ring's own publication ({@link #stored()}, acquire: a poller that sees the count finds every packet it counts
 * in the rings); the credit agent reads how many blocks the application released ({@link ReceiveRing#releasedBlocks},
 * acquire). Each method is called from one thread; the count is padded on both sides (class-hierarchy padding).
 */
public final class RingBuffers extends RingBuffersPad2 implements ReceiveBuffers
{
    private static final VarHandle STORED;

    static
    {
        try
        {
            STORED = MethodHandles.lookup().findVarHandle(RingBuffersStored.class, "stored", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ReceiveRing[] rings;

    /**
     * @param rings the receive rings by VL (null where the port has no such VL).
     */
    public RingBuffers(final ReceiveRing[] rings)
    {
        this.rings = rings;
    }

    @Override
    public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
    {
        if (rings[vl].offer(buffer, offset, size))
        {
            STORED.setRelease(this, stored + 1);
            return true;
        }
        return false;
    }

    /**
     * Any thread.
     *
     * @return packets stored so far, every VL together (acquire): each is in its ring, published.
     */
    public long stored()
    {
        return (long)STORED.getAcquire(this);
    }

    @Override
    public long releasedBlocks(final int vl)
    {
        return rings[vl].releasedBlocks();
    }
}
