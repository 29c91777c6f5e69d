package io.vlink.core.wire;

import io.vlink.core.capture.PcapReader;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * All 43 packets of the real capture ({@code captures/README.md}): every field decodes to what Wireshark shows,
 * every ICRC and VCRC verifies, and framing a packet again after clearing its CRCs and PktLen gives its bytes back.
 */
class CaptureFixtureTest
{
    /** frame, interface, VL, SL, LNH, DLID, PktLen, SLID, BTH opcode, P_Key, DestQP, PSN: as Wireshark decodes them. */
    private static final int[][] EXPECTED = {
        {1, 1, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x0001e9},
        {2, 0, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x016c37},
        {3, 0, 0, 0, 3, 0xc000, 43, 0x0005, 0x64, 0xffff, 0xffffff, 0x0de6f8},
        {4, 0, 0, 0, 3, 0xc000, 43, 0x0005, 0x64, 0xffff, 0xffffff, 0x0de6f9},
        {5, 1, 0, 0, 3, 0xc000, 33, 0x0004, 0x64, 0xffff, 0xffffff, 0x0020af},
        {6, 0, 0, 0, 2, 0x0004, 23, 0x0001, 0x64, 0xffff, 0x000405, 0x0d43bc},
        {7, 1, 0, 0, 2, 0x0001, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f19},
        {8, 0, 0, 0, 2, 0x0004, 72, 0x0001, 0x64, 0xffff, 0x000001, 0x0ef351},
        {9, 1, 0, 0, 2, 0x0001, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f1a},
        {10, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a55},
        {11, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a55},
        {12, 1, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x0001ea},
        {13, 0, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x016c3a},
        {14, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a56},
        {15, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a56},
        {16, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a57},
        {17, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a57},
        {18, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a58},
        {19, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a58},
        {20, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a59},
        {21, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a59},
        {22, 1, 0, 0, 2, 0x0001, 28, 0x0004, 0x04, 0xffff, 0xfc0407, 0xd40a5a},
        {23, 0, 0, 0, 2, 0x0004, 7, 0x0001, 0x11, 0xffff, 0x870408, 0xd40a5a},
        {24, 0, 0, 0, 3, 0xc000, 43, 0x0005, 0x64, 0xffff, 0xffffff, 0x0de71b},
        {25, 0, 0, 0, 3, 0xc000, 43, 0x0005, 0x64, 0xffff, 0xffffff, 0x0de71c},
        {26, 1, 0, 0, 3, 0xc007, 41, 0x0004, 0x64, 0xffff, 0xffffff, 0x002291},
        {27, 0, 0, 0, 2, 0x0004, 72, 0x0002, 0x64, 0xffff, 0x000001, 0x0027a5},
        {28, 1, 0, 0, 2, 0x0002, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f1d},
        {29, 0, 0, 0, 2, 0x0004, 72, 0x0002, 0x64, 0xffff, 0x000001, 0x0027a6},
        {30, 0, 0, 0, 2, 0x0004, 29, 0x0002, 0x04, 0xffff, 0x890407, 0xbd15cb},
        {31, 1, 0, 0, 2, 0x0002, 7, 0x0004, 0x11, 0xffff, 0x6c004a, 0xbd15cb},
        {32, 1, 0, 0, 2, 0x0001, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f1e},
        {33, 0, 0, 0, 2, 0x0004, 72, 0x0001, 0x64, 0xffff, 0x000001, 0x0ef356},
        {34, 1, 0, 0, 2, 0x0002, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f1f},
        {35, 0, 0, 0, 2, 0x0004, 72, 0x0002, 0x64, 0xffff, 0x000001, 0x0027a7},
        {36, 1, 0, 0, 2, 0x0002, 33, 0x0004, 0x04, 0xffff, 0x6c004b, 0x732328},
        {37, 1, 0, 0, 2, 0x0002, 72, 0x0004, 0x64, 0xffff, 0x000001, 0x002f20},
        {38, 0, 0, 0, 2, 0x0004, 7, 0x0002, 0x11, 0xffff, 0x890408, 0x732328},
        {39, 0, 0, 0, 2, 0x0004, 33, 0x0002, 0x04, 0xffff, 0x890407, 0xbd15cc},
        {40, 1, 0, 0, 2, 0x0002, 7, 0x0004, 0x11, 0xffff, 0x6c004a, 0xbd15cc},
        {41, 1, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x000205},
        {42, 0, 15, 0, 2, 0xffff, 72, 0xffff, 0x64, 0xffff, 0x000000, 0x016cae},
        {43, 1, 0, 0, 2, 0x0002, 33, 0x0004, 0x04, 0xffff, 0x6c004b, 0x732329},
    };

    private final PacketChecker checker = new PacketChecker(4096);
    private final PacketFramer framer = new PacketFramer();
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final GrhFlyweight grh = new GrhFlyweight();
    private final BthFlyweight bth = new BthFlyweight();

