package io.vlink.core.credit;

import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The FCP schedule on a fake clock: periodic FCPs per VL, early ones when enough space is freed.
 */
class FcpScheduleTest
{
    private final CachedNanoClock clock = new CachedNanoClock();

    @Test
    void sixtyFiveThousandFiveHundredThirtySixSymbolTimesAtEachRate()
    {
        // one symbol = one byte time at the data rate: 4x SDR carries 8 Gb/s, one byte per ns
        assertEquals(65_536, FcpSchedule.periodNs(LineRate.SDR_4X));
        // 4x EDR carries 100 Gb/s: 65,536 x 8 bits / 100 Gb/s = 5.24288 us, rounded down so never late
        assertEquals(5_242, FcpSchedule.periodNs(LineRate.EDR_4X));
        assertEquals(2_621, FcpSchedule.periodNs(LineRate.HDR_4X));
        assertEquals(1_310, FcpSchedule.periodNs(LineRate.NDR_4X));
        assertEquals(16_384, FcpSchedule.periodNs(LineRate.QDR_4X));
        for (final LineRate rate : LineRate.values())
        {
            final long periodNs = FcpSchedule.periodNs(rate);
            // never longer than 65,536 byte times, shorter by less than a nanosecond
            assertTrue(periodNs * rate.dataBitsPerSecond() <= 65_536L * 8 * 1_000_000_000L, rate.label());
            assertTrue((periodNs + 1) * rate.dataBitsPerSecond() > 65_536L * 8 * 1_000_000_000L, rate.label());
            assertSame(rate, LineRate.byLabel(rate.label()));
        }
        assertSame(LineRate.EDR_4X, LineRate.byLabel("edr_4x"));
        // the port's default: due 8,192 symbol times early, room for a full packet ahead of the FCP
        assertEquals(57_344, PortConfig.DEFAULT_FCP_INTERVAL_SYMBOLS);
        assertEquals(4_587, PortConfig.builder().qos(QosConfig.opensmDefaults(1)).build().fcpPeriodNs());
        assertEquals(5_242, PortConfig.builder().qos(QosConfig.opensmDefaults(1)).fcpInterval(LineRate.EDR_4X, 65_536)
            .build().fcpPeriodNs());
        assertNull(LineRate.byLabel("4x QDR+"));
    }

    @Test
    void everyVlGetsAnFcpOncePerPeriodAndNoMoreOftenWhileNothingIsFreed()
    {
        final int vls = 4;
        final CreditReceiver receiver = new CreditReceiver(vls, 512, 64);
        final long periodNs = FcpSchedule.periodNs(LineRate.EDR_4X);
        final FcpSchedule schedule = new FcpSchedule(vls, periodNs, 64, receiver);
        final long stepNs = 50;
        clock.update(1_000_000);
        schedule.reset(clock.nanoTime());

        final List<List<Long>> sent = new ArrayList<>();
        for (int vl = 0; vl < vls; vl++)
        {
            sent.add(new ArrayList<>());
        }
        final long endNs = clock.nanoTime() + 1_000_000;
        while (clock.nanoTime() < endNs)
        {
            for (int vl; (vl = schedule.poll(clock.nanoTime())) != FcpSchedule.NONE; )
            {
                sent.get(vl).add(clock.nanoTime());
                schedule.onFcpSent(vl, clock.nanoTime(), receiver.fccl(vl));
            }
            clock.advance(stepNs);
        }

        // each FCP goes at the first poll at or after its due time: 5,242 ns rounds up to 105 polls of 50 ns
        final long gapNs = (periodNs + stepNs - 1) / stepNs * stepNs;
        for (int vl = 0; vl < vls; vl++)
        {
            final List<Long> times = sent.get(vl);
            assertEquals((1_000_000 - 1) / gapNs + 1, times.size(), "VL" + vl);
            for (int i = 1; i < times.size(); i++)
            {
                final long gap = times.get(i) - times.get(i - 1);
                assertTrue(gap >= periodNs, "not more often than the period: " + gap);
                assertEquals(gapNs, gap, "at the first poll once due");
            }
        }
    }

