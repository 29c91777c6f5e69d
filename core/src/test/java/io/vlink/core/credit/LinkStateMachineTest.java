package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.vlink.core.credit.LinkState.ACTIVE;
import static io.vlink.core.credit.LinkState.ARMED;
import static io.vlink.core.credit.LinkState.DOWN;
import static io.vlink.core.credit.LinkState.INITIALIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The link state machine, alone and as two ports bring a link up step by step on a fake clock.
 */
class LinkStateMachineTest
{
    private static final long STEP_NS = 100;

    private static CreditConfig config(final boolean automatic)
    {
        return new CreditConfig().dataVls(4).bufferBlocks(512).lineRate(LineRate.EDR_4X).automatic(automatic);
    }

    /** Two ports brought up together, both sending on VL0, after 250 steps (two FCP periods and more: settled). */
    private static TestLink activeLinkWithTraffic()
    {
        final TestLink link = new TestLink(config(true), STEP_NS);
        link.a.wantsToSend = true;
        link.b.wantsToSend = true;
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(250);
        assertEquals(ACTIVE, link.a.port.state());
        assertEquals(ACTIVE, link.b.port.state());
        return link;
    }

    @Test
    void twoPortsComeUpThroughInitializeAndArmedToActiveAndCarryDataOnlyWhenActive()
    {
        final TestLink link = new TestLink(config(true), STEP_NS);
        link.a.wantsToSend = true;
        link.b.wantsToSend = true;
        link.a.dataVl = 2;
        link.b.dataVl = 3;

        assertTrue(link.a.port.up(link.now()));
        assertTrue(link.b.port.up(link.now()));
        link.a.noteState();
        link.b.noteState();

        // step 1: both send an init FCP (Op 1) per VL; on receipt each has the peer's FCCL for every VL, and owes it
        // an init FCP sent after it heard of the peer
        link.step();
        assertEquals(INITIALIZE, link.a.port.state());
        assertEquals(INITIALIZE, link.b.port.state());
        for (final int[] fcp : link.a.sentFcps)
        {
            assertEquals(Fcp.OP_INIT, Fcp.op(fcp[1]));
            assertEquals(0, Fcp.fctbs(fcp[1]));
            assertEquals(512, Fcp.fccl(fcp[1]));
        }
        assertEquals(4, link.a.sentFcps.size(), "one init FCP per data VL");
        assertEquals(512, link.a.port.transmitter().creditLimit(2), "credit known, yet no data before Active");

        // step 2: the owed init FCP goes out and arms each; every VL's FCP is due again, now Op 0; on receipt each is
        // Active
        link.step();
        assertEquals(Fcp.OP_INIT, Fcp.op(link.a.sentFcps.get(4)[1]));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(link.a.sentFcps.get(link.a.sentFcps.size() - 1)[1]));
        assertEquals(ACTIVE, link.a.port.state());
        assertEquals(ACTIVE, link.b.port.state());
        assertEquals(0, link.a.dataSent + link.b.dataSent, "data waits for the next packet boundary");

