package io.vlink.core.port;

import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import org.agrona.DirectBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A port's receive buffers, modelled independently of the credit accounting: per data VL a capacity charged in whole
 * chunks, per VL15 a count of packets, and the packets held until the test releases them (the consumer). Test
 * support: what the engine's receive rings and a switch's input FIFOs are to the datapath.
 */
public final class ModelBuffers implements ReceiveBuffers
{
    private final int chunkBlocks;
    private final int bufferBlocks;
    private final int vl15Packets;
    private final int[] free;
    private final long[] released;
    private final List<int[]> held = new ArrayList<>();
    private final ArrayDeque<Integer> vl15 = new ArrayDeque<>();
    /** Whether a packet is released as soon as it is stored (an application that drains at once). */
    public boolean releaseAtOnce;

    /**
     * @param dataVls      data VLs.
     * @param bufferBlocks each data VL's buffer in blocks (a multiple of the chunk).
     * @param chunkBytes   the allocation granularity.
     * @param vl15Packets  SMPs the VL15 buffer holds.
     */
    public ModelBuffers(final int dataVls, final int bufferBlocks, final int chunkBytes, final int vl15Packets)
    {
        this.chunkBlocks = chunkBytes / Sizes.BLOCK_LENGTH;
        this.bufferBlocks = bufferBlocks;
        this.vl15Packets = vl15Packets;
        free = new int[dataVls];
        java.util.Arrays.fill(free, bufferBlocks);
        released = new long[dataVls];
    }

    /**
     * @param blocks a packet's blocks.
     * @return what it takes of a buffer: whole chunks.
     */
    public int charge(final int blocks)
    {
        return (blocks + chunkBlocks - 1) / chunkBlocks * chunkBlocks;
    }

    @Override
    public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
    {
        if (LrhFlyweight.VL15 == vl)
        {
            if (vl15.size() >= vl15Packets)
            {
                return false;
            }
            vl15.add(size);
            return true;
        }
        final int blocks = Sizes.blocks(size);
        final int charge = charge(blocks);
        if (charge > free[vl])
        {
            return false;
        }
        free[vl] -= charge;
        if (releaseAtOnce)
        {
            release(vl, blocks);
        }
        else
        {
            held.add(new int[]{vl, blocks});
        }
        return true;
    }

    @Override
    public long releasedBlocks(final int vl)
    {
        return released[vl];
    }

    private void release(final int vl, final int blocks)
    {
        final int charge = charge(blocks);
        free[vl] += charge;
        released[vl] += charge;
    }

    /**
     * The consumer takes a held packet at random.
     *
     * @param random the test's randomness.
     * @return the packet taken ({vl, blocks}), or null when none is held.
     */
    public int[] releaseAny(final Random random)
    {
        if (held.isEmpty())
        {
            return null;
        }
        final int[] packet = held.remove(random.nextInt(held.size()));
        release(packet[0], packet[1]);
        return packet;
    }

    /**
     * The consumer takes the oldest held packet.
     *
     * @return the packet taken ({vl, blocks}), or null when none is held.
     */
    public int[] releaseOldest()
    {
        if (held.isEmpty())
        {
            return null;
        }
        final int[] packet = held.remove(0);
        release(packet[0], packet[1]);
        return packet;
    }

    /**
     * The consumer takes every held packet.
     */
    public void releaseAll()
    {
        while (null != releaseOldest())
        {
            continue;
        }
    }

    /**
     * The consumer takes the oldest SMP.
     */
    public void releaseSmp()
    {
        vl15.remove();
    }

    public int held()
    {
        return held.size();
    }

    public int smpsHeld()
    {
        return vl15.size();
    }

    public int free(final int vl)
    {
        return free[vl];
    }

    public int bufferBlocks()
    {
        return bufferBlocks;
    }
}