    @Test
    void everyRecordIsSoundAndEveryFieldDecodes() throws Exception
    {
        final byte[] file = Packets.captureBytes();
        try (PcapReader reader = new PcapReader(new UnsafeBuffer(file), file.length))
        {
            for (final int[] row : EXPECTED)
            {
                assertTrue(reader.next(), "record " + row[0]);
                assertNull(reader.error(), reader::error);
                assertEquals(row[0], reader.index());
                assertTrue(reader.isData());
                assertEquals(row[1], reader.iface());
                assertEquals(Sizes.wireLength(row[6]), reader.wlen());
                assertEquals(Sizes.wireLength(row[6]), reader.packetLength());

                final UnsafeBuffer packet = new UnsafeBuffer(reader.buffer(), reader.packetOffset(), reader.packetLength());
                lrh.wrap(packet, 0);
                final String frame = "frame " + row[0];
                assertEquals(row[2], lrh.vl(), frame);
                assertEquals(0, lrh.lver(), frame);
                assertEquals(row[3], lrh.sl(), frame);
                assertEquals(row[4], lrh.lnh(), frame);
                assertEquals(row[5], lrh.dlid(), frame);
                assertEquals(row[6], lrh.pktLen(), frame);
                assertEquals(row[7], lrh.slid(), frame);
                assertEquals(row[2], LrhFlyweight.vl(packet, 0), frame);
                assertEquals(row[5], LrhFlyweight.dlid(packet, 0), frame);
                assertEquals(row[6], LrhFlyweight.pktLen(packet, 0), frame);

                int bthOffset = LrhFlyweight.LENGTH;
                if (lrh.lnh() == LrhFlyweight.LNH_GLOBAL)
                {
                    grh.wrap(packet, LrhFlyweight.LENGTH);
                    assertEquals(GrhFlyweight.IP_VERSION_6, grh.ipVer(), frame);
                    assertEquals(GrhFlyweight.NXT_HDR_IBA, grh.nxtHdr(), frame);
                    assertEquals(Sizes.sizeOfPktLen(row[6]) - LrhFlyweight.LENGTH - GrhFlyweight.LENGTH, grh.payLen(), frame);
                    bthOffset += GrhFlyweight.LENGTH;
                }
                bth.wrap(packet, bthOffset);
                assertEquals(row[8], bth.opcode(), frame);
                assertEquals(row[9], bth.pKey(), frame);
                assertEquals(row[10], bth.destQp(), frame);
                assertEquals(row[11], bth.psn(), frame);
                assertEquals(0, bth.tver(), frame);

                final int result = checker.check(packet, 0, reader.packetLength());
                assertEquals(PacketChecker.OK, PacketChecker.verdict(result), frame);
                assertEquals(PacketChecker.CRC_OK, PacketChecker.icrcStatus(result), frame);
                assertEquals(PacketChecker.CRC_OK, PacketChecker.vcrcStatus(result), frame);
            }
            assertFalse(reader.next(), "43 records, no more");
        }
    }

    @Test
    void firstGlobalPacketsGrhDecodes()
    {
        final byte[] packet = Packets.capturePackets().get(2);
        grh.wrap(new UnsafeBuffer(packet), LrhFlyweight.LENGTH);
        assertEquals(0, grh.tClass());
        assertEquals(0, grh.flowLabel());
        assertEquals(124, grh.payLen());
        assertEquals(0, grh.hopLmt());
        assertEquals("fe80:0000:0000:0000:0002:c903:0000:1f2d", GrhFlyweight.gid(grh.sgidPrefix(), grh.sgidInterfaceId()));
        assertEquals("ff12:401b:ffff:0000:0000:0000:ffff:ffff", GrhFlyweight.gid(grh.dgidPrefix(), grh.dgidInterfaceId()));
    }

    @Test
    void frameElevenIsTheRcAckOfTheSpec()
    {
        assertArrayEquals(Packets.RC_ACK, Packets.capturePackets().get(10));
    }

    @Test
    void reframingEveryPacketReproducesItsBytes()
    {
        final List<byte[]> packets = Packets.capturePackets();
        assertEquals(43, packets.size());
        for (int i = 0; i < packets.size(); i++)
        {
            final byte[] original = packets.get(i);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[original.length + 16]);
            buffer.putBytes(5, original);
            final int size = original.length - Sizes.VCRC_LENGTH;
            buffer.setMemory(5 + size - 4, 6, (byte)0); // ICRC and VCRC
            lrh.wrap(buffer, 5).pktLen(0);

            assertEquals(original.length, framer.frame(buffer, 5, size), "frame " + (i + 1));
            final byte[] framed = new byte[original.length];
            buffer.getBytes(5, framed);
            assertArrayEquals(original, framed, "frame " + (i + 1));
        }
    }
}
