package io.vlink.core.wire;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Flyweight over the 40-byte Global Route Header, present between the LRH and the BTH when LRH.LNH is 3
 * ({@link LrhFlyweight#LNH_GLOBAL}). Its layout is an IPv6 header's. Big-endian.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+---------------+---------------------------------------+
 *  | IPVer |    TClass     |              FlowLabel                |
 *  +-------+---------------+---------------+-----------------------+
 *  |            PayLen             |    NxtHdr     |    HopLmt     |
 *  +-------------------------------+---------------+---------------+
 *  |                                                               |
 *  +                       SGID (16 bytes)                         +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                                                               |
 *  +                       DGID (16 bytes)                         +
 *  |                                                               |
 *  +---------------------------------------------------------------+
 * </pre>
 * TClass, FlowLabel and HopLmt are variant: the ICRC covers them as all 1s (docs/wire.md, "ICRC").
 * A GID is read as two longs: the subnet prefix (first 8 bytes) and the interface id (last 8).
 */
public final class GrhFlyweight extends HeaderFlyweight<GrhFlyweight>
{
    public static final int VERSION_CLASS_FLOW_OFFSET = 0;
    public static final int PAY_LEN_OFFSET = VERSION_CLASS_FLOW_OFFSET + 4;
    public static final int NXT_HDR_OFFSET = PAY_LEN_OFFSET + 2;
    public static final int HOP_LMT_OFFSET = NXT_HDR_OFFSET + 1;
    public static final int SGID_OFFSET = HOP_LMT_OFFSET + 1;
    public static final int DGID_OFFSET = SGID_OFFSET + 16;
    public static final int LENGTH = DGID_OFFSET + 16;

    /** NxtHdr value announcing a BTH (IBA transport). */
    public static final int NXT_HDR_IBA = 0x1B;
    /** IPVer of a GRH. */
    public static final int IP_VERSION_6 = 6;

    public int ipVer()
    {
        return word0() >>> 28;
    }

    public GrhFlyweight ipVer(final int ipVer)
    {
        return word0((word0() & 0x0FFF_FFFF) | (ipVer << 28));
    }

    /** @return the traffic class, 0..255. */
    public int tClass()
    {
        return (word0() >>> 20) & 0xFF;
    }

    public GrhFlyweight tClass(final int tClass)
    {
        return word0((word0() & 0xF00F_FFFF) | ((tClass & 0xFF) << 20));
    }

    /** @return the flow label, 20 bits. */
    public int flowLabel()
    {
        return word0() & 0xF_FFFF;
    }

    public GrhFlyweight flowLabel(final int flowLabel)
    {
        return word0((word0() & 0xFFF0_0000) | (flowLabel & 0xF_FFFF));
    }

    /** @return bytes after the GRH through the ICRC (pad included, VCRC excluded). */
    public int payLen()
    {
        return buffer.getShort(offset + PAY_LEN_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    public GrhFlyweight payLen(final int payLen)
    {
        buffer.putShort(offset + PAY_LEN_OFFSET, (short)payLen, BIG_ENDIAN);
        return this;
    }

    public int nxtHdr()
    {
        return buffer.getByte(offset + NXT_HDR_OFFSET) & 0xFF;
    }

    public GrhFlyweight nxtHdr(final int nxtHdr)
    {
        buffer.putByte(offset + NXT_HDR_OFFSET, (byte)nxtHdr);
        return this;
    }

    public int hopLmt()
    {
        return buffer.getByte(offset + HOP_LMT_OFFSET) & 0xFF;
    }

    public GrhFlyweight hopLmt(final int hopLmt)
    {
        buffer.putByte(offset + HOP_LMT_OFFSET, (byte)hopLmt);
        return this;
    }

    public long sgidPrefix()
    {
        return buffer.getLong(offset + SGID_OFFSET, BIG_ENDIAN);
    }

    public long sgidInterfaceId()
    {
        return buffer.getLong(offset + SGID_OFFSET + 8, BIG_ENDIAN);
    }

    public GrhFlyweight sgid(final long prefix, final long interfaceId)
    {
        buffer.putLong(offset + SGID_OFFSET, prefix, BIG_ENDIAN);
        buffer.putLong(offset + SGID_OFFSET + 8, interfaceId, BIG_ENDIAN);
        return this;
    }

    public long dgidPrefix()
    {
        return buffer.getLong(offset + DGID_OFFSET, BIG_ENDIAN);
    }

    public long dgidInterfaceId()
    {
        return buffer.getLong(offset + DGID_OFFSET + 8, BIG_ENDIAN);
    }

    public GrhFlyweight dgid(final long prefix, final long interfaceId)
    {
        buffer.putLong(offset + DGID_OFFSET, prefix, BIG_ENDIAN);
        buffer.putLong(offset + DGID_OFFSET + 8, interfaceId, BIG_ENDIAN);
        return this;
    }

    private int word0()
    {
        return buffer.getInt(offset + VERSION_CLASS_FLOW_OFFSET, BIG_ENDIAN);
    }

    private GrhFlyweight word0(final int word)
    {
        buffer.putInt(offset + VERSION_CLASS_FLOW_OFFSET, word, BIG_ENDIAN);
        return this;
    }

    public String toString()
    {
        return "GRH{ipVer=" + ipVer() + " tClass=" + tClass() + " flowLabel=0x" + Integer.toHexString(flowLabel()) +
            " payLen=" + payLen() + " nxtHdr=0x" + Integer.toHexString(nxtHdr()) + " hopLmt=" + hopLmt() +
            " sgid=" + gid(sgidPrefix(), sgidInterfaceId()) + " dgid=" + gid(dgidPrefix(), dgidInterfaceId()) + "}";
    }

    /**
     * @param prefix      the first 8 bytes of a GID.
     * @param interfaceId the last 8 bytes.
     * @return the GID as IPv6 text with every group written out, e.g. {@code fe80:0000:...:0002}.
     */
    public static String gid(final long prefix, final long interfaceId)
    {
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++)
        {
            final long half = i < 4 ? prefix : interfaceId;
            final int group = (int)(half >>> (48 - 16 * (i & 3))) & 0xFFFF;
            if (i > 0)
            {
                sb.append(':');
            }
            final String hex = Integer.toHexString(group);
            sb.append("0000", hex.length(), 4).append(hex);
        }
        return sb.toString();
    }
}
