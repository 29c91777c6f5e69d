package io.vlink.core.port;

import org.agrona.MutableDirectBuffer;

/**
 * Where a port's transmit half finds the packets it sends: the head packet of each VL's queue, and how to write one
 * onto the wire. The engine's are its per-VL rings over the cell buffer (packets framed as they are written); a
 * switch's are the heads of its input FIFOs that wait for this output (packets forwarded with the VL rewritten).
 * Transmit thread only.
 */
public interface PacketSource
{
    /**
     * @return whether a VL15 (subnet management) packet waits.
     */
    boolean hasVl15();

    /**
     * @param vl a data VL or 15.
     * @return the size in bytes ({@code 4 * PktLen}, no VCRC) of the VL's head packet, or 0 when none waits.
     */
    int headSize(int vl);

    /**
     * A cheap hint asked before each decision: true only when no packet waits on any VL (the arbiter then skips
     * asking each VL). Return false when unsure.
     *
     * @return whether every VL is empty.
     */
    boolean isEmpty();

    /**
     * Take the VL's head packet and write it, framed, as one frame at {@code offset} of the link's buffer.
     *
     * @param vl     the VL granted.
     * @param buffer the link's buffer.
     * @param offset the claimed offset.
     * @param size   the head's size, as {@link #headSize} gave it.
     * @return the frame's length (the packet and its VCRC).
     */
    int write(int vl, MutableDirectBuffer buffer, int offset, int size);
}
