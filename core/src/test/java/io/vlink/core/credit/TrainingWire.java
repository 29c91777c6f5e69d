package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * One direction of the model checker's link: the frames one port put on the wire and the other has not yet
 * polled, in order, with the faults the checker injects (a frame lost, an FCP duplicated, a frame delayed past the
 * next one). Fixed arrays, always packed from index 0, so equal contents are equal states.
 * <p>
 * A frame is a {@code long}: bit 32 says data (else an FCP); an FCP keeps its word in bits 0..31, a data packet its VL
 * (bits 16..19) and blocks (bits 0..15). The rest are the checker's ghosts, never read by the ports: the sender's
 * transmit epoch (bits 33..36, the frame of FCTBS), for data the sender's FCTBS just after it (bits 20..31), for an FCP
 * the incarnation of the sender's receiver that computed its FCCL (bits 40..44, {@link #fcclFrame}). {@link #dirty}
 * says, per VL, that data of the direction was lost or discarded and no FCP that counts it has been applied yet: the
 * receiver's ABR may lag FCTBS until one is.
 */
final class TrainingWire
{
    static final long DATA = 1L << 32;
    static final int EPOCH_SHIFT = 33;
    static final int EPOCH_MASK = 0xF;
    static final int FRAME_SHIFT = 40;
    static final int FRAME_MASK = 0x1F;

    final long[] frames;
    int count;
    /** Ghost, per VL: 0, or 1 + the FCTBS an applied FCP must reach to count the data lost or discarded. */
    final int[] dirty;
    /** Ghost, per VL: the transmit epoch of that FCTBS. */
    final int[] dirtyEpoch;

    TrainingWire(final int capacity, final int dataVls)
    {
        frames = new long[capacity];
        dirty = new int[dataVls];
        dirtyEpoch = new int[dataVls];
    }

    boolean hasRoom()
    {
        return count < frames.length;
    }

    void add(final long frame)
    {
        frames[count++] = frame;
    }

    long poll()
    {
        final long frame = frames[0];
        System.arraycopy(frames, 1, frames, 0, --count);
        frames[count] = 0;
        return frame;
    }

    static long fcp(final int word, final int epoch, final int fcclFrame)
    {
        return (word & 0xFFFF_FFFFL) | (long)(epoch & EPOCH_MASK) << EPOCH_SHIFT |
            (long)(fcclFrame & FRAME_MASK) << FRAME_SHIFT;
    }

    static long data(final int vl, final int blocks, final int fctbsAfter, final int epoch)
    {
        return DATA | (long)(fctbsAfter & Credits.MASK) << 20 | (long)vl << 16 | blocks |
            (long)(epoch & EPOCH_MASK) << EPOCH_SHIFT;
    }

    static int fctbsAfter(final long frame)
    {
        return (int)(frame >>> 20) & Credits.MASK;
    }

    static boolean isData(final long frame)
    {
        return (frame & DATA) != 0;
    }

    static int word(final long frame)
    {
        return (int)frame;
    }

    static int vl(final long frame)
    {
        return isData(frame) ? (int)(frame >>> 16) & 0xF : Fcp.vl((int)frame);
    }

    static int blocks(final long frame)
    {
        return (int)frame & 0xFFFF;
    }

    static int epoch(final long frame)
    {
        return (int)(frame >>> EPOCH_SHIFT) & EPOCH_MASK;
    }

    static int fcclFrame(final long frame)
    {
        return (int)(frame >>> FRAME_SHIFT) & FRAME_MASK;
    }


    // ---------------------------------------------------------------- faults

    /**
     * Frame {@code i} is lost (or corrupted: the receiver discards it and counts it, which to credits is the same).
     */
    void lose(final int i)
    {
        final long frame = frames[i];
        System.arraycopy(frames, i + 1, frames, i, count - i - 1);
        frames[--count] = 0;
        if (isData(frame))
        {
            dataGone(frame);
        }
    }

    /**
     * Ghost: this data frame will never be counted by the receiver's ABR; only an FCP whose FCTBS reaches past it makes
     * up for it.
     */
    void dataGone(final long frame)
    {
        final int vl = vl(frame);
        final int after = fctbsAfter(frame);
        final int epoch = epoch(frame);
        if (0 == dirty[vl] || dirtyEpoch[vl] != epoch || Credits.distance(after, dirty[vl] - 1) <= Credits.MAX_CREDIT)
        {
            dirty[vl] = after + 1;
            dirtyEpoch[vl] = epoch;
        }
    }

    /**
     * Ghost: the receiver applied an FCP of this direction.
     */
    void fcpApplied(final int vl, final int fctbs, final int epoch)
    {
        if (0 != dirty[vl] &&
            (dirtyEpoch[vl] != epoch || Credits.distance(fctbs, dirty[vl] - 1) <= Credits.MAX_CREDIT))
        {
            dirty[vl] = 0;
        }
    }

    /**
     * Frame {@code i}, an FCP, arrives twice.
     */
    void duplicate(final int i)
    {
        System.arraycopy(frames, i, frames, i + 1, count - i);
        count++;
    }

    /**
     * Frame {@code i} is delayed past frame {@code i + 1}.
     */
    void delay(final int i)
    {
        final long frame = frames[i];
        final long next = frames[i + 1];
        if (!isData(frame) && isData(next) && vl(frame) == vl(next))
        {
            // the FCP, applied after this packet, sets ABR back to an FCTBS that does not count it: until an FCP that
            // does is applied, ABR lags by the packet (credit the receiver holds back, not gives away)
            dataGone(next);
        }
        frames[i] = frames[i + 1];
        frames[i + 1] = frame;
    }

    static String describe(final long frame)
    {
        if (isData(frame))
        {
            return "data(VL" + vl(frame) + ", " + blocks(frame) + " blocks)";
        }
        final int word = word(frame);
        return (Fcp.op(word) == Fcp.OP_INIT ? "init" : "normal") + "(VL" + Fcp.vl(word) + ", FCTBS " + Fcp.fctbs(word) +
            ", FCCL " + Fcp.fccl(word) + ")";
    }
}
