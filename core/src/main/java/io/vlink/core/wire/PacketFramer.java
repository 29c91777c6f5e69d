package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Completes a data packet for the wire (docs/wire.md): given the LRH, the transport headers and the
 * payload (pad included) written in a buffer, it fills LRH.PktLen, the ICRC (LNH 2 and 3) and the VCRC.
 * <pre>
 *  offset                                                 offset + size
 *  | LRH | GRH? | BTH | ... payload, pad ... |   ICRC (4)   | VCRC (2) |
 *                                            ^ filled        ^ filled
 * </pre>
 * The pad count in the BTH is the caller's business; the size must already be a multiple of 4.
 * <p>
 * One instance per thread (it owns an {@link Icrc}); allocation-free.
 */
public final class PacketFramer
{
    private final Icrc icrc = new Icrc();

    /**
     * @param buffer holding the packet from its first LRH byte, with room for the VCRC after the ICRC.
     * @param offset of the first LRH byte.
     * @param size   bytes from the first LRH byte through the ICRC: a multiple of 4, the PktLen to write times 4.
     * @return the packet's length on the wire, {@code size + 2}.
     * @throws IllegalArgumentException if the size cannot be a packet's (a caller's mistake, not wire input).
     */
    public int frame(final MutableDirectBuffer buffer, final int offset, final int size)
    {
        final int lnh = LrhFlyweight.lnh(buffer, offset);
        if ((size & 3) != 0 || size < Math.max(LrhFlyweight.LENGTH, Icrc.minSize(lnh)) || size > Sizes.MAX_SIZE)
        {
            throw new IllegalArgumentException("cannot frame a packet of " + size + " bytes with LNH " + lnh +
                ": the size must be a multiple of 4 between its headers' length and " + Sizes.MAX_SIZE);
        }
        buffer.boundsCheck(offset, size + Sizes.VCRC_LENGTH);

        final short pktLen = (short)Sizes.dwords(size);
        if (buffer.getShort(offset + LrhFlyweight.PKT_LEN_OFFSET, BIG_ENDIAN) != pktLen)
        {
            // written only when it differs: a small store into the words the CRCs are about to read would hold
            // their loads until it reached the cache
            buffer.putShort(offset + LrhFlyweight.PKT_LEN_OFFSET, pktLen, BIG_ENDIAN);
        }
        if (LrhFlyweight.isIba(lnh))
        {
            // the VCRC of the packet with its ICRC field as it was, corrected once the ICRC is in
            // (Crc16.replaceLastInt): a load of the field just stored would wait for the store to reach the cache
            final int icrcOffset = offset + size - Icrc.LENGTH;
            final int value = icrc.compute(buffer, offset, size);
            final int vcrc = Crc16.compute(buffer, offset, size);
            final int previous = buffer.getInt(icrcOffset, LITTLE_ENDIAN);
            buffer.putInt(icrcOffset, value, LITTLE_ENDIAN);
            buffer.putShort(offset + size, (short)Crc16.replaceLastInt(vcrc, previous, value), LITTLE_ENDIAN);
        }
        else
        {
            buffer.putShort(offset + size, (short)Crc16.compute(buffer, offset, size), LITTLE_ENDIAN);
        }
        return size + Sizes.VCRC_LENGTH;
    }

    /**
     * A switch's VL rewrite (docs/fabric.md): the packet leaves on another VL than it arrived on, so its LRH VL field
     * is rewritten and its VCRC, which covers every byte, made anew. The VCRC the packet arrived with was checked at
     * the input port; the rewrite changes only the top four bits of the first byte, so the new VCRC is that one
     * patched for the change ({@link Crc16#patchFirstByte}), the CRC of the rewritten packet without a pass over it.
     * The ICRC is left as it is: it treats the VL field as ones (docs/wire.md), so no hop changes it, and damage done
     * before this hop is still found at the destination.
     *
     * @param buffer holding the packet from its first LRH byte, as it arrived; the VCRC is written after the ICRC.
     * @param offset of the first LRH byte.
     * @param size   bytes from the first LRH byte through the ICRC ({@code 4 * PktLen}).
     * @param vl     the VL it leaves on, 0..15.
     * @param vcrc   the VCRC it arrived with, checked (the CRC-16 of the {@code size} bytes as they are now).
     * @return the packet's length on the wire, {@code size + 2}.
     */
    public static int relabel(
        final MutableDirectBuffer buffer, final int offset, final int size, final int vl, final int vcrc)
    {
        final int arrived = LrhFlyweight.vl(buffer, offset);
        LrhFlyweight.vl(buffer, offset, vl);
        buffer.putShort(offset + size, (short)Crc16.patchFirstByte(vcrc, size, (arrived ^ vl) << 4), LITTLE_ENDIAN);
        return size + Sizes.VCRC_LENGTH;
    }
}
