package io.vlink.core.wire;

/**
 * Packet size units used across the link layer (docs/wire.md, docs/arbitration.md).
 * <p>
 * A packet's <em>size</em> {@code S} is its length from the first LRH byte through the last ICRC byte,
 * which is {@code 4 * LRH.PktLen}; the VCRC is not counted. On the wire the packet takes {@code S + 2} bytes.
 * Credits and arbitration weights are counted in 64-byte blocks, the high-priority counter in dwords.
 */
public final class Sizes
{
    /** Flow-control block and arbitration weight unit. */
    public static final int BLOCK_LENGTH = 64;
    /** The high-priority counter and PktLen unit. */
    public static final int DWORD_LENGTH = 4;
    public static final int LRH_LENGTH = 8;
    public static final int ICRC_LENGTH = 4;
    public static final int VCRC_LENGTH = 2;
    /** PktLen is an 11-bit field. */
    public static final int MAX_PKT_LEN = 0x7FF;
    /** The largest size PktLen can express: 8188 bytes. */
    public static final int MAX_SIZE = MAX_PKT_LEN * DWORD_LENGTH;
    /** Bytes on the wire of the longest packet PktLen can express: 8190. */
    public static final int MAX_WIRE_LENGTH = MAX_SIZE + VCRC_LENGTH;
    /** The smallest InfiniBand MTU (payload bytes per packet). */
    public static final int MIN_MTU = 256;
    /** The largest InfiniBand MTU. */
    public static final int MAX_MTU = 4096;
    /** The InfiniBand MTUs, as every message about them names them. */
    public static final String MTU_CHOICES = "256, 512, 1024, 2048 or 4096";

    private Sizes()
    {
    }

    /**
     * The one check of an MTU: the engine's settings, the scheduler, the checker and the commands' files use it.
     *
     * @param mtu payload bytes per packet.
     * @return true for the InfiniBand MTUs {@value #MTU_CHOICES}.
     */
    public static boolean isMtu(final int mtu)
    {
        return mtu >= MIN_MTU && mtu <= MAX_MTU && Integer.bitCount(mtu) == 1;
    }

    /**
     * @param setting what the MTU is, for the message (e.g. {@code "mtu"}).
     * @param mtu     payload bytes per packet.
     * @return the MTU.
     * @throws IllegalArgumentException naming the value and the MTUs there are, when it is not one of them.
     */
    public static int checkMtu(final String setting, final int mtu)
    {
        final String problem = mtuProblem(setting, mtu);
        if (null != problem)
        {
            throw new IllegalArgumentException(problem);
        }
        return mtu;
    }

    /**
     * @param setting what the MTU is, for the message (e.g. {@code "mtu"}).
     * @param mtu     payload bytes per packet.
     * @return null for an InfiniBand MTU, else what is wrong and the MTUs there are (for readers that report a
     * mistake with its place rather than throw).
     */
    public static String mtuProblem(final String setting, final int mtu)
    {
        return isMtu(mtu) ? null : setting + " " + mtu + " is not an InfiniBand MTU: use " + MTU_CHOICES;
    }

    /**
     * @param size bytes from the first LRH byte through the ICRC.
     * @return 64-byte blocks the packet occupies: {@code ceil(size / 64)}.
     */
    public static int blocks(final int size)
    {
        return (size + (BLOCK_LENGTH - 1)) >>> 6;
    }

    /**
     * @param size bytes from the first LRH byte through the ICRC.
     * @return dwords: {@code ceil(size / 4)}, which is PktLen for a well-formed packet.
     */
    public static int dwords(final int size)
    {
        return (size + (DWORD_LENGTH - 1)) >>> 2;
    }

    /**
     * @param pktLen the LRH PktLen field.
     * @return the packet's size in bytes excluding the VCRC: {@code 4 * pktLen}.
     */
    public static int sizeOfPktLen(final int pktLen)
    {
        return pktLen << 2;
    }

    /**
     * @param pktLen the LRH PktLen field.
     * @return bytes on the wire including the VCRC: {@code 4 * pktLen + 2}.
     */
    public static int wireLength(final int pktLen)
    {
        return (pktLen << 2) + VCRC_LENGTH;
    }

    /**
     * @param wireLength bytes on the wire including the VCRC.
     * @return the PktLen those bytes imply, or -1 if the length cannot be a data packet's.
     */
    public static int pktLenOfWireLength(final int wireLength)
    {
        final int size = wireLength - VCRC_LENGTH;
        if (size < LRH_LENGTH || (size & 3) != 0 || size > MAX_SIZE)
        {
            return -1;
        }
        return size >>> 2;
    }
}
