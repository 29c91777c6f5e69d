package io.vlink.core.credit;

import io.vlink.core.port.TestPort;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link that takes no more frames, as the shipped transmit half ({@code PortTransmit}) meets it: each event is
 * counted once, by the part it happens in. A link with no room ends the burst ({@code tx_link_full}, the transmit
 * half's) before any claim, so the link counts nothing; a claim the link refuses although it said it had room is the
 * link's to count ({@code link_back_pressure}) and leaves the packet at its VL's head, charged nothing. Either way
 * nothing is lost and the credits come back.
 */
class BackPressureTest
{
    private static final long STEP_NS = 100;

    private static TestLink activeLink()
    {
        final TestLink link = new TestLink(LinkStateMachineTest.config(true), STEP_NS);
        link.a.wantsToSend = true;
        link.b.wantsToSend = true;
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(20);
        assertEquals(LinkState.ACTIVE, link.a.port.state());
        assertTrue(link.a.dataSent > 0);
        return link;
    }

    @Test
    void aFullLinkEndsEachBurstCountedOnceByTheTransmitHalfAndNothingIsLost()
    {
        final TestLink link = activeLink();
        final TestPort a = link.a.port;
        final long fullBefore = a.counters.linkFull();
        final long sentBefore = link.a.dataSent;
        final long fcpsBefore = a.counters.fcpSent();

        a.out.capacityFrames = 0;
        link.steps(10);
        assertEquals(fullBefore + 10, a.counters.linkFull(), "one ended burst a duty cycle");
        assertEquals(0, a.out.backPressured, "no claim was tried: the link has nothing to count");
        assertEquals(sentBefore, link.a.dataSent);
        assertEquals(fcpsBefore, a.counters.fcpSent(), "FCPs wait too");
        assertEquals(LinkState.ACTIVE, a.state());

        a.out.capacityFrames = Integer.MAX_VALUE;
        link.steps(10);
        assertEquals(fullBefore + 10, a.counters.linkFull());
        assertTrue(link.a.dataSent > sentBefore, "traffic resumes");
        assertTrue(a.counters.fcpSent() > fcpsBefore);
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.steps(20);
        assertEquals(link.a.dataSent, link.b.dataReceived(), "nothing lost");
        assertEquals(link.b.dataSent, link.a.dataReceived());
        assertCreditsBack(link);
    }

    @Test
    void aClaimTheLinkRefusesLeavesThePacketAtItsHeadChargedNothingAndCountedByTheLinkOnly()
    {
        final TestLink link = activeLink();
        final TestPort a = link.a.port;
        final int vl = link.a.dataVl;
        link.a.wantsToSend = false;
        link.steps(5);
        final long fullBefore = a.counters.linkFull();
        final long sentBefore = a.source.sent[vl];
        final long txBefore = a.counters.txPackets(vl);
        final int fctbsBefore = a.transmitter().blocksSent(vl);

        // more refusals than FCPs can wait (one a data VL): the packet's own claim is refused at least once
        a.source.offer(vl, 4);
        a.out.refuseClaims = 8;
        for (int i = 0; i < 8; i++)
        {
            a.transmit();
        }
        assertEquals(8, a.out.backPressured, "the link counts each refusal");
        assertEquals(fullBefore, a.counters.linkFull(), "the transmit half does not count them again");
        assertEquals(sentBefore, a.source.sent[vl], "the packet is still at its VL's head");
        assertEquals(txBefore, a.counters.txPackets(vl));
        assertEquals(fctbsBefore, a.transmitter().blocksSent(vl), "and charged nothing");

        a.transmit();
        assertEquals(sentBefore + 1, a.source.sent[vl], "it goes at the next grant");
        assertEquals(txBefore + 1, a.counters.txPackets(vl));
        assertEquals((fctbsBefore + 4) & 0xFFF, a.transmitter().blocksSent(vl) & 0xFFF);

        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.steps(20);
        assertEquals(link.a.dataSent + 1, link.b.dataReceived(), "the steps' sends and the one sent by hand");
        assertCreditsBack(link);
    }

    private static void assertCreditsBack(final TestLink link)
    {
        for (final TestLink.Side side : new TestLink.Side[]{link.a, link.b})
        {
            final TestPort port = side.port;
            final TestPort peer = side == link.a ? link.b.port : link.a.port;
            for (int vl = 0; vl < port.dataVls(); vl++)
            {
                assertEquals(port.transmitter().blocksSent(vl) & 0xFFF, peer.receiver().blocksReceived(vl) & 0xFFF,
                    side.name + " vl " + vl + ": FCTBS = ABR");
                assertEquals(512, peer.receiver().freeBlocks(vl), side.name + " vl " + vl + ": the buffer empty");
            }
        }
    }
}
