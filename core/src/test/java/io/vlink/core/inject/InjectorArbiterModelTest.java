package io.vlink.core.inject;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link InjectorArbiter} against a plain reading of its rules (docs/injection.md): a reference arbiter that keeps
 * one flag per injector and scans every member of a class, run side by side with the real one (bitmask words, a
 * fast path) over seeded random workloads. Every decision and every figure must be the same after every call: the
 * chosen injector and its cells, each injector's priority, readiness, command and stalls, the priority changes and
 * timer demotions, and the cells injected per class. The shapes cover what the real arbiter treats apart: classes
 * of more than 64 and more than 128 injectors (several bitmask words), both policies, IDC commands, timers that
 * expire while an injector waits, resets, and classes whose cells run out.
 */
class InjectorArbiterModelTest
{
    private static final int STEPS = 4_000;

    /** The rules of docs/injection.md, as written, with no shortcut. */
    private static final class ReferenceArbiter
    {
        private final InjectionConfig config;
        private final CellBuffer cells;
        private final int classes;
        private final int[][] members;
        private final int[] position;
        private final boolean[] high;
        private final boolean[] timerDemoted;
        private final long[] highSince;
        private final boolean[] ready;
        private final int[] packetSize;
        private final boolean[] idc;
        private final long[] stalls;
        private final long[] credit;
        private final long[] injected;
        private final int[] start;
        private int pointer;
        private int beside;
        private int besides;
        private long now;
        private long priorityChanges;
        private long timerDemotions;
        private long totalStalls;
        private int claimedCell = CellBuffer.NO_CELL;
        private int claimedSize;

        ReferenceArbiter(final InjectionConfig config, final CellBuffer cells)
        {
            this.config = config;
            this.cells = cells;
            classes = config.classes;
            final int n = config.injectors;
            members = new int[classes][];
            position = new int[n];
            final int[] count = new int[classes];
            for (int i = 0; i < n; i++)
            {
                count[config.injectorClass[i]]++;
            }
            for (int c = 0; c < classes; c++)
            {
                members[c] = new int[count[c]];
                count[c] = 0;
            }
            for (int i = 0; i < n; i++)
            {
                final int c = config.injectorClass[i];
                position[i] = count[c];
                members[c][count[c]++] = i;
            }
            high = new boolean[n];
            java.util.Arrays.fill(high, true);
            timerDemoted = new boolean[n];
            highSince = new long[n];
            ready = new boolean[n];
            packetSize = new int[n];
            idc = new boolean[n];
            stalls = new long[n];
            credit = new long[classes];
            injected = new long[classes];
            start = new int[classes];
            credit[0] = config.classWeight[0];
        }

        int lowMark(final int i)
        {
            return idc[i] ? config.idcLowMark : config.lowMark[i];
        }

        int highMark(final int i)
        {
            return idc[i] ? config.idcHighMark : config.highMark[i];
        }

        boolean timerExpired(final int i)
        {
            return now - highSince[i] >= config.priorityTimerNs[i];
        }

        void demoteByTimer(final int i)
        {
            high[i] = false;
            timerDemoted[i] = true;
            priorityChanges++;
            timerDemotions++;
        }

        void raise(final int i)
        {
            high[i] = true;
            timerDemoted[i] = false;
            highSince[i] = now;
            priorityChanges++;
        }

        /** Fig. 4A: timer, then the high mark, then the low mark; in between keep. */
        void evaluate(final int i)
        {
            if (high[i])
            {
                if (timerExpired(i))
                {
                    demoteByTimer(i);
                }
                else if (cells.occ(i) >= highMark(i))
                {
                    high[i] = false;
                    priorityChanges++;
                }
            }
            else if (cells.occ(i) <= lowMark(i))
            {
                raise(i);
            }
        }

        /** A consideration for selection. */
        void consider(final int i)
        {
            if (high[i])
            {
                if (timerExpired(i))
                {
                    demoteByTimer(i);
                }
            }
            else if (cells.occ(i) <= lowMark(i))
            {
                raise(i);
            }
        }

        void command(final int i, final boolean isIdc)
        {
            if (idc[i] != isIdc)
            {
                idc[i] = isIdc;
                evaluate(i);
            }
        }

