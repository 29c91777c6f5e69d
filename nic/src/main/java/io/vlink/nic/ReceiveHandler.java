package io.vlink.nic;

import org.agrona.DirectBuffer;

/**
 * Receives the packets a port delivers ({@link Port#poll}). The packet is read in place in the VL's receive
 * buffer, whose space (and so the peer's credit) is released when the call returns: copy what must outlive it.
 */
@FunctionalInterface
public interface ReceiveHandler
{
    /**
     * @param vl     the VL the packet arrived on (15 for a subnet-management packet).
     * @param buffer the receive buffer.
     * @param offset the packet's first LRH byte.
     * @param length the packet's size S, LRH through ICRC (the VCRC was checked and is not included).
     */
    void onPacket(int vl, DirectBuffer buffer, int offset, int length);
}
