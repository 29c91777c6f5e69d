package io.vlink.tools.perf;

import io.vlink.tools.json.JsonWriter;
import org.HdrHistogram.Histogram;

import java.util.Locale;

/**
 * One row of a {@code vlink perf} report, printed as perftest prints it: a latency row (half the round trip, in
 * microseconds; t_typical is the median) or a bandwidth row (MB/sec with MB = 2^20 bytes, as perftest; message rate
 * in millions a second).
 */
public final class PerfRow
{
    /** perftest's latency header. */
    public static final String LATENCY_HEADER = " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    " +
        "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]";
    /** perftest's bandwidth header. */
    public static final String BANDWIDTH_HEADER =
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]";
    private static final double MB = 1024.0 * 1024.0;

    public final boolean latency;
    public final int bytes;
    public final long iterations;
    public final double minUs;
    public final double maxUs;
    public final double typicalUs;
    public final double averageUs;
    public final double stdevUs;
    public final double p99Us;
    public final double p999Us;
    public final double peakMBps;
    public final double averageMBps;
    public final double messageRateMpps;
    /** Messages sent before the measured ones, not counted. */
    public final long warmupMessages;

    private PerfRow(
        final boolean latency, final int bytes, final long iterations, final long warmupMessages,
        final double[] values)
    {
        this.latency = latency;
        this.bytes = bytes;
        this.iterations = iterations;
        this.warmupMessages = warmupMessages;
        minUs = values[0];
        maxUs = values[1];
        typicalUs = values[2];
        averageUs = values[3];
        stdevUs = values[4];
        p99Us = values[5];
        p999Us = values[6];
        peakMBps = values[7];
        averageMBps = values[8];
        messageRateMpps = values[9];
    }

    /**
     * @param bytes     the message size.
     * @param roundTrip every measured round trip, in nanoseconds.
     * @param warmupMessages messages of the warm-up before them.
     * @return the row: half of each round trip, in microseconds.
     */
    public static PerfRow latency(final int bytes, final Histogram roundTrip, final long warmupMessages)
    {
        final double half = 2_000.0;
        return new PerfRow(true, bytes, roundTrip.getTotalCount(), warmupMessages, new double[]
        {
            roundTrip.getMinValue() / half,
            roundTrip.getMaxValue() / half,
            roundTrip.getValueAtPercentile(50) / half,
            roundTrip.getMean() / half,
            roundTrip.getStdDeviation() / half,
            roundTrip.getValueAtPercentile(99) / half,
            roundTrip.getValueAtPercentile(99.9) / half,
            0, 0, 0,
        });
    }

    /**
     * @param bytes          the message size.
     * @param messages       messages measured.
     * @param elapsedNs      the time they took.
     * @param peakMessagesPerNs the best rate over any window of at least a millisecond (0: none that long).
     * @param warmupMessages messages of the warm-up before them.
     * @return the row.
     */
    public static PerfRow bandwidth(
        final int bytes, final long messages, final long elapsedNs, final double peakMessagesPerNs,
        final long warmupMessages)
    {
        final double perNs = elapsedNs > 0 ? (double)messages / elapsedNs : 0;
        final double peak = Math.max(perNs, peakMessagesPerNs);
        return new PerfRow(false, bytes, messages, warmupMessages, new double[]
        {
            0, 0, 0, 0, 0, 0, 0,
            peak * bytes * 1e9 / MB,
            perNs * bytes * 1e9 / MB,
            perNs * 1e3,
        });
    }

    /**
     * @return the row as perftest prints it, under {@link #LATENCY_HEADER} or {@link #BANDWIDTH_HEADER}.
     */
    public String format()
    {
        if (latency)
        {
            return String.format(Locale.ROOT, " %-8d %-14d %-14.2f %-12.2f %-18.2f %-16.2f %-15.2f %-23.2f %.2f",
                bytes, iterations, minUs, maxUs, typicalUs, averageUs, stdevUs, p99Us, p999Us);
        }
        return String.format(Locale.ROOT, " %-10d %-16d %-18.2f %-20.2f %.6f",
            bytes, iterations, peakMBps, averageMBps, messageRateMpps);
    }

    /**
     * @param json where the row goes, as one object.
     */
    public void json(final JsonWriter json)
    {
        json.beginObject().field("bytes", bytes).field("iterations", iterations)
            .field("warmup_messages", warmupMessages);
        if (latency)
        {
            json.field("t_min_usec", minUs).field("t_max_usec", maxUs).field("t_typical_usec", typicalUs)
                .field("t_avg_usec", averageUs).field("t_stdev_usec", stdevUs).field("p99_usec", p99Us)
                .field("p99_9_usec", p999Us);
        }
        else
        {
            json.field("bw_peak_mb_per_sec", peakMBps).field("bw_average_mb_per_sec", averageMBps)
                .field("msg_rate_mpps", messageRateMpps);
        }
        json.endObject();
    }
}
