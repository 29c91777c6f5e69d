package io.vlink.core.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The DETH and the SMP header land on the bytes IBA puts them on (big-endian, reserved bytes zero), and read back.
 */
class ManagementHeadersTest
{
    @Test
    void dethHoldsQKeyAndSourceQpWithTheReservedByteClear()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[12]);
        buffer.setMemory(0, 12, (byte)0x5A);
        final DethFlyweight deth = new DethFlyweight().wrap(buffer, 2).qKey(0x80010000).srcQp(0x123456);
        assertArrayEquals(new byte[] {0x5A, 0x5A, (byte)0x80, 0x01, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x5A, 0x5A},
            buffer.byteArray());
        assertEquals(0x80010000, deth.qKey());
        assertEquals(0x123456, deth.srcQp());
        assertEquals(0x123456, DethFlyweight.srcQp(buffer, 2));
        assertEquals(8, DethFlyweight.LENGTH);
    }

    @Test
    void smpRequestIsAValidMadHeaderAndClearsTheRest()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[SmpFlyweight.LENGTH + 4]);
        buffer.setMemory(0, buffer.capacity(), (byte)0xEE);
        final SmpFlyweight smp = new SmpFlyweight().wrap(buffer, 4).request(
            SmpFlyweight.MGMT_CLASS_DIRECTED_ROUTE, SmpFlyweight.METHOD_GET, 0x0102030405060708L,
            SmpFlyweight.ATTRIBUTE_PORT_INFO, 1);
        assertEquals((byte)0xEE, buffer.getByte(3), "nothing before the SMP is touched");
        assertEquals(1, buffer.getByte(4));
        assertEquals((byte)0x81, buffer.getByte(5));
        assertEquals(1, buffer.getByte(6));
        assertEquals(1, buffer.getByte(7));
        assertEquals(0x01, buffer.getByte(4 + 8));
        assertEquals(0x08, buffer.getByte(4 + 15));
        assertEquals(0x00, buffer.getByte(4 + 16));
        assertEquals(0x15, buffer.getByte(4 + 17));
        assertEquals(1, buffer.getByte(4 + 23));
        for (int i = SmpFlyweight.M_KEY_OFFSET; i < SmpFlyweight.LENGTH; i++)
        {
            assertEquals(0, buffer.getByte(4 + i), "byte " + i);
        }
        assertEquals(SmpFlyweight.BASE_VERSION, smp.baseVersion());
        assertEquals(SmpFlyweight.MGMT_CLASS_DIRECTED_ROUTE, smp.mgmtClass());
        assertEquals(SmpFlyweight.CLASS_VERSION, smp.classVersion());
        assertEquals(SmpFlyweight.METHOD_GET, smp.method());
        assertEquals(0x0102030405060708L, smp.transactionId());
        assertEquals(SmpFlyweight.ATTRIBUTE_PORT_INFO, SmpFlyweight.attributeId(buffer, 4));
        assertEquals(1, smp.attributeModifier());
        assertEquals(9L, smp.transactionId(9).transactionId());
    }
}
