package io.vlink.tools.soak;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyRecorderTest
{
    @Test
    void aStallIsChargedToEveryPacketScheduledDuringIt()
    {
        // Open loop at 1 packet per microsecond; the link stalls for 1 ms after packet 100, then catches up
        // at 10 packets per microsecond, gaining 900 ns a packet. Measured from intended times, the ~1100
        // packets scheduled before it caught up (5.5%) all see the stall, as they would in a real system;
        // a closed-loop measurement would have recorded it once, below p99.99.
        final LatencyRecorder recorder = new LatencyRecorder(10_000_000_000L);
        final long periodNs = 1_000;
        long now = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final long intended = i * periodNs;
            if (i == 100)
            {
                now = intended + 1_000_000;
            }
            now = Math.max(now + 100, intended + 500);
            recorder.record(intended, now);
        }
        recorder.sampleInterval();
        final Histogram total = recorder.total();
        assertEquals(20_000, total.getTotalCount());
        assertTrue(total.getValueAtPercentile(90) < 2_000, "most packets are fast");
        assertTrue(total.getValueAtPercentile(99) > 100_000, "the stall shows at p99, not only at max");
        assertTrue(total.getMaxValue() >= 1_000_000 - 1_000);
    }

    @Test
    void intervalsAccumulateIntoTheTotal()
    {
        final LatencyRecorder recorder = new LatencyRecorder(1_000_000);
        recorder.record(0, 10);
        assertEquals(1, recorder.sampleInterval().getTotalCount());
        recorder.record(0, 20);
        recorder.record(0, 30);
        assertEquals(2, recorder.sampleInterval().getTotalCount());
        assertEquals(3, recorder.total().getTotalCount());
    }

    @Test
    void outOfRangeValuesAreClampedAndCountedNotThrown()
    {
        final LatencyRecorder recorder = new LatencyRecorder(1_000_000);
        recorder.record(0, 5_000_000);
        recorder.record(100, 50);
        recorder.sampleInterval();
        assertEquals(2, recorder.total().getTotalCount());
        assertEquals(1, recorder.clamped());
    }

    @Test
    void theSteadyStateLeavesOutWhatWasDeliveredDuringTheWarmUp()
    {
        final LatencyRecorder recorder = new LatencyRecorder(1_000_000_000L);
        recorder.steadyFrom(1_000_000);
        recorder.record(0, 900_000);            // delivered in the warm-up: slow
        recorder.record(999_000, 1_000_000);    // the first after it
        recorder.record(1_999_000, 2_000_000);
        recorder.sampleInterval();
        assertEquals(3, recorder.total().getTotalCount());
        assertEquals(2, recorder.steady().getTotalCount());
        assertTrue(recorder.steady().getMaxValue() < 1_100, "the warm-up's 900 us is left out");
        assertEquals(200_000_000L, SoakSettings.warmupNs(2), "10 % of a 2 s run");
        assertEquals(2_000_000_000L, SoakSettings.warmupNs(3600), "at most 2 s");
    }
}
