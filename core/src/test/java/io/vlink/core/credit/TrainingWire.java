package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * One direction of the model checker's link: the frames one port put on the wire and the other has not yet
 * polled, in order, with the faults the checker injects (a frame lost, an FCP duplicated, a frame delayed past the
 * next one). Fixed arrays, always packed from index 0, so equal contents are equal states.
 * <p>
 * A frame is a {@code long}: bit 32 says data (else an FCP); an FCP keeps its word in bits 0..31, a data packet its VL
 * (bits 16..19) and blocks (bits 0..15). Above bit 32 ride the checker's ghosts, never read by the ports: the sender's
 * transmit epoch (bits 33..36, the frame of FCTBS), for an FCP whether it was sent after the direction's last loss
 * of data (bit 37, {@link #POST_LOSS}) and the incarnation of the sender's receiver that computed its FCCL (bits
 * 40..44, {@link #fcclFrame}). {@link #dirty} says, per VL, that data of the direction was lost or discarded and no
 * FCP sent after it has been applied yet: the receiver's ABR may lag FCTBS until one is.
 */
final class TrainingWire
{
    static final long DATA = 1L << 32;
    static final long POST_LOSS = 1L << 37;
    static final int EPOCH_SHIFT = 33;
    static final int EPOCH_MASK = 0xF;
    static final int FRAME_SHIFT = 40;
    static final int FRAME_MASK = 0x1F;

    final long[] frames;
    int count;
    /** Ghost, per VL: data lost or discarded, no FCP sent after it applied yet. */
    final int[] dirty;

    TrainingWire(final int capacity, final int dataVls)
    {
        frames = new long[capacity];
        dirty = new int[dataVls];
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
        return (word & 0xFFFF_FFFFL) | POST_LOSS | (long)(epoch & EPOCH_MASK) << EPOCH_SHIFT |
            (long)(fcclFrame & FRAME_MASK) << FRAME_SHIFT;
    }

    static long data(final int vl, final int blocks, final int epoch)
    {
        return DATA | (long)vl << 16 | blocks | (long)(epoch & EPOCH_MASK) << EPOCH_SHIFT;
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

    static boolean postLoss(final long frame)
    {
        return (frame & POST_LOSS) != 0;
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
            dataGone(vl(frame), i);
        }
    }

    /**
     * Data of the VL sent before the frame now at index {@code before} will never be counted by the receiver: FCPs
     * ahead of that point were sent before the loss and do not make up for it.
     */
    void dataGone(final int vl, final int before)
    {
        dirty[vl] = 1;
        for (int k = 0; k < before; k++)
        {
            final long f = frames[k];
            if (!isData(f) && vl(f) == vl)
            {
                frames[k] = f & ~POST_LOSS;
            }
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