    @Test
    void releasingPastTheThresholdSendsAnFcpAtOnce()
    {
        final CreditReceiver receiver = new CreditReceiver(2, 512, 64);
        final FcpSchedule schedule = new FcpSchedule(2, FcpSchedule.periodNs(LineRate.EDR_4X), 64, receiver);
        clock.update(0);
        schedule.reset(clock.nanoTime());
        sendAllDue(schedule, receiver);

        // 300 blocks arrive and are held: FCCL does not move (ABR +300, free -300)
        assertTrue(receiver.accept(1, 150));
        assertTrue(receiver.accept(1, 150));
        clock.advance(100);
        assertEquals(FcpSchedule.NONE, schedule.poll(clock.nanoTime()));

        // 63 blocks freed: below the threshold
        receiver.release(1, 63);
        assertEquals(FcpSchedule.NONE, schedule.poll(clock.nanoTime()));
        // the 64th: VL1's FCP goes now, 100 ns after the last one instead of 5.24 us
        receiver.release(1, 1);
        assertEquals(1, schedule.poll(clock.nanoTime()));
        schedule.onFcpSent(1, clock.nanoTime(), receiver.fccl(1));
        assertEquals(FcpSchedule.NONE, schedule.poll(clock.nanoTime()));
        assertEquals(512 + 300 - 236, schedule.advertisedFccl(1));
        assertEquals(clock.nanoTime() + schedule.periodNs(), schedule.dueNs(1), "the period restarts");
    }

