package io.vlink.core.sched;

import io.vlink.core.config.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlSchedulerTest
{
    private static SlScheduler scheduler(final String slat, final int mtu, final long tenure, final int tenurePackets)
    {
        final String[] entries = slat.split(",");
        final int[] sls = new int[entries.length];
        final int[] weights = new int[entries.length];
        for (int i = 0; i < entries.length; i++)
        {
            final String[] pair = entries[i].split(":");
            sls[i] = Integer.parseInt(pair[0]);
            weights[i] = Integer.parseInt(pair[1]);
        }
        return new SlScheduler(sls, weights, mtu, tenure, tenurePackets, 64, 64);
    }

    /** "qp:sl:bytes" per packet until no work or limit. */
    private static List<String> run(final SlScheduler s, final int limit)
    {
        final List<String> packets = new ArrayList<>();
        for (int i = 0; i < limit; i++)
        {
            final int bytes = s.next();
            if (bytes == SlScheduler.NO_WORK)
            {
                break;
            }
            packets.add(s.qpNumber(s.packetQp()) + ":" + s.packetSl() + ":" + bytes);
        }
        return packets;
    }

    @Test
    void slKeepsItsTurnUntilItsWeightIsUsedWithTheLastPacketOverdrawing()
    {
        final SlScheduler s = scheduler("0:600,1:256", 256, 1 << 20, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 1);
        s.post(a, 4096, 0);
        s.post(b, 4096, 0);
        // 600 -> 344 -> 88 -> -168: three packets (the third overdraws), then SL 1 for its 256
        assertEquals(List.of("1:0:256", "1:0:256", "1:0:256", "2:1:256", "1:0:256", "1:0:256", "1:0:256", "2:1:256"),
            run(s, 8));
    }

    @Test
    void slWithNothingToSendGivesUpItsTurnAndTheNextGetsItsFullWeight()
    {
        final SlScheduler s = scheduler("0:1024,1:512", 256, 1 << 20, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 1);
        s.post(a, 256, 0);
        s.post(b, 2048, 0);
        // SL 0 runs dry after one packet; SL 1 gets 512 (two packets), the pointer moves to entry 0 with its full
        // weight; SL 0 has nothing, so SL 1 takes over again with its full weight
        assertEquals(List.of("1:0:256", "2:1:256", "2:1:256"), run(s, 3));
        assertEquals(0, s.pointer());
        assertEquals(1024, s.remainingWeight());
        assertEquals(List.of("2:1:256"), run(s, 1));
        assertEquals(1, s.pointer());
        assertEquals(256, s.remainingWeight());
    }

    @Test
    void slListedTwiceGetsTwiceTheTurns()
    {
        final SlScheduler s = scheduler("0:256,1:256,0:256", 256, 1 << 20, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 1);
        s.post(a, 256 * 300, 0);
        s.post(b, 256 * 300, 0);
        assertEquals(List.of("1:0:256", "2:1:256", "1:0:256", "1:0:256", "2:1:256", "1:0:256"), run(s, 6));
        run(s, 294);
        assertEquals(2 * s.slBytes(1), s.slBytes(0));
    }

    @Test
    void tenureCarriesAQueuePairAcrossSlTurns()
    {
        final SlScheduler s = scheduler("0:300,1:256", 256, 600, 0);
        final int q1 = s.createQp(1, 0);
        final int q2 = s.createQp(2, 0);
        final int q3 = s.createQp(3, 1);
        s.post(q1, 700, 0);
        s.post(q2, 256, 0);
        s.post(q3, 512, 0);
        // SL 0's weight runs out while QP 1 has 88 bytes of tenure left: QP 1, not QP 2, resumes on SL 0's turn
        assertEquals(List.of("1:0:256", "1:0:256", "3:1:256", "1:0:188", "2:0:256", "3:1:256"), run(s, 100));
        assertEquals(4, s.switches());
        assertEquals(700, s.qpBytes(q1));
        assertEquals(956, s.slBytes(0));
    }

    @Test
    void queuePairsOfAnSlTakeTurnsInCreationOrderWhenTenureEnds()
    {
        final SlScheduler s = scheduler("4:100000", 256, 512, 0);
        final int c = s.createQp(30, 4);
        final int a = s.createQp(10, 4);
        final int b = s.createQp(20, 4);
        s.post(a, 1024, 0);
        s.post(b, 1024, 0);
        s.post(c, 1024, 0);
        assertEquals(List.of("30:4:256", "30:4:256", "10:4:256", "10:4:256", "20:4:256", "20:4:256",
            "30:4:256", "30:4:256", "10:4:256", "10:4:256", "20:4:256", "20:4:256"), run(s, 100));
    }

    @Test
    void packetTenureEndsATenureBeforeItsBytes()
    {
        final SlScheduler s = scheduler("0:100000", 256, 1 << 20, 2);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 0);
        s.post(a, 100, 3);
        s.post(a, 100, 4);
        s.post(a, 100, 5);
        s.post(b, 100, 6);
        assertEquals(List.of("1:0:100", "1:0:100", "2:0:100", "1:0:100"), run(s, 100));
        // the handle of each message comes back with its packets
        assertEquals(5, s.packetHandle());
        assertTrue(s.packetEndOfMessage());
    }

    @Test
    void messagesAreSlicedIntoMtuPacketsTheLastShorter()
    {
        for (final int mtu : new int[] {256, 512, 1024, 2048, 4096})
        {
            final SlScheduler s = scheduler("0:100000", mtu, 1 << 20, 0);
            final int a = s.createQp(1, 0);
            s.post(a, 2 * mtu + 7, 42);
            assertEquals(mtu, s.next());
            assertEquals(0, s.packetOffset());
            assertFalse(s.packetEndOfMessage());
            assertEquals(mtu, s.next());
            assertEquals(7, s.next());
            assertEquals(2 * mtu, s.packetOffset());
            assertTrue(s.packetEndOfMessage());
            assertEquals(42, s.packetHandle());
            assertEquals(SlScheduler.NO_WORK, s.next());
        }
    }

    @Test
    void switchesStayWithinTheBoundTenureImplies()
    {
        // one SL, QPs always backlogged: a switch only when a tenure of 4 MTU packets ends
        final SlScheduler s = new SlScheduler(new int[] {0}, new int[] {1 << 20}, 256, 1024, 0, 8, 4);
        for (int i = 0; i < 5; i++)
        {
            s.post(s.createQp(i, 0), 1 << 24, i);
        }
        final int packets = 10_000;
        for (int i = 0; i < packets; i++)
        {
            s.next();
        }
        assertTrue(s.switches() <= packets / 4, () -> "switches " + s.switches());
        assertEquals(packets / 4 - 1, s.switches());

        // the bound does not depend on the SL weight running out mid-tenure: two SLs, tenure 8 packets, weight 3
        final SlScheduler t = new SlScheduler(new int[] {0, 1}, new int[] {768, 768}, 256, 2048, 0, 8, 4);
        for (int i = 0; i < 6; i++)
        {
            t.post(t.createQp(i, i % 2), 1 << 24, i);
        }
        for (int i = 0; i < packets; i++)
        {
            t.next();
        }
        // every SL turn (3 packets) may change the QP, and within an SL a tenure ends every 8 of its packets
        final long bound = packets / 3 + packets / 8;
        assertTrue(t.switches() <= bound, () -> "switches " + t.switches() + " > " + bound);
        assertTrue(t.switches() > packets / 3, "tenure ends do switch");
        for (int i = 0; i < 6; i++)
        {
            assertEquals(t.qpBytes(0), t.qpBytes(i), 8 * 256, "fair over time");
        }
    }

    @Test
    void slWithQueuePairsButAbsentFromTheTableIsNeverServedAndTheCheckWarns()
    {
        final SlScheduler s = scheduler("0:2048,2:0", 256, 1 << 20, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 5);
        final int c = s.createQp(3, 2);
        s.post(a, 1000, 0);
        s.post(b, 1000, 0);
        s.post(c, 1000, 0);
        run(s, 1000);
        assertEquals(1000, s.slBytes(0));
        assertEquals(0, s.slBytes(5));
        assertEquals(0, s.slBytes(2));
        assertEquals(1, s.queuedMessages(b));
        assertTrue(s.currentWait(b) > 0, "still waiting");

        final int[] lines = new int[16];
        lines[5] = 7;
        lines[2] = 9;
        final List<Diagnostic> warnings = s.check("qos.conf", lines);
        assertEquals(2, warnings.size(), warnings::toString);
        assertEquals("qos.conf:9: warning: SL 2 has queue pairs but only entries of weight 0 in the SL " +
            "arbitration table, so it is never served; add an entry such as 2:256", warnings.get(0).toString());
        assertEquals("qos.conf:7: warning: SL 5 has queue pairs but is absent from the SL arbitration table, " +
            "so it is never served; add an entry such as 5:256", warnings.get(1).toString());

        final SlScheduler covered = scheduler("0:2048,5:100", 256, 1 << 20, 0);
        covered.createQp(1, 0);
        covered.createQp(2, 5);
        assertTrue(covered.check("qos.conf", null).isEmpty());
    }

    @Test
    void postingToAFullRingIsBackPressure()
    {
        final SlScheduler s = new SlScheduler(new int[] {0}, new int[] {4096}, 256, 256, 0, 1, 3);
        assertEquals(4, s.ringCapacity());
        final int a = s.createQp(1, 0);
        for (int i = 0; i < 4; i++)
        {
            assertTrue(s.post(a, 10, i));
        }
        assertFalse(s.post(a, 10, 4));
        assertEquals(10, s.next());
        assertTrue(s.post(a, 10, 4));
    }

    @Test
    void longestWaitCountsPacketsOfOthersWhileAQueuePairHadWork()
    {
        final SlScheduler s = scheduler("0:1024,1:256", 256, 1 << 20, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 1);
        s.post(a, 2048, 0);
        s.post(b, 256, 0);
        run(s, 100);
        // b waits for a's four packets
        assertEquals(4, s.longestWait());
    }

    @Test
    void everyQueuePairWithWorkIsEventuallyServedOverRandomWorkloads()
    {
        for (long seed = 1; seed <= 40; seed++)
        {
            final Random random = new Random(seed);
            final int entries = 1 + random.nextInt(20);
            final int[] sls = new int[entries];
            final int[] weights = new int[entries];
            for (int e = 0; e < entries; e++)
            {
                sls[e] = random.nextInt(16);
                weights[e] = 1 + random.nextInt(8192);
            }
            final int mtu = 256 << random.nextInt(5);
            final SlScheduler s = new SlScheduler(sls, weights, mtu, 1 + random.nextInt(16384), random.nextInt(4),
                32, 16);
            final int qps = 1 + random.nextInt(32);
            final long[] posted = new long[qps];
            for (int q = 0; q < qps; q++)
            {
                // only SLs in the table: every one of them must be served
                final int qp = s.createQp(q, sls[random.nextInt(entries)]);
                final int messages = random.nextInt(16);
                for (int m = 0; m < messages; m++)
                {
                    final int length = random.nextInt(20_000);
                    assertTrue(s.post(qp, length, m));
                    posted[qp] += length;
                }
            }
            final long seedCopy = seed;
            long limit = 10_000_000;
            int bytes;
            while ((bytes = s.next()) != SlScheduler.NO_WORK && --limit > 0)
            {
                assertTrue(bytes <= mtu);
            }
            for (int q = 0; q < qps; q++)
            {
                final int qp = q;
                assertEquals(0, s.queuedMessages(qp), () -> "seed " + seedCopy + " qp " + qp);
                assertEquals(posted[qp], s.qpBytes(qp), () -> "seed " + seedCopy + " qp " + qp);
            }
        }
    }

    @Test
    void aStepDoesNotAllocate()
    {
        final SlScheduler s = scheduler("0:4096,1:4096", 1024, 8192, 0);
        final int a = s.createQp(1, 0);
        final int b = s.createQp(2, 1);
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)java.lang.management.ManagementFactory.getThreadMXBean();
        for (int warm = 0; warm < 2; warm++)
        {
            final long before = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
            for (int i = 0; i < 10_000; i++)
            {
                s.post(a, 3000, i);
                s.post(b, 3000, i);
                while (s.next() != SlScheduler.NO_WORK)
                {
                    // drain
                }
            }
            final long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
            if (warm == 1)
            {
                assertTrue(allocated < 1024, () -> "allocated " + allocated);
            }
        }
    }

    @Test
    void noWorkOutsideTheBlockedSlsLeavesTheStateAsItWas()
    {
        // SL 2 has weight 0 (never served); a "nothing to do" answer must not move the table or any QP
        final SlScheduler probed = scheduler("0:512,1:256,2:0", 256, 512, 0);
        final SlScheduler reference = scheduler("0:512,1:256,2:0", 256, 512, 0);
        for (final SlScheduler s : new SlScheduler[] {probed, reference})
        {
            for (int sl = 0; sl < 3; sl++)
            {
                final int qp = s.createQp(sl, sl);
                for (int m = 0; m < 4; m++)
                {
                    assertTrue(s.post(qp, 700, m));
                }
            }
        }
        assertEquals(SlScheduler.NO_WORK, probed.next(0b011));
        assertEquals(SlScheduler.NO_WORK, probed.next(0b111));
        int steps = 0;
        while (true)
        {
            final int bytes = reference.next(0);
            if ((steps & 1) == 0)
            {
                assertEquals(SlScheduler.NO_WORK, probed.next(0b011));
            }
            assertEquals(bytes, probed.next(0));
            if (SlScheduler.NO_WORK == bytes)
            {
                break;
            }
            assertEquals(reference.packetQp(), probed.packetQp());
            assertEquals(reference.packetOffset(), probed.packetOffset());
            steps++;
        }
        assertEquals(24, steps, "SLs 0 and 1: 8 messages of 3 packets; SL 2 never served");
        assertEquals(4, probed.queuedMessages(2));
    }

    @Test
    void aFlushDiscardsAQueuePairsMessagesTheOneBeingSlicedIncludedAndLeavesTheOthers()
    {
        final SlScheduler s = scheduler("0:100000,2:100000,3:100000", 256, 1 << 20, 0);
        final int x = s.createQp(9, 0);
        final int a = s.createQp(1, 2);
        final int b = s.createQp(2, 2);
        final int c = s.createQp(3, 3);
        assertEquals(0, s.flush(b), "nothing queued");
        s.post(b, 600, 10);
        s.post(b, 100, 11);
        s.post(b, 100, 12);
        s.post(a, 100, 20);
        s.post(c, 50, 30);
        assertEquals(List.of("1:2:100", "2:2:256"), run(s, 2));
        assertEquals(0, s.packetOffset(), "message 10 is being sliced");

        assertEquals(3, s.flush(b), "the message in progress and the two behind it");
        assertEquals(0, s.queuedMessages(b));
        assertEquals(0, s.queuedMessages(a));
        assertEquals(1, s.queuedMessages(c), "another SL's queue pair keeps its message");
        assertEquals(List.of("3:3:50"), run(s, 10), "SL 2 no longer backlogged: SL 3 next, then nothing");
        assertEquals(SlScheduler.NO_WORK, s.next());

        // posted again: the next message starts from its first byte
        s.post(b, 300, 13);
        assertEquals(256, s.next());
        assertEquals(b, s.packetQp());
        assertEquals(0, s.packetOffset());
        assertEquals(13, s.packetHandle());
        // two queue pairs of the SL with work: flushing one keeps the SL backlogged for the other
        s.post(a, 70, 21);
        assertEquals(1, s.flush(b));
        assertEquals(List.of("1:2:70"), run(s, 10));
        s.post(x, 40, 40);
        assertEquals(List.of("9:0:40"), run(s, 10));
    }
}
