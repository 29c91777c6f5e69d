package io.vlink.core.inject;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CellBufferTest
{
    @Test
    void aPacketTakesCeilOfSizeOverCellCellsAndTheyComeBackWhenFreed()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 1).reservedCells(0).sharedCells(10);
        final CellBuffer cells = new CellBuffer(config);
        assertEquals(1, cells.cellsFor(1));
        assertEquals(1, cells.cellsFor(256));
        assertEquals(2, cells.cellsFor(257));
        assertEquals(17, cells.cellsFor(4096 + 30));

        final int a = cells.claim(0, 600, false);
        assertEquals(3, cells.occ(0));
        assertEquals(7, cells.freeCells());
        final int b = cells.claim(1, 100, true);
        assertEquals(1, cells.occ(1));
        assertEquals(1, cells.idcOcc(1));
        assertEquals(4, cells.classCells(0));
        assertEquals(CellBuffer.NO_CELL, cells.claim(0, 7 * 256, false), "6 cells left");
        assertEquals(1, cells.refusals());

        assertTrue(cells.free(a));
        assertEquals(3, cells.occ(0), "counts change when the injecting side reclaims");
        final List<Integer> released = new ArrayList<>();
        assertEquals(1, cells.reclaim(released::add));
        assertEquals(List.of(0), released);
        assertEquals(0, cells.occ(0));
        cells.free(b);
        cells.reclaim(null);
        assertEquals(10, cells.freeCells());
        assertEquals(cells.cellsClaimed(), cells.cellsReleased());
    }

    @Test
    void moreFreesThanClaimsAreRefusedNotCorrupting()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1).reservedCells(0).sharedCells(2);
        final CellBuffer cells = new CellBuffer(config);
        final int a = cells.claim(0, 10, false);
        final int b = cells.claim(0, 10, false);
        assertTrue(cells.free(a));
        assertTrue(cells.free(b));
        assertFalse(cells.free(a), "the return ring holds one slot per cell");
        assertEquals(2, cells.reclaim(null));
        assertEquals(2, cells.freeCells());
    }

    @Test
    void reservedCellsFirstThenTheSharedPoolWithinTheClassesShare()
    {
        final InjectionConfig config = new InjectionConfig().shape(2, 2).sharedCells(4);
        config.bufferClass(0, 2, 3, 1, InjectionConfig.Policy.ROUND_ROBIN);
        config.bufferClass(1, 1, 4, 1, InjectionConfig.Policy.ROUND_ROBIN);
        final CellBuffer cells = new CellBuffer(config);
        assertEquals(7, cells.totalCells());
        assertEquals(5, cells.available(0), "2 reserved + a share of 3");
        assertEquals(5, cells.available(1), "1 reserved + the whole pool of 4");
        final int a = cells.claim(0, 2 * 256, false);
        assertEquals(0, cells.sharedCellsUsed(), "reserved first");
        final int b = cells.claim(0, 3 * 256, false);
        assertEquals(3, cells.sharedCellsUsed());
        assertEquals(0, cells.available(0), "its share is used up");
        assertEquals(2, cells.available(1), "1 reserved + 1 left in the pool");
        assertEquals(CellBuffer.NO_CELL, cells.claim(1, 3 * 256, false));
        final int c = cells.claim(1, 2 * 256, false);
        assertEquals(4, cells.sharedCellsUsed());
        assertEquals(0, cells.freeCells());
        cells.free(b);
        cells.free(a);
        cells.free(c);
        cells.reclaim(null);
        assertEquals(0, cells.sharedCellsUsed());
        assertEquals(7, cells.freeCells());
    }

    @Test
    void aPacketGoesBesideAWaitingClassOnlyInCellsThatClassCouldNeverUse()
    {
        // classes 0 and 1 may take the whole pool of 6: only class 1's 2 reserved cells are never class 0's
        final InjectionConfig whole = new InjectionConfig().shape(3, 3).sharedCells(6).reservedCells(0);
        whole.bufferClass(1, 2, Integer.MAX_VALUE, 16, InjectionConfig.Policy.ROUND_ROBIN);
        final CellBuffer cells = new CellBuffer(whole);
        assertTrue(cells.fitsBeside(1, 2, 0), "its reserved cells");
        assertFalse(cells.fitsBeside(1, 3, 0), "a third cell would be the pool's");
        assertFalse(cells.fitsBeside(2, 1, 0), "class 2 has only the pool");
        cells.claim(1, 2 * 256, false);
        assertFalse(cells.fitsBeside(1, 1, 0), "its reserved cells are taken");
        assertFalse(cells.fitsBeside(0, 1, 1), "class 1 could use any cell of the pool too");

        // shared limits that partition the pool (3 + 3 of 6, and class 2's 0): the waiting class's limit, never the
        // pool, caps it, so every other class's packet that fits goes beside it
        final InjectionConfig sliced = new InjectionConfig().shape(3, 3).sharedCells(6).reservedCells(0);
        sliced.bufferClass(0, 0, 3, 16, InjectionConfig.Policy.ROUND_ROBIN)
            .bufferClass(1, 1, 3, 16, InjectionConfig.Policy.ROUND_ROBIN)
            .bufferClass(2, 0, 0, 16, InjectionConfig.Policy.ROUND_ROBIN);
        final CellBuffer slices = new CellBuffer(sliced);
        slices.claim(0, 3 * 256, false);
        assertEquals(0, slices.available(0), "class 0 at its limit");
        assertTrue(slices.fitsBeside(1, 4, 0), "1 reserved + 3 shared: class 0 can never use them");
        assertFalse(slices.fitsBeside(1, 5, 0), "more than class 1 can take");
        assertFalse(slices.fitsBeside(2, 1, 0), "class 2 can take nothing at all");
        slices.claim(1, 4 * 256, false);
        assertTrue(slices.fitsBeside(0, 0, 1), "nothing is always beside");
        // a limit above what the pool has beyond the waiting class's limit: only the part that leaves room
        final InjectionConfig over = new InjectionConfig().shape(2, 2).sharedCells(6).reservedCells(0);
        over.bufferClass(0, 0, 4, 16, InjectionConfig.Policy.ROUND_ROBIN)
            .bufferClass(1, 0, 4, 16, InjectionConfig.Policy.ROUND_ROBIN);
        final CellBuffer overlapping = new CellBuffer(over);
        assertTrue(overlapping.fitsBeside(1, 2, 0), "class 0 keeps its 4 of the 6");
        assertFalse(overlapping.fitsBeside(1, 3, 0), "a third would leave class 0 only 3");
        overlapping.claim(0, 3 * 256, false);
        assertTrue(overlapping.fitsBeside(1, 2, 0), "what class 0 holds does not change what it may still get");
        assertFalse(overlapping.fitsBeside(1, 3, 0));
        cells.close();
        slices.close();
        overlapping.close();
    }

    @Test
    void aPublishedPacketReadsBackAcrossItsChainedCells()
    {
        final InjectionConfig config = new InjectionConfig().shape(1, 1).cellSize(64).reservedCells(0).sharedCells(16);
        final CellBuffer cells = new CellBuffer(config);
        final int hole = cells.claim(0, 64, false);
        final int first = cells.claim(0, 200, false);
        cells.free(hole);
        cells.reclaim(null);
        final int second = cells.claim(0, 150, false);

        final UnsafeBuffer src = new UnsafeBuffer(new byte[200]);
        for (int i = 0; i < 200; i++)
        {
            src.putByte(i, (byte)i);
        }
        assertEquals(0, cells.publishedLength(first), "not published yet");
        cells.putBytes(first, 0, src, 0, 100);
        cells.putBytes(first, 100, src, 100, 100);
        cells.publish(first, 200);
        cells.putBytes(second, 0, src, 50, 150);
        cells.publish(second, 150);

        assertEquals(200, cells.publishedLength(first));
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[200]);
        cells.getBytes(first, 0, dst, 0, 200);
        for (int i = 0; i < 200; i++)
        {
            assertEquals((byte)i, dst.getByte(i));
        }
        cells.getBytes(second, 70, dst, 0, 80);
        for (int i = 0; i < 80; i++)
        {
            assertEquals((byte)(120 + i), dst.getByte(i));
        }
        int n = 0;
        for (int cell = first; cell != CellBuffer.NO_CELL; cell = cells.nextCell(cell))
        {
            n++;
        }
        assertEquals(4, n);

        cells.free(first);
        assertEquals(0, cells.publishedLength(first), "a freed packet reads as unpublished");
    }

    @Test
    void aChainOfRunsAndGapsReadsBackFromEveryOffset()
    {
        // 12 cells of 64 bytes: fill them, free packets so that the free cells are 0-1, 4-6 and 9, then claim 6
        // cells: the chain is gathered from three pieces, so copies must follow the links across the gaps
        final InjectionConfig config = new InjectionConfig().shape(1, 1).cellSize(64).reservedCells(0).sharedCells(12);
        final CellBuffer cells = new CellBuffer(config);
        final int a = cells.claim(0, 128, false);
        final int b = cells.claim(0, 128, false);
        final int c = cells.claim(0, 192, false);
        final int d = cells.claim(0, 128, false);
        final int e = cells.claim(0, 64, false);
        final int f = cells.claim(0, 128, false);
        assertEquals(0, cells.freeCells());
        cells.free(a);
        cells.free(c);
        cells.free(e);
        cells.reclaim(null);
        final int first = cells.claim(0, 6 * 64, false);
        assertTrue(first != CellBuffer.NO_CELL);
        int gaps = 0;
        for (int cell = first; cells.nextCell(cell) != CellBuffer.NO_CELL; cell = cells.nextCell(cell))
        {
            gaps += cells.nextCell(cell) == cell + 1 ? 0 : 1;
        }
        assertEquals(2, gaps, "three runs");

        final int size = 6 * 64;
        final UnsafeBuffer src = new UnsafeBuffer(new byte[size]);
        for (int i = 0; i < size; i++)
        {
            src.putByte(i, (byte)(i * 7 + 3));
        }
        cells.putBytes(first, 0, src, 0, 50);
        cells.putBytes(first, 50, src, 50, size - 50);
        cells.publish(first, size);
        final UnsafeBuffer dst = new UnsafeBuffer(new byte[size]);
        for (int from = 0; from < size; from += 13)
        {
            final int length = size - from;
            dst.setMemory(0, size, (byte)0);
            cells.getBytes(first, from, dst, 0, length);
            for (int i = 0; i < length; i++)
            {
                assertEquals(src.getByte(from + i), dst.getByte(i), "offset " + from + ", byte " + i);
            }
        }
        cells.free(b);
        cells.free(d);
        cells.free(f);
        cells.free(first);
        cells.reclaim(null);
        assertEquals(cells.totalCells(), cells.freeCells());
    }

    @Test
    void noCellLeaksAndOccupancyNeverExceedsTheBufferOverRandomWorkloads()
    {
        for (long seed = 1; seed <= 30; seed++)
        {
            final Random random = new Random(seed);
            final int classes = 1 + random.nextInt(10);
            final int injectors = classes + random.nextInt(40);
            final InjectionConfig config = new InjectionConfig().shape(injectors, classes)
                .sharedCells(random.nextInt(200)).marks(1 + random.nextInt(4), 6 + random.nextInt(8))
                .priorityTimerNs(1 + random.nextInt(1000));
            for (int c = 0; c < classes; c++)
            {
                config.bufferClass(c, 17 + random.nextInt(8), random.nextInt(300), 1 + random.nextInt(32),
                    random.nextBoolean() ? InjectionConfig.Policy.ROUND_ROBIN : InjectionConfig.Policy.FIRST_AVAILABLE);
            }
            final CellBuffer cells = new CellBuffer(config);
            final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
            final List<Integer> inFlight = new ArrayList<>();
            final long[] injected = new long[injectors];
            long takenCells = 0;
            for (int step = 0; step < 20_000; step++)
            {
                final int i = random.nextInt(injectors);
                if (!arbiter.isReady(i))
                {
                    final int size = 1 + random.nextInt(4300);
                    arbiter.command(i, config.isIdc(size));
                    arbiter.ready(i, size);
                }
                final int chosen = arbiter.select(step);
                if (chosen >= 0)
                {
                    inFlight.add(arbiter.claimedCell());
                    injected[chosen]++;
                    takenCells += cells.cellsFor(arbiter.claimedSize());
                }
                while (!inFlight.isEmpty() && random.nextInt(3) == 0)
                {
                    cells.free(inFlight.remove(random.nextInt(inFlight.size())));
                }
                int used = 0;
                for (int c = 0; c < classes; c++)
                {
                    used += cells.classCells(c);
                    assertTrue(cells.classCells(c) <= config.reservedCells[c] + config.sharedLimit[c]);
                }
                assertTrue(used <= cells.totalCells(), "seed " + seed);
                assertEquals(cells.totalCells(), used + cells.freeCells(), "seed " + seed);
            }
            for (final int first : inFlight)
            {
                cells.free(first);
            }
            cells.reclaim(arbiter);
            assertEquals(takenCells, cells.cellsClaimed(), "seed " + seed);
            assertEquals(cells.cellsClaimed(), cells.cellsReleased(), "seed " + seed);
            assertEquals(cells.totalCells(), cells.freeCells(), "seed " + seed);
            for (int i = 0; i < injectors; i++)
            {
                assertEquals(0, cells.occ(i));
                assertEquals(0, cells.idcOcc(i));
            }
            assertEquals(0, cells.sharedCellsUsed());
        }
    }

    @Test
    void cellsArePublishedConsumedAndFreedAcrossTwoThreads() throws Exception
    {
        final InjectionConfig config = new InjectionConfig().shape(4, 2).reservedCells(8).sharedCells(16);
        final CellBuffer cells = new CellBuffer(config);
        final int packets = 50_000;
        // the index is handed over before the body is written: the consumer relies on the length alone
        final AtomicIntegerArray channel = new AtomicIntegerArray(1024);
        final AtomicLong produced = new AtomicLong();
        final AtomicReference<String> failure = new AtomicReference<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);

        final Thread consumer = new Thread(() ->
        {
            final UnsafeBuffer dst = new UnsafeBuffer(new byte[4096]);
            for (long n = 0; n < packets && failure.get() == null; n++)
            {
                while (produced.get() <= n)
                {
                    if (System.nanoTime() > deadline)
                    {
                        failure.set("consumer timed out at " + n);
                        return;
                    }
                    Thread.onSpinWait();
                }
                final int first = channel.get((int)(n & 1023));
                int length;
                while ((length = cells.publishedLength(first)) == 0)
                {
                    if (System.nanoTime() > deadline)
                    {
                        failure.set("never published: packet " + n);
                        return;
                    }
                    Thread.onSpinWait();
                }
                if (length != sizeOf(n))
                {
                    failure.set("packet " + n + ": length " + length);
                    return;
                }
                cells.getBytes(first, 0, dst, 0, length);
                for (int i = 0; i < length; i += 4)
                {
                    if (dst.getInt(i) != (int)n + i)
                    {
                        failure.set("packet " + n + ": byte " + i);
                        return;
                    }
                }
                if (!cells.free(first))
                {
                    failure.set("return ring full at " + n);
                    return;
                }
            }
        }, "sender");
        consumer.start();

        final UnsafeBuffer src = new UnsafeBuffer(new byte[4096]);
        for (long n = 0; n < packets && failure.get() == null; n++)
        {
            final int size = sizeOf(n);
            final int injector = (int)(n & 3);
            int first;
            // at most 32 packets hold cells (32 cells), so slot n & 1023 was consumed long ago
            while ((first = cells.claim(injector, size, false)) == CellBuffer.NO_CELL)
            {
                cells.reclaim(null);
                if (System.nanoTime() > deadline)
                {
                    failure.compareAndSet(null, "producer timed out at " + n);
                    break;
                }
                Thread.onSpinWait();
            }
            if (first == CellBuffer.NO_CELL)
            {
                break;
            }
            channel.set((int)(n & 1023), first);
            produced.set(n + 1);
            for (int i = 0; i < size; i += 4)
            {
                src.putInt(i, (int)n + i);
            }
            cells.putBytes(first, 0, src, 0, size);
            cells.publish(first, size);
        }
        consumer.join(TimeUnit.SECONDS.toMillis(60));
        assertFalse(consumer.isAlive());
        assertNull(failure.get());
        while (cells.freeCells() != cells.totalCells() && System.nanoTime() < deadline)
        {
            cells.reclaim(null);
        }
        assertEquals(cells.totalCells(), cells.freeCells());
        assertEquals(cells.cellsClaimed(), cells.cellsReleased());
    }

    private static int sizeOf(final long n)
    {
        return 4 * (1 + (int)(n * 7919 % 1024));
    }
}
