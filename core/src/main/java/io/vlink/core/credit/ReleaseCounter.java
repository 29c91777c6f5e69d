package io.vlink.core.credit;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The hand-off of receive-buffer space from the application back to the credit side: per VL, a monotonic count of
 * the blocks the application released (took out of the receive buffer), which the credit agent turns into
 * {@link CreditReceiver#release(int, int)} ({@code free += NP}, IBA flow control "Receiver's Credit Limit") on its own
 * thread.
 * <p>
 * <b>Ordering.</b> The releasing thread calls {@link #release(int, int)}: the VL's count grows by a plain read and
 * a release store ({@code putLongRelease}), so everything it did with the packet's memory before (reading it in
 * place) happens-before the credit side sees the space as free and lets the peer overwrite it. The credit agent
 * calls {@link #released(int)} (acquire) or {@link #poll(int)}: the blocks released since its previous poll,
 * which it passes to {@code CreditReceiver.release}. A count never goes back and a block is handed over exactly
 * once: the polls of a VL add up to its count at the last poll, never more (no over-count, so the receiver never
 * advertises space still in use).
 * <p>
 * <b>Threads.</b> One releasing thread per VL at a time (different VLs may be released by different threads);
 * one polling thread. Each VL's count has its own pair of cache lines, padded on both sides, so releasing
 * threads of different VLs do not share lines. The poller's copies of the counts are plain fields of that thread.
 * <p>
 * <b>Units.</b> Blocks as {@link CreditReceiver} charges them: release {@link CreditReceiver#chargedBlocks(int)}
 * of each packet when the buffer allocates in chunks larger than 64 bytes, so a sum of releases converts to
 * chunks exactly. Allocation-free after construction. The stress tests ({@code vlink-stress}:
 * {@code ReleaseCounterPoll}, {@code ReleaseCounterReuse}) check that counts are monotonic, never over-counted,
 * and that released space is reused only after the release.
 */
public final class ReleaseCounter
{
    /** One count per VL, VL0..VL15. */
    public static final int VL_SLOTS = 16;

    private static final int STRIDE = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int LENGTH = (VL_SLOTS + 1) * STRIDE;

    private final UnsafeBuffer counts;
    // the poller's thread only: each VL's count as of its previous poll
    private final long[] polled = new long[VL_SLOTS];

    /**
     * Every count 0.
     */
    public ReleaseCounter()
    {
        counts = new UnsafeBuffer(BufferUtil.allocateDirectAligned(LENGTH, BitUtil.CACHE_LINE_LENGTH));
    }

    /**
     * Releasing thread of the VL. The application took a packet out of the receive buffer: its blocks are free.
     *
     * @param vl     the VL, 0..15.
     * @param blocks blocks freed (> 0), as charged by the receive buffer.
     */
    public void release(final int vl, final int blocks)
    {
        if (blocks <= 0)
        {
            throw new IllegalArgumentException("blocks released must be > 0: " + blocks);
        }
        final int offset = offset(vl);
        counts.putLongRelease(offset, counts.getLong(offset) + blocks);
    }

    /**
     * Any thread. The VL's count, with acquire semantics: monotonic.
     *
     * @param vl the VL, 0..15.
     * @return blocks released on the VL since construction.
     */
    public long released(final int vl)
    {
        return counts.getLongAcquire(offset(vl));
    }

    /**
     * Polling thread (the credit agent). The blocks released on a VL since the previous poll of that VL, each
     * handed over once; pass them to {@link CreditReceiver#release(int, int)}.
     *
     * @param vl the VL, 0..15.
     * @return blocks newly released, 0 if none.
     */
    public int poll(final int vl)
    {
        final int slot = vl & (VL_SLOTS - 1);
        final long now = counts.getLongAcquire(STRIDE + slot * STRIDE);
        final long delta = now - polled[slot];
        if (delta == 0)
        {
            return 0;
        }
        polled[slot] = now;
        // at most the VL's buffer, which an int counts
        return (int)delta;
    }

    private static int offset(final int vl)
    {
        return STRIDE + (vl & (VL_SLOTS - 1)) * STRIDE;
    }
}
