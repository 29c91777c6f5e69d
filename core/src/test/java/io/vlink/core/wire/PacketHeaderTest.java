package io.vlink.core.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a receive handler is told about a packet: the payload's place with headers, pad and ICRC taken off, for
 * local, global and raw packets, and the BTH's fields, read in place from a real capture's packet.
 */
class PacketHeaderTest
{
    private final PacketHeader header = new PacketHeader();

    @Test
    void aRealRcAcknowledge()
    {
        // frame 11 of the capture: LRH, BTH (opcode 0x11 RC Acknowledge), AETH (4 bytes), ICRC, VCRC
        final int at = 5;
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[at + Packets.RC_ACK.length]);
        buffer.putBytes(at, Packets.RC_ACK);
        header.wrap(buffer, at, Packets.RC_ACK.length - Sizes.VCRC_LENGTH);
        assertEquals(0, header.vl());
        assertEquals(0, header.sl());
        assertEquals(LrhFlyweight.LNH_LOCAL, header.lnh());
        assertEquals(4, header.dlid());
        assertEquals(1, header.slid());
        assertTrue(header.hasBth());
        assertEquals(0x11, header.opcode());
        assertEquals(new BthFlyweight().wrap(buffer, at + 8).destQp(), header.destQp());
        assertEquals(new BthFlyweight().wrap(buffer, at + 8).psn(), header.psn());
        assertEquals(0, header.padCount());
        assertEquals(at + 20, header.payloadOffset());
        assertEquals(4, header.payloadLength(), "the AETH, the rest of a transport header, is payload here");
        assertEquals(at, header.packetOffset());
        assertEquals(28, header.packetLength());
    }

    @Test
    void theLocalPayloadLosesItsPadAndTheIcrc()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        for (int pad = 0; pad < 4; pad++)
        {
            final int payload = 16 - pad;                  // 16 bytes between BTH and ICRC: 13..16 of payload
            LrhFlyweight.write(buffer, 0, 3, 5, LrhFlyweight.LNH_LOCAL, 2, Sizes.dwords(20 + 16 + 4), 1);
            BthFlyweight.write(buffer, 8, BthFlyweight.RC_SEND_LAST, pad, 0xFFFF, 0xABCDEF, 0x123456);
            header.wrap(buffer, 0, 20 + 16 + 4);
            assertEquals(3, header.vl());
            assertEquals(5, header.sl());
            assertEquals(BthFlyweight.RC_SEND_LAST, header.opcode());
            assertEquals(0xABCDEF, header.destQp());
            assertEquals(0x123456, header.psn());
            assertEquals(pad, header.padCount());
            assertEquals(20, header.payloadOffset());
            assertEquals(payload, header.payloadLength());
        }
    }

    @Test
    void aGlobalPacketsPayloadStartsAfterTheGrhAndBth()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        LrhFlyweight.write(buffer, 0, 1, 1, LrhFlyweight.LNH_GLOBAL, 2, Sizes.dwords(60 + 8 + 4), 1);
        BthFlyweight.write(buffer, 48, BthFlyweight.RC_SEND_ONLY, 1, 0xFFFF, 77, 9);
        header.wrap(buffer, 0, 60 + 8 + 4);
        assertEquals(60, header.payloadOffset());
        assertEquals(7, header.payloadLength());
        assertEquals(77, header.destQp());
        assertEquals(9, header.psn());
    }

    @Test
    void aRawPacketHasNoBthAndNoIcrc()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        LrhFlyweight.write(buffer, 0, LrhFlyweight.VL15, 0, LrhFlyweight.LNH_RAW, 0xFFFF, 8, 1);
        header.wrap(buffer, 0, 32);
        assertFalse(header.hasBth());
        assertEquals(LrhFlyweight.VL15, header.vl());
        assertEquals(PacketHeader.NONE, header.opcode());
        assertEquals(PacketHeader.NONE, header.destQp());
        assertEquals(PacketHeader.NONE, header.psn());
        assertEquals(PacketHeader.NONE, header.padCount());
        assertEquals(8, header.payloadOffset());
        assertEquals(24, header.payloadLength());
    }

    @Test
    void aPadLargerThanThePayloadGivesAnEmptyPayloadNeverANegativeLength()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        LrhFlyweight.write(buffer, 0, 0, 0, LrhFlyweight.LNH_LOCAL, 2, 6, 1);
        BthFlyweight.write(buffer, 8, BthFlyweight.RC_SEND_ONLY, 3, 0xFFFF, 1, 0);
        header.wrap(buffer, 0, 24);                        // LRH, BTH, ICRC: no payload byte, yet a pad of 3
        assertEquals(0, header.payloadLength());
    }
}
