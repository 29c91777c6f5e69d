package io.vlink.tools;

import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionBounds;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.inject.InjectorArbiter;

/**
 * The waits of the injectors of a {@code vlink inject simulate} run (docs/injection.md, "Guarantees"), held to the
 * bounds of {@link InjectionBounds} at every step: a wait beyond its bound is a broken guarantee, reported as a bug
 * of the simulation ({@link IllegalStateException}), never a scenario's fault.
 * <p>
 * A <em>wait</em> is a run of consecutive steps in which the injector has a packet ready and another is chosen (or
 * none); its longest is the {@code max-wait} printed. A <em>high wait</em> counts the steps of a wait in which the
 * injector is high priority once considered (high, or demoted by its timer with its occupancy at or below its low
 * mark, which its next consideration raises again); a step in which it is low by its marks ends it.
 */
final class InjectorWaits
{
    private final InjectorArbiter arbiter;
    private final CellBuffer cells;
    private final int[] ownLow;
    private final int idcLow;
    private final long[] wait;
    private final long[] maxWait;
    private final long[] highWait;
    private final long[] highBound;
    private final long[] anyBound;

    /**
     * @param config       the run's configuration.
     * @param arbiter      its arbiter.
     * @param largestCells the largest packet any command makes, in cells.
     * @param drain        cells the wire drains a step.
     */
    InjectorWaits(final InjectionConfig config, final InjectorArbiter arbiter, final int largestCells, final int drain)
    {
        this.arbiter = arbiter;
        this.cells = arbiter.cells();
        final int n = config.injectors();
        ownLow = new int[n];
        idcLow = config.idcLowMark();
        wait = new long[n];
        maxWait = new long[n];
        highWait = new long[n];
        highBound = new long[n];
        anyBound = new long[n];
        for (int i = 0; i < n; i++)
        {
            ownLow[i] = config.lowMark(i);
            highBound[i] = InjectionBounds.highWait(config, i, largestCells, drain);
            anyBound[i] = InjectionBounds.anyWait(config, i, largestCells, drain);
        }
    }

    /**
     * After a selection: each injector that had a packet ready waited a step, unless it was chosen.
     *
     * @param waiting per injector, whether it had a packet ready before the selection.
     * @param chosen  the injector chosen, or {@link InjectorArbiter#NONE}.
     */
    void step(final boolean[] waiting, final int chosen)
    {
        for (int i = 0; i < waiting.length; i++)
        {
            if (i == chosen)
            {
                wait[i] = 0;
                highWait[i] = 0;
            }
            else if (waiting[i])
            {
                wait[i]++;
                maxWait[i] = Math.max(maxWait[i], wait[i]);
                // a selection raises a waiting injector only from at or below its low mark, never lowers one
                highWait[i] = arbiter.isHigh(i) || cells.occ(i) <= (arbiter.isIdc(i) ? idcLow : ownLow[i]) ?
                    highWait[i] + 1 : 0;
                if (highWait[i] > highBound[i] || wait[i] > anyBound[i])
                {
                    throw new IllegalStateException("inject simulate: injector " + i + " waited " + wait[i] +
                        " steps (" + highWait[i] + " of them high) beyond the bounds of " + anyBound[i] + " and " +
                        highBound[i] + " (docs/injection.md, Guarantees)");
                }
            }
        }
    }

    /**
     * @param injector which.
     * @return the most steps it had a packet ready without injecting.
     */
    long maxWait(final int injector)
    {
        return maxWait[injector];
    }
}
