package io.vlink.tools.soak;

import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.DethFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.SmpFlyweight;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The soak's packets are what a real fabric carries: RC SEND messages of whole Only or First, Middle... Last
 * sequences with PSNs that advance per queue pair and wrap at 24 bits, P_Key 0xFFFF, QPs from 16; SMPs as UD SEND
 * Only to QP0 with a DETH and a valid 256-byte SMP whose transaction id advances; and the receiver still checks the
 * soak header behind the transport headers.
 */
class SoakTrafficTest
{
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final BthFlyweight bth = new BthFlyweight();

    private static SoakTraffic traffic(final long seed)
    {
        return new SoakTraffic(48, 4096, seed, 1, 2, new LatencyRecorder(1_000_000_000L), new SteppingClock(1000));
    }

    @Test
    void dataPacketsAreWholeRcSendMessagesWithPsnsThatAdvanceAndWrap()
    {
        final SoakTraffic traffic = traffic(7);
        final SoakTraffic receiver = traffic(7);
        final PacketHeader header = new PacketHeader();
        final int vls = 8;
        final int[] counts = new int[256];
        for (int vl = 0; vl < vls; vl++)
        {
            traffic.startPsn(vl, BthFlyweight.MASK_24 - 100 + vl);
            int expectedPsn = BthFlyweight.MASK_24 - 100 + vl;
            boolean inMessage = false;
            int messagePackets = 0;
            for (int i = 0; i < 400; i++)
            {
                final int length = traffic.prepare(vl, 1000L * i);
                // a retry of the same packet (back-pressure) keeps its opcode and PSN
                assertEquals(length, traffic.prepare(vl, 1000L * i));
                final UnsafeBuffer packet = (UnsafeBuffer)traffic.buffer(vl);
                lrh.wrap(packet, 0);
                bth.wrap(packet, LrhFlyweight.LENGTH);
                assertEquals(vl, lrh.vl());
                assertEquals(LrhFlyweight.LNH_LOCAL, lrh.lnh());
                assertEquals(BthFlyweight.DEFAULT_P_KEY, bth.pKey());
                assertEquals(SoakTraffic.QPN_BASE + vl, bth.destQp());
                assertEquals(expectedPsn, bth.psn(), "VL" + vl + " packet " + i);
                final int opcode = bth.opcode();
                counts[opcode]++;
                if (inMessage)
                {
                    assertTrue(opcode == BthFlyweight.RC_SEND_MIDDLE || opcode == BthFlyweight.RC_SEND_LAST,
                        "inside a message: " + opcode);
                }
                else
                {
                    assertTrue(opcode == BthFlyweight.RC_SEND_ONLY || opcode == BthFlyweight.RC_SEND_FIRST,
                        "a message starts: " + opcode);
                    messagePackets = 0;
                }
                messagePackets++;
                inMessage = opcode == BthFlyweight.RC_SEND_FIRST || opcode == BthFlyweight.RC_SEND_MIDDLE;
                assertEquals(!inMessage, bth.ackReq(), "AckReq on a message's last packet");
                assertTrue(messagePackets <= SoakTraffic.MAX_MESSAGE_PACKETS);
                header.wrap(packet, 0, length + SoakTraffic.ICRC);
                receiver.onPacket(header);
                traffic.accepted(vl);
                expectedPsn = (expectedPsn + 1) & BthFlyweight.MASK_24;
            }
            assertTrue(expectedPsn < 400, "the PSN wrapped: " + expectedPsn);
            assertEquals(400, receiver.delivered[vl]);
            assertEquals(0, receiver.damaged[vl] + receiver.gaps[vl] + receiver.duplicated[vl] + receiver.outOfOrder[vl]);
        }
        assertTrue(counts[BthFlyweight.RC_SEND_ONLY] > 0 && counts[BthFlyweight.RC_SEND_FIRST] > 0 &&
            counts[BthFlyweight.RC_SEND_MIDDLE] > 0 && counts[BthFlyweight.RC_SEND_LAST] > 0);
        assertEquals(vls * 400, counts[0] + counts[1] + counts[2] + counts[4]);
    }