    @Test
    void withMoreThan2048BlocksFreeArrivingDataMovesFcclAndSoTheSchedule()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 4096, 64);
        final FcpSchedule schedule = new FcpSchedule(1, FcpSchedule.periodNs(LineRate.HDR_4X), 64, receiver);
        schedule.reset(0);
        sendAllDue(schedule, receiver);
        assertTrue(receiver.accept(0, 63));
        assertEquals(FcpSchedule.NONE, schedule.poll(1));
        assertTrue(receiver.accept(0, 1));
        assertEquals(0, schedule.poll(1), "64 blocks more credit than the peer knows of");
    }

    @Test
    void vlsDueTogetherTakeTurns()
    {
        final CreditReceiver receiver = new CreditReceiver(4, 512, 64);
        final FcpSchedule schedule = new FcpSchedule(4, 1_000, 64, receiver);
        schedule.reset(0);
        // a caller that cannot send now leaves them due; the scan still rotates
        assertEquals(0, schedule.poll(0));
        assertEquals(1, schedule.poll(0));
        assertEquals(2, schedule.poll(0));
        assertEquals(3, schedule.poll(0));
        assertEquals(0, schedule.poll(0));
    }

    @Test
    void anIdleScheduleAnswersWithoutReadingAnyFcclUntilOneMovesOrAPeriodEnds()
    {
        final CreditReceiver receiver = new CreditReceiver(2, 512, 64);
        final int[] reads = new int[1];
        final FcclSource counted = new FcclSource()
        {
            public int fccl(final int vl)
            {
                reads[0]++;
                return receiver.fccl(vl);
            }

            public long changes()
            {
                return receiver.changes();
            }
        };
        final FcpSchedule schedule = new FcpSchedule(2, 1_000, 64, counted);
        schedule.reset(0);
        assertEquals(0, schedule.poll(0));
        schedule.onFcpSent(0, 0, receiver.fccl(0));
        assertEquals(1, schedule.poll(10));
        schedule.onFcpSent(1, 10, receiver.fccl(1));
        reads[0] = 0;
        assertEquals(FcpSchedule.NONE, schedule.poll(20));
        assertEquals(2, reads[0], "the scan that finds nothing reads each VL once");
        assertEquals(FcpSchedule.NONE, schedule.poll(999));
        assertEquals(2, reads[0], "then nothing is read");

        // a release moves the count: the next poll scans, and 64 blocks freed is an early FCP
        assertTrue(receiver.accept(1, 64));
        assertEquals(FcpSchedule.NONE, schedule.poll(999), "ABR +64 and free -64: FCCL stays");
        receiver.release(1, 64);
        assertEquals(1, schedule.poll(999));
        schedule.onFcpSent(1, 999, receiver.fccl(1));

        // VL0's period ends at exactly 1,000 ns
        assertEquals(FcpSchedule.NONE, schedule.poll(999));
        assertEquals(0, schedule.poll(1_000));
        // left unsent, it stays due
        assertEquals(0, schedule.poll(1_000));
    }

    @Test
    void aChangeBeforeThePeriodEndsIsReadOnTheVlsThatMovedOnlyAndInTurn()
    {
        final CreditReceiver receiver = new CreditReceiver(8, 512, 64);
        final List<Integer> read = new ArrayList<>();
        final FcclSource counted = new FcclSource()
        {
            public int fccl(final int vl)
            {
                read.add(vl);
                return receiver.fccl(vl);
            }

            public long changes()
            {
                return receiver.changes();
            }

            public int takeChangedVls()
            {
                return receiver.takeChangedVls();
            }
        };
        final FcpSchedule schedule = new FcpSchedule(8, 1_000, 64, counted);
        schedule.reset(0);
        for (int vl = 0; vl < 8; vl++)
        {
            assertEquals(vl, schedule.poll(0));
            schedule.onFcpSent(vl, 0, receiver.fccl(vl));
        }
        read.clear();
        assertEquals(FcpSchedule.NONE, schedule.poll(1));
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7), read, "the scan that finds nothing reads every VL");

        read.clear();
        assertTrue(receiver.accept(5, 1));
        assertTrue(receiver.accept(2, 1));
        assertEquals(FcpSchedule.NONE, schedule.poll(2));
        assertEquals(List.of(2, 5), read, "only the VLs that moved");
        read.clear();
        assertEquals(FcpSchedule.NONE, schedule.poll(3));
        assertEquals(List.of(), read, "nothing moved since");

        // 64 blocks released on VL6 and VL1: both early; the turn goes on from the VL after the last one returned (7)
        assertTrue(receiver.accept(6, 64));
        assertTrue(receiver.accept(1, 64));
        receiver.release(6, 64);
        receiver.release(1, 64);
        read.clear();
        assertEquals(1, schedule.poll(4), "from VL0 on (after VL7, returned last): VL1 first");
        assertEquals(List.of(1), read);
        assertEquals(6, schedule.poll(4), "left unsent, VL1 waits its turn behind VL6");
        assertEquals(1, schedule.poll(4), "and stays due");
        schedule.onFcpSent(1, 4, receiver.fccl(1));
        assertEquals(6, schedule.poll(5), "VL6 was not forgotten");
        schedule.onFcpSent(6, 5, receiver.fccl(6));
        read.clear();
        assertEquals(FcpSchedule.NONE, schedule.poll(6));
        assertEquals(8, read.size(), "an FCP sent ends the quiet: the next poll reads every VL");
    }

    @Test
    void aResetMakesEveryVlDueWithNothingAdvertised()
    {
        final CreditReceiver receiver = new CreditReceiver(2, 512, 64);
        final FcpSchedule schedule = new FcpSchedule(2, 1_000, 64, receiver);
        schedule.reset(0);
        schedule.onFcpSent(0, 0, receiver.fccl(0));
        schedule.onFcpSent(1, 0, receiver.fccl(1));
        assertEquals(FcpSchedule.NONE, schedule.poll(1));
        assertEquals(receiver.fccl(1), schedule.advertisedFccl(1));
        schedule.reset(5);
        assertEquals(0, schedule.advertisedFccl(0));
        assertEquals(0, schedule.advertisedFccl(1));
        assertEquals(5, schedule.dueNs(1));
        assertEquals(0, schedule.poll(5), "due at once, from VL0");
        assertEquals(1, schedule.poll(5));
    }

    @Test
    void makingEveryVlDueOrSendingAnFcpEndsTheQuiet()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 512, 64);
        final FcpSchedule schedule = new FcpSchedule(1, 1_000, 64, receiver);
        schedule.reset(0);
        assertEquals(0, schedule.poll(0));
        schedule.onFcpSent(0, 0, receiver.fccl(0));
        assertEquals(FcpSchedule.NONE, schedule.poll(1));
        schedule.makeAllDue(2);
        assertEquals(0, schedule.poll(2), "the Op changed: due at once");

        schedule.onFcpSent(0, 2, receiver.fccl(0));
        assertEquals(FcpSchedule.NONE, schedule.poll(3));
        // an FCP that carried an old FCCL leaves the peer 100 blocks short: early at once
        schedule.onFcpSent(0, 3, receiver.fccl(0) - 100);
        assertEquals(0, schedule.poll(4));
    }

    @Test
    void withCountedChangesTheScheduleDecidesAsOneThatReadsEveryFcclEveryTime()
    {
        for (long seed = 1; seed <= 20; seed++)
        {
            final SplittableRandom random = new SplittableRandom(seed);
            final int vls = 4;
            final CreditReceiver receiver = new CreditReceiver(vls, 2048, 64);
            final FcpSchedule fast = new FcpSchedule(vls, 5_000, 16, receiver);
            final FcpSchedule full = new FcpSchedule(vls, 5_000, 16, vl -> receiver.fccl(vl));
            final int[] held = new int[vls];
            long now = 0;
            fast.reset(now);
            full.reset(now);
            for (int step = 0; step < 20_000; step++)
            {
                final int vl = random.nextInt(vls);
                switch (random.nextInt(8))
                {
                    case 0:
                        final int blocks = 1 + random.nextInt(40);
                        if (receiver.accept(vl, blocks))
                        {
                            held[vl] += blocks;
                        }
                        break;
                    case 1:
                        if (held[vl] > 0)
                        {
                            final int blocks2 = 1 + random.nextInt(held[vl]);
                            receiver.release(vl, blocks2);
                            held[vl] -= blocks2;
                        }
                        break;
                    case 2:
                        receiver.onBlocksSent(vl, receiver.blocksReceived(vl) + random.nextInt(8));
                        break;
                    case 3:
                        now += random.nextInt(2_000);
                        break;
                    case 4:
                        if (random.nextInt(50) == 0)
                        {
                            fast.makeAllDue(now);
                            full.makeAllDue(now);
                        }
                        else if (random.nextInt(50) == 0)
                        {
                            receiver.reset();
                        }
                        break;
                    default:
                        final int a = fast.poll(now);
                        assertEquals(full.poll(now), a, "seed " + seed + " step " + step);
                        if (FcpSchedule.NONE != a && random.nextInt(4) != 0)
                        {
                            final int fccl = receiver.fccl(a);
                            fast.onFcpSent(a, now, fccl);
                            full.onFcpSent(a, now, fccl);
                        }
                        break;
                }
            }
        }
    }

    @Test
    void itRefusesAMeaninglessSchedule()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 512, 64);
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 0, 64, receiver));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1000, 0, receiver));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1000, 2049, receiver));
        assertEquals(1, new FcpSchedule(1, 1000, 1, receiver).earlyThresholdBlocks(), "the bounds are allowed");
        assertEquals(2048, new FcpSchedule(1, 1000, 2048, receiver).earlyThresholdBlocks());
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(3, 1000, 64, receiver));
        assertThrows(IllegalArgumentException.class, () -> PortConfig.builder().fcpInterval(LineRate.EDR_4X, 65_537));
    }

    private void sendAllDue(final FcpSchedule schedule, final CreditReceiver receiver)
    {
        for (int vl; (vl = schedule.poll(clock.nanoTime())) != FcpSchedule.NONE; )
        {
            schedule.onFcpSent(vl, clock.nanoTime(), receiver.fccl(vl));
        }
    }
}
