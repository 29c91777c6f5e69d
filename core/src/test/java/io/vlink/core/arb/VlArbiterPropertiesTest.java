package io.vlink.core.arb;

import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import io.vlink.core.wire.Sizes;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Properties of the arbiter over random tables and backlogs (seeded: a failure names its trial and repeats).
 */
class VlArbiterPropertiesTest
{
    private static final int TRIALS = 80;
    private static final int[] DATA_VLS = {2, 4, 8, 15};

    /** Random tables: 1..8 entries, VLs 0..14 (some beyond the port), weights 0..64 with zeros. */
    private static VlArbTable randomTable(final Random random, final int maxWeight)
    {
        final int entries = 1 + random.nextInt(8);
        final int[] pairs = new int[entries * 2];
        for (int i = 0; i < entries; i++)
        {
            pairs[2 * i] = random.nextInt(15);
            pairs[2 * i + 1] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(maxWeight);
        }
        return VlArbTable.of(pairs);
    }

    private static QosConfig randomConfig(final Random random, final int limit, final LowBurst burst)
    {
        while (true)
        {
            final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
            final VlArbTable high = randomTable(random, 64);
            final VlArbTable low = randomTable(random, 64);
            if (high.hasValidEntry(dataVls) || low.hasValidEntry(dataVls))
            {
                return QosConfig.builder().dataVls(dataVls).highLimit(limit).vlarbHigh(high).vlarbLow(low)
                    .lowBurst(burst).build();
            }
        }
    }

    private static SimulatedPort backlogged(final int dataVls, final int size, final int packets)
    {
        final SimulatedPort port = new SimulatedPort();
        for (int vl = 0; vl < dataVls; vl++)
        {
            port.enqueue(vl, size, packets);
        }
        return port;
    }

    /** Packets an entry of weight w sends per turn with packets of b blocks: ceil(w / b). */
    private static long rotation(final VlArbTable table, final int dataVls, final int blocks, final long[] perVl)
    {
        long packets = 0;
        for (int i = 0; i < table.size(); i++)
        {
            if (table.isValid(i, dataVls))
            {
                final int n = (table.weight(i) + blocks - 1) / blocks;
                packets += n;
                if (perVl != null)
                {
                    perVl[table.vl(i)] += n;
                }
            }
        }
        return packets;
    }

    private static int validEntries(final VlArbTable table, final int dataVls)
    {
        int n = 0;
        for (int i = 0; i < table.size(); i++)
        {
            n += table.isValid(i, dataVls) ? 1 : 0;
        }
        return n;
    }

    /**
     * {@link VlArbiter#nextQueued()} decides as {@link VlArbiter#next()} whatever is queued: the same grants and the
     * same state after each, over random tables, sparse backlogs on VLs inside and outside the tables and beyond the
     * port, VL15 packets, FCPs, credits that run out, and stretches with nothing queued at all.
     */
    @Test
    void nextQueuedDecidesAsNext()
    {
        final Random random = new Random(0x5EED_0004L);
        for (int trial = 0; trial < TRIALS; trial++)
        {
            final int limit = random.nextInt(10) == 0 ? 255 : random.nextInt(4);
            final QosConfig config = randomConfig(random, limit, random.nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET);
            final SimulatedPort plain = new SimulatedPort();
            final SimulatedPort queued = new SimulatedPort();
            final VlArbiter byNext = new VlArbiter(config, plain);
            final VlArbiter byNextQueued = new VlArbiter(config, queued);
            for (int vl = 0; vl < config.dataVls(); vl++)
            {
                final long credit = random.nextInt(3) == 0 ? random.nextInt(200) : Long.MAX_VALUE / 2;
                plain.credits(vl, credit);
                queued.credits(vl, credit);
            }
            for (int step = 0; step < 2_000; step++)
            {
                if (random.nextInt(8) == 0)
                {
                    final int vl = random.nextInt(10) == 0 ? 15 : random.nextInt(config.dataVls());
                    final int size = 4 * (6 + random.nextInt(1020));
                    final int count = 1 + random.nextInt(4);
                    plain.enqueue(vl, size, count);
                    queued.enqueue(vl, size, count);
                }
                if (random.nextInt(40) == 0)
                {
                    plain.addFcp(1);
                    queued.addFcp(1);
                }
                final int grant = byNext.next();
                final String where = "trial " + trial + " step " + step + " " + config;
                assertEquals(grant, byNextQueued.nextQueued(), where);
                assertEquals(byNext.lastSize(), byNextQueued.lastSize(), where);
                assertEquals(byNext.highCounter(), byNextQueued.highCounter(), where);
                assertEquals(byNext.lowTurnInProgress(), byNextQueued.lowTurnInProgress(), where);
                assertEquals(byNext.highPointer(), byNextQueued.highPointer(), where);
                assertEquals(byNext.highRemaining(), byNextQueued.highRemaining(), where);
                assertEquals(byNext.lowPointer(), byNextQueued.lowPointer(), where);
                assertEquals(byNext.lowRemaining(), byNextQueued.lowRemaining(), where);
                if (VlArbiter.GRANT_NONE != grant)
                {
                    assertEquals(plain.send(grant), queued.send(grant), where);
                }
            }
        }
    }