        void reset(final long nowNs)
        {
            now = nowNs;
            for (int i = 0; i < high.length; i++)
            {
                if (!high[i])
                {
                    raise(i);
                }
                highSince[i] = nowNs;
            }
        }

        void tick(final long nowNs)
        {
            now = nowNs;
            for (int i = 0; i < high.length; i++)
            {
                if (high[i] && timerExpired(i))
                {
                    demoteByTimer(i);
                }
            }
        }

        void grant(final int c)
        {
            credit[c] += config.classWeight[c];
        }

        void forfeit(final int c)
        {
            credit[c] = Math.min(credit[c], 0);
        }

        int next(final int c)
        {
            return (c + 1) % classes;
        }

        /** Stage 2: the first ready injector from the start point that is high once considered, else the first ready. */
        int stage2(final int c)
        {
            final int[] m = members[c];
            final int from = config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN ? start[c] : 0;
            for (int k = 0; k < m.length; k++)
            {
                final int i = m[(from + k) % m.length];
                if (ready[i])
                {
                    consider(i);
                    if (high[i])
                    {
                        return i;
                    }
                }
            }
            for (int k = 0; k < m.length; k++)
            {
                final int i = m[(from + k) % m.length];
                if (ready[i])
                {
                    return i;
                }
            }
            return -1;
        }

        /** Stage 2's injection: claim, the start point past the chosen one (round robin), re-evaluate. */
        int inject(final int c, final int i)
        {
            if (config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN)
            {
                start[c] = (position[i] + 1) % members[c].length;
            }
            claimedCell = cells.claim(i, packetSize[i], idc[i]);
            claimedSize = packetSize[i];
            ready[i] = false;
            injected[c] += cells.cellsFor(packetSize[i]);
            evaluate(i);
            return i;
        }

        /** Whether a claim of {@code used} cells by class d leaves what class w can take as it is, now and later. */
        boolean takesNothingOf(final int d, final int used, final int w)
        {
            final int reservedFree = config.reservedCells[d] - cells.classCells(d);
            if (used <= reservedFree)
            {
                return true;
            }
            final int shared = used - Math.max(0, reservedFree);
            final int heldByW = Math.max(0, cells.classCells(w) - config.reservedCells[w]);
            return used <= cells.available(d) &&
                (long)cells.sharedCellsUsed() - heldByW + shared <= (long)config.sharedCells - config.sharedLimit[w];
        }

        int select(final long nowNs)
        {
            now = nowNs;
            cells.reclaim(this::evaluate);
            claimedCell = CellBuffer.NO_CELL;
            boolean any = false;
            for (final boolean r : ready)
            {
                any |= r;
            }
            if (!any)
            {
                return InjectorArbiter.NONE;
            }
            int c = pointer;
            while (true)
            {
                if (credit[c] > 0)
                {
                    final int i = stage2(c);
                    if (i >= 0)
                    {
                        final int used = cells.cellsFor(packetSize[i]);
                        if (used <= cells.available(c))
                        {
                            inject(c, i);
                            credit[c] -= used;
                            if (credit[c] <= 0)
                            {
                                pointer = next(c);
                                grant(pointer);
                            }
                            return i;
                        }
                        // the turn is held: a stall, the injector keeps its place; others may go beside
                        stalls[i]++;
                        totalStalls++;
                        if (config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN)
                        {
                            start[c] = position[i];
                        }
                        for (int n = 0; n < classes; n++)
                        {
                            final int d = (beside + n) % classes;
                            if (d == c)
                            {
                                continue;
                            }
                            final int j = stage2(d);
                            if (j >= 0 && takesNothingOf(d, cells.cellsFor(packetSize[j]), c))
                            {
                                beside = next(d);
                                besides++;
                                return inject(d, j);
                            }
                        }
                        return InjectorArbiter.NONE;
                    }
                    forfeit(c);
                }
                c = next(c);
                pointer = c;
                grant(c);
            }
        }
    }

