package io.vlink.core.credit;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The hand-off of credit limits from the credit agent to the arbiter: one {@code CL} slot per VL (12 bits, the
 * peer's latest FCCL; docs/flow-control.md, "Transmitter state") and a link epoch, shared between exactly
 * one writer thread and any number of reader threads.
 * <p>
 * <b>Ordering.</b> The writer (the credit agent, after it decoded and checked an FCP) calls
 * {@link #publish(int, int)}: a release store ({@code putIntRelease}). The reader (the arbiter, before its credit
 * check) calls {@link #limit(int)}: an acquire load ({@code getIntAcquire}). Whatever the writer stored before a
 * publish (plain fields, the link state, ...) is visible to a reader that saw the published value. A reader may
 * see an older CL, never a torn or invented one: that only delays a send (credit is conservative), it never
 * overruns the peer's buffer.
 * <p>
 * <b>Link epoch.</b> A link (re)initialization sets every CL to 0 (nothing may be sent before the peer's first
 * FCP) and then bumps the epoch, both with release, in that order ({@link #reset()}). A reader that reads the
 * epoch first ({@link #epoch()}, acquire) and sees the new epoch is guaranteed to read a CL of the new epoch
 * (0 or a later FCCL) from {@link #limit(int)}, never one left from before the reset: it can restart its
 * {@code FCTBS} from zero and compare it with CLs of the same epoch. Read the epoch before the limits.
 * <p>
 * <b>Layout.</b> The 16 int slots (VL0..VL15, 64 bytes) share one cache line and the epoch sits on its own; both
 * are padded by two cache lines on each side so no other memory shares their lines (no false sharing with the
 * writer's or the reader's other state, adjacent-line prefetch included). The VLs are not padded from each other:
 * there is one writer and the arbiter reads every VL each scan, so one line for all of them is cheaper than
 * sixteen.
 * <p>
 * Single writer: {@link #publish} and {@link #reset} from one thread at a time. Allocation-free after
 * construction. The stress tests ({@code vlink-stress}: {@code CreditLimitsPublication},
 * {@code CreditLimitsCoherence}, {@code CreditLimitsEpoch}) check the orderings above.
 */
public final class CreditLimits
{
    /** One slot per VL, VL0..VL15 (VL15 has no credit; its slot is never used but keeps the indexing plain). */
    public static final int VL_SLOTS = 16;

    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int LIMITS_OFFSET = PAD;
    private static final int EPOCH_OFFSET = LIMITS_OFFSET + PAD;
    private static final int LENGTH = EPOCH_OFFSET + PAD;

    private final UnsafeBuffer buffer;

    /**
     * Every CL 0, epoch 0, in direct memory aligned to a cache line.
     */
    public CreditLimits()
    {
        this(new UnsafeBuffer(BufferUtil.allocateDirectAligned(LENGTH, BitUtil.CACHE_LINE_LENGTH)));
    }

    /**
     * Over memory the caller owns (for instance a memory-mapped file another process reads).
     *
     * @param buffer at least {@link #length()} bytes, its address aligned to a cache line (64 bytes).
     */
    public CreditLimits(final UnsafeBuffer buffer)
    {
        if (buffer.capacity() < LENGTH)
        {
            throw new IllegalArgumentException("credit limits need " + LENGTH + " bytes: " + buffer.capacity());
        }
        buffer.verifyAlignment();
        if ((buffer.addressOffset() & (BitUtil.CACHE_LINE_LENGTH - 1)) != 0)
        {
            throw new IllegalArgumentException("credit limits must start on a cache line");
        }
        this.buffer = buffer;
    }

    /**
     * @return bytes the layout takes, padding included.
     */
    public static int length()
    {
        return LENGTH;
    }

    /**
     * Writer. Publish a VL's credit limit with release semantics: everything the writer stored before is visible
     * to a reader that sees this value.
     *
     * @param vl the VL, 0..15.
     * @param cl the peer's FCCL; only its low 12 bits are kept.
     */
    public void publish(final int vl, final int cl)
    {
        buffer.putIntRelease(slot(vl), cl & Credits.MASK);
    }

    /**
     * Reader. The latest credit limit of a VL, with acquire semantics: what the writer stored before publishing
     * it is visible after this returns.
     *
     * @param vl the VL, 0..15.
     * @return its CL, 0..4095 (0 before the first FCP of the epoch).
     */
    public int limit(final int vl)
    {
        return buffer.getIntAcquire(slot(vl));
    }

    /**
     * Writer. Link (re)initialization: every CL to 0 (release), then the epoch + 1 (release). A reader that sees
     * the new {@link #epoch()} sees no CL from before.
     */
    public void reset()
    {
        for (int vl = 0; vl < VL_SLOTS; vl++)
        {
            buffer.putIntRelease(slot(vl), 0);
        }
        buffer.putIntRelease(EPOCH_OFFSET, buffer.getInt(EPOCH_OFFSET) + 1);
    }

    /**
     * Reader. Read it before {@link #limit(int)}: when it changed, restart {@code FCTBS} from zero.
     *
     * @return the number of {@link #reset()}s so far, with acquire semantics.
     */
    public int epoch()
    {
        return buffer.getIntAcquire(EPOCH_OFFSET);
    }

    /**
     * @return the memory behind the slots (for a reader in another process).
     */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    private static int slot(final int vl)
    {
        return LIMITS_OFFSET + (vl & (VL_SLOTS - 1)) * Integer.BYTES;
    }
}
