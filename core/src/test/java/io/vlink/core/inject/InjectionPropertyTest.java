package io.vlink.core.inject;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guarantees of the injection rule (docs/injection.md, "Guarantees") over random workloads that jqwik shrinks to
 * the smallest failing one: every class's cells stay within {@link InjectionBounds#shareSlack} of its weight share
 * whatever the packet sizes, marks, timers and policies; the buffer's accounting; packets handed back in the order
 * they are freed, their bytes intact; and the water marks' hysteresis. The wire here is the simulator's: first in,
 * first out, {@code drain} cells a step, the budget saved while packets wait (the bound on waits is checked by the
 * simulator itself on its runs, {@code InjectGuaranteesPropertyTest}).
 */
class InjectionPropertyTest
{
    private static final int STEPS = 3_000;

    /** An injector: its class, its own marks, its timer (0 = none), its packets' sizes and command kind. */
    static final class Injector
    {
        final int bufferClass;
        final int low;
        final int high;
        final int timer;
        final int minBytes;
        final int maxBytes;
        final boolean idc;

        Injector(final int bufferClass, final int low, final int span, final int timer, final int a, final int b,
            final boolean idc)
        {
            this.bufferClass = bufferClass;
            this.low = low;
            this.high = low + span;
            this.timer = timer;
            this.minBytes = Math.min(a, b);
            this.maxBytes = Math.max(a, b);
            this.idc = idc;
        }

        @Override
        public String toString()
        {
            return "injector class " + bufferClass + " marks " + low + " " + high + " timer " + timer + " bytes " +
                minBytes + ".." + maxBytes + (idc ? " idc" : " dma");
        }
    }

    /** A backlogged workload: classes, injectors, the buffer and the wire. */
    static final class Workload
    {
        final List<Integer> weights;
        final List<Boolean> firstAvailable;
        final List<Injector> injectors;
        final int cell;
        final int drain;
        final int extraShared;
        final long seed;

        Workload(final List<Integer> weights, final List<Boolean> firstAvailable, final List<Injector> injectors,
            final int cell, final int drain, final int extraShared, final long seed)
        {
            this.weights = weights;
            this.firstAvailable = firstAvailable;
            this.injectors = injectors;
            this.cell = cell;
            this.drain = drain;
            this.extraShared = extraShared;
            this.seed = seed;
        }

        int largestCells()
        {
            int largest = 1;
            for (final Injector i : injectors)
            {
                largest = Math.max(largest, (i.maxBytes + cell - 1) / cell);
            }
            return largest;
        }

        /** Every class takes any free cell: no reserved cells, the whole pool, at least the largest packet. */
        InjectionConfig config()
        {
            final int classes = weights.size();
            final InjectionConfig config = new InjectionConfig().shape(injectors.size(), classes).cellSize(cell)
                .sharedCells(largestCells() + extraShared).idcThreshold(4096).idcMarks(2, 5);
            for (int c = 0; c < classes; c++)
            {
                config.bufferClass(c, 0, Integer.MAX_VALUE, weights.get(c), firstAvailable.get(c) ?
                    InjectionConfig.Policy.FIRST_AVAILABLE : InjectionConfig.Policy.ROUND_ROBIN);
            }
            for (int i = 0; i < injectors.size(); i++)
            {
                final Injector injector = injectors.get(i);
                config.injectorClass(i, injector.bufferClass).marks(i, injector.low, injector.high)
                    .priorityTimerNs(i, injector.timer == 0 ? Long.MAX_VALUE : injector.timer);
            }
            return config;
        }

        @Override
        public String toString()
        {
            return "weights " + weights + " first " + firstAvailable + " cell " + cell + " drain " + drain +
                " shared +" + extraShared + " seed " + seed + " " + injectors;
        }
    }

    @Provide
    Arbitrary<Workload> workloads()
    {
        return Arbitraries.integers().between(1, 5).flatMap(classes -> Combinators.combine(
            Arbitraries.integers().between(1, 64).list().ofSize(classes),
            Arbitraries.of(true, false).list().ofSize(classes),
            injector(classes).list().ofMinSize(1).ofMaxSize(10),
            Arbitraries.of(64, 256),
            Arbitraries.integers().between(1, 40),
            Arbitraries.integers().between(0, 80),
            Arbitraries.longs()).as(Workload::new));
    }

