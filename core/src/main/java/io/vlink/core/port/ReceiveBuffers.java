package io.vlink.core.port;

import org.agrona.DirectBuffer;

/**
 * A port's receive buffers, one per data VL and one for VL15, as the port's datapath sees them: the receive half
 * stores what it admitted ({@link #store}), and the credit half reads how much the consumer released
 * ({@link #releasedBlocks}), which becomes credit for the peer. The engine's are its receive rings (the application
 * polls them); a switch's are its input FIFOs (its output ports take from them).
 * <p>
 * Accounting is in 64-byte blocks, exact: a packet of size S takes {@code ceil(S / 64)} blocks, and a buffer that
 * has room for it by that count must take it (the credit half's accounting mirrors the buffer's).
 */
public interface ReceiveBuffers
{
    /**
     * Receive thread: store a packet whose checks passed and whose VL the link state admits.
     *
     * @param vl     the packet's VL: a data VL of the port, or 15.
     * @param buffer the frame's buffer.
     * @param offset where the packet starts (its LRH); its VCRC follows it, at {@code offset + size}.
     * @param size   the packet's size without the VCRC.
     * @return true if stored; false if the buffer has no room (a data packet then overflows: the sender broke its
     * credit; VL15 has no credit and a full buffer drops the SMP).
     */
    boolean store(int vl, DirectBuffer buffer, int offset, int size);

    /**
     * Credit thread: the blocks the consumer released from a data VL's buffer since it was made, a monotonic count
     * (read with acquire where the consumer runs on another thread).
     *
     * @param vl a data VL.
     * @return blocks released.
     */
    long releasedBlocks(int vl);
}
