package io.vlink.core.fabric;

/**
 * Finds a credit loop: a cycle of input buffers each waiting for credit that only the next one can return.
 * <p>
 * In an input-queued switch the head packet of a buffer (a switch's input port and VL) waits for exactly one
 * (output port, VL); when that output lacks credit, the buffer waits on the buffer at the other end of the cable,
 * on that VL. Each buffer therefore waits on at most one other: the wait-for graph is a function, and a deadlock is
 * a cycle of it (IBA's channel dependencies; a CA's receive buffer, drained by its application, waits on nothing).
 * <p>
 * Buffers are numbered 0..n-1 by the caller; {@code waitsOn[b]} is the buffer {@code b} waits on, or {@link #NONE}.
 */
public final class CreditLoop
{
    /** A buffer that waits on no other. */
    public static final int NONE = -1;

    private CreditLoop()
    {
    }

    /**
     * @param waitsOn per buffer, the buffer it waits on, or {@link #NONE}.
     * @return the buffers of a cycle in waiting order (each waits on the next, the last on the first), starting with
     * the lowest-numbered buffer of the cycle found first by buffer number; empty when there is none.
     */
    public static int[] find(final int[] waitsOn)
    {
        final int n = waitsOn.length;
        // 0: unvisited, 1: on the current walk, 2: done (leads to no cycle not already reported)
        final byte[] mark = new byte[n];
        for (int start = 0; start < n; start++)
        {
            if (0 != mark[start])
            {
                continue;
            }
            int b = start;
            while (NONE != b && 0 == mark[b])
            {
                mark[b] = 1;
                b = waitsOn[b];
                if (b >= n)
                {
                    throw new IllegalArgumentException("buffer " + b + " outside 0.." + (n - 1));
                }
            }
            if (NONE != b && 1 == mark[b])
            {
                return cycleFrom(waitsOn, b);
            }
            for (int c = start; NONE != c && 1 == mark[c]; c = waitsOn[c])
            {
                mark[c] = 2;
            }
        }
        return new int[0];
    }

    private static int[] cycleFrom(final int[] waitsOn, final int member)
    {
        int length = 1;
        int lowest = member;
        for (int b = waitsOn[member]; b != member; b = waitsOn[b])
        {
            length++;
            lowest = Math.min(lowest, b);
        }
        final int[] cycle = new int[length];
        int b = lowest;
        for (int i = 0; i < length; i++)
        {
            cycle[i] = b;
            b = waitsOn[b];
        }
        return cycle;
    }
}