    @Test
    void longRunSharesFollowTheWeights()
    {
        final Random random = new Random(0x5EED_0001L);
        for (int trial = 0; trial < TRIALS; trial++)
        {
            final int limit = new int[] {0, 1, 2, 3, 255}[random.nextInt(5)];
            final LowBurst burst = random.nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET;
            final QosConfig config = randomConfig(random, limit, burst);
            final int dataVls = config.dataVls();
            // 64-byte packets are one block and 16 dwords: an entry of weight w sends exactly w packets a turn.
            final long[] highWeights = new long[16];
            final long[] lowWeights = new long[16];
            final long wh = rotation(config.high(), dataVls, 1, highWeights);
            final long wl = rotation(config.low(), dataVls, 1, lowWeights);
            final long nLow = validEntries(config.low(), dataVls);
            final long burstPackets = 64L * limit + 1;

            // A period after which the low table has done whole rotations and the high table whole bursts.
            final long period;
            final long lowPerPeriod;
            if (wh == 0 || limit == 255 && wh > 0)
            {
                period = wh == 0 ? wl : wh;
                lowPerPeriod = wh == 0 ? wl : 0;
            }
            else if (wl == 0)
            {
                period = wh;
                lowPerPeriod = 0;
            }
            else if (burst == LowBurst.WEIGHT)
            {
                period = wl + nLow * burstPackets;
                lowPerPeriod = wl;
            }
            else
            {
                period = wl * (burstPackets + 1);
                lowPerPeriod = wl;
            }
            final long rounds = Math.max(1, 20_000 / period);
            final int n = (int)(rounds * period);
            final SimulatedPort port = backlogged(dataVls, 64, n);
            final VlArbiter arbiter = new VlArbiter(config, port);
            final long[] fromHigh = new long[16];
            final long[] fromLow = new long[16];
            for (int i = 0; i < n; i++)
            {
                final int grant = arbiter.next();
                assertTrue(VlArbiter.isData(grant), "trial " + trial + ": every VL is backlogged");
                port.send(grant);
                (VlArbiter.source(grant) == VlArbiter.FROM_HIGH ? fromHigh : fromLow)[VlArbiter.vl(grant)]++;
            }
            long totalHigh = 0;
            long totalLow = 0;
            for (int vl = 0; vl < 16; vl++)
            {
                totalHigh += fromHigh[vl];
                totalLow += fromLow[vl];
            }
            final String where = "trial " + trial + " " + config;
            assertEquals(rounds * lowPerPeriod, totalLow, where);
            for (int vl = 0; vl < 16; vl++)
            {
                // low: whole rotations, exact; high: a prefix of its rotation, within one entry's weight
                assertEquals(rounds * lowPerPeriod == 0 ? 0 : rounds * lowWeights[vl], fromLow[vl], where + " vl " + vl);
                final double expectedHigh = wh == 0 ? 0 : (double)totalHigh * highWeights[vl] / wh;
                assertTrue(Math.abs(fromHigh[vl] - expectedHigh) <= highWeights[vl], where + " vl " + vl +
                    ": high grants " + fromHigh[vl] + ", weights give " + expectedHigh);
            }
        }
    }

