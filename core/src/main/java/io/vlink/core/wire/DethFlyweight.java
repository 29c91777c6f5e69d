package io.vlink.core.wire;

import org.agrona.DirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Flyweight over the 8-byte Datagram Extended Transport Header that follows the BTH of every unreliable-datagram
 * packet (UD SEND Only, {@link BthFlyweight#UD_SEND_ONLY}). Big-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                             Q_Key                             |
 *  +---------------+-----------------------------------------------+
 *  |   Reserved    |                    SrcQP                      |
 *  +---------------+-----------------------------------------------+
 * </pre>
 * The receiving queue pair checks the Q_Key (QP0, the subnet management QP, ignores it); SrcQP names the sender's
 * queue pair, 0 for subnet management packets.
 */
public final class DethFlyweight extends HeaderFlyweight<DethFlyweight>
{
    public static final int Q_KEY_OFFSET = 0;
    public static final int RESERVED_OFFSET = Q_KEY_OFFSET + 4;
    public static final int SRC_QP_OFFSET = RESERVED_OFFSET + 1;
    public static final int LENGTH = SRC_QP_OFFSET + 3;

    /** @return the queue key, 32 bits. */
    public int qKey()
    {
        return buffer.getInt(offset + Q_KEY_OFFSET, BIG_ENDIAN);
    }

    public DethFlyweight qKey(final int qKey)
    {
        buffer.putInt(offset + Q_KEY_OFFSET, qKey, BIG_ENDIAN);
        return this;
    }

    /** @return the source queue pair, 24 bits. */
    public int srcQp()
    {
        return srcQp(buffer, offset);
    }

    /** Sets SrcQP and clears the reserved byte before it. */
    public DethFlyweight srcQp(final int srcQp)
    {
        buffer.putInt(offset + RESERVED_OFFSET, srcQp & BthFlyweight.MASK_24, BIG_ENDIAN);
        return this;
    }

    public static int srcQp(final DirectBuffer buffer, final int offset)
    {
        return buffer.getInt(offset + RESERVED_OFFSET, BIG_ENDIAN) & BthFlyweight.MASK_24;
    }

    public String toString()
    {
        return "DETH{qKey=0x" + Integer.toHexString(qKey()) + " srcQp=" + srcQp() + "}";
    }
}
