package io.vlink.core.fabric;

/**
 * A switch's input-queued crossbar decision: which input FIFO's head packet an output port's VL takes next.
 * <p>
 * A switch keeps one FIFO per (input port, input VL). The packet at the head of a FIFO has one destination, an
 * (output port, output VL) pair found by the forwarding table and the SL-to-VL map. The FIFOs whose heads wait for
 * the same (output, VL) compete for it; when that output's {@code VlArbiter} grants the VL, the crossbar picks among
 * them by round robin over the FIFOs, starting after the one it picked last. A FIFO's later packets wait behind its
 * head whatever their destination: head-of-line blocking within a VL is real, as in hardware, and only another VL
 * relieves it.
 * <p>
 * Optional head-of-queue lifetime (the IBA's switch lifetime limit): {@link #expired(long, long)} finds a head that
 * has waited longer than the limit, so the switch discards it.
 * <p>
 * Single-threaded and allocation-free: one bit per FIFO per (output, VL), scanned a word at a time.
 */
public final class Crossbar
{
    /** No FIFO. */
    public static final int NONE = -1;

    private final int vls;
    private final int fifos;
    private final int words;
    /** Per (output, VL): one bit per FIFO whose head waits for it. */
    private final long[] waiting;
    /** Per (output, VL): the FIFO picked last (the round robin starts after it). */
    private final int[] last;
    /** Per FIFO: its head's (output, VL) index, or NONE. */
    private final int[] target;
    /** Per FIFO: its head's size in bytes. */
    private final int[] size;
    /** Per FIFO: when its head reached the head. */
    private final long[] since;

    /**
     * @param ports the switch's ports, port 0 included (N + 1).
     * @param vls   VLs per port (16: data VLs and VL15).
     */
    public Crossbar(final int ports, final int vls)
    {
        if (ports < 1 || vls < 1)
        {
            throw new IllegalArgumentException("ports " + ports + ", vls " + vls);
        }
        this.vls = vls;
        this.fifos = ports * vls;
        this.words = (fifos + 63) >>> 6;
        this.waiting = new long[ports * vls * words];
        this.last = new int[ports * vls];
        this.target = new int[fifos];
        this.size = new int[fifos];
        this.since = new long[fifos];
        java.util.Arrays.fill(last, fifos - 1);
        java.util.Arrays.fill(target, NONE);
    }

    /**
     * @param input an input port.
     * @param vl    the VL the packets arrived on.
     * @return the FIFO's index.
     */
    public int fifo(final int input, final int vl)
    {
        return input * vls + vl;
    }

    /**
     * @param fifo a FIFO index.
     * @return its input port.
     */
    public int inputOf(final int fifo)
    {
        return fifo / vls;
    }

    /**
     * @param fifo a FIFO index.
     * @return its input VL.
     */
    public int vlOf(final int fifo)
    {
        return fifo % vls;
    }

    /**
     * A packet became the head of a FIFO (it arrived at an empty FIFO, or the one before it left).
     *
     * @param fifo   the FIFO.
     * @param output where it goes.
     * @param outVl  on which VL it leaves.
     * @param bytes  its size on the wire.
     * @param nowNs  the clock, for the head-of-queue lifetime.
     */
    public void head(final int fifo, final int output, final int outVl, final int bytes, final long nowNs)
    {
        if (target[fifo] != NONE)
        {
            throw new IllegalStateException("FIFO " + fifo + " already has a head");
        }
        final int t = output * vls + outVl;
        target[fifo] = t;
        size[fifo] = bytes;
        since[fifo] = nowNs;
        waiting[t * words + (fifo >>> 6)] |= 1L << fifo;
    }

    /**
     * The FIFO's head left without a grant (discarded): the FIFO waits for nothing until its next {@link #head}.
     *
     * @param fifo the FIFO.
     */
    public void remove(final int fifo)
    {
        final int t = target[fifo];
        if (t != NONE)
        {
            waiting[t * words + (fifo >>> 6)] &= ~(1L << fifo);
            target[fifo] = NONE;
        }
    }

    /**
     * @param output an output port.
     * @param outVl  a VL.
     * @return the size of the head packet {@link #take} would pick for it, or 0 when no FIFO waits for it: the
     * answer to {@code ArbiterSource.headSize}.
     */
    public int headSize(final int output, final int outVl)
    {
        final int fifo = next(output * vls + outVl);
        return fifo == NONE ? 0 : size[fifo];
    }

    /**
     * @param output an output port.
     * @param outVl  a VL.
     * @return whether any FIFO's head waits for it.
     */
    public boolean isWaiting(final int output, final int outVl)
    {
        final int base = (output * vls + outVl) * words;
        for (int w = 0; w < words; w++)
        {
            if (waiting[base + w] != 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The output's arbiter granted the VL: pick the next FIFO by round robin and take its head.
     *
     * @param output an output port.
     * @param outVl  the granted VL.
     * @return the FIFO whose head goes now (its next packet, if any, is announced by {@link #head}), or
     * {@link #NONE}.
     */
    public int take(final int output, final int outVl)
    {
        final int t = output * vls + outVl;
        final int fifo = next(t);
        if (fifo != NONE)
        {
            last[t] = fifo;
            remove(fifo);
        }
        return fifo;
    }

    /**
     * @param nowNs   the clock.
     * @param limitNs the head-of-queue lifetime; {@code Long.MAX_VALUE} for none.
     * @return a FIFO whose head has waited longer than the limit (the switch discards it and calls {@link #remove}),
     * or {@link #NONE}.
     */
    public int expired(final long nowNs, final long limitNs)
    {
        if (limitNs == Long.MAX_VALUE)
        {
            return NONE;
        }
        for (int fifo = 0; fifo < fifos; fifo++)
        {
            if (target[fifo] != NONE && nowNs - since[fifo] > limitNs)
            {
                return fifo;
            }
        }
        return NONE;
    }

    /**
     * @param fifo a FIFO.
     * @return the (output * VLs + VL) its head waits for, or {@link #NONE}.
     */
    public int targetOf(final int fifo)
    {
        return target[fifo];
    }

    private int next(final int t)
    {
        final int base = t * words;
        final int start = last[t] + 1 == fifos ? 0 : last[t] + 1;
        // from start to the end, then from 0 to start
        int w = start >>> 6;
        long bits = waiting[base + w] & (-1L << start);
        for (int i = 0; i <= words; i++)
        {
            if (bits != 0)
            {
                return (w << 6) + Long.numberOfTrailingZeros(bits);
            }
            w = w + 1 == words ? 0 : w + 1;
            bits = waiting[base + w];
        }
        return NONE;
    }
}
