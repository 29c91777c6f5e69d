package io.vlink.core.port;

import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Sizes;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

/**
 * Packets queued per VL for a port's transmit half: each a real data packet (LRH with its VL, a BTH, zeros, ICRC and
 * VCRC) of a whole number of blocks, framed once per (VL, size) and copied onto the wire. Test support: what the
 * engine's rings over its cell buffer and a switch's input FIFOs are to the datapath.
 */
public final class TestSource implements PacketSource
{
    /** The most blocks a packet of a port with MTU 4096 may have: 4096 bytes and 128 of headers. */
    public static final int MAX_BLOCKS = (Sizes.MAX_MTU + 128) / Sizes.BLOCK_LENGTH;

    @SuppressWarnings("unchecked")
    private final ArrayDeque<Integer>[] queues = new ArrayDeque[LrhFlyweight.VL_COUNT];
    private final byte[][][] framed = new byte[LrhFlyweight.VL_COUNT][MAX_BLOCKS + 1][];
    private final PacketFramer framer = new PacketFramer();
    private int queued;
    /** Packets written onto the wire, per VL. */
    public final long[] sent = new long[LrhFlyweight.VL_COUNT];

    public TestSource()
    {
        for (int vl = 0; vl < queues.length; vl++)
        {
            queues[vl] = new ArrayDeque<>();
        }
    }

    /**
     * Queue a packet.
     *
     * @param vl     its VL.
     * @param blocks its size in 64-byte blocks, 1..{@link #MAX_BLOCKS}.
     */
    public void offer(final int vl, final int blocks)
    {
        if (blocks < 1 || blocks > MAX_BLOCKS)
        {
            throw new IllegalArgumentException("blocks " + blocks);
        }
        queues[vl].add(blocks * Sizes.BLOCK_LENGTH);
        queued++;
    }

    /**
     * Take back every packet still queued on a VL.
     *
     * @param vl the VL.
     * @return packets taken back.
     */
    public int withdraw(final int vl)
    {
        final int count = queues[vl].size();
        queues[vl].clear();
        queued -= count;
        return count;
    }

    /**
     * @param vl a VL.
     * @return packets queued on it.
     */
    public int queued(final int vl)
    {
        return queues[vl].size();
    }

    @Override
    public boolean hasVl15()
    {
        return !queues[LrhFlyweight.VL15].isEmpty();
    }

    @Override
    public int headSize(final int vl)
    {
        final Integer size = queues[vl].peek();
        return null == size ? 0 : size;
    }

    @Override
    public boolean isEmpty()
    {
        return 0 == queued;
    }

    @Override
    public int write(final int vl, final MutableDirectBuffer buffer, final int offset, final int size)
    {
        final int taken = queues[vl].remove();
        if (taken != size)
        {
            throw new IllegalStateException("VL" + vl + ": granted " + size + " bytes, head has " + taken);
        }
        queued--;
        sent[vl]++;
        final byte[] frame = frame(vl, Sizes.blocks(size));
        buffer.putBytes(offset, frame);
        return frame.length;
    }

    /**
     * @param vl     a VL.
     * @param blocks a size in blocks.
     * @return the bytes of a data packet of that VL and size on the wire.
     */
    public byte[] frame(final int vl, final int blocks)
    {
        byte[] frame = framed[vl][blocks];
        if (null == frame)
        {
            final int size = blocks * Sizes.BLOCK_LENGTH;
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[size + Sizes.VCRC_LENGTH]);
            new LrhFlyweight().wrap(buffer, 0).vl(vl).sl(vl).lnh(LrhFlyweight.LNH_LOCAL).dlid(2).slid(1);
            new BthFlyweight().wrap(buffer, LrhFlyweight.LENGTH).destQp(1);
            framer.frame(buffer, 0, size);
            frame = buffer.byteArray();
            framed[vl][blocks] = frame;
        }
        return frame;
    }
}
