package io.vlink.core.credit;

/**
 * Discards counted by {@link DiscardReason}, in a {@code long[]} indexed by {@link DiscardReason#id()}.
 * <p>
 * Single writer: give each thread that detects discards its own instance (or its own reasons). The engine copies
 * these to shared counters; the counts are never reset by a link going down, they are the port's history.
 */
public final class DiscardCounters
{
    private final long[] counts = new long[DiscardReason.count()];

    /**
     * @param reason why a packet was discarded.
     */
    public void increment(final DiscardReason reason)
    {
        counts[reason.id()]++;
    }

    /**
     * @param reasonId a {@link DiscardReason#id()}, as returned by {@link FcpCheck#validate(int, int)}.
     */
    public void increment(final int reasonId)
    {
        counts[reasonId]++;
    }

    public long get(final DiscardReason reason)
    {
        return counts[reason.id()];
    }

    public long get(final int reasonId)
    {
        return counts[reasonId];
    }

    /**
     * @return discards of every reason.
     */
    public long total()
    {
        long total = 0;
        for (final long count : counts)
        {
            total += count;
        }
        return total;
    }

    /**
     * @return discards of the FCP reasons (too short or long, reserved Op, bad LPCRC, VL15, missing VL, link state, stale).
     */
    public long fcpTotal()
    {
        return get(DiscardReason.FCP_RESERVED_OP) + get(DiscardReason.FCP_BAD_LPCRC) + get(DiscardReason.FCP_VL15) +
            get(DiscardReason.FCP_MISSING_VL) + get(DiscardReason.FCP_STATE) + get(DiscardReason.FCP_TOO_SHORT) +
            get(DiscardReason.FCP_TOO_LONG) + get(DiscardReason.FCP_STALE);
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("DiscardCounters{");
        String separator = "";
        for (final DiscardReason reason : DiscardReason.values())
        {
            if (counts[reason.id()] != 0)
            {
                sb.append(separator).append(reason.name()).append('=').append(counts[reason.id()]);
                separator = ", ";
            }
        }
        return sb.append('}').toString();
    }
}