    private static InjectionConfig randomConfig(final Random random, final int injectors, final int classes)
    {
        final InjectionConfig config = new InjectionConfig().shape(injectors, classes)
            .cellSize(random.nextBoolean() ? 64 : 256)
            .sharedCells(random.nextInt(3) == 0 ? 0 : random.nextInt(48))
            .idcThreshold(100);
        final int idcLow = random.nextInt(4);
        config.idcMarks(idcLow, idcLow + 1 + random.nextInt(5));
        for (int i = 0; i < injectors; i++)
        {
            final int low = random.nextInt(4);
            config.marks(i, low, low + 1 + random.nextInt(6));
            final int timer = random.nextInt(4);
            config.priorityTimerNs(i, timer == 0 ? Long.MAX_VALUE : 4L << (2 * timer));
            if (classes > 1 && random.nextInt(3) == 0)
            {
                // uneven classes: some gather far more injectors than others
                config.injectorClass(i, random.nextInt(2));
            }
        }
        for (int c = 0; c < classes; c++)
        {
            config.bufferClass(c, random.nextInt(12), random.nextInt(4) == 0 ? random.nextInt(10) : Integer.MAX_VALUE,
                1 + random.nextInt(24),
                random.nextInt(3) == 0 ? InjectionConfig.Policy.FIRST_AVAILABLE : InjectionConfig.Policy.ROUND_ROBIN);
        }
        return config;
    }

    /** @return the injections made beside a class holding its turn. */
    private static int run(final long seed, final InjectionConfig config)
    {
        return run(seed, config, true);
    }