    private static Arbitrary<Injector> injector(final int classes)
    {
        return Combinators.combine(
            Arbitraries.integers().between(0, classes - 1),
            Arbitraries.integers().between(0, 8),
            Arbitraries.integers().between(1, 16),
            Arbitraries.integers().between(0, 3).flatMap(t -> t == 0 ? Arbitraries.just(0) :
                Arbitraries.integers().between(1, 300)),
            Arbitraries.integers().between(1, 4096),
            Arbitraries.integers().between(1, 4096),
            Arbitraries.of(true, false)).as(Injector::new);
    }

    /** The simulator's wire: packets in injection order, a budget of {@code drain} cells a step while one waits. */
    private static final class Wire
    {
        private final CellBuffer cells;
        private final int drain;
        private final ArrayDeque<int[]> packets = new ArrayDeque<>();
        private long budget;

        Wire(final CellBuffer cells, final int drain)
        {
            this.cells = cells;
            this.drain = drain;
        }

        void send(final int firstCell, final int used)
        {
            packets.add(new int[] {firstCell, used});
        }

        void release()
        {
            if (packets.isEmpty())
            {
                return;
            }
            budget += drain;
            while (!packets.isEmpty() && packets.peek()[1] <= budget)
            {
                final int[] packet = packets.poll();
                budget -= packet[1];
                assertTrue(cells.free(packet[0]));
            }
            if (packets.isEmpty())
            {
                budget = 0;
            }
        }
    }

    private static int nextSize(final Random random, final Injector injector)
    {
        return injector.minBytes + random.nextInt(injector.maxBytes - injector.minBytes + 1);
    }

    @Property(tries = 1000, seed = "2601")
    void everyClassGetsItsWeightShareOfTheCellsWithinItsSlack(@ForAll("workloads") final Workload workload)
    {
        final InjectionConfig config = workload.config();
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(workload.seed);
        final int n = workload.injectors.size();
        final int classes = workload.weights.size();
        final boolean[] present = new boolean[classes];
        for (int i = 0; i < n; i++)
        {
            final Injector injector = workload.injectors.get(i);
            present[injector.bufferClass] = true;
            arbiter.command(i, injector.idc);
            arbiter.ready(i, nextSize(random, injector));
        }
        // the weight shares among the classes that have injectors (the others are never backlogged)
        long weights = 0;
        for (int c = 0; c < classes; c++)
        {
            weights += present[c] ? workload.weights.get(c) : 0;
        }
        final long[] slack = new long[classes];
        final InjectionConfig backlogged = config.copy();
        for (int c = 0; c < classes; c++)
        {
            // the slack of the classes that take part (an absent class forfeits: it does not count)
            backlogged.classWeight(c, present[c] ? workload.weights.get(c) : 1);
        }
        final Wire wire = new Wire(cells, workload.drain);
        long total = 0;
        for (int step = 1; step <= STEPS; step++)
        {
            wire.release();
            arbiter.tick(step);
            final int chosen = arbiter.select(step);
            if (chosen != InjectorArbiter.NONE)
            {
                final int used = cells.cellsFor(arbiter.claimedSize());
                wire.send(arbiter.claimedCell(), used);
                total += used;
                arbiter.ready(chosen, nextSize(random, workload.injectors.get(chosen)));
            }
            for (int c = 0; c < classes; c++)
            {
                if (present[c])
                {
                    final double share = (double)workload.weights.get(c) / weights;
                    final double off = Math.abs(arbiter.classInjectedCells(c) - share * total);
                    final long limit = slack(backlogged, c, present, workload.largestCells());
                    if (off > limit)
                    {
                        assertTrue(off <= limit, "step " + step + " class " + c + ": " + arbiter.classInjectedCells(c) +
                            " cells of " + total + ", weight share " + share + ", off by " + off + " > " + limit);
                    }
                }
                assertEquals(0, arbiter.besideCells(c), "nothing goes beside a waiting class without reserved cells");
            }
        }
        // the shares of a long enough run are within 3 points of the weights
        if (total >= 34 * maxSlack(backlogged, present, workload.largestCells()))
        {
            for (int c = 0; c < classes; c++)
            {
                if (present[c])
                {
                    assertEquals((double)workload.weights.get(c) / weights,
                        (double)arbiter.classInjectedCells(c) / total, 0.03, "class " + c);
                }
            }
        }
        cells.close();
    }

