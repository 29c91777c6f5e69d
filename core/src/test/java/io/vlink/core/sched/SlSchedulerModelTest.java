package io.vlink.core.sched;

import io.vlink.core.wire.Sizes;
import org.agrona.BitUtil;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link SlScheduler} against a plain reading of its three steps (docs/injection.md): a reference scheduler with a
 * list of messages per queue pair and a list of queue pairs per SL, run side by side with the real one (rings in
 * shared arrays, a bit per backlogged SL) over seeded random tables, tenures, MTUs, ring sizes, posts and blocked
 * SLs. Every packet (QP, SL, bytes, offset, handle, end of message), every back-pressure answer and every figure
 * (bytes per SL and QP, switches, waits, the pointer and its remaining weight) must be the same after every call.
 */
class SlSchedulerModelTest
{
    private static final int STEPS = 3_000;

    /** The three steps, as written. */
    private static final class ReferenceScheduler
    {
        final int[] entrySl;
        final int[] entryWeight;
        final int mtu;
        final long tenureBytes;
        final int tenurePackets;
        final int capacity;
        final List<ArrayDeque<long[]>> messages = new ArrayList<>();
        final List<Integer> qpSl = new ArrayList<>();
        final List<long[]> qp = new ArrayList<>();
        final List<List<Integer>> slQps = new ArrayList<>();
        final int[] slPosition = new int[SlScheduler.SL_COUNT];
        final int[] slCurrent = new int[SlScheduler.SL_COUNT];
        final long[] slBytes = new long[SlScheduler.SL_COUNT];
        int pointer;
        long remaining;
        int previousQp = -1;
        long packets;
        long switches;
        long longestWait;
        int packetQp;
        int packetSl;
        int packetOffset;
        long packetHandle;
        boolean packetEnd;

        // per QP: offset in the head message, tenure bytes, tenure packets, bytes generated, wait mark
        static final int OFFSET = 0;
        static final int TENURE = 1;
        static final int TENURE_PACKETS = 2;
        static final int BYTES = 3;
        static final int MARK = 4;

        ReferenceScheduler(
            final int[] sls, final int[] weights, final int mtu, final long tenureBytes, final int tenurePackets,
            final int capacity)
        {
            entrySl = sls;
            entryWeight = weights;
            this.mtu = mtu;
            this.tenureBytes = tenureBytes;
            this.tenurePackets = tenurePackets;
            this.capacity = capacity;
            for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
            {
                slQps.add(new ArrayList<>());
                slPosition[sl] = -1;
                slCurrent[sl] = -1;
            }
            remaining = weights[0];
        }

        int createQp(final int sl)
        {
            final int index = qp.size();
            qp.add(new long[5]);
            qpSl.add(sl);
            messages.add(new ArrayDeque<>());
            slQps.get(sl).add(index);
            return index;
        }

        boolean post(final int q, final int length, final long handle)
        {
            if (messages.get(q).size() == capacity)
            {
                return false;
            }
            if (messages.get(q).isEmpty())
            {
                qp.get(q)[MARK] = packets;
            }
            messages.get(q).add(new long[] {length, handle});
            return true;
        }

        boolean hasWork(final int q)
        {
            return !messages.get(q).isEmpty();
        }

        boolean eligible(final int sl, final int blocked)
        {
            if ((blocked & 1 << sl) != 0)
            {
                return false;
            }
            for (final int q : slQps.get(sl))
            {
                if (hasWork(q))
                {
                    return true;
                }
            }
            return false;
        }

        int next(final int blocked)
        {
            boolean any = false;
            for (int e = 0; e < entrySl.length; e++)
            {
                any |= entryWeight[e] != 0 && eligible(entrySl[e], blocked);
            }
            if (!any)
            {
                return SlScheduler.NO_WORK;
            }
            // step 1
            int sl = entrySl[pointer];
            if (remaining <= 0 || !eligible(sl, blocked))
            {
                for (int i = 1; i <= entrySl.length; i++)
                {
                    final int e = (pointer + i) % entrySl.length;
                    if (entryWeight[e] != 0 && eligible(entrySl[e], blocked))
                    {
                        pointer = e;
                        remaining = entryWeight[e];
                        break;
                    }
                }
                sl = entrySl[pointer];
            }
            // step 2
            int q = slCurrent[sl];
            if (q < 0 || !hasWork(q) || qp.get(q)[TENURE] <= 0 ||
                (tenurePackets != SlScheduler.NO_PACKET_TENURE && qp.get(q)[TENURE_PACKETS] <= 0))
            {
                final List<Integer> list = slQps.get(sl);
                for (int i = 1; i <= list.size(); i++)
                {
                    final int p = Math.floorMod(slPosition[sl] + i, list.size());
                    if (hasWork(list.get(p)))
                    {
                        slPosition[sl] = p;
                        break;
                    }
                }
                q = list.get(slPosition[sl]);
                slCurrent[sl] = q;
                qp.get(q)[TENURE] = tenureBytes;
                qp.get(q)[TENURE_PACKETS] = tenurePackets;
            }
            // step 3
            final long[] state = qp.get(q);
            final long[] message = messages.get(q).peek();
            final int offset = (int)state[OFFSET];
            final int bytes = (int)Math.min(mtu, message[0] - offset);
            packetQp = q;
            packetSl = sl;
            packetOffset = offset;
            packetHandle = message[1];
            packetEnd = offset + bytes >= message[0];
            if (packetEnd)
            {
                messages.get(q).poll();
                state[OFFSET] = 0;
            }
            else
            {
                state[OFFSET] = offset + bytes;
            }
            state[TENURE] -= bytes;
            if (tenurePackets != SlScheduler.NO_PACKET_TENURE)
            {
                state[TENURE_PACKETS]--;
            }
            remaining -= bytes;
            if (remaining <= 0)
            {
                pointer = (pointer + 1) % entrySl.length;
                remaining = entryWeight[pointer];
            }
            // figures
            if (previousQp >= 0 && previousQp != q)
            {
                switches++;
            }
            previousQp = q;
            longestWait = Math.max(longestWait, packets - state[MARK]);
            packets++;
            state[MARK] = packets;
            state[BYTES] += bytes;
            slBytes[sl] += bytes;
            return bytes;
        }
    }

