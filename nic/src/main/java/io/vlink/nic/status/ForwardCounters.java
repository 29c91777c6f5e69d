package io.vlink.nic.status;

import io.vlink.core.credit.DiscardReason;
import org.agrona.concurrent.status.AtomicCounter;

/**
 * What a switch's forwarding counts on the input port of a packet it cannot forward ({@link PortCounterSet#forward()}):
 * no route, an SL its SL2VL maps to no VL of the output, a head past its lifetime. The switch's thread, release
 * stores.
 */
public final class ForwardCounters
{
    private final AtomicCounter[] discards = new AtomicCounter[DiscardReasons.count()];

    /**
     * @param portDiscards the port's discard counters by reason: the forwarding's reasons are taken.
     */
    ForwardCounters(final AtomicCounter[] portDiscards)
    {
        for (final DiscardReason reason : new DiscardReason[]{
            DiscardReason.NO_ROUTE, DiscardReason.SL2VL_UNMAPPED, DiscardReason.HOQ_LIFETIME})
        {
            discards[reason.id()] = portDiscards[reason.id()];
        }
    }

    /**
     * @param reason {@code NO_ROUTE}, {@code SL2VL_UNMAPPED} or {@code HOQ_LIFETIME}.
     * @return its counter on this input port.
     */
    public AtomicCounter discards(final int reason)
    {
        final AtomicCounter counter = discards[reason];
        if (null == counter)
        {
            throw new IllegalStateException(DiscardReason.get(reason) + " is not counted by a switch's forwarding");
        }
        return counter;
    }
}