    /** A general workload for the buffer's accounting: reserved cells, shared limits, packets freed in any order. */
    @Provide
    Arbitrary<InjectionConfig> configs()
    {
        return Combinators.combine(
            Arbitraries.integers().between(1, 12),
            Arbitraries.integers().between(1, 4),
            Arbitraries.of(64, 256),
            Arbitraries.integers().between(1, 40),
            Arbitraries.integers().between(0, 8).list().ofSize(4),
            Arbitraries.integers().between(0, 50).list().ofSize(4),
            Arbitraries.integers().between(1, 30).list().ofSize(4),
            Arbitraries.longs()).as((injectors, classes, cell, shared, reserved, limits, weights, seed) ->
            {
                final Random random = new Random(seed);
                final InjectionConfig config = new InjectionConfig().shape(injectors, classes).cellSize(cell)
                    .sharedCells(shared).idcThreshold(100).idcMarks(1, 3);
                for (int c = 0; c < classes; c++)
                {
                    // a limit of 0 to 50 cells, or the whole pool when it is above the pool
                    config.bufferClass(c, reserved.get(c), limits.get(c) > 40 ? Integer.MAX_VALUE : limits.get(c),
                        weights.get(c), random.nextBoolean() ? InjectionConfig.Policy.FIRST_AVAILABLE :
                            InjectionConfig.Policy.ROUND_ROBIN);
                }
                for (int i = 0; i < injectors; i++)
                {
                    final int low = random.nextInt(4);
                    config.injectorClass(i, random.nextInt(classes)).marks(i, low, low + 1 + random.nextInt(6))
                        .priorityTimerNs(i, random.nextBoolean() ? Long.MAX_VALUE : 1 + random.nextInt(60));
                }
                return config;
            });
    }

    @Property(tries = 1000, seed = "2602")
    void theBufferAccountsForEveryCell(@ForAll("configs") final InjectionConfig config, @ForAll final long seed)
    {
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(seed);
        final List<Integer> inFlight = new ArrayList<>();
        final int n = config.injectors();
        long injectedCells = 0;
        for (int step = 0; step < 1_500; step++)
        {
            final int op = random.nextInt(10);
            final int i = random.nextInt(n);
            if (op < 4)
            {
                arbiter.ready(i, 1 + random.nextInt(config.cellSize() * 5));
            }
            else if (op == 4)
            {
                arbiter.command(i, random.nextBoolean());
            }
            else if (op < 7 && !inFlight.isEmpty())
            {
                assertTrue(cells.free(inFlight.remove(random.nextInt(inFlight.size()))));
            }
            else
            {
                final int chosen = arbiter.select(step);
                if (chosen != InjectorArbiter.NONE)
                {
                    inFlight.add(arbiter.claimedCell());
                    injectedCells += cells.cellsFor(arbiter.claimedSize());
                    assertTrue(arbiter.claimedSize() > 0);
                }
            }
            checkAccounts(config, cells, arbiter, injectedCells);
        }
        for (final int first : inFlight)
        {
            assertTrue(cells.free(first));
        }
        cells.reclaim(arbiter);
        assertEquals(cells.totalCells(), cells.freeCells(), "every cell comes back");
        for (int i = 0; i < n; i++)
        {
            assertEquals(0, cells.occ(i));
        }
        checkAccounts(config, cells, arbiter, injectedCells);
        cells.close();
    }

