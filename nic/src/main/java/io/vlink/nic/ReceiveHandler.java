package io.vlink.nic;

import io.vlink.core.wire.PacketHeader;
import org.agrona.DirectBuffer;

/**
 * Receives the packets a port delivers ({@link Port#poll}), as Aeron hands fragments to a {@code FragmentHandler}:
 * the payload's place, and a header flyweight for the rest. The packet is read in place in the VL's receive buffer,
 * whose space (and so the peer's credit) is released when the call returns: copy what must outlive it. The header
 * object is the port's own, re-wrapped for every packet: read it during the call, never keep it.
 */
@FunctionalInterface
public interface ReceiveHandler
{
    /**
     * @param buffer the receive buffer.
     * @param offset the payload's first byte: after the LRH and BTH (and GRH), or after the LRH of a raw packet.
     * @param length the payload's bytes: the BTH pad count and the ICRC taken off.
     * @param header the packet's essentials: {@code vl()}, {@code destQp()}, {@code opcode()}, {@code psn()},
     *               {@code sl()}, {@code slid()}, and the whole packet ({@code packetOffset()},
     *               {@code packetLength()}: LRH through ICRC, the VCRC checked and not included).
     */
    void onPacket(DirectBuffer buffer, int offset, int length, PacketHeader header);
}
