package io.vlink.tools.soak;

import java.util.ArrayList;
import java.util.List;

/**
 * What the soak saw each second, per data VL: bytes delivered and credit stalls, plus the latency p99 of
 * that second; and when each timed fault was injected and which arbitration tables were in force when, with the
 * shares each set predicts. Filled by the soak's thread (the seconds and faults as they happen, the tables' phases at
 * the end); read by the HTML report. Times are seconds since traffic started: second {@code s} of the timeline is
 * {@code (s, s + 1]}.
 */
public final class SoakTimeline
{
    /**
     * A timed fault, as the report marks it on every time axis.
     *
     * @param kind      what was injected.
     * @param atSeconds when, in seconds since traffic started.
     */
    public record Fault(FaultKind kind, double atSeconds)
    {
    }

    /**
     * A set of arbitration tables in force from a time on (until the next phase), and the share of the data bytes it
     * predicts for each data VL (NaN: no prediction).
     *
     * @param fromSeconds when it took over, in seconds since traffic started (0 for the configured tables).
     * @param predicted   per data VL.
     */
    public record Phase(double fromSeconds, double[] predicted)
    {
    }

    private final int dataVls;
    private final List<long[]> bytes = new ArrayList<>();
    private final List<long[]> stalls = new ArrayList<>();
    private final List<Long> p99Ns = new ArrayList<>();
    private final List<Fault> faults = new ArrayList<>();
    private final List<Phase> phases = new ArrayList<>();

    public SoakTimeline(final int dataVls)
    {
        this.dataVls = dataVls;
    }

    /**
     * @param bytesPerVl  data bytes delivered on each VL during the second (copied).
     * @param stallsPerVl credit stalls on each VL during the second (copied).
     * @param p99Ns       the latency p99 of the second, 0 if nothing was delivered.
     */
    public void addSecond(final long[] bytesPerVl, final long[] stallsPerVl, final long p99Ns)
    {
        if (bytesPerVl.length < dataVls || stallsPerVl.length < dataVls)
        {
            throw new IllegalArgumentException("need a value for each of " + dataVls + " data VLs");
        }
        bytes.add(java.util.Arrays.copyOf(bytesPerVl, dataVls));
        stalls.add(java.util.Arrays.copyOf(stallsPerVl, dataVls));
        this.p99Ns.add(p99Ns);
    }

    /**
     * @param kind        the fault injected.
     * @param sinceStartNs when, in nanoseconds since traffic started.
     */
    public void addFault(final FaultKind kind, final long sinceStartNs)
    {
        faults.add(new Fault(kind, sinceStartNs / 1e9));
    }

    /**
     * @return the timed faults, in the order they were injected.
     */
    public List<Fault> faults()
    {
        return faults;
    }

    /**
     * @param fromSeconds when the tables took over, in seconds since traffic started.
     * @param predicted   the share each data VL is predicted (at least {@link #dataVls()} entries; copied).
     */
    public void addPhase(final double fromSeconds, final double[] predicted)
    {
        phases.add(new Phase(fromSeconds, java.util.Arrays.copyOf(predicted, dataVls)));
    }

    /**
     * @return the tables' phases in time order; empty when no prediction was made.
     */
    public List<Phase> phases()
    {
        return phases;
    }

    public int dataVls()
    {
        return dataVls;
    }

    public int seconds()
    {
        return bytes.size();
    }

    public long bytes(final int second, final int vl)
    {
        return bytes.get(second)[vl];
    }

    public long stalls(final int second, final int vl)
    {
        return stalls.get(second)[vl];
    }

    public long p99Ns(final int second)
    {
        return p99Ns.get(second);
    }

    /**
     * @return all data bytes delivered in the second.
     */
    public long totalBytes(final int second)
    {
        long sum = 0;
        for (final long b : bytes.get(second))
        {
            sum += b;
        }
        return sum;
    }
}
