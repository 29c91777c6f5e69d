package io.vlink.core.arb;

import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;

import java.util.SplittableRandom;

/**
 * What share of the link each data VL gets when every VL the tables can serve is backlogged: this package's
 * {@link VlArbiter} run on a {@link SimulatedPort} with unlimited credits. The one prediction that a run on the
 * engine (the soak, the loopback share test) is compared with, so that "the shares follow the arbitration tables"
 * means the same thing everywhere.
 * <p>
 * A simulation aid, not the engine's hot path: each call builds its own port and arbiter.
 */
public final class SharePrediction
{
    private SharePrediction()
    {
    }

    /**
     * VLs the tables can serve: a valid entry (below the data VLs, not VL15) with a non-zero weight in either
     * table. Any other data VL can never send, whatever is queued on it.
     *
     * @param qos the configuration.
     * @return per VL (16 entries), whether the arbiter can ever grant it.
     */
    public static boolean[] servableVls(final QosConfig qos)
    {
        final boolean[] servable = new boolean[VlArbiter.VL_COUNT];
        mark(servable, qos.high(), qos.dataVls());
        mark(servable, qos.low(), qos.dataVls());
        return servable;
    }

    /**
     * Each VL's fraction of the data bytes the arbiter grants with the given VLs backlogged.
     * <p>
     * Each backlogged VL is given {@code grants} packets; with {@code sizeMin < sizeMax} their sizes are drawn
     * uniformly from the multiples of 4 between them by a {@link SplittableRandom} seeded with {@code seed}, VL by
     * VL. The arbiter then makes up to {@code grants} decisions.
     *
     * @param qos        the configuration whose tables decide.
     * @param backlogged per VL, whether packets are queued on it (at least {@code qos.dataVls()} entries).
     * @param sizeMin    the smallest packet size {@code S} in bytes.
     * @param sizeMax    the largest, equal to {@code sizeMin} for a fixed size.
     * @param seed       seeds the sizes.
     * @param grants     packets per VL and decisions made.
     * @return per VL (16 entries), its share of the bytes granted (all 0 when nothing could be granted).
     */
    public static double[] backlogged(
        final QosConfig qos, final boolean[] backlogged, final int sizeMin, final int sizeMax, final long seed,
        final int grants)
    {
        final SimulatedPort port = new SimulatedPort();
        final SplittableRandom sizes = new SplittableRandom(seed);
        for (int vl = 0; vl < qos.dataVls(); vl++)
        {
            if (backlogged[vl])
            {
                if (sizeMin == sizeMax)
                {
                    port.enqueue(vl, sizeMin, grants);
                }
                else
                {
                    for (int i = 0; i < grants; i++)
                    {
                        port.enqueue(vl, sizeMin + 4 * sizes.nextInt((sizeMax - sizeMin) / 4 + 1), 1);
                    }
                }
            }
        }
        final VlArbiter arbiter = new VlArbiter(qos, port);
        final long[] bytes = new long[VlArbiter.VL_COUNT];
        long total = 0;
        for (int i = 0; i < grants; i++)
        {
            final int grant = arbiter.next();
            if (VlArbiter.GRANT_NONE == grant)
            {
                break;
            }
            final int size = port.send(grant);
            bytes[VlArbiter.vl(grant)] += size;
            total += size;
        }
        final double[] shares = new double[VlArbiter.VL_COUNT];
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            shares[vl] = 0 == total ? 0 : (double)bytes[vl] / total;
        }
        return shares;
    }

    private static void mark(final boolean[] servable, final VlArbTable table, final int dataVls)
    {
        for (int i = 0; i < table.size(); i++)
        {
            if (table.isValid(i, dataVls))
            {
                servable[table.vl(i)] = true;
            }
        }
    }
}
