package io.vlink.core.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The smallest packet the wire carries, the fields a sender must leave zero (a receiver still reads what arrived),
 * and the names tools print for verdicts: each at its edge.
 */
class WireEdgesTest
{
    /** A raw packet is an LRH alone: 8 bytes and the VCRC, PktLen 2. The framer makes it and the checker takes it. */
    @Test
    void theSmallestPacketIsAnLrhAndItsVcrc()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);
        new LrhFlyweight().wrap(buffer, 0).vl(3).sl(5).lnh(LrhFlyweight.LNH_RAW).dlid(7).slid(9);
        assertEquals(10, new PacketFramer().frame(buffer, 0, 8));
        assertEquals(2, LrhFlyweight.pktLen(buffer, 0));
        assertEquals(2, Sizes.pktLenOfWireLength(10));

        final int result = new PacketChecker(4096).check(buffer, 0, 10);
        assertEquals(PacketChecker.OK, PacketChecker.verdict(result));
        assertEquals(PacketChecker.CRC_NONE, PacketChecker.icrcStatus(result));
        assertEquals(PacketChecker.CRC_OK, PacketChecker.vcrcStatus(result));
        assertEquals(PacketChecker.TOO_SHORT, PacketChecker.verdict(new PacketChecker(4096).check(buffer, 0, 9)));
    }

    /** The framer writes nothing when the packet and its VCRC do not fit the buffer. */
    @Test
    void framingPastTheBufferIsRefusedBeforeAnyWrite()
    {
        final byte[] bytes = new byte[29];
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        new LrhFlyweight().wrap(buffer, 0).lnh(LrhFlyweight.LNH_LOCAL).pktLen(7);
        final byte[] before = bytes.clone();
        assertThrows(IndexOutOfBoundsException.class, () -> new PacketFramer().frame(buffer, 0, 28));
        assertArrayEquals(before, bytes);
        assertThrows(IllegalArgumentException.class, () -> new PacketFramer().frame(buffer, 0, 4));
    }

    /**
     * LVer, the LRH's reserved bits and the BTH's resv8a are sent as zero but read as they arrived (a decoder shows
     * them, a checker may refuse them), each in its own bits: writing one leaves its neighbours alone.
     */
    @Test
    void zeroOnTheWireFieldsReadWhatArrivedInTheirOwnBits()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[40]);
        final LrhFlyweight lrh = new LrhFlyweight().wrap(buffer, 3);
        lrh.vl(0xA).lver(0x5).sl(0x6).lnh(LrhFlyweight.LNH_LOCAL);
        assertEquals(0x5, lrh.lver());
        assertEquals(0xA, lrh.vl());
        assertEquals((byte)0xA5, buffer.getByte(3));
        assertEquals(0, lrh.reserved());
        buffer.putByte(4, (byte)(buffer.getByte(4) | 0x0C));
        assertEquals(0x3, lrh.reserved());
        assertEquals(0x6, lrh.sl());
        assertEquals(LrhFlyweight.LNH_LOCAL, lrh.lnh());
        lrh.lver(0);
        assertEquals(0, lrh.lver());
        assertEquals(0xA, lrh.vl());

        final BthFlyweight bth = new BthFlyweight().wrap(buffer, 11);
        bth.pKey(0xFFFF).resv8a(0x81).destQp(0x123456);
        assertEquals(0x81, bth.resv8a());
        assertEquals((byte)0x81, buffer.getByte(11 + 4));
        assertEquals(0xFFFF, bth.pKey());
        assertEquals(0x123456, bth.destQp());
    }

    @Test
    void theGrhNextHeaderHasItsOwnByte()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[48]);
        final GrhFlyweight grh = new GrhFlyweight().wrap(buffer, 5);
        grh.payLen(0x1234).hopLmt(0xFE).nxtHdr(GrhFlyweight.NXT_HDR_IBA).ipVer(GrhFlyweight.IP_VERSION_6);
        assertEquals(GrhFlyweight.NXT_HDR_IBA, grh.nxtHdr());
        assertEquals(GrhFlyweight.NXT_HDR_IBA, buffer.getByte(5 + GrhFlyweight.NXT_HDR_OFFSET));
        assertEquals(0x1234, grh.payLen());
        assertEquals(0xFE, grh.hopLmt());
        assertEquals(GrhFlyweight.IP_VERSION_6, grh.ipVer());
    }

    /** What {@code vlink decode} and the logs print: one distinct name per outcome, a number for anything else. */
    @Test
    void everyVerdictHasItsOwnName()
    {
        assertNames(new String[]{"ok", "too short", "bad LPCRC", "reserved op"}, Fcp::verdictName,
            Fcp.OK, Fcp.TOO_SHORT, Fcp.BAD_LPCRC, Fcp.RESERVED_OP);
        assertEquals("verdict 9", Fcp.verdictName(9));

        assertNames(new String[]{"ok", "too short", "length disagrees with PktLen", "longer than the MTU allows",
            "bad VCRC", "bad ICRC"}, PacketChecker::verdictName,
            PacketChecker.OK, PacketChecker.TOO_SHORT, PacketChecker.LENGTH_MISMATCH, PacketChecker.TOO_LONG,
            PacketChecker.BAD_VCRC, PacketChecker.BAD_ICRC);
        assertEquals("verdict 9", PacketChecker.verdictName(9));

        assertNames(new String[]{"none", "ok", "bad"}, PacketChecker::crcStatusName,
            PacketChecker.CRC_NONE, PacketChecker.CRC_OK, PacketChecker.CRC_BAD);

        assertNames(new String[]{"more", "complete", "not an RC SEND", "PSN out of sequence", "unexpected opcode",
            "payload length breaks the MTU rule", "message longer than the buffer"}, MessageAssembler::resultName,
            MessageAssembler.MORE, MessageAssembler.COMPLETE, MessageAssembler.NOT_SEND,
            MessageAssembler.OUT_OF_SEQUENCE, MessageAssembler.UNEXPECTED_OPCODE, MessageAssembler.BAD_LENGTH,
            MessageAssembler.TOO_LONG);
        assertEquals("result 7", MessageAssembler.resultName(7));
    }

    private static void assertNames(
        final String[] expected, final java.util.function.IntFunction<String> name, final int... codes)
    {
        final Set<String> seen = new HashSet<>();
        for (int i = 0; i < codes.length; i++)
        {
            assertEquals(expected[i], name.apply(codes[i]), "code " + codes[i]);
            assertTrue(seen.add(name.apply(codes[i])), () -> "two codes named alike in " + Arrays.toString(expected));
        }
        assertFalse(seen.contains(""));
    }
}
