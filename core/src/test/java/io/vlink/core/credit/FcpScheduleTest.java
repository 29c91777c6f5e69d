package io.vlink.core.credit;

import org.agrona.concurrent.CachedNanoClock;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

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
        assertEquals(57_344, new CreditConfig().fcpIntervalSymbols());
        assertEquals(4_587, new CreditConfig().fcpPeriodNs());
        assertEquals(5_242, new CreditConfig().fcpIntervalSymbols(65_536).fcpPeriodNs());
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
    void itRefusesAMeaninglessSchedule()
    {
        final CreditReceiver receiver = new CreditReceiver(1, 512, 64);
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 0, 64, receiver));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1000, 0, receiver));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(1, 1000, 2049, receiver));
        assertThrows(IllegalArgumentException.class, () -> new FcpSchedule(3, 1000, 64, receiver));
        assertThrows(IllegalArgumentException.class, () -> new CreditConfig().fcpIntervalSymbols(65_537));
    }

    private void sendAllDue(final FcpSchedule schedule, final CreditReceiver receiver)
    {
        for (int vl; (vl = schedule.poll(clock.nanoTime())) != FcpSchedule.NONE; )
        {
            schedule.onFcpSent(vl, clock.nanoTime(), receiver.fccl(vl));
        }
    }
}
