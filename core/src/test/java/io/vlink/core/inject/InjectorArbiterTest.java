package io.vlink.core.inject;

import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.PacketChecker;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InjectorArbiterTest
{
    private static final int CELL = 256;

    /** Inject one packet of {@code cells} cells from the injector, returning its first cell. */
    private static int inject(final InjectorArbiter arbiter, final int injector, final int cells, final long now)
    {
        arbiter.ready(injector, cells * CELL);
        assertEquals(injector, arbiter.select(now));
        return arbiter.claimedCell();
    }

    @Test
    void injectorOverItsHighMarkLosesPriorityAndRegainsItAtOrBelowItsLowMark()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1).marks(2, 4)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final int[] packets = new int[4];
        for (int k = 0; k < 3; k++)
        {
            packets[k] = inject(arbiter, 0, 1, 0);
            assertTrue(arbiter.isHigh(0), "OCC " + cells.occ(0) + " below the high mark");
        }
        packets[3] = inject(arbiter, 0, 1, 0);
        assertEquals(4, cells.occ(0));
        assertFalse(arbiter.isHigh(0), "OCC 4 >= high mark 4");
        assertEquals(1, arbiter.priorityChanges());

        cells.free(packets[0]);
        arbiter.select(0);
        assertEquals(3, cells.occ(0));
        assertFalse(arbiter.isHigh(0), "between the marks it keeps low");
        cells.free(packets[1]);
        arbiter.select(0);
        assertEquals(2, cells.occ(0));
        assertTrue(arbiter.isHigh(0), "OCC 2 <= low mark 2");
        assertEquals(2, arbiter.priorityChanges());

        inject(arbiter, 0, 1, 0);
        assertTrue(arbiter.isHigh(0), "between the marks it keeps high");
    }

    @Test
    void immediateDataCommandsUseTheGlobalMarksAndDmaCommandsTheInjectorsOwn()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 1).marks(4, 8).idcMarks(1, 2)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        assertTrue(config.isIdc(224));
        assertFalse(config.isIdc(225));

        arbiter.command(0, true);
        arbiter.command(1, false);
        for (int k = 0; k < 2; k++)
        {
            inject(arbiter, 0, 1, 0);
            inject(arbiter, 1, 1, 0);
        }
        assertEquals(2, cells.occ(0));
        assertEquals(2, cells.idcOcc(0), "IDC cells are counted apart");
        assertEquals(0, cells.idcOcc(1));
        assertFalse(arbiter.isHigh(0), "IDC: OCC 2 >= global high mark 2");
        assertTrue(arbiter.isHigh(1), "DMA: OCC 2 < own high mark 8");
    }

    @Test
    void commandTypeChangeReevaluatesAgainstTheNewMarks()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1).marks(4, 8).idcMarks(1, 2)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        arbiter.command(0, true);
        inject(arbiter, 0, 1, 0);
        inject(arbiter, 0, 1, 0);
        assertFalse(arbiter.isHigh(0));
        arbiter.command(0, false);
        assertTrue(arbiter.isHigh(0), "DMA: OCC 2 <= own low mark 4");
    }

    @Test
    void thePriorityTimerDemotesAnInjectorHeldHighTooLongAndRestartsWhenItIsHighAgain()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1).marks(2, 4).priorityTimerNs(100);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        arbiter.reset(0);
        final int p = inject(arbiter, 0, 1, 50);
        assertTrue(arbiter.isHigh(0));
        arbiter.tick(99);
        assertTrue(arbiter.isHigh(0));
        arbiter.tick(100);
        assertFalse(arbiter.isHigh(0), "held high for 100 ns");
        assertEquals(1, arbiter.timerDemotions());

        // OCC drops to the low mark at t=150: high again, the timer restarts there
        cells.free(p);
        arbiter.select(150);
        assertTrue(arbiter.isHigh(0));
        arbiter.tick(249);
        assertTrue(arbiter.isHigh(0));
        arbiter.tick(250);
        assertFalse(arbiter.isHigh(0));
        assertEquals(2, arbiter.timerDemotions());
    }

    @Test
    void theTimerIsAlsoAppliedWhenTheInjectorIsConsideredForSelection()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 1).marks(2, 4).priorityTimerNs(100)
            .policy(InjectionConfig.Policy.FIRST_AVAILABLE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        arbiter.reset(0);
        // injector 1 is low (over its high mark); injector 0 is high but its timer runs out at t=100
        for (int k = 0; k < 4; k++)
        {
            inject(arbiter, 1, 1, 0);
        }
        assertFalse(arbiter.isHigh(1));
        arbiter.ready(0, CELL);
        arbiter.ready(1, CELL);
        assertEquals(0, arbiter.select(10), "high first");
        arbiter.ready(0, CELL);
        assertEquals(0, arbiter.select(100), "both low now: the first available");
        assertEquals(1, arbiter.timerDemotions());
    }

    @Test
    void aTimerDemotionSticksWhileTheOccupancyIsBetweenTheMarks()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 1).marks(2, 6).priorityTimerNs(100);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        arbiter.reset(0);
        inject(arbiter, 0, 4, 0);
        assertTrue(arbiter.isHigh(0), "OCC 4 between the marks: keeps high");
        for (int k = 0; k < 6; k++)
        {
            inject(arbiter, 1, 1, 0);
        }
        assertFalse(arbiter.isHigh(1), "OCC 6 at its high mark");
        // injector 0 is held high by hysteresis; at t=100 its timer demotes it and both compete as equals
        arbiter.tick(100);
        assertFalse(arbiter.isHigh(0));
        for (int t = 0; t < 3; t++)
        {
            arbiter.ready(0, 10);
            arbiter.ready(1, 10);
            final int first = arbiter.select(200 + t);
            final int second = arbiter.select(200 + t);
            assertTrue(first != second && first >= 0 && second >= 0);
            assertFalse(arbiter.isHigh(0), "OCC above the low mark: stays low");
        }
    }

    @Test
    void aResetPromotesEveryInjector()
    {
        final InjectionConfig config = new InjectionConfig().shape(3, 1).marks(1, 2)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        for (int i = 0; i < 3; i++)
        {
            inject(arbiter, i, 2, 0);
            assertFalse(arbiter.isHigh(i));
        }
        arbiter.reset(5);
        for (int i = 0; i < 3; i++)
        {
            assertTrue(arbiter.isHigh(i));
            assertEquals(2, cells.occ(i), "a reset changes priorities, not occupancy");
        }
    }

    @Test
    void highPriorityInjectorsGoFirstWithinTheClassThenRoundRobinAmongEquals()
    {
        final InjectionConfig config = new InjectionConfig().shape(3, 1).marks(1, 2)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        inject(arbiter, 0, 2, 0);
        assertFalse(arbiter.isHigh(0));
        for (int i = 0; i < 3; i++)
        {
            arbiter.ready(i, 100);
        }
        assertEquals(1, arbiter.select(0), "1 and 2 are high, round robin starts after 0");
        arbiter.ready(1, 100);
        assertEquals(2, arbiter.select(0));
        arbiter.ready(2, 100);
        // 1 and 2 now hold one cell each (high, under the high mark): 1 then 2 before low 0
        assertEquals(1, arbiter.select(0));
        assertEquals(2, arbiter.select(0));
        assertEquals(0, arbiter.select(0), "only the low one is left");
    }

    @Test
    void injectorsAllLowByTheirMarksTakeTurnsFromTheStartPoint()
    {
        // the engine's steady state: every injector deep in the cells (low by its marks, not by its timer);
        // among these equals the class still goes round robin, whichever path of select decides
        final InjectionConfig config = new InjectionConfig().shape(3, 1).marks(0, 1)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final int[] expected = {0, 1, 2, 0, 1, 2, 0};
        for (int turn = 0; turn < expected.length; turn++)
        {
            for (int i = 0; i < 3; i++)
            {
                arbiter.ready(i, 100);
            }
            assertEquals(expected[turn], arbiter.select(0), "turn " + turn);
            assertFalse(arbiter.isHigh(expected[turn]), "one cell held: at its high mark");
        }
    }

    @Test
    void firstAvailablePolicyAlwaysStartsFromTheClassesFirstInjector()
    {
        final InjectionConfig config = new InjectionConfig().shape(3, 1).marks(10, 20)
            .priorityTimerNs(Long.MAX_VALUE);
        config.bufferClass(0, 100, 0, 1, InjectionConfig.Policy.FIRST_AVAILABLE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        for (int k = 0; k < 3; k++)
        {
            arbiter.ready(0, 100);
            arbiter.ready(2, 100);
            assertEquals(0, arbiter.select(0));
            assertEquals(2, arbiter.select(0));
        }

        final InjectionConfig rr = new InjectionConfig().shape(3, 1).marks(10, 20).priorityTimerNs(Long.MAX_VALUE);
        rr.bufferClass(0, 100, 0, 1, InjectionConfig.Policy.ROUND_ROBIN);
        final InjectorArbiter robin = new InjectorArbiter(rr, new CellBuffer(rr));
        robin.ready(0, 100);
        robin.ready(2, 100);
        assertEquals(0, robin.select(0));
        robin.ready(0, 100);
        assertEquals(2, robin.select(0), "round robin: after 0 comes 2");
        assertEquals(0, robin.select(0));
    }

    @Test
    void classSharesFollowTheWeightsInCellsWithMixedPacketSizes()
    {
        // class 0: weight 3, 1-cell packets; class 1: weight 1, 3-cell packets (3x larger); class 2: weight 2, mixed
        final InjectionConfig config = new InjectionConfig().shape(6, 3).sharedCells(64).reservedCells(0)
            .marks(100, 200).priorityTimerNs(Long.MAX_VALUE);
        config.classWeight(0, 3).classWeight(1, 1).classWeight(2, 2);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(7);
        final int[] size = new int[6];
        for (int i = 0; i < 6; i++)
        {
            size[i] = nextSize(i % 3, random);
            arbiter.ready(i, size[i]);
        }
        for (int n = 0; n < 60_000; n++)
        {
            final int i = arbiter.select(n);
            assertTrue(i >= 0);
            cells.free(arbiter.claimedCell());
            arbiter.ready(i, nextSize(i % 3, random));
        }
        assertEquals(3.0 / 6, arbiter.classShare(0), 0.002);
        assertEquals(1.0 / 6, arbiter.classShare(1), 0.002);
        assertEquals(2.0 / 6, arbiter.classShare(2), 0.002);
    }

    @Test
    void cellsInjectedPerClassAreExactlyTheCellsClaimedWhenClassesForfeitTheirCredit()
    {
        // the per-class figure is derived from the weights granted, the surplus forfeited and the credit left:
        // classes that go idle with credit (forfeits), stall for lack of cells, and run into debt must all add up
        final InjectionConfig config = new InjectionConfig().shape(8, 3).sharedCells(12).reservedCells(2)
            .marks(1, 3).priorityTimerNs(500);
        config.classWeight(0, 5).classWeight(1, 2).classWeight(2, 7);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(11);
        final long[] claimed = new long[3];
        final ArrayDeque<Integer> wire = new ArrayDeque<>();
        for (int n = 0; n < 50_000; n++)
        {
            final int ready = random.nextInt(8);
            if (random.nextInt(3) != 0)
            {
                arbiter.ready(ready, 1 + random.nextInt(5 * CELL));
            }
            else
            {
                arbiter.idle(ready);
            }
            final int i = arbiter.select(n * 7L);
            if (i >= 0)
            {
                claimed[i % 3] += cells.cellsFor(arbiter.claimedSize());
                wire.add(arbiter.claimedCell());
            }
            while (wire.size() > random.nextInt(6))
            {
                cells.free(wire.poll());
            }
        }
        assertTrue(arbiter.stalls() > 0, "the workload makes classes lack cells");
        long total = 0;
        for (int c = 0; c < 3; c++)
        {
            assertEquals(claimed[c], arbiter.classInjectedCells(c), "class " + c);
            total += claimed[c];
        }
        assertEquals(total, cells.cellsClaimed());
        assertEquals(total - cells.cellsReleased(), cells.totalCells() - cells.freeCells());
    }

    private static int nextSize(final int bufferClass, final Random random)
    {
        switch (bufferClass)
        {
            case 0:
                return 1 + random.nextInt(CELL);
            case 1:
                return 2 * CELL + 1 + random.nextInt(CELL);
            default:
                return 1 + random.nextInt(8 * CELL);
        }
    }

    @Test
    void aClassWithoutCellsIsNotEnabledAndItsReadyInjectorsCountStalls()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 2).sharedCells(0).reservedCells(2)
            .priorityTimerNs(Long.MAX_VALUE);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final int first = inject(arbiter, 0, 2, 0);
        assertEquals(0, cells.available(0));
        arbiter.ready(0, 100);
        arbiter.ready(1, 100);
        assertEquals(1, arbiter.select(0), "class 0 is full: class 1 goes");
        arbiter.ready(1, 100);
        assertEquals(1, arbiter.select(0));
        assertTrue(arbiter.stalls(0) >= 1);
        assertEquals(0, arbiter.stalls(1));
        final long before = arbiter.stalls(0);
        assertEquals(InjectorArbiter.NONE, arbiter.select(0), "0 still refused, 1 has nothing ready");
        assertEquals(before + 1, arbiter.stalls(0), "one stall per selection");
        assertEquals(InjectorArbiter.NONE, arbiter.select(0));
        assertEquals(before + 2, arbiter.stalls(0));
        cells.free(first);
        assertEquals(0, arbiter.select(0), "its cells came back");
    }

    @Test
    void aClassShortOfCellsHoldsItsTurnWhileAnotherInjectsBesideItInCellsItCannotUse()
    {
        // three classes may take the whole pool of 8 cells; class 1 also has 2 reserved cells of its own
        final InjectionConfig config = new InjectionConfig().shape(3, 3).sharedCells(8).reservedCells(0)
            .marks(100, 200).priorityTimerNs(Long.MAX_VALUE);
        config.bufferClass(1, 2, Integer.MAX_VALUE, 16, InjectionConfig.Policy.ROUND_ROBIN);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final int big = inject(arbiter, 0, 6, 0);
        arbiter.ready(0, 4 * CELL);
        arbiter.ready(1, CELL);
        arbiter.ready(2, CELL);
        assertEquals(1, arbiter.select(1), "class 0 holds its turn (4 cells, 2 free); class 1 goes in its own cells");
        assertEquals(1, arbiter.stalls(0));
        assertEquals(1, arbiter.besideCells(1));
        assertEquals(1, arbiter.classInjectedCells(1));
        arbiter.ready(1, 2 * CELL);
        assertEquals(InjectorArbiter.NONE, arbiter.select(2), "class 1's 2 cells and class 2's cell would be the " +
            "pool's, which class 0 waits for");
        assertEquals(2, arbiter.stalls(0));
        assertEquals(3, cells.freeCells(), "2 of the pool and 1 reserved for class 1 (its 2 cells need the pool)");
        cells.free(big);
        assertEquals(0, arbiter.select(3), "the wire freed its cells: class 0's packet goes, in its turn");
        assertEquals(10, arbiter.classInjectedCells(0));
        assertEquals(0, arbiter.besideCells(0));
        assertEquals(1, arbiter.select(4), "its credit of 16 - 10 holds; class 1 has none and class 2 none: " +
            "class 0 has nothing ready, forfeits, and the turn goes on to class 1");
        assertEquals(2, arbiter.select(5));
        assertEquals(1, arbiter.besideCells(1), "those went in turns");
        assertEquals(3, arbiter.classInjectedCells(1));
        assertEquals(1, arbiter.classInjectedCells(2));
    }

    @Test
    void aLowInjectorOverItsHighMarkNeverTakesTheCellsAHighInjectorOfAnotherClassWaitsFor()
    {
        // one pool of 8 cells for both classes; injector 0 (class 0) is far over its high mark of 1, injector 1
        // (class 1) is high and needs 6 cells while 2 are free
        final InjectionConfig config = new InjectionConfig().shape(2, 2).sharedCells(8).reservedCells(0)
            .marks(0, 0, 1).marks(1, 4, 8).priorityTimerNs(Long.MAX_VALUE);
        config.classWeight(0, 6).classWeight(1, 16);
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final int[] held = {inject(arbiter, 0, 3, 0), inject(arbiter, 0, 3, 1)};
        assertFalse(arbiter.isHigh(0), "6 cells, over its high mark");
        arbiter.ready(0, CELL);
        arbiter.ready(1, 6 * CELL);
        assertTrue(arbiter.isHigh(1));
        for (int n = 2; n < 10; n++)
        {
            assertEquals(InjectorArbiter.NONE, arbiter.select(n), "class 1's turn: the 2 free cells are held for it");
        }
        assertEquals(2, cells.freeCells());
        cells.free(held[0]);
        assertEquals(InjectorArbiter.NONE, arbiter.select(10), "5 free: still held");
        cells.free(held[1]);
        assertEquals(1, arbiter.select(11), "8 free: its packet goes");
        assertEquals(0, arbiter.select(12), "then the turn comes back to class 0");
    }

    @Test
    void inAPortEveryClassWithRoomInjectsBesideAClassWaitingForItsOwnCells()
    {
        // the pool in slices, as InjectionConfig.forPort sizes it: 1 reserved cell and at most 4 of the 12 shared
        final InjectionConfig config = new InjectionConfig().shape(3, 3).sharedCells(12)
            .marks(100, 200).priorityTimerNs(Long.MAX_VALUE);
        for (int c = 0; c < 3; c++)
        {
            config.bufferClass(c, 1, 4, 16, InjectionConfig.Policy.ROUND_ROBIN);
        }
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        inject(arbiter, 0, 5, 0);
        assertEquals(0, cells.available(0), "class 0 holds its reserved cell and its 4 shared ones");
        arbiter.ready(0, CELL);
        arbiter.ready(1, 5 * CELL);
        assertEquals(1, arbiter.select(1), "class 0 holds its turn for its own cells; class 1 fills its slice");
        assertEquals(5, arbiter.besideCells(1));
        arbiter.ready(2, 5 * CELL);
        assertEquals(2, arbiter.select(2), "and class 2 its own");
        assertEquals(5, arbiter.besideCells(2));
        arbiter.ready(1, CELL);
        assertEquals(InjectorArbiter.NONE, arbiter.select(3), "class 1 is at its limit too");
        assertEquals(3, arbiter.stalls(0));
        assertEquals(0, arbiter.stalls(1), "a class that cannot inject beside does not stall");
        assertEquals(12, cells.sharedCellsUsed());
    }

    @Test
    void withTheRealNicsMarksNoInjectorWaitsUnboundedly()
    {
        // 96 injectors, 10 classes, 624 shared cells, marks 4 and 8: every injector always has a packet ready,
        // one injector per class is greedy (MTU packets), the link drains one packet per selection in FIFO order
        final InjectionConfig config = new InjectionConfig();
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(11);
        final int injectors = config.injectors();
        final long[] lastServed = new long[injectors];
        final long[] served = new long[injectors];
        for (int i = 0; i < injectors; i++)
        {
            arbiter.command(i, i >= 10 && random.nextBoolean());
            arbiter.ready(i, i < 10 ? 4096 : 64 + random.nextInt(2048));
        }
        final ArrayDeque<Integer> wire = new ArrayDeque<>();
        long longestGap = 0;
        final int rounds = 200_000;
        for (int n = 1; n <= rounds; n++)
        {
            final int i = arbiter.select(n * 10L);
            if (i >= 0)
            {
                wire.add(arbiter.claimedCell());
                longestGap = Math.max(longestGap, n - lastServed[i]);
                lastServed[i] = n;
                served[i]++;
                arbiter.ready(i, i < 10 ? 4096 : 64 + random.nextInt(2048));
            }
            // the link is slower than injection: it sends one packet every other selection
            if ((n & 1) == 0 && !wire.isEmpty())
            {
                cells.free(wire.poll());
            }
            assertTrue(cells.sharedCellsUsed() <= 624);
        }
        for (int i = 0; i < injectors; i++)
        {
            assertTrue(served[i] > rounds / 2 / injectors / 4, "injector " + i + " served " + served[i]);
            assertTrue(rounds - lastServed[i] < 2_000, "injector " + i + " waiting since " + lastServed[i]);
        }
        // ten classes in turn, about ten injectors each, high ones first: a few hundred selections at most
        assertTrue(longestGap < 2_000, "longest gap " + longestGap);
        assertTrue(arbiter.stalls() > 0, "the buffer did fill up");
    }

    @Test
    void withThePortsOwnConfigurationNoInjectorWaitsUnboundedly()
    {
        // exactly what an engine's port runs by default (InjectionConfig.forPort with the engine's defaults: MTU
        // 4096, OpenSM's default QoS of 8 data VLs, 2048 shared cells, immediate data up to 224 bytes): 17 injectors
        // (one per SL, one for SMPs) over 9 classes (one per data VL, one for VL15); every injector always has a
        // packet ready, the first injector of each class is greedy (largest packets), the link drains one packet
        // every other selection in FIFO order
        final InjectionConfig config = InjectionConfig.forPort(QosConfig.opensmDefaults(8), 4096,
            InjectionConfig.PORT_SHARED_CELLS, InjectionConfig.DEFAULT_IDC_THRESHOLD);
        assertEquals(InjectionConfig.PORT_INJECTORS, config.injectors());
        assertEquals(9, config.classes());
        assertEquals(224, config.idcThreshold());
        final CellBuffer cells = new CellBuffer(config);
        final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
        final Random random = new Random(12);
        final int injectors = config.injectors();
        final boolean[] greedy = new boolean[injectors];
        final boolean[] classSeen = new boolean[config.classes()];
        for (int i = 0; i < injectors; i++)
        {
            final int c = config.classOf(i);
            greedy[i] = !classSeen[c];
            classSeen[c] = true;
        }
        final int largest = 4096 + PacketChecker.HEADERS_ALLOWANCE;
        final long[] lastServed = new long[injectors];
        final long[] served = new long[injectors];
        for (int i = 0; i < injectors; i++)
        {
            arbiter.command(i, !greedy[i] && random.nextBoolean());
            arbiter.ready(i, greedy[i] ? largest : 64 + random.nextInt(2048));
        }
        final ArrayDeque<Integer> wire = new ArrayDeque<>();
        long longestGap = 0;
        final int rounds = 200_000;
        for (int n = 1; n <= rounds; n++)
        {
            final int i = arbiter.select(n * 10L);
            if (i >= 0)
            {
                wire.add(arbiter.claimedCell());
                longestGap = Math.max(longestGap, n - lastServed[i]);
                lastServed[i] = n;
                served[i]++;
                arbiter.ready(i, greedy[i] ? largest : 64 + random.nextInt(2048));
            }
            if ((n & 1) == 0 && !wire.isEmpty())
            {
                cells.free(wire.poll());
            }
            assertTrue(cells.sharedCellsUsed() <= InjectionConfig.PORT_SHARED_CELLS);
        }
        for (int i = 0; i < injectors; i++)
        {
            assertTrue(served[i] > rounds / 2 / injectors / 8, "injector " + i + " served " + served[i]);
            assertTrue(rounds - lastServed[i] < 2_000, "injector " + i + " waiting since " + lastServed[i]);
        }
        assertTrue(longestGap < 2_000, "longest gap " + longestGap);
    }
}
