package io.vlink.nic;

import io.vlink.core.wire.PacketHeader;

/**
 * Receives the packets a port delivers ({@link Port#poll}), one call a packet, with the packet itself: a
 * {@link PacketHeader} flyweight over it that gives its payload ({@link PacketHeader#buffer()},
 * {@link PacketHeader#payloadOffset()}, {@link PacketHeader#payloadLength()}: headers, pad and ICRC taken off), its
 * VL, SL, LIDs, opcode, destination QP and PSN, and the whole packet ({@link PacketHeader#packetOffset()},
 * {@link PacketHeader#packetLength()}). The packet is read in place in the VL's receive buffer, whose space (and so
 * the peer's credit) is released when the call returns: copy what must outlive it. The flyweight is the port's own,
 * re-wrapped for every packet: read it during the call, never keep it.
 * <p>
 * One parameter on purpose. The callback of the releases before 0.2.0, {@code ReceiveHandler}, took four
 * ({@code (buffer, offset, length, header)}, and earlier {@code (vl, buffer, offset, length)}), and a lambda
 * written for one four-parameter form compiled unchanged against the other with its parameters bound to different
 * things. A lambda of four parameters cannot compile against this interface; what the packet gives is read by name,
 * and what a later version adds is a new method of {@link PacketHeader}, never a parameter whose place changes
 * meaning (CHANGELOG.md, docs/api.md).
 */
@FunctionalInterface
public interface PacketHandler
{
    /**
     * @param packet the packet, valid during this call only.
     */
    void onPacket(PacketHeader packet);
}