    private static void checkAccounts(
        final InjectionConfig config, final CellBuffer cells, final InjectorArbiter arbiter, final long injected)
    {
        final int classes = config.classes();
        final long inUse = cells.cellsClaimed() - cells.cellsReleased();
        assertEquals(cells.totalCells() - cells.freeCells(), inUse);
        final long[] byClass = new long[classes];
        for (int i = 0; i < config.injectors(); i++)
        {
            assertTrue(cells.idcOcc(i) >= 0 && cells.idcOcc(i) <= cells.occ(i), "injector " + i);
            byClass[config.classOf(i)] += cells.occ(i);
        }
        long shared = 0;
        long injectedByClass = 0;
        for (int c = 0; c < classes; c++)
        {
            final int reserved = config.reservedCells[c];
            final int held = cells.classCells(c);
            assertEquals(byClass[c], held, "class " + c);
            final int sharedHeld = Math.max(0, held - reserved);
            assertTrue(sharedHeld <= config.sharedLimit[c], "class " + c + " within its shared limit");
            shared += sharedHeld;
            injectedByClass += arbiter.classInjectedCells(c);
            assertTrue(arbiter.besideCells(c) >= 0 && arbiter.besideCells(c) <= arbiter.classInjectedCells(c));
        }
        assertEquals(shared, cells.sharedCellsUsed());
        assertTrue(shared <= config.sharedCells);
        for (int c = 0; c < classes; c++)
        {
            final int held = cells.classCells(c);
            final int reserved = config.reservedCells[c];
            final long byLimit = (long)config.sharedLimit[c] - Math.max(0, held - reserved);
            final long expected = Math.max(0, reserved - held) +
                Math.max(0, Math.min(byLimit, config.sharedCells - shared));
            assertEquals(expected, cells.available(c), "class " + c + " available");
        }
        assertEquals(injected, injectedByClass, "the cells injected per class sum to the cells injected");
        assertEquals(injected, cells.cellsClaimed());
    }

    @Property(tries = 500, seed = "2603")
    void packetsComeBackInTheOrderTheyAreFreedWithTheirBytesIntact(
        @ForAll("configs") final InjectionConfig config, @ForAll final long seed)
    {
        final CellBuffer cells = new CellBuffer(config);
        final Random random = new Random(seed);
        final List<int[]> live = new ArrayList<>();   // {first cell, size, injector, pattern}
        final ArrayDeque<Integer> freedInjectors = new ArrayDeque<>();
        final byte[] scratch = new byte[config.cellSize() * 5];
        final UnsafeBuffer buffer = new UnsafeBuffer(scratch);
        int pattern = 0;
        for (int step = 0; step < 1_000; step++)
        {
            if (random.nextInt(3) != 0)
            {
                final int injector = random.nextInt(config.injectors());
                final int size = 1 + random.nextInt(scratch.length);
                final int first = cells.claim(injector, size, random.nextBoolean());
                if (first != CellBuffer.NO_CELL)
                {
                    pattern++;
                    fill(scratch, size, pattern);
                    cells.putBytes(first, 0, buffer, 0, size);
                    cells.publish(first, size);
                    live.add(new int[] {first, size, injector, pattern});
                }
            }
            else if (!live.isEmpty())
            {
                for (int k = random.nextInt(3); k >= 0 && !live.isEmpty(); k--)
                {
                    final int[] packet = live.remove(random.nextInt(live.size()));
                    assertEquals(packet[1], cells.publishedLength(packet[0]));
                    assertTrue(cells.free(packet[0]));
                    freedInjectors.add(packet[2]);
                }
                cells.reclaim(injector -> assertEquals((int)freedInjectors.poll(), injector, "reclaimed in free order"));
                assertTrue(freedInjectors.isEmpty());
            }
            for (final int[] packet : live)
            {
                final byte[] expected = new byte[packet[1]];
                fill(expected, packet[1], packet[3]);
                final byte[] actual = new byte[packet[1]];
                cells.getBytes(packet[0], 0, new UnsafeBuffer(actual), 0, packet[1]);
                assertArrayEquals(expected, actual, "packet " + packet[3]);
            }
        }
        cells.close();
    }

    private static void fill(final byte[] bytes, final int length, final int pattern)
    {
        for (int k = 0; k < length; k++)
        {
            bytes[k] = (byte)(pattern * 31 + k);
        }
    }

