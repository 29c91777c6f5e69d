package io.vlink.core.port;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.wire.LrhFlyweight;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.List;

/**
 * Checks on the counters a datapath half is handed: one counter per VL slot, and the discard counters of exactly the
 * reasons the half counts (it keeps no other, so no other half's reason can be written through it).
 */
final class PortCounterSlots
{
    private PortCounterSlots()
    {
    }

    static AtomicCounter[] perVl(final String what, final AtomicCounter[] counters)
    {
        if (counters.length != LrhFlyweight.VL_COUNT)
        {
            throw new IllegalArgumentException(what + ": one slot per VL, 16, not " + counters.length);
        }
        return counters.clone();
    }

    /**
     * @param discards every reason's counter, indexed by {@link DiscardReason#id()}.
     * @param reasons  the reasons the half counts.
     * @return the half's own: those reasons' counters, null elsewhere.
     */
    static AtomicCounter[] discards(final AtomicCounter[] discards, final List<DiscardReason> reasons)
    {
        final AtomicCounter[] own = new AtomicCounter[DiscardReason.count()];
        for (final DiscardReason reason : reasons)
        {
            own[reason.id()] = require(discards[reason.id()], "discards " + reason.name());
        }
        return own;
    }

    static AtomicCounter require(final AtomicCounter counter, final String what)
    {
        if (null == counter)
        {
            throw new IllegalArgumentException("no counter for " + what);
        }
        return counter;
    }

    static AtomicCounter discard(final AtomicCounter[] own, final int reason, final String half)
    {
        final AtomicCounter counter = own[reason];
        if (null == counter)
        {
            throw new IllegalStateException(DiscardReason.get(reason) + " is not counted by the " + half);
        }
        return counter;
    }
}
