package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.nic.FlushListener;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The sender's flush-error completions: per SL, how many of port A's ready packets link errors discarded, as the
 * engine tells them ({@link FlushListener#onReadyPacketsFlushed}), which the soak's loss accounting counts as flushed
 * ({@link SoakChecks}) and checks against the port's {@code tx_flushed_messages}. Written on the thread that runs
 * engine A's injection agent, its only writer (release), read by the soak's thread (acquire).
 * <p>
 * Public for the jcstress test of this hand-off ({@code FlushCompletionsCount}, docs/concurrency.md row 28), which
 * drives {@link #add} and {@link #packets} directly: not an API for users.
 */
public final class FlushCompletions implements FlushListener
{
    /** Port A is port 0 of its engine (of the one engine, with the loopback). */
    private static final int PORT_A = 0;

    private final AtomicLongArray packets = new AtomicLongArray(VlArbiter.VL_COUNT);

    @Override
    public void onFlushed(final QueuePair qp, final long messages)
    {
        // the soak posts ready packets only: no queue pair of its has messages to flush
    }

    @Override
    public void onReadyPacketsFlushed(final Port port, final int sl, final long count)
    {
        if (PORT_A == port.id())
        {
            add(sl, count);
        }
    }

    /**
     * The writer's step: adds a completion's count to its SL's word (read by its one writer, stored with release).
     *
     * @param sl    the SL.
     * @param count the ready packets the completion reports.
     */
    public void add(final int sl, final long count)
    {
        packets.lazySet(sl, packets.get(sl) + count);
    }

    /**
     * @param sl an SL, or -1.
     * @return port A's ready packets on it that link errors discarded, as completed so far (0 for -1).
     */
    public long packets(final int sl)
    {
        return sl < 0 ? 0 : packets.get(sl);
    }
}