    @Test
    void lowTableIsNeverStarvedUnlessTheLimitIs255()
    {
        final Random random = new Random(0x5EED_0002L);
        for (int trial = 0; trial < TRIALS; trial++)
        {
            final int limit = random.nextInt(8) == 0 ? 254 : random.nextInt(6);
            final LowBurst burst = random.nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET;
            QosConfig config = randomConfig(random, limit, burst);
            while (!config.low().hasValidEntry(config.dataVls()) || !config.high().hasValidEntry(config.dataVls()))
            {
                config = randomConfig(random, limit, burst);
            }
            final int n = 5_000;
            final SimulatedPort port = new SimulatedPort();
            for (int vl = 0; vl < config.dataVls(); vl++)
            {
                for (int i = 0; i < n; i++)
                {
                    port.enqueue(vl, 4 * (2 + random.nextInt(Sizes.MAX_PKT_LEN - 1)), 1);
                }
            }
            final VlArbiter arbiter = new VlArbiter(config, port);
            long runDwords = 0;
            long lastDwords = 0;
            int lowGrants = 0;
            for (int i = 0; i < n; i++)
            {
                final int grant = arbiter.next();
                final int size = port.send(grant);
                if (VlArbiter.source(grant) == VlArbiter.FROM_HIGH)
                {
                    runDwords += lastDwords;
                    lastDwords = Sizes.dwords(size);
                    // every high packet but the last of a run starts with the counter not below zero
                    assertTrue(runDwords <= limit * 1024L, "trial " + trial + " grant " + i + " " + config);
                }
                else
                {
                    lowGrants++;
                    runDwords = 0;
                    lastDwords = 0;
                }
            }
            assertTrue(lowGrants > 0, "trial " + trial + " " + config);
        }
    }

    @Test
    void noValidSendableVlWaitsMoreThanOneRotationOfBothTables()
    {
        final Random random = new Random(0x5EED_0003L);
        for (int trial = 0; trial < TRIALS; trial++)
        {
            final int limit = random.nextInt(10) == 0 ? 255 : random.nextInt(4);
            final LowBurst burst = random.nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET;
            final QosConfig config = randomConfig(random, limit, burst);
            final int dataVls = config.dataVls();
            final int size = new int[] {64, 1024, 4096}[random.nextInt(3)];
            final int blocks = Sizes.blocks(size);
            final long hr = rotation(config.high(), dataVls, blocks, null);
            final long lr = rotation(config.low(), dataVls, blocks, null);
            final long maxLowTurn;
            if (burst == LowBurst.PACKET || lr == 0)
            {
                maxLowTurn = lr == 0 ? 0 : 1;
            }
            else
            {
                long max = 0;
                for (int i = 0; i < config.low().size(); i++)
                {
                    if (config.low().isValid(i, dataVls))
                    {
                        max = Math.max(max, (config.low().weight(i) + blocks - 1) / blocks);
                    }
                }
                maxLowTurn = max;
            }
            final long lowTurns = burst == LowBurst.WEIGHT ? validEntries(config.low(), dataVls) : lr;
            final long highBurst = hr == 0 ? 0 : limit * 1024L / Sizes.dwords(size) + 1;

            final boolean[] inHigh = new boolean[16];
            final boolean[] inLow = new boolean[16];
            for (int i = 0; i < config.high().size(); i++)
            {
                inHigh[config.high().vl(i)] |= config.high().isValid(i, dataVls);
            }
            for (int i = 0; i < config.low().size(); i++)
            {
                inLow[config.low().vl(i)] |= config.low().isValid(i, dataVls);
            }

            final int n = 10_000;
            final SimulatedPort port = backlogged(dataVls, size, n);
            final VlArbiter arbiter = new VlArbiter(config, port);
            final long[] lastGrant = new long[16];
            java.util.Arrays.fill(lastGrant, -1);
            final long[] maxWait = new long[16];
            for (int i = 0; i < n; i++)
            {
                final int vl = VlArbiter.vl(arbiter.next());
                port.send(VlArbiter.FROM_HIGH | vl);
                for (int v = 0; v < dataVls; v++)
                {
                    if (v != vl)
                    {
                        maxWait[v] = Math.max(maxWait[v], i - lastGrant[v] - 1);
                    }
                }
                lastGrant[vl] = i;
            }
            for (int v = 0; v < dataVls; v++)
            {
                final String where = "trial " + trial + " vl " + v + " " + config + " size " + size;
                if (inHigh[v])
                {
                    // one high rotation, with at most one low turn after each high packet
                    final long bound = limit == 255 ? hr : hr + (hr + 1) * maxLowTurn;
                    assertTrue(maxWait[v] <= bound, where + ": waited " + maxWait[v] + " > " + bound);
                }
                else if (inLow[v] && limit != 255)
                {
                    // one low rotation, with at most one high burst before each low turn
                    final long bound = lr + (lowTurns + 1) * highBurst;
                    assertTrue(maxWait[v] <= bound, where + ": waited " + maxWait[v] + " > " + bound);
                }
                else if (!inLow[v])
                {
                    assertEquals(n - 1, maxWait[v], where + ": a VL in neither table never sends");
                }
            }
        }
    }
}
