package io.vlink.tools.soak;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

/**
 * Packet latency for the soak: from each packet's <em>intended</em> send time to its delivery.
 * <p>
 * With an open-loop rate ({@code --rate}), the intended time of packet {@code i} is
 * {@code start + i / rate}, fixed in advance, so a stall delays every packet behind it and the stall is
 * charged to all of them: the measurement is corrected for coordinated omission by construction. With
 * every VL backlogged there is no schedule, and the intended time is when the engine accepted the packet.
 * <p>
 * The first moments of a run are not its steady state (queues filling, the JIT compiling): packets delivered from
 * {@link #steadyFrom(long)} on are also kept apart, in {@link #steady()}, so that a summary can give both.
 * <p>
 * Threading: one writer (the thread that delivers packets) calls {@link #record(long, long)}, which does
 * not allocate; one reader (the reporting thread) calls {@link #sampleInterval()} and {@link #total()}.
 */
public final class LatencyRecorder
{
    private final long highestTrackableNs;
    private final SingleWriterRecorder recorder;
    private final Histogram total;
    private final Histogram steady;
    private Histogram interval;
    private long clamped;
    private long steadyFromNs = Long.MAX_VALUE;

    /**
     * @param highestTrackableNs the largest latency kept exactly; larger values are recorded as this value
     *                           and counted by {@link #clamped()}.
     */
    public LatencyRecorder(final long highestTrackableNs)
    {
        this.highestTrackableNs = highestTrackableNs;
        this.recorder = new SingleWriterRecorder(1, highestTrackableNs, 3);
        this.total = new Histogram(1, highestTrackableNs, 3);
        this.steady = new Histogram(1, highestTrackableNs, 3);
    }

    /**
     * Writer thread, before it records: packets delivered at or after this time are the steady state.
     *
     * @param deliveredNs the end of the warm-up, on the clock of {@link #record(long, long)}'s delivery times.
     */
    public void steadyFrom(final long deliveredNs)
    {
        steadyFromNs = deliveredNs;
    }

    /**
     * Writer thread only.
     *
     * @param intendedNs  when the packet was meant to be sent.
     * @param deliveredNs when it was delivered to the receiving application.
     */
    public void record(final long intendedNs, final long deliveredNs)
    {
        long latency = deliveredNs - intendedNs;
        if (latency < 1)
        {
            latency = 1;
        }
        else if (latency > highestTrackableNs)
        {
            latency = highestTrackableNs;
            clamped++;
        }
        recorder.recordValue(latency);
        if (deliveredNs - steadyFromNs >= 0)
        {
            steady.recordValue(latency);
        }
    }

    /**
     * The latencies of packets delivered after the warm-up (read after the writer stopped).
     *
     * @return a histogram owned by this recorder.
     */
    public Histogram steady()
    {
        return steady;
    }

    /**
     * Reader thread only: the latencies recorded since the last call, also added to the total.
     *
     * @return a histogram owned by this recorder, valid until the next call.
     */
    public Histogram sampleInterval()
    {
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        return interval;
    }

    /**
     * Reader thread only: everything sampled so far. Call {@link #sampleInterval()} first to include the
     * latest values.
     */
    public Histogram total()
    {
        return total;
    }

    /**
     * @return how many latencies exceeded the trackable range (written by the writer thread; read after it
     * stopped).
     */
    public long clamped()
    {
        return clamped;
    }

    /**
     * Reader thread, after the writer stopped: add what another recorder (the peer process's, in a two-process soak)
     * recorded.
     *
     * @param otherTotal   its whole run.
     * @param otherSteady  its packets after the warm-up.
     * @param otherClamped its latencies beyond the trackable range.
     */
    public void merge(final Histogram otherTotal, final Histogram otherSteady, final long otherClamped)
    {
        total.add(otherTotal);
        steady.add(otherSteady);
        clamped += otherClamped;
    }
}