        // from now on data flows both ways
        link.steps(10);
        assertEquals(10, link.a.dataSent);
        assertEquals(10, link.b.dataReceived);
        assertEquals(10, link.a.dataReceived);
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.a.states);
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.b.states);
        assertEquals(0, link.a.dataSentWhileNotActive + link.b.dataSentWhileNotActive);
        assertEquals(0, link.a.port.discards().total() + link.b.port.discards().total());
        assertEquals(40, link.a.port.transmitter().blocksSent(2));
        assertEquals(40, link.b.port.receiver().blocksReceived(2));
    }

    @Test
    void goingDownAndUpAgainStartsEveryCounterFromZero()
    {
        final TestLink link = activeLinkWithTraffic();
        assertTrue(link.a.port.transmitter().blocksSent(0) > 0);
        assertTrue(link.b.port.receiver().blocksReceived(0) > 0);

        assertTrue(link.a.port.down());
        assertTrue(link.b.port.down());
        assertFalse(link.a.port.down(), "already down");
        for (final CreditPort port : new CreditPort[]{link.a.port, link.b.port})
        {
            assertEquals(DOWN, port.state());
            assertFalse(port.tryTransmit(0, 1));
            assertEquals(FcpSchedule.NONE, port.pollFcp(link.now() + 1_000_000));
            for (int vl = 0; vl < port.dataVls(); vl++)
            {
                assertEquals(0, port.transmitter().blocksSent(vl));
                assertEquals(0, port.transmitter().creditLimit(vl));
                assertEquals(0, port.receiver().blocksReceived(vl));
                assertEquals(512, port.receiver().freeBlocks(vl));
            }
        }
        link.steps(5);
        assertEquals(DOWN, link.a.port.state(), "nothing moves a Down port but up()");

        // back up: the first FCPs carry FCTBS 0 and FCCL 0 + min(free, 2048), with Op 1
        final int fcpsBefore = link.a.sentFcps.size();
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        assertEquals(2, link.a.port.link().ups());
        link.step();
        final int[] first = link.a.sentFcps.get(fcpsBefore);
        assertEquals(Fcp.OP_INIT, Fcp.op(first[1]));
        assertEquals(0, Fcp.fctbs(first[1]));
        assertEquals(512, Fcp.fccl(first[1]));
        // the two had announced themselves: each waits until the other has shown it heard of the new incarnation.
        // Neither can (both initialize), so once each has heard the other only in init FCPs for the wait limit, each
        // stops waiting and they come up as at the first bring-up
        for (int i = 0; i < 10_000 && link.b.port.state() != ACTIVE; i++)
        {
            link.step();
        }
        assertEquals(ACTIVE, link.a.port.state());
        final long sentBefore = link.a.port.transmitter().blocksSent(0);
        link.steps(10);
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, DOWN, INITIALIZE, ARMED, ACTIVE), link.a.states);
        assertEquals(sentBefore + 40, link.a.port.transmitter().blocksSent(0), "one 4-block packet a step");
        assertEquals(link.a.port.transmitter().blocksSent(0), link.b.port.receiver().blocksReceived(0));
        assertEquals(0, link.a.dataSentWhileNotActive);
    }

    @Test
    void aPortThatComesUpLateFollowsAPeerThatIsAlreadyArmed()
    {
        final TestLink link = new TestLink(config(true), STEP_NS);
        link.a.wantsToSend = true;
        link.a.port.up(link.now());
        link.steps(3);
        // b is Down: a's init FCPs are discarded and counted there
        assertEquals(INITIALIZE, link.a.port.state());
        assertEquals(4, link.b.port.discards().get(DiscardReason.FCP_STATE));

        // b comes up; its init FCPs tell a that b (re)started: a owes it an init FCP, sends it, and arms on b's
        link.b.port.up(link.now());
        link.step();
        assertEquals(INITIALIZE, link.a.port.state());
        link.step();
        assertEquals(ARMED, link.a.port.state(), "armed as its owed init FCP went out");
        link.steps(3);
        assertEquals(ACTIVE, link.a.port.state());
        assertEquals(ACTIVE, link.b.port.state());
        link.steps(5);
        assertTrue(link.b.dataReceived > 0);
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.b.states);
        assertEquals(0, link.a.port.control().errorRecoveries() + link.b.port.control().errorRecoveries());
    }

    @Test
    void aPeerThatRestartsAloneIsRecognisedAndTheLinkRetrainsWithoutOverflowOrUncountedLoss()
    {
        final TestLink link = activeLinkWithTraffic();

        // b bounces on its own while a is Active and FCPs are in flight
        link.b.port.down();
        link.b.port.up(link.now());
        link.steps(200);
        // b's init FCP after its normal ones tells a that b initialized again: a re-trains too (a link error
        // recovered), so both restart their counters from zero and come back Active; b, which waits for a's answer
        // (it had announced itself), never re-trains
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, INITIALIZE, ARMED, ACTIVE), link.a.states);
        assertEquals(1, link.a.port.control().errorRecoveries());
        assertEquals(0, link.b.port.control().errorRecoveries());
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, INITIALIZE, ARMED, ACTIVE), link.b.states);
        final long aReceived = link.a.dataReceived;
        final long bReceived = link.b.dataReceived;
        link.steps(10);
        assertEquals(aReceived + 10, link.a.dataReceived, "b -> a flows again");
        assertEquals(bReceived + 10, link.b.dataReceived, "a -> b flows again");
        // what b missed while it was initializing is counted, nothing else is lost, nothing overflows
        assertEquals(link.a.dataSent - link.b.dataReceived, link.b.port.discards().get(DiscardReason.DATA_STATE));
        assertEquals(link.b.dataSent, link.a.dataReceived);
        assertEquals(0, link.a.port.discards().get(DiscardReason.DATA_OVERFLOW) +
            link.b.port.discards().get(DiscardReason.DATA_OVERFLOW));
    }

    @Test
    void underAnSmTheLinkMovesOnlyOnCommandOrOnTheFirstDataPacket()
    {
        final TestLink link = new TestLink(config(false), STEP_NS);
        link.a.wantsToSend = true;
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(250);
        assertEquals(INITIALIZE, link.a.port.state(), "init FCPs alone do not arm without automatic transitions");
        assertEquals(512, link.a.port.transmitter().creditLimit(0), "but they do carry credit");

        assertTrue(link.a.port.arm(link.now()));
        assertTrue(link.b.port.arm(link.now()));
        assertFalse(link.a.port.arm(link.now()));
        link.steps(100);
        assertEquals(ARMED, link.a.port.state());
        assertEquals(ARMED, link.b.port.state());
        assertEquals(0, link.a.dataSent);

        // the SM activates a; a's first data packet activates b (IBA: Armed -> Active on the first packet)
        assertTrue(link.a.port.activate());
        link.step();
        assertEquals(1, link.a.dataSent);
        assertEquals(ACTIVE, link.b.port.state());
        assertEquals(1, link.b.dataReceived, "the packet that activated b was received, not discarded");
    }

    @Test
    void initializePassesOnlyVl15AndInitFcps()
    {
        final CreditPort port = new CreditPort(config(false));
        port.up(0);
        assertTrue(port.onFcp(Fcp.word(Fcp.OP_INIT, 7, 1, 300), 0));
        assertEquals(300, port.transmitter().creditLimit(1));
        assertEquals(7, port.receiver().blocksReceived(1));
        assertFalse(port.onFcp(Fcp.word(Fcp.OP_NORMAL, 9, 1, 400), 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_STATE));
        assertEquals(300, port.transmitter().creditLimit(1), "the discarded FCP moved nothing");
        assertFalse(port.onData(1, 1));
        assertEquals(1, port.discards().get(DiscardReason.DATA_STATE));
        assertFalse(port.tryTransmit(1, 1), "credit, but not Active");
        assertTrue(port.onSmp());
        assertTrue(port.maySendSmp());
        assertEquals(Fcp.OP_INIT, Fcp.op(port.buildFcp(0, 0)));

        // Armed: data is received (not sent), FCPs of both Ops are applied (the peer may still be initializing)
        port.arm(0);
        assertTrue(port.onFcp(Fcp.word(Fcp.OP_INIT, 8, 1, 301), 0));
        assertTrue(port.onFcp(Fcp.word(Fcp.OP_NORMAL, 9, 1, 302), 0));
        assertFalse(port.tryTransmit(1, 1));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(port.buildFcp(0, 0)));
        assertTrue(port.onData(1, 1));
        assertEquals(ACTIVE, port.state());
        assertTrue(port.tryTransmit(1, 1));
    }

    @Test
    void downTakesNothingAndSendsNothing()
    {
        final CreditPort port = new CreditPort(config(true));
        assertFalse(port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 10), 0));
        assertFalse(port.onData(0, 1));
        assertFalse(port.maySendSmp());
        assertEquals(FcpSchedule.NONE, port.pollFcp(0));
        assertEquals(DOWN, port.state());
        assertEquals(1, port.discards().get(DiscardReason.FCP_STATE));
        assertEquals(1, port.discards().get(DiscardReason.DATA_STATE));
        assertFalse(port.arm(0));
        assertFalse(port.activate());
        assertThrows(IllegalStateException.class, () -> port.buildFcp(0, 0));
    }

    @Test
    void aLostDataPacketCostsCreditUntilTheNextFctbsFcp()
    {
        final TestLink link = new TestLink(config(true), STEP_NS);
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(3);
        assertEquals(ACTIVE, link.a.port.state());
        final CreditPort a = link.a.port;
        final CreditPort b = link.b.port;
        assertEquals(512, a.transmitter().available(1));

        // a 10-block packet is lost on the wire: a counted it, b never saw it
        assertTrue(a.tryTransmit(1, 10));
        assertEquals(0, b.receiver().blocksReceived(1));
        // b's FCP: FCCL = ABR (0) + 512, so a's window is 10 short
        assertTrue(a.onFcp(b.buildFcp(1, link.now()), link.now()));
        assertEquals(502, a.transmitter().available(1));
        // a's FCP carries FCTBS 10: b's ABR := 10; b's next FCP gives the whole window back
        assertTrue(b.onFcp(a.buildFcp(1, link.now()), link.now()));
        assertEquals(10, b.receiver().blocksReceived(1));
        assertEquals(522, b.receiver().fccl(1));
        assertTrue(a.onFcp(b.buildFcp(1, link.now()), link.now()));
        assertEquals(512, a.transmitter().available(1));
    }
}
