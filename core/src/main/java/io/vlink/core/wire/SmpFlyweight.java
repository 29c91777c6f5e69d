package io.vlink.core.wire;

import org.agrona.DirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * Flyweight over a subnet management packet (SMP): the 256-byte management datagram (MAD) that the subnet manager
 * and the subnet management agents exchange on VL15, carried by a UD SEND Only to QP0 after the BTH and the DETH
 * (IBA 13.4 and 14.2.1). Big-endian. The common MAD header, then the SMP's own fields:
 * <pre>
 *  0  BaseVersion (1)   MgmtClass   ClassVersion   R | Method
 *  4  Status (16)                   ClassSpecific (16; directed route: HopPointer, HopCount)
 *  8  TransactionID (64)
 * 16  AttributeID (16)              Reserved (16)
 * 20  AttributeModifier (32)
 * 24  M_Key (64)
 * 32  32 bytes: reserved (LID routed); DrSLID, DrDLID, reserved (directed route)
 * 64  SMP data (64 bytes): the attribute
 * 128 128 bytes: reserved (LID routed); InitialPath, ReturnPath (directed route)
 * </pre>
 */
public final class SmpFlyweight extends HeaderFlyweight<SmpFlyweight>
{
    public static final int BASE_VERSION_OFFSET = 0;
    public static final int MGMT_CLASS_OFFSET = 1;
    public static final int CLASS_VERSION_OFFSET = 2;
    public static final int METHOD_OFFSET = 3;
    public static final int STATUS_OFFSET = 4;
    public static final int HOP_POINTER_OFFSET = 6;
    public static final int HOP_COUNT_OFFSET = 7;
    public static final int TRANSACTION_ID_OFFSET = 8;
    public static final int ATTRIBUTE_ID_OFFSET = 16;
    public static final int ATTRIBUTE_MODIFIER_OFFSET = 20;
    public static final int M_KEY_OFFSET = 24;
    public static final int DATA_OFFSET = 64;
    public static final int DATA_LENGTH = 64;
    /** Every MAD is 256 bytes. */
    public static final int LENGTH = 256;

    /** The MAD base version of every SMP. */
    public static final int BASE_VERSION = 1;
    /** Management class: a LID-routed SMP. */
    public static final int MGMT_CLASS_LID_ROUTED = 0x01;
    /** Management class: a directed-route SMP (routed by a path of port numbers, before LIDs are assigned). */
    public static final int MGMT_CLASS_DIRECTED_ROUTE = 0x81;
    /** The SMP class version. */
    public static final int CLASS_VERSION = 1;
    /** Method Get: read an attribute (answered by a GetResp, 0x81). */
    public static final int METHOD_GET = 0x01;
    /** Method Set: write an attribute. */
    public static final int METHOD_SET = 0x02;
    /** Attribute NodeInfo: the node's type, GUIDs, port count. */
    public static final int ATTRIBUTE_NODE_INFO = 0x0011;
    /** Attribute PortInfo (modifier: the port number): LID, link state, MTU, VL capabilities. */
    public static final int ATTRIBUTE_PORT_INFO = 0x0015;

    /** @return the MAD base version. */
    public int baseVersion()
    {
        return buffer.getByte(offset + BASE_VERSION_OFFSET) & 0xFF;
    }

    /** @return the management class ({@link #MGMT_CLASS_LID_ROUTED} or {@link #MGMT_CLASS_DIRECTED_ROUTE}). */
    public int mgmtClass()
    {
        return mgmtClass(buffer, offset);
    }

    /** @return the class version. */
    public int classVersion()
    {
        return buffer.getByte(offset + CLASS_VERSION_OFFSET) & 0xFF;
    }

    /** @return the method, with the response bit (0x80). */
    public int method()
    {
        return buffer.getByte(offset + METHOD_OFFSET) & 0xFF;
    }

    /** @return the transaction id. */
    public long transactionId()
    {
        return buffer.getLong(offset + TRANSACTION_ID_OFFSET, BIG_ENDIAN);
    }

    /** @return the attribute id. */
    public int attributeId()
    {
        return attributeId(buffer, offset);
    }

    /** @return the attribute modifier. */
    public int attributeModifier()
    {
        return buffer.getInt(offset + ATTRIBUTE_MODIFIER_OFFSET, BIG_ENDIAN);
    }

    /**
     * Write a request's header: the common MAD header, status 0, hop pointer and count 0 (a directed route of no
     * hops: the SMP is for the port at the other end of the link), M_Key 0, and the rest of the 256 bytes zeroed.
     *
     * @param mgmtClass         {@link #MGMT_CLASS_LID_ROUTED} or {@link #MGMT_CLASS_DIRECTED_ROUTE}.
     * @param method            e.g. {@link #METHOD_GET}.
     * @param transactionId     the requester's transaction id, which its response echoes.
     * @param attributeId       e.g. {@link #ATTRIBUTE_NODE_INFO}.
     * @param attributeModifier e.g. the port number for {@link #ATTRIBUTE_PORT_INFO}.
     * @return this flyweight.
     */
    public SmpFlyweight request(
        final int mgmtClass, final int method, final long transactionId, final int attributeId,
        final int attributeModifier)
    {
        buffer.setMemory(offset, LENGTH, (byte)0);
        buffer.putByte(offset + BASE_VERSION_OFFSET, (byte)BASE_VERSION);
        buffer.putByte(offset + MGMT_CLASS_OFFSET, (byte)mgmtClass);
        buffer.putByte(offset + CLASS_VERSION_OFFSET, (byte)CLASS_VERSION);
        buffer.putByte(offset + METHOD_OFFSET, (byte)method);
        buffer.putLong(offset + TRANSACTION_ID_OFFSET, transactionId, BIG_ENDIAN);
        buffer.putShort(offset + ATTRIBUTE_ID_OFFSET, (short)attributeId, BIG_ENDIAN);
        buffer.putInt(offset + ATTRIBUTE_MODIFIER_OFFSET, attributeModifier, BIG_ENDIAN);
        return this;
    }

    /**
     * @param transactionId a new transaction id, the rest of the request unchanged.
     * @return this flyweight.
     */
    public SmpFlyweight transactionId(final long transactionId)
    {
        buffer.putLong(offset + TRANSACTION_ID_OFFSET, transactionId, BIG_ENDIAN);
        return this;
    }

    public static int mgmtClass(final DirectBuffer buffer, final int offset)
    {
        return buffer.getByte(offset + MGMT_CLASS_OFFSET) & 0xFF;
    }

    public static int attributeId(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + ATTRIBUTE_ID_OFFSET, BIG_ENDIAN) & 0xFFFF;
    }

    public String toString()
    {
        return "SMP{baseVersion=" + baseVersion() + " mgmtClass=0x" + Integer.toHexString(mgmtClass()) +
            " classVersion=" + classVersion() + " method=0x" + Integer.toHexString(method()) +
            " tid=" + transactionId() + " attributeId=0x" + Integer.toHexString(attributeId()) +
            " attributeModifier=" + attributeModifier() + "}";
    }
}
