package io.vlink.core.arb;

import io.vlink.core.wire.Sizes;

import java.util.Arrays;

/**
 * A port's transmit side in memory, for the arbitration simulator and tests: a FIFO of packet sizes per
 * data VL, a VL15 FIFO, a count of waiting flow-control packets, and per-VL credits given once for a whole
 * run (unlimited unless set). Queues grow as needed: this is a simulation aid, not the engine's rings.
 */
public final class SimulatedPort implements ArbiterSource
{
    private static final int VL15 = 15;

    private final int[][] queues = new int[VlArbiter.VL_COUNT][];
    private final int[] heads = new int[VlArbiter.VL_COUNT];
    private final int[] tails = new int[VlArbiter.VL_COUNT];
    private final long[] credits = new long[VlArbiter.VL_COUNT];
    private final long[] sentPackets = new long[VlArbiter.VL_COUNT];
    private final long[] sentBytes = new long[VlArbiter.VL_COUNT];
    private int fcpWaiting;
    private long sentFcps;

    /**
     * An empty port with unlimited credits on every VL.
     */
    public SimulatedPort()
    {
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            queues[vl] = new int[16];
        }
        Arrays.fill(credits, Long.MAX_VALUE);
    }

    /**
     * Queues packets on a data VL (or on VL15 with {@code vl == 15}).
     *
     * @param vl    the VL, 0..15.
     * @param size  each packet's size {@code S} in bytes.
     * @param count how many.
     * @return this.
     */
    public SimulatedPort enqueue(final int vl, final int size, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            if (tails[vl] == queues[vl].length)
            {
                queues[vl] = Arrays.copyOf(queues[vl], queues[vl].length * 2);
            }
            queues[vl][tails[vl]++] = size;
        }
        return this;
    }

    /**
     * @param count flow-control packets that become ready to send.
     * @return this.
     */
    public SimulatedPort addFcp(final int count)
    {
        fcpWaiting += count;
        return this;
    }

    /**
     * @param vl     a data VL.
     * @param blocks the credits, in 64-byte blocks, the VL has for the rest of the run.
     * @return this.
     */
    public SimulatedPort credits(final int vl, final long blocks)
    {
        credits[vl] = blocks;
        return this;
    }

    /**
     * @param vl a VL.
     * @return packets waiting on it.
     */
    public int queued(final int vl)
    {
        return tails[vl] - heads[vl];
    }

    /**
     * Does what the arbiter's caller must do after a grant: takes the granted packet off its queue and spends
     * its credits.
     *
     * @param grant a grant code from {@link VlArbiter#next()}.
     * @return the size of the packet sent, 0 for {@link VlArbiter#GRANT_NONE}.
     */
    public int send(final int grant)
    {
        if (grant == VlArbiter.GRANT_NONE)
        {
            return 0;
        }
        if (grant == VlArbiter.GRANT_FCP)
        {
            fcpWaiting--;
            sentFcps++;
            return VlArbiter.FCP_SIZE;
        }
        final int vl = VlArbiter.vl(grant);
        final int size = queues[vl][heads[vl]++];
        sentPackets[vl]++;
        sentBytes[vl] += size;
        if (vl != VL15 && credits[vl] != Long.MAX_VALUE)
        {
            credits[vl] -= Sizes.blocks(size);
        }
        return size;
    }

    /**
     * @param vl a VL (15 for VL15).
     * @return packets sent on it.
     */
    public long sentPackets(final int vl)
    {
        return sentPackets[vl];
    }

    /**
     * @param vl a VL (15 for VL15).
     * @return bytes (sizes {@code S}) sent on it.
     */
    public long sentBytes(final int vl)
    {
        return sentBytes[vl];
    }

    /**
     * @return flow-control packets sent.
     */
    public long sentFcps()
    {
        return sentFcps;
    }

    @Override
    public boolean hasVl15()
    {
        return heads[VL15] != tails[VL15];
    }

    @Override
    public boolean hasFcp()
    {
        return fcpWaiting > 0;
    }

    @Override
    public int headSize(final int vl)
    {
        return heads[vl] == tails[vl] ? 0 : queues[vl][heads[vl]];
    }

    @Override
    public boolean canSend(final int vl, final int size)
    {
        return Sizes.blocks(size) <= credits[vl];
    }
}
