package io.vlink.core.wire;

import org.agrona.DirectBuffer;

/**
 * The essentials of a received data packet, read in place: what a transport needs to dispatch it (VL, SL, LIDs,
 * and from its BTH the opcode, destination queue pair and PSN) and where its payload is, with the pad bytes and the
 * ICRC taken off. One instance is wrapped over packet after packet (as Aeron's {@code Header} is handed to a
 * fragment handler): nothing is allocated, and the fields are read from the packet when asked, except the payload's
 * place, which {@link #wrap} works out once.
 * <p>
 * The packet must have passed {@link PacketChecker} (its length agrees with PktLen and holds the headers its LNH
 * announces); a receiving engine delivers nothing else. What each LNH gives:
 * <ul>
 *     <li>LNH 2 (IBA local): LRH, BTH, payload, pad, ICRC: the payload starts after the BTH.</li>
 *     <li>LNH 3 (IBA global): LRH, GRH, BTH, payload, pad, ICRC: the payload starts after the BTH.</li>
 *     <li>LNH 0 and 1 (raw): LRH, then payload, no BTH, no ICRC: {@link #hasBth()} is false and the BTH fields
 *     read {@link #NONE}.</li>
 * </ul>
 * Extended transport headers (RDETH, DETH, ...) that some opcodes carry after the BTH are part of the payload here:
 * RC SEND, what the engine's queue pairs send, has none. A pad count larger than the bytes after the BTH (a
 * malformed sender's packet whose CRCs are right) gives a payload of 0 bytes, never a negative length.
 * <p>
 * Valid only while the packet is: during the handler call it was given to.
 */
public final class PacketHeader
{
    /** What the BTH fields read for a packet without a BTH (LNH 0 or 1). */
    public static final int NONE = -1;

    private DirectBuffer buffer;
    private int offset;
    private int size;
    private int bthOffset;
    private int payloadOffset;
    private int payloadLength;

    /**
     * Wrap a checked packet.
     *
     * @param buffer holding the packet.
     * @param offset of its first LRH byte.
     * @param size   its size S, LRH through ICRC ({@code 4 * PktLen}; the VCRC is not included).
     * @return this.
     */
    public PacketHeader wrap(final DirectBuffer buffer, final int offset, final int size)
    {
        this.buffer = buffer;
        this.offset = offset;
        this.size = size;
        final int lnh = LrhFlyweight.lnh(buffer, offset);
        if (LrhFlyweight.isIba(lnh))
        {
            final int bth = LrhFlyweight.LNH_GLOBAL == lnh ? LrhFlyweight.LENGTH + GrhFlyweight.LENGTH :
                LrhFlyweight.LENGTH;
            final int headers = bth + BthFlyweight.LENGTH;
            bthOffset = offset + bth;
            payloadOffset = offset + headers;
            payloadLength = Math.max(0, size - headers - Sizes.ICRC_LENGTH - BthFlyweight.padCnt(buffer, bthOffset));
        }
        else
        {
            bthOffset = NONE;
            payloadOffset = offset + LrhFlyweight.LENGTH;
            payloadLength = Math.max(0, size - LrhFlyweight.LENGTH);
        }
        return this;
    }

    /** @return the buffer holding the packet. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** @return the offset of the packet's first LRH byte in {@link #buffer()}. */
    public int packetOffset()
    {
        return offset;
    }

    /** @return the packet's size S, LRH through ICRC (the VCRC was checked and is not included). */
    public int packetLength()
    {
        return size;
    }

    /** @return the offset of the first payload byte in {@link #buffer()}. */
    public int payloadOffset()
    {
        return payloadOffset;
    }

    /** @return the payload's bytes: without the headers, the pad bytes and the ICRC. */
    public int payloadLength()
    {
        return payloadLength;
    }

    /** @return the VL the packet arrived on (the LRH's VL: 15 for a subnet-management packet). */
    public int vl()
    {
        return LrhFlyweight.vl(buffer, offset);
    }

    /** @return the service level. */
    public int sl()
    {
        return LrhFlyweight.sl(buffer, offset);
    }

    /** @return the link next header: {@link LrhFlyweight#LNH_LOCAL} for what the engine's queue pairs send. */
    public int lnh()
    {
        return LrhFlyweight.lnh(buffer, offset);
    }

    /** @return the destination LID. */
    public int dlid()
    {
        return LrhFlyweight.dlid(buffer, offset);
    }

    /** @return the source LID: the sending port's. */
    public int slid()
    {
        return LrhFlyweight.slid(buffer, offset);
    }

    /** @return true for IBA packets (LNH 2 and 3), which carry a BTH and an ICRC. */
    public boolean hasBth()
    {
        return NONE != bthOffset;
    }

    /** @return the transport opcode (e.g. {@link BthFlyweight#RC_SEND_ONLY}), or {@link #NONE} without a BTH. */
    public int opcode()
    {
        return NONE == bthOffset ? NONE : BthFlyweight.opcode(buffer, bthOffset);
    }

    /** @return the destination queue pair (24 bits), or {@link #NONE} without a BTH. */
    public int destQp()
    {
        return NONE == bthOffset ? NONE : BthFlyweight.destQp(buffer, bthOffset);
    }

    /** @return the packet sequence number (24 bits), or {@link #NONE} without a BTH. */
    public int psn()
    {
        return NONE == bthOffset ? NONE : BthFlyweight.psn(buffer, bthOffset);
    }

    /** @return the BTH's pad count (0..3), or {@link #NONE} without a BTH. */
    public int padCount()
    {
        return NONE == bthOffset ? NONE : BthFlyweight.padCnt(buffer, bthOffset);
    }

    public String toString()
    {
        return "PacketHeader{vl=" + vl() + " sl=" + sl() + " lnh=" + lnh() + " dlid=" + dlid() + " slid=" + slid() +
            " opcode=" + opcode() + " destQp=" + destQp() + " psn=" + psn() + " padCount=" + padCount() +
            " payload=" + payloadLength + "}";
    }
}
