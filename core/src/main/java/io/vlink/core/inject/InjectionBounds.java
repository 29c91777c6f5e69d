package io.vlink.core.inject;

/**
 * The guarantees of the injection rule (docs/injection.md, "Guarantees"), as numbers for a configuration: how long a
 * ready injector can wait, and how far a class's cells can be from its weight share. They hold for a buffer drained
 * by a first-in first-out wire of {@code drain} cells a step with at most one selection a step ({@code vlink inject
 * simulate}), and for configurations whose classes may each take the whole shared pool (every shared limit at least
 * the pool): with smaller limits classes do not compete for the pool, and what they wait for is their own cells.
 * <p>
 * Notation, for class {@code c}: {@code W} its weight, {@code S} the weights of the other classes summed, {@code K}
 * the classes, {@code P} the largest packet in cells, {@code D} the drain in cells a step, {@code R} the reserved
 * cells of all classes, {@code C} all cells, {@code r = ceil(P / W)} (the visits of the class pointer a class in debt
 * needs for a turn), {@code n} the class's injectors under round robin, 1 for the first injector of a first-available
 * class.
 * <ul>
 * <li>packets the class turns inject while an injector waits, its own included: {@code N = n (1 + r S)};</li>
 * <li>their cells: {@code X = n (P + r (S + (K - 1)(P - 1)))};</li>
 * <li>the longest wait of a ready injector that stays high: without reserved cells {@code N + 1 + floor((X + 2P - 2)
 * / D)}, with reserved cells {@code N (1 + ceil((2P - 1 + R) / D))};</li>
 * <li>the longest wait of any ready injector (one low by its marks waits until its cells drain, then as a high one):
 * that plus {@code ceil((C + P - 1) / D)};</li>
 * <li>in a run where every class always has an injector ready and nothing is injected beside a waiting class (no
 * reserved cells), the cells of class {@code c} differ from {@code W / (W + S)} of all cells injected by at most
 * {@code 2W + (P - 1) max(1, K W / (W + S))}.</li>
 * </ul>
 * An injector of a first-available class after the first waits, besides, for as long as one before it stays high and
 * ready (that is what first-available means): no bound is stated for it.
 */
public final class InjectionBounds
{
    /** What {@link #highWait} and {@link #anyWait} return for an injector no bound is stated for. */
    public static final long UNBOUNDED = Long.MAX_VALUE;

    private InjectionBounds()
    {
    }

    /**
     * @param config       the configuration.
     * @param injector     which.
     * @param largestCells the largest packet any injector announces, in cells ({@code P}).
     * @param drainCells   cells the wire drains a step ({@code D}, at least 1).
     * @return the most steps the injector, ready and high priority, goes without injecting; {@link #UNBOUNDED} for an
     * injector of a first-available class that is not its first, or when a class's shared limit is below the pool.
     */
    public static long highWait(
        final InjectionConfig config, final int injector, final int largestCells, final int drainCells)
    {
        final int c = config.injectorClass[injector];
        final long n = injectorsAhead(config, injector);
        if (n == 0 || !sharedPoolForAll(config))
        {
            return UNBOUNDED;
        }
        final long p = largestCells;
        final long w = config.classWeight[c];
        final long rounds = (p + w - 1) / w;
        final long others = totalWeight(config) - w;
        final long packets = n * (1 + rounds * others);
        long reserved = 0;
        for (final int r : config.reservedCells)
        {
            reserved += r;
        }
        if (reserved == 0)
        {
            final long cells = n * (p + rounds * (others + (config.classes - 1) * (p - 1)));
            return packets + 1 + (cells + 2 * p - 2) / drainCells;
        }
        return packets * (1 + (2 * p - 1 + reserved + drainCells - 1) / drainCells);
    }

    /**
     * @param config       the configuration.
     * @param injector     which.
     * @param largestCells the largest packet in cells.
     * @param drainCells   cells the wire drains a step.
     * @return the most steps the injector, ready whatever its priority, goes without injecting: {@link #highWait}
     * plus the steps the wire takes to drain a full buffer; {@link #UNBOUNDED} where that is.
     */
    public static long anyWait(
        final InjectionConfig config, final int injector, final int largestCells, final int drainCells)
    {
        final long high = highWait(config, injector, largestCells, drainCells);
        return high == UNBOUNDED ? UNBOUNDED :
            high + ((long)config.totalCells() + largestCells - 1 + drainCells - 1) / drainCells;
    }

    /**
     * @param config       the configuration.
     * @param bufferClass  which.
     * @param largestCells the largest packet in cells.
     * @return the most cells by which the class's injected cells can differ from its weight share of all cells
     * injected, in a run where every class always has a ready injector and no reserved cells let a class inject
     * beside a waiting one.
     */
    public static long shareSlack(final InjectionConfig config, final int bufferClass, final int largestCells)
    {
        final long w = config.classWeight[bufferClass];
        final long total = totalWeight(config);
        final long carry = largestCells - 1L;
        // the overdraw of one packet, spread over the classes: K W (P - 1) / total, rounded up
        final long spread = (config.classes * w * carry + total - 1) / total;
        return 2 * w + Math.max(carry, spread);
    }

    private static long totalWeight(final InjectionConfig config)
    {
        long total = 0;
        for (final int w : config.classWeight)
        {
            total += w;
        }
        return total;
    }

    private static boolean sharedPoolForAll(final InjectionConfig config)
    {
        for (final int limit : config.sharedLimit)
        {
            if (limit < config.sharedCells)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * @return the injectors of its class that can be chosen before it while it is high and ready: all of them under
     * round robin, 1 for a first-available class's first injector, 0 (no bound) for any other.
     */
    private static long injectorsAhead(final InjectionConfig config, final int injector)
    {
        final int c = config.injectorClass[injector];
        int members = 0;
        int first = -1;
        for (int i = 0; i < config.injectors; i++)
        {
            if (config.injectorClass[i] == c)
            {
                members++;
                first = first < 0 ? i : first;
            }
        }
        if (config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN)
        {
            return members;
        }
        return injector == first ? 1 : 0;
    }
}