    /**
     * Real and model side by side; {@code busy}: the seed is one whose workload is known to inject and to find nothing.
     *
     * @return the injections made beside a class holding its turn.
     */
    private static int run(final long seed, final InjectionConfig config, final boolean busy)
    {
        final Random random = new Random(seed);
        final CellBuffer realCells = new CellBuffer(config);
        final CellBuffer modelCells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, realCells);
        final ReferenceArbiter model = new ReferenceArbiter(config, modelCells);
        final List<Integer> inFlight = new ArrayList<>();
        final int injectors = config.injectors;
        final int maxSize = config.cellSize * 6;
        long now = 0;
        int injections = 0;
        int refusals = 0;
        for (int step = 0; step < STEPS; step++)
        {
            now += random.nextInt(4);
            final int op = random.nextInt(100);
            final int i = random.nextInt(injectors);
            final int at = step;
            final Supplier<String> where = () -> "seed " + seed + " step " + at + " op " + op + " injector " + i;
            if (op < 30)
            {
                final int size = 1 + random.nextInt(random.nextBoolean() ? config.cellSize : maxSize);
                arbiter.ready(i, size);
                model.ready[i] = true;
                model.packetSize[i] = size;
            }
            else if (op < 33)
            {
                arbiter.idle(i);
                model.ready[i] = false;
            }
            else if (op < 38)
            {
                final boolean isIdc = random.nextBoolean();
                arbiter.command(i, isIdc);
                model.command(i, isIdc);
            }
            else if (op < 52 && !inFlight.isEmpty())
            {
                // the wire sends the oldest packets first, now and then one out of order
                final int k = random.nextInt(4) == 0 ? random.nextInt(inFlight.size()) : 0;
                final int first = inFlight.remove(k);
                assertTrue(realCells.free(first), where);
                assertTrue(modelCells.free(first), where);
            }
            else if (op < 54)
            {
                arbiter.tick(now);
                model.tick(now);
            }
            else if (op < 55)
            {
                arbiter.reset(now);
                model.reset(now);
            }
            else
            {
                final int chosen = arbiter.select(now);
                assertEquals(model.select(now), chosen, () -> where.get() + ": select");
                assertEquals(model.claimedCell, arbiter.claimedCell(), () -> where.get() + ": claimed cell");
                if (chosen != InjectorArbiter.NONE)
                {
                    assertEquals(model.claimedSize, arbiter.claimedSize(), () -> where.get() + ": claimed size");
                    inFlight.add(arbiter.claimedCell());
                    injections++;
                }
                else
                {
                    refusals++;
                }
            }
            for (int k = 0; k < injectors; k++)
            {
                // compared plainly, and asserted only on a difference: this runs a million times
                if (model.high[k] != arbiter.isHigh(k) || model.ready[k] != arbiter.isReady(k) ||
                    model.idc[k] != arbiter.isIdc(k) || model.stalls[k] != arbiter.stalls(k) ||
                    modelCells.occ(k) != realCells.occ(k) || modelCells.idcOcc(k) != realCells.idcOcc(k))
                {
                    assertEquals(
                        "high " + model.high[k] + " ready " + model.ready[k] + " IDC " + model.idc[k] + " stalls " +
                            model.stalls[k] + " OCC " + modelCells.occ(k) + " IDC OCC " + modelCells.idcOcc(k),
                        "high " + arbiter.isHigh(k) + " ready " + arbiter.isReady(k) + " IDC " + arbiter.isIdc(k) +
                            " stalls " + arbiter.stalls(k) + " OCC " + realCells.occ(k) + " IDC OCC " +
                            realCells.idcOcc(k), where.get() + ": injector " + k);
                }
            }
            assertEquals(model.priorityChanges, arbiter.priorityChanges(), () -> where.get() + ": priority changes");
            assertEquals(model.timerDemotions, arbiter.timerDemotions(), () -> where.get() + ": timer demotions");
            assertEquals(model.totalStalls, arbiter.stalls(), () -> where.get() + ": stalls");
            long total = 0;
            for (int c = 0; c < config.classes; c++)
            {
                total += model.injected[c];
            }
            for (int c = 0; c < config.classes; c++)
            {
                final int n = c;
                final double share = total == 0 ? 0.0 : (double)model.injected[n] / total;
                assertEquals(model.injected[n], arbiter.classInjectedCells(n), () -> where.get() + ": class " + n);
                assertEquals(share, arbiter.classShare(n), 1e-12, () -> where.get() + ": class " + n + " share");
            }
        }
        assertTrue(!busy || injections > STEPS / 10 && refusals > 0, "seed " + seed + ": the workload injects and refuses: "
            + injections + " injections, " + refusals + " selections with none");
        for (int c = 0; c < config.classes; c++)
        {
            assertTrue(arbiter.besideCells(c) <= arbiter.classInjectedCells(c), "seed " + seed + " class " + c);
        }
        realCells.close();
        modelCells.close();
        return model.besides;
    }

    @Test
    void smallShapesDecideExactlyAsTheRules()
    {
        int besides = 0;
        for (long seed = 1; seed <= 12; seed++)
        {
            final Random random = new Random(seed * 31);
            besides += run(seed, randomConfig(random, 1 + random.nextInt(12), 1 + random.nextInt(4)));
        }
        assertTrue(besides > 100, "classes injected beside a held turn " + besides + " times");
    }

    @Test
    void classesOfSeveralBitmaskWordsDecideExactlyAsTheRules()
    {
        // 2 classes of ~100 and ~50 injectors; 1 class of 150 (three words); 4 classes with two crowded ones
        run(101, randomConfig(new Random(101), 150, 2));
        run(102, randomConfig(new Random(102), 150, 1));
        run(103, randomConfig(new Random(103), 200, 4));
    }

    @Test
    void classesOverSeveralWordsOfTheReadyClassesDecideExactlyAsTheRules()
    {
        // the ready classes are kept a bit per class, 64 a word: 70 and 130 classes (two and three words), mostly idle,
        // so that an idle selection, the walk of stage 1 and the search beside a held turn cross words
        run(201, randomConfig(new Random(201), 90, 70));
        run(202, randomConfig(new Random(202), 140, 130));
        run(203, randomConfig(new Random(203), 12, 128));
    }

    /**
     * The speed-ups against the plain reading over random shapes: a class's one word or several, a few classes or more
     * than a word of them (the ready-class bits), with the workloads of {@link #run}.
     */
    @Property(tries = 25)
    void randomShapesDecideExactlyAsTheRules(
        @ForAll final long seed,
        @ForAll @IntRange(min = 1, max = 140) final int injectors,
        @ForAll @IntRange(min = 1, max = 130) final int classes)
    {
        run(seed, randomConfig(new Random(seed), injectors, classes), false);
    }

    @Test
    void aPacketMustHaveBytes()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        assertSame(cells, arbiter.cells());
        assertThrows(IllegalArgumentException.class, () -> arbiter.ready(0, 0));
        assertThrows(IllegalArgumentException.class, () -> arbiter.ready(0, -1));
        arbiter.ready(0, 1);
        assertTrue(arbiter.isReady(0));
        assertEquals(0, arbiter.select(0));
        assertEquals(1, arbiter.claimedSize());
    }

    @Test
    void theDefaultConfigurationDecidesExactlyAsTheRules()
    {
        run(7, new InjectionConfig().priorityTimerNs(40));
    }
}