    private static void run(final long seed)
    {
        run(seed, 8, true);
    }

    /** Real and model side by side; {@code busy}: the seed is one whose workload is known to produce packets. */
    private static void run(final long seed, final int maxEntries, final boolean busy)
    {
        final Random random = new Random(seed);
        final int mtu = 256 << random.nextInt(5);
        final int entries = 1 + random.nextInt(maxEntries);
        final int slsUsed = 1 + random.nextInt(random.nextBoolean() ? 4 : 16);
        final int[] sls = new int[entries];
        final int[] weights = new int[entries];
        for (int e = 0; e < entries; e++)
        {
            sls[e] = random.nextInt(slsUsed);
            final int kind = random.nextInt(5);
            weights[e] = kind == 0 ? 0 : kind == 1 ? 1 + random.nextInt(mtu) : 1 + random.nextInt(4 * mtu);
        }
        weights[0] = Math.max(weights[0], 1);
        final long tenure = 1 + random.nextInt(3 * mtu);
        final int tenurePackets = random.nextBoolean() ? SlScheduler.NO_PACKET_TENURE : 1 + random.nextInt(3);
        final int maxQps = 1 + random.nextInt(10);
        final int ring = 1 + random.nextInt(6);
        final SlScheduler scheduler = new SlScheduler(sls, weights, mtu, tenure, tenurePackets, maxQps, ring);
        final ReferenceScheduler model = new ReferenceScheduler(
            sls, weights, mtu, tenure, tenurePackets, BitUtil.findNextPositivePowerOfTwo(ring));
        int produced = 0;
        long handle = 0;
        for (int step = 0; step < STEPS; step++)
        {
            final int at = step;
            final Supplier<String> where = () -> "seed " + seed + " step " + at;
            final int op = random.nextInt(10);
            if (op == 0 && model.qp.size() < maxQps)
            {
                // mostly SLs the table lists, now and then one it may not
                final int sl = random.nextInt(4) == 0 ? random.nextInt(slsUsed) : sls[random.nextInt(entries)];
                assertEquals(model.createQp(sl), scheduler.createQp(1000 + at, sl), where);
            }
            else if (op < 4 && !model.qp.isEmpty())
            {
                final int q = random.nextInt(model.qp.size());
                final int length = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(3 * mtu);
                handle++;
                assertEquals(model.post(q, length, handle), scheduler.post(q, length, handle), where);
            }
            else
            {
                final int blocked = random.nextInt(4) == 0 ? random.nextInt(1 << slsUsed) : 0;
                final int bytes = blocked == 0 && random.nextBoolean() ? scheduler.next() : scheduler.next(blocked);
                assertEquals(model.next(blocked), bytes, where);
                if (bytes != SlScheduler.NO_WORK)
                {
                    produced++;
                    assertEquals(model.packetQp, scheduler.packetQp(), where);
                    assertEquals(model.packetSl, scheduler.packetSl(), where);
                    assertEquals(bytes, scheduler.packetBytes(), where);
                    assertEquals(model.packetOffset, scheduler.packetOffset(), where);
                    assertEquals(model.packetHandle, scheduler.packetHandle(), where);
                    assertEquals(model.packetEnd, scheduler.packetEndOfMessage(), where);
                }
            }
            assertEquals(model.pointer, scheduler.pointer(), where);
            assertEquals(model.remaining, scheduler.remainingWeight(), where);
            assertEquals(model.packets, scheduler.packets(), where);
            assertEquals(model.switches, scheduler.switches(), where);
            assertEquals(model.longestWait, scheduler.longestWait(), where);
            assertEquals(model.qp.size(), scheduler.qpCount(), where);
            for (int q = 0; q < model.qp.size(); q++)
            {
                final long[] state = model.qp.get(q);
                final long wait = model.hasWork(q) ? model.packets - state[ReferenceScheduler.MARK] : 0;
                if (model.messages.get(q).size() != scheduler.queuedMessages(q) ||
                    state[ReferenceScheduler.BYTES] != scheduler.qpBytes(q) || wait != scheduler.currentWait(q) ||
                    model.qpSl.get(q) != scheduler.qpSl(q))
                {
                    assertEquals(
                        model.messages.get(q).size() + " " + state[ReferenceScheduler.BYTES] + " " + wait + " " +
                            model.qpSl.get(q),
                        scheduler.queuedMessages(q) + " " + scheduler.qpBytes(q) + " " + scheduler.currentWait(q) +
                            " " + scheduler.qpSl(q),
                        where.get() + ": QP " + q + " messages, bytes, wait, SL");
                }
            }
            for (int sl = 0; sl < SlScheduler.SL_COUNT; sl++)
            {
                if (model.slBytes[sl] != scheduler.slBytes(sl))
                {
                    assertEquals(model.slBytes[sl], scheduler.slBytes(sl), where.get() + ": SL " + sl);
                }
            }
        }
        assertTrue(!busy || produced > STEPS / 10, "seed " + seed + ": the workload produces packets: " + produced);
        assertEquals(mtu, scheduler.mtu());
    }

