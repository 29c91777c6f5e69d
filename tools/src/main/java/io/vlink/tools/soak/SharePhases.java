package io.vlink.tools.soak;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.qos.QosConfig;

import java.util.ArrayList;
import java.util.List;

/**
 * The shares a soak's configuration predicts: {@code core}'s {@link SharePrediction} for every driven VL backlogged
 * with packets of the run's sizes; with table replacements ({@code retable}), one phase per set of tables, each
 * phase's prediction weighted by the data bytes received while it was in force.
 */
final class SharePhases
{
    /** Packets per VL and arbiter decisions of each prediction. */
    static final int SIMULATED_GRANTS = 200_000;

    private final List<QosConfig> tables = new ArrayList<>();
    private final List<long[]> bytes = new ArrayList<>();
    /** When each phase began, in nanoseconds since traffic started. */
    private final List<Long> fromNs = new ArrayList<>();
    /** Each phase's own prediction, made once (a simulation of {@link #SIMULATED_GRANTS} grants each). */
    private double[][] phaseShares;

    /**
     * @param initial the tables the run starts with.
     */
    SharePhases(final QosConfig initial)
    {
        tables.add(initial);
        bytes.add(new long[VlArbiter.VL_COUNT]);
        fromNs.add(0L);
    }

    /**
     * @param received per VL, the data bytes received during the current phase (copied).
     */
    void endPhase(final long[] received)
    {
        bytes.set(bytes.size() - 1, received.clone());
    }

    /**
     * The current phase ends and a new one, with other tables, begins.
     *
     * @param received    per VL, the data bytes received during the phase that ends (copied).
     * @param replacement the tables of the next phase.
     * @param sinceStartNs when it begins, in nanoseconds since traffic started.
     */
    void nextPhase(final long[] received, final QosConfig replacement, final long sinceStartNs)
    {
        endPhase(received);
        tables.add(replacement);
        bytes.add(new long[VlArbiter.VL_COUNT]);
        fromNs.add(sinceStartNs);
    }

    /**
     * Each phase's own prediction, for the report's time axes: the shares step at each replacement.
     *
     * @param timeline receives one phase per set of tables, from when it took over.
     * @param driven   per VL, whether the soak drove it.
     * @param sizeMin  the smallest packet size.
     * @param sizeMax  the largest.
     * @param seed     the run's seed (the sizes of the prediction).
     */
    void addTo(final SoakTimeline timeline, final boolean[] driven, final int sizeMin, final int sizeMax,
        final long seed)
    {
        for (int phase = 0; phase < tables.size(); phase++)
        {
            final double[] shares = phaseShares(driven, sizeMin, sizeMax, seed)[phase].clone();
            for (int vl = 0; vl < shares.length; vl++)
            {
                shares[vl] = driven[vl] ? shares[vl] : Double.NaN;
            }
            timeline.addPhase(fromNs.get(phase) / 1e9, shares);
        }
    }

    private double[][] phaseShares(final boolean[] driven, final int sizeMin, final int sizeMax, final long seed)
    {
        if (null == phaseShares)
        {
            phaseShares = new double[tables.size()][];
            for (int phase = 0; phase < tables.size(); phase++)
            {
                phaseShares[phase] =
                    SharePrediction.backlogged(tables.get(phase), driven, sizeMin, sizeMax, seed, SIMULATED_GRANTS);
            }
        }
        return phaseShares;
    }

    /**
     * @param driven  per VL, whether the soak drove it.
     * @param sizeMin the smallest packet size.
     * @param sizeMax the largest.
     * @param seed    the run's seed (the sizes of the prediction).
     * @return per VL (16 entries), the predicted share of the data bytes.
     */
    double[] predicted(final boolean[] driven, final int sizeMin, final int sizeMax, final long seed)
    {
        final double[] shares = new double[VlArbiter.VL_COUNT];
        long total = 0;
        for (final long[] phase : bytes)
        {
            total += sum(phase);
        }
        for (int phase = 0; phase < tables.size(); phase++)
        {
            final double weight = 0 == total ? (0 == phase ? 1 : 0) : (double)sum(bytes.get(phase)) / total;
            if (weight > 0)
            {
                final double[] predicted = phaseShares(driven, sizeMin, sizeMax, seed)[phase];
                for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
                {
                    shares[vl] += weight * predicted[vl];
                }
            }
        }
        return shares;
    }

    private static long sum(final long[] values)
    {
        long sum = 0;
        for (final long value : values)
        {
            sum += value;
        }
        return sum;
    }
}
