package io.vlink.nic.agent;

import io.vlink.core.port.ReceiveBuffers;
import io.vlink.nic.ring.ReceiveRing;
import org.agrona.DirectBuffer;

/**
 * A port's receive rings as its datapath sees them ({@link ReceiveBuffers}): the receive agent stores each packet it
 * admits in its VL's ring ({@link ReceiveRing#offer}); the credit agent reads how many blocks the application released
 * ({@link ReceiveRing#releasedBlocks}, acquire). Each method is called from one thread.
 */
final class RingBuffers implements ReceiveBuffers
{
    private final ReceiveRing[] rings;

    RingBuffers(final ReceiveRing[] rings)
    {
        this.rings = rings;
    }

    @Override
    public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
    {
        return rings[vl].offer(buffer, offset, size);
    }

    @Override
    public long releasedBlocks(final int vl)
    {
        return rings[vl].releasedBlocks();
    }
}
