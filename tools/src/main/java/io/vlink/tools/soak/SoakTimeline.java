package io.vlink.tools.soak;

import java.util.ArrayList;
import java.util.List;

/**
 * What the soak saw each second, per data VL: bytes delivered and credit stalls, plus the latency p99 of
 * that second. Filled by the reporting thread once a second; read by the HTML report.
 */
public final class SoakTimeline
{
    private final int dataVls;
    private final List<long[]> bytes = new ArrayList<>();
    private final List<long[]> stalls = new ArrayList<>();
    private final List<Long> p99Ns = new ArrayList<>();

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