    @Property(tries = 1000, seed = "2604")
    void prioritiesFollowTheWaterMarksAndTheTimers(@ForAll("configs") final InjectionConfig config, @ForAll final long seed)
    {
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(seed);
        final int n = config.injectors();
        final List<Integer> inFlight = new ArrayList<>();
        final boolean[] high = new boolean[n];
        // when each became high: a selection that demotes the injector it then chooses (its timer ran out when it
        // was considered) may raise it again unseen, so the test knows the time within [early, late]
        final long[] sinceEarly = new long[n];
        final long[] sinceLate = new long[n];
        final boolean[] idc = new boolean[n];
        java.util.Arrays.fill(high, true);
        long now = 0;
        // the arbiter's clock: the time of its last select, tick or reset (an OCC or command change between them is
        // judged at that time)
        long clock = 0;
        for (int step = 0; step < 1_500; step++)
        {
            now += random.nextInt(3);
            final int op = random.nextInt(12);
            final int i = random.nextInt(n);
            int evaluated = -1;
            if (op < 4)
            {
                arbiter.ready(i, 1 + random.nextInt(config.cellSize() * 4));
            }
            else if (op == 4)
            {
                final boolean isIdc = random.nextBoolean();
                evaluated = isIdc != idc[i] ? i : -1;
                idc[i] = isIdc;
                arbiter.command(i, isIdc);
            }
            else if (op < 7 && !inFlight.isEmpty())
            {
                final int[] packet = new int[1];
                assertTrue(cells.free(inFlight.remove(random.nextInt(inFlight.size()))));
                assertEquals(1, cells.reclaim(injector ->
                {
                    packet[0] = injector;
                    arbiter.onRelease(injector);
                }));
                evaluated = packet[0];
            }
            else if (op == 7)
            {
                arbiter.tick(now);
                clock = now;
            }
            else if (op == 8 && random.nextInt(8) == 0)
            {
                arbiter.reset(now);
                clock = now;
                for (int k = 0; k < n; k++)
                {
                    assertTrue(arbiter.isHigh(k), "a reset raises every injector");
                    high[k] = true;
                    sinceEarly[k] = now;
                    sinceLate[k] = now;
                }
            }
            else
            {
                final int chosen = arbiter.select(now);
                clock = now;
                if (chosen != InjectorArbiter.NONE)
                {
                    inFlight.add(arbiter.claimedCell());
                    sinceLate[chosen] = now;
                    if (cells.occ(chosen) >= highMark(config, chosen, idc))
                    {
                        assertTrue(!arbiter.isHigh(chosen), "injector " + chosen + " at its high mark after a claim");
                    }
                }
            }
            if (evaluated >= 0)
            {
                // Fig. 4A on an occupancy or command change: a high injector drops when its timer ran out or its OCC
                // reached the high mark, a low one rises when its OCC is at or below the low mark; else it keeps
                final int k = evaluated;
                final int o = cells.occ(k);
                final long timer = config.priorityTimerNs[k];
                if (!high[k] || clock - sinceLate[k] >= timer || clock - sinceEarly[k] < timer)
                {
                    final boolean expected = high[k] ?
                        clock - sinceEarly[k] < timer && o < highMark(config, k, idc) :
                        o <= (idc[k] ? config.idcLowMark : config.lowMark[k]);
                    assertEquals(expected, arbiter.isHigh(k), "injector " + k + " OCC " + o + (high[k] ?
                        " was high" : " was low"));
                }
            }
            for (int k = 0; k < n; k++)
            {
                final boolean isHigh = arbiter.isHigh(k);
                if (isHigh && !high[k])
                {
                    sinceEarly[k] = clock;
                    sinceLate[k] = clock;
                }
                if (op == 7 && isHigh)
                {
                    assertTrue(now - sinceLate[k] < config.priorityTimerNs[k], "injector " + k + " high since " +
                        sinceLate[k] + " at " + now + ", timer " + config.priorityTimerNs[k]);
                }
                high[k] = isHigh;
            }
        }
        cells.close();
    }

    private static int highMark(final InjectionConfig config, final int injector, final boolean[] idc)
    {
        return idc[injector] ? config.idcHighMark : config.highMark[injector];
    }

    /** The slack of class c among the classes present (an absent class's weight takes no part in the turns). */
    private static long slack(final InjectionConfig config, final int c, final boolean[] present, final int largest)
    {
        final InjectionConfig among = new InjectionConfig().shape(1, count(present));
        int k = 0;
        int self = 0;
        for (int d = 0; d < present.length; d++)
        {
            if (present[d])
            {
                self = d == c ? k : self;
                among.classWeight(k++, config.weight(d));
            }
        }
        return InjectionBounds.shareSlack(among, self, largest);
    }

    private static long maxSlack(final InjectionConfig config, final boolean[] present, final int largest)
    {
        long most = 0;
        for (int c = 0; c < present.length; c++)
        {
            if (present[c])
            {
                most = Math.max(most, slack(config, c, present, largest));
            }
        }
        return most;
    }

    private static int count(final boolean[] flags)
    {
        int n = 0;
        for (final boolean f : flags)
        {
            n += f ? 1 : 0;
        }
        return n;
    }
}
