package io.vlink.nic.ring;

import io.vlink.core.port.ReceiveBuffers;
import org.agrona.DirectBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An int for the gap after the object header, then two cache lines: the stored count below is written by the receive
 * agent and read by the application's poll, and shares its line with nothing else.
 */
abstract class ReceiveRingsPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The stored count.
 */
abstract class ReceiveRingsStored extends ReceiveRingsPad1
{
    long stored;
}

/**
 * Two cache lines after the count.
 */
abstract class ReceiveRingsPad2 extends ReceiveRingsStored
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A port's receive rings ({@link ReceiveRing}, one a data VL and one for VL15) as the datapath's halves see them: the
 * receive agent stores each packet in its VL's ring ({@link #store}), the credit agent reads each ring's releases
 * ({@link #releasedBlocks}), and the application polls the rings ({@link #rings()}).
 * <p>
 * The stored count: every packet stored in any ring, published after the packet ({@link #stored()}). A poller that
 * has taken as many packets out of the rings knows every ring is empty without looking at each: a lone message's
 * poll, and every poll that finds nothing, reads one word instead of a descriptor a ring. One writer (the receive
 * agent) and one reader (the application's poll).
 */
public final class ReceiveRings extends ReceiveRingsPad2 implements ReceiveBuffers
{
    private static final VarHandle STORED;

    static
    {
        try
        {
            STORED = MethodHandles.lookup().findVarHandle(ReceiveRingsStored.class, "stored", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final ReceiveRing[] rings;

    /**
     * @param rings the rings by VL (null where the port has no such VL).
     */
    public ReceiveRings(final ReceiveRing[] rings)
    {
        this.rings = rings;
    }

    /**
     * Receive agent: the packet into its VL's ring, then the stored count.
     */
    @Override
    public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
    {
        if (rings[vl].offer(buffer, offset, size))
        {
            // after the packet: a poller that reads the new count finds the packet in its ring
            STORED.setRelease(this, stored + 1);
            return true;
        }
        return false;
    }

    @Override
    public long releasedBlocks(final int vl)
    {
        return rings[vl].releasedBlocks();
    }

    /**
     * Any thread: the packets stored in the rings so far. Every packet this count includes is in its ring or was
     * taken out of it; a packet stored after the read may be missed by the poll that follows, and is seen by the
     * next one.
     *
     * @return the count.
     */
    public long stored()
    {
        return (long)STORED.getAcquire(this);
    }

    /**
     * @return the rings by VL (null where the port has no such VL), for the application's poller.
     */
    public ReceiveRing[] rings()
    {
        return rings;
    }
}