    @Test
    void theSameSeedMakesTheSameMessages()
    {
        assertEquals(opcodes(traffic(3)), opcodes(traffic(3)));
        assertNotEquals(opcodes(traffic(3)), opcodes(traffic(4)));
    }

    private List<Integer> opcodes(final SoakTraffic traffic)
    {
        final List<Integer> opcodes = new ArrayList<>();
        for (int i = 0; i < 100; i++)
        {
            traffic.prepare(2, i);
            opcodes.add(traffic.pendingOpcode(2));
            traffic.accepted(2);
        }
        return opcodes;
    }

    @Test
    void smpsAreUdSendOnlyToQp0WithAValidSmpAndATransactionIdThatAdvances()
    {
        final SoakTraffic traffic = traffic(1);
        final BthFlyweight smpBth = new BthFlyweight();
        final DethFlyweight deth = new DethFlyweight();
        final SmpFlyweight smp = new SmpFlyweight();
        long previousTid = 0;
        int previousPsn = -1;
        int directed = 0;
        int nodeInfo = 0;
        for (int i = 0; i < 8; i++)
        {
            final int length = traffic.prepareSmp(false);
            assertEquals(length, traffic.prepareSmp(false), "unchanged until accepted");
            assertEquals(SoakTraffic.SMP_LENGTH, length);
            assertEquals(8 + 12 + 8 + 256, length);
            final UnsafeBuffer packet = (UnsafeBuffer)traffic.smp();
            lrh.wrap(packet, 0);
            assertEquals(LrhFlyweight.VL15, lrh.vl());
            smpBth.wrap(packet, LrhFlyweight.LENGTH);
            assertEquals(BthFlyweight.UD_SEND_ONLY, smpBth.opcode());
            assertEquals(0, smpBth.destQp());
            assertEquals(BthFlyweight.DEFAULT_P_KEY, smpBth.pKey());
            deth.wrap(packet, SoakTraffic.HEADERS);
            assertEquals(0, deth.srcQp());
            assertEquals(0, deth.qKey());
            smp.wrap(packet, SoakTraffic.SMP_OFFSET);
            assertEquals(SmpFlyweight.BASE_VERSION, smp.baseVersion());
            assertEquals(SmpFlyweight.CLASS_VERSION, smp.classVersion());
            assertEquals(SmpFlyweight.METHOD_GET, smp.method());
            final boolean isDirected = SmpFlyweight.MGMT_CLASS_DIRECTED_ROUTE == smp.mgmtClass();
            assertTrue(isDirected || SmpFlyweight.MGMT_CLASS_LID_ROUTED == smp.mgmtClass());
            // a directed route of no hops goes from and to the permissive LID
            assertEquals(isDirected ? 0xFFFF : 2, lrh.dlid());
            assertEquals(isDirected ? 0xFFFF : 1, lrh.slid());
            directed += isDirected ? 1 : 0;
            final boolean isNodeInfo = SmpFlyweight.ATTRIBUTE_NODE_INFO == smp.attributeId();
            assertTrue(isNodeInfo || SmpFlyweight.ATTRIBUTE_PORT_INFO == smp.attributeId());
            assertEquals(isNodeInfo ? 0 : 1, smp.attributeModifier());
            nodeInfo += isNodeInfo ? 1 : 0;
            if (i > 0)
            {
                assertEquals(previousTid + 1, smp.transactionId());
                assertEquals((previousPsn + 1) & BthFlyweight.MASK_24, smpBth.psn());
            }
            previousTid = smp.transactionId();
            previousPsn = smpBth.psn();
            traffic.smpAccepted();
        }
        assertEquals(4, directed);
        assertEquals(4, nodeInfo);
        assertEquals(8, traffic.smpsSent);
        assertEquals(SoakTraffic.FLOOD_SMP_LENGTH, traffic.prepareSmp(true));
    }
}
