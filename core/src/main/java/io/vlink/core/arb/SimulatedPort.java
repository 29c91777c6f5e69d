package io.vlink.core.arb;

import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;

import java.util.Arrays;

/**
 * A port's transmit side in memory, for the arbitration simulator and tests: a FIFO of packet sizes per
 * data VL, a VL15 FIFO, a count of waiting flow-control packets, and per-VL credits given once for a whole
 * run (unlimited unless set). Queues grow as needed: this is a simulation aid, not the engine's rings. A queue
 * holds runs of equal-sized packets ({@code size, count}), so its memory grows with the number of
 * {@link #enqueue} calls, not with the packets they ask for (a scenario may queue 2^31 packets on one line).
 */
public final class SimulatedPort implements ArbiterSource
{
    private static final int VL15 = LrhFlyweight.VL15;

    private final int[][] runSizes = new int[VlArbiter.VL_COUNT][];
    private final long[][] runCounts = new long[VlArbiter.VL_COUNT][];
    private final int[] heads = new int[VlArbiter.VL_COUNT];
    private final int[] tails = new int[VlArbiter.VL_COUNT];
    private final long[] credits = new long[VlArbiter.VL_COUNT];
    private final long[] sentPackets = new long[VlArbiter.VL_COUNT];
    private final long[] sentBytes = new long[VlArbiter.VL_COUNT];
    private long fcpWaiting;
    private long sentFcps;

    /**
     * An empty port with unlimited credits on every VL.
     */
    public SimulatedPort()
    {
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            runSizes[vl] = new int[4];
            runCounts[vl] = new long[4];
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
        if (count <= 0)
        {
            return this;
        }
        final int tail = tails[vl];
        if (tail > heads[vl] && runSizes[vl][tail - 1] == size)
        {
            runCounts[vl][tail - 1] += count;
            return this;
        }
        if (tail == runSizes[vl].length)
        {
            runSizes[vl] = Arrays.copyOf(runSizes[vl], tail * 2);
            runCounts[vl] = Arrays.copyOf(runCounts[vl], tail * 2);
        }
        runSizes[vl][tail] = size;
        runCounts[vl][tail] = count;
        tails[vl] = tail + 1;
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
    public long queued(final int vl)
    {
        long queued = 0;
        for (int run = heads[vl]; run < tails[vl]; run++)
        {
            queued += runCounts[vl][run];
        }
        return queued;
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
        final int head = heads[vl];
        final int size = runSizes[vl][head];
        if (--runCounts[vl][head] == 0)
        {
            heads[vl] = head + 1;
        }
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
        return heads[vl] == tails[vl] ? 0 : runSizes[vl][heads[vl]];
    }

    @Override
    public boolean canSend(final int vl, final int size)
    {
        return Sizes.blocks(size) <= credits[vl];
    }
}