    @Test
    void theConfigurationIsTakenUpToItsLimitsAndRefusedPastThem()
    {
        for (final int mtu : new int[] {256, 512, 1024, 2048, 4096})
        {
            assertTrue(Sizes.isMtu(mtu), "MTU " + mtu);
        }
        for (final int mtu : new int[] {128, 300, 8192, 0, -256})
        {
            assertFalse(Sizes.isMtu(mtu), "MTU " + mtu);
        }
        final int[] sl = {15};
        final int[] weight = {0};
        final SlScheduler largest = new SlScheduler(sl, weight, 256, 1, 0, 1, 1);
        assertEquals(0, largest.createQp(7, 15), "SL 15 and weight 0 are in range");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 1, 0, 2, 1 << 30), "maxQps * ring too large");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 1, 0, 1, (1 << 30) + 1), "ring too large");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 1, 0, 0, 1), "no QPs");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 1, 0, 1, 0), "no ring");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 0, 0, 1, 1), "no tenure");
        assertRefused(() -> new SlScheduler(sl, weight, 256, 1, -1, 1, 1), "negative packet tenure");
        assertRefused(() -> new SlScheduler(sl, weight, 128, 1, 0, 1, 1), "MTU");
        assertRefused(() -> new SlScheduler(new int[] {16}, weight, 256, 1, 0, 1, 1), "SL 16");
        assertRefused(() -> new SlScheduler(new int[] {-1}, weight, 256, 1, 0, 1, 1), "SL -1");
        assertRefused(() -> new SlScheduler(sl, new int[] {-1}, 256, 1, 0, 1, 1), "negative weight");
        assertRefused(() -> new SlScheduler(new int[0], new int[0], 256, 1, 0, 1, 1), "empty table");
        assertRefused(() -> new SlScheduler(sl, new int[] {1, 1}, 256, 1, 0, 1, 1), "a weight per SL");
        assertRefused(() -> largest.createQp(8, 16), "QP on SL 16");
        assertRefused(() -> largest.createQp(8, -1), "QP on SL -1");
        try
        {
            largest.createQp(8, 0);
            throw new AssertionError("a QP beyond maxQps was created");
        }
        catch (final IllegalStateException expected)
        {
            assertEquals(1, largest.qpCount());
        }
    }

    private static void assertRefused(final Runnable construction, final String what)
    {
        try
        {
            construction.run();
            throw new AssertionError(what + ": accepted");
        }
        catch (final IllegalArgumentException expected)
        {
            assertTrue(expected.getMessage() != null && !expected.getMessage().isEmpty(), what);
        }
    }

    @Test
    void randomTablesTenuresAndWorkloadsScheduleExactlyAsTheThreeSteps()
    {
        for (long seed = 1; seed <= 40; seed++)
        {
            run(seed);
        }
    }

    /** Step 1's search by entry bits against the plain reading, over random tables of one word of entries or several. */
    @Property(tries = 60)
    void randomTablesScheduleExactlyAsTheThreeSteps(
        @ForAll final long seed, @ForAll @IntRange(min = 1, max = 200) final int maxEntries)
    {
        run(seed, maxEntries, false);
    }

    @Test
    void tablesOfSeveralWordsOfEntriesScheduleExactlyAsTheThreeSteps()
    {
        // step 1 searches a bit per entry, 64 a word: tables of up to 200 entries cross words
        for (long seed = 41; seed <= 60; seed++)
        {
            run(seed, 200, true);
        }
    }
}
