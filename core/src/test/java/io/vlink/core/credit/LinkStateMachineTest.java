package io.vlink.core.credit;

import io.vlink.core.port.DirectPort;
import io.vlink.core.port.FrameSink;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.TestPort;
import io.vlink.core.port.TestWire;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.vlink.core.credit.LinkState.ACTIVE;
import static io.vlink.core.credit.LinkState.ARMED;
import static io.vlink.core.credit.LinkState.DOWN;
import static io.vlink.core.credit.LinkState.INITIALIZE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The link state machine as the shipped datapath runs it: two ports bring a link up step by step on a fake clock, in
 * the engine's duty-cycle order (a step: credit, transmit, receive; what a port receives is applied in the next step).
 */
class LinkStateMachineTest
{
    private static final long STEP_NS = 100;

    static PortConfig config(final boolean automatic)
    {
        return PortConfig.builder().qos(QosConfig.opensmDefaults(4)).bufferBlocks(512)
            .fcpInterval(LineRate.EDR_4X, PortConfig.DEFAULT_FCP_INTERVAL_SYMBOLS).automatic(automatic).build();
    }

    /** Two ports brought up together, both sending on VL0, after 250 steps (two FCP periods and more: settled). */
    private static TestLink activeLinkWithTraffic()
    {
        return activeLinkWithTraffic(DirectPort.Events.QUEUED);
    }

    private static TestLink activeLinkWithTraffic(final DirectPort.Events events)
    {
        final TestLink link = new TestLink(config(true), STEP_NS, events);
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
    void aStateIsPublishedToItsOwnerWithItsTransitionAlreadyCounted()
    {
        // an application that sees Active and then reads link_transitions must find the entry into Active counted
        final TestLink link = activeLinkWithTraffic();
        for (final TestPort port : new TestPort[]{link.a.port, link.b.port})
        {
            assertEquals(List.of(INITIALIZE, ARMED, ACTIVE), port.states.subList(1, port.states.size()));
            assertEquals(List.of(1L, 2L, 3L), port.transitionsPublished);
            assertEquals(3, port.counters.linkTransitions());
        }
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

        // step 1: each sends the init FCP (Op 1) of every VL it asked for as it came up; they arrive
        link.step();
        assertEquals(INITIALIZE, link.a.port.state());
        assertEquals(4, link.a.sentFcps.size(), "one init FCP per data VL");
        for (final int[] fcp : link.a.sentFcps)
        {
            assertEquals(Fcp.OP_INIT, Fcp.op(fcp[1]));
            assertEquals(0, Fcp.fctbs(fcp[1]));
            assertEquals(512, Fcp.fccl(fcp[1]));
        }

        // step 2: each applies the peer's init FCPs, holds its FCCL for every VL, and owes the peer an init FCP sent
        // after it heard of it: that one goes first and arms it; then the normal FCPs of every VL at once
        link.step();
        assertEquals(ARMED, link.a.port.state());
        assertEquals(ARMED, link.b.port.state());
        assertEquals(512, link.a.port.creditLimit(2), "credit known, yet no data in Armed");
        assertEquals(Fcp.OP_INIT, Fcp.op(link.a.sentFcps.get(4)[1]), "the owed init FCP");
        assertEquals(Fcp.OP_NORMAL, Fcp.op(link.a.sentFcps.get(link.a.sentFcps.size() - 1)[1]));
        assertEquals(9, link.a.sentFcps.size());
        assertEquals(0, link.a.dataSent + link.b.dataSent);

        // step 3: each applies the peer's normal FCPs: Active, and data goes from this step's transmit on
        link.step();
        assertEquals(ACTIVE, link.a.port.state());
        assertEquals(ACTIVE, link.b.port.state());
        link.steps(9);
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.step();
        assertEquals(10, link.a.dataSent);
        assertEquals(10, link.b.dataReceived());
        assertEquals(10, link.a.dataReceived());
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.a.states());
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.b.states());
        assertEquals(0, link.a.dataSentWhileNotActive + link.b.dataSentWhileNotActive);
        assertEquals(0, link.a.port.counters.discardsTotal() + link.b.port.counters.discardsTotal());
        assertEquals(40, link.a.port.transmitter().blocksSent(2));
        assertEquals(40, link.b.port.receiver().blocksReceived(2));
        assertEquals(40, link.a.port.counters.txFctbs(2), "the gauge");
        assertEquals(40, link.b.port.counters.rxAbr(2));
    }

    @Test
    void goingDownAndUpAgainStartsEveryCounterFromZero()
    {
        final TestLink link = activeLinkWithTraffic();
        assertTrue(link.a.port.transmitter().blocksSent(0) > 0);
        assertTrue(link.b.port.receiver().blocksReceived(0) > 0);

        assertTrue(link.a.port.down(link.now()));
        assertTrue(link.b.port.down(link.now()));
        assertFalse(link.a.port.down(link.now()), "already down");
        for (final TestPort port : new TestPort[]{link.a.port, link.b.port})
        {
            assertEquals(DOWN, port.state());
            assertFalse(port.trySend(0, 1));
            for (int vl = 0; vl < port.dataVls(); vl++)
            {
                assertEquals(0, port.receiver().blocksReceived(vl));
                assertEquals(0, port.creditLimit(vl));
            }
        }
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        final long committed = link.a.port.out.committed;
        link.clock.advance(1_000_000);
        link.steps(5);
        assertEquals(DOWN, link.a.port.state(), "nothing moves a Down port but up()");
        assertEquals(committed, link.a.port.out.committed, "a Down port sends nothing, no FCP either");
        for (int vl = 0; vl < 4; vl++)
        {
            assertEquals(512, link.b.port.receiver().freeBlocks(vl), "what was held is released as usual");
        }

        // back up: the first FCPs carry FCTBS 0 and FCCL 0 + min(free, 2048), with Op 1
        final int fcpsBefore = link.a.sentFcps.size();
        link.a.wantsToSend = true;
        link.b.wantsToSend = true;
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        assertEquals(2, link.a.port.link().ups());
        link.step();
        final int[] first = link.a.sentFcps.get(fcpsBefore);
        assertEquals(Fcp.OP_INIT, Fcp.op(first[1]));
        assertEquals(0, Fcp.fctbs(first[1]));
        assertEquals(512, Fcp.fccl(first[1]));
        for (int vl = 0; vl < 4; vl++)
        {
            assertEquals(0, link.a.port.transmitter().blocksSent(vl), "the transmitter restarted on Initialize");
            assertEquals(0, link.a.port.counters.txFctbs(vl));
        }
        // the two had announced themselves: each waits until the other has shown it heard of the new incarnation.
        // Neither can (both initialize), so once each has heard the other only in init FCPs for the wait limit, each
        // stops waiting and they come up as at the first bring-up
        for (int i = 0; i < 10_000 && link.b.port.state() != ACTIVE; i++)
        {
            link.step();
        }
        assertEquals(ACTIVE, link.a.port.state());
        link.step();
        final long sentBefore = link.a.port.transmitter().blocksSent(0);
        link.steps(10);
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.step();
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, DOWN, INITIALIZE, ARMED, ACTIVE), link.a.states());
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
        assertEquals(4, link.b.port.counters.discards(DiscardReason.FCP_STATE));

        // b comes up; its init FCPs tell a that b (re)started: a owes it an init FCP, sends it, and arms on b's
        link.b.port.up(link.now());
        link.steps(2);
        assertEquals(ARMED, link.a.port.state());
        link.steps(3);
        assertEquals(ACTIVE, link.a.port.state());
        assertEquals(ACTIVE, link.b.port.state());
        link.steps(5);
        assertTrue(link.b.dataReceived() > 0);
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE), link.b.states());
        assertEquals(0, link.a.port.control().errorRecoveries() + link.b.port.control().errorRecoveries());
    }

    @Test
    void aPeerThatRestartsAloneIsRecognisedAndTheLinkRetrainsWithoutOverflowOrUncountedLoss()
    {
        // a switch's timing: what a port receives is applied before the next frame is admitted
        final TestLink link = activeLinkWithTraffic(DirectPort.Events.IMMEDIATE);

        // b bounces on its own while a is Active and data and FCPs are in flight
        link.b.port.down(link.now());
        link.b.port.up(link.now());
        link.steps(4_000);
        // b's init FCP after its normal ones tells a that b initialized again: a re-trains too (a link error
        // recovered: down and at once Initialize), so both restart their counters from zero, and a waits for b to
        // start again (rule 3); b, which waits for a's answer (it had announced itself), never re-trains: it arms on
        // a's init FCPs, hears nothing else for rule 4's window (a quarter of the wait limit) and two rounds, and
        // initializes again (no link error), which ends a's wait; both come back Active
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, DOWN, INITIALIZE, ARMED, ACTIVE), link.a.states());
        assertEquals(List.of(DOWN, INITIALIZE, ARMED, ACTIVE, DOWN, INITIALIZE, ARMED, DOWN, INITIALIZE, ARMED, ACTIVE),
            link.b.states());
        assertEquals(1, link.b.port.control().reannounces());
        assertEquals(1, link.a.port.control().errorRecoveries());
        assertEquals(1, link.a.port.counters.linkErrorRecovery());
        assertEquals(0, link.b.port.control().errorRecoveries());
        final long aReceived = link.a.dataReceived();
        final long bReceived = link.b.dataReceived();
        link.steps(10);
        assertEquals(aReceived + 10, link.a.dataReceived(), "b -> a flows again");
        assertEquals(bReceived + 10, link.b.dataReceived(), "a -> b flows again");
        // what b missed while it was initializing is counted, nothing else is lost, nothing overflows
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.step();
        assertEquals(link.a.dataSent - link.b.dataReceived(),
            link.b.port.counters.discards(DiscardReason.DATA_STATE));
        assertEquals(link.b.dataSent, link.a.dataReceived());
        assertEquals(0, link.a.port.counters.discards(DiscardReason.DATA_OVERFLOW) +
            link.b.port.counters.discards(DiscardReason.DATA_OVERFLOW));
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
        assertEquals(512, link.a.port.creditLimit(0), "but they do carry credit");

        assertTrue(link.a.port.arm(link.now()));
        assertTrue(link.b.port.arm(link.now()));
        assertFalse(link.a.port.arm(link.now()));
        link.steps(100);
        assertEquals(ARMED, link.a.port.state());
        assertEquals(ARMED, link.b.port.state());
        assertEquals(0, link.a.dataSent);

        // the SM activates a; a's first data packet activates b (IBA: Armed -> Active on the first packet)
        assertTrue(link.a.port.activate(link.now()));
        link.a.wantsToSend = true;
        link.step();
        assertEquals(1, link.a.dataSent);
        assertEquals(1, link.b.dataReceived(), "stored in Armed");
        link.a.wantsToSend = false;
        link.step();
        assertEquals(ACTIVE, link.b.port.state());
        assertEquals(1, link.b.dataReceived(), "the packet that activated b was received, not discarded");
        assertEquals(0, link.b.port.counters.discardsTotal());
    }

    @Test
    void initializePassesOnlyVl15AndInitFcps()
    {
        final TestPort port = new TestPort(config(false));
        port.up(0);
        port.receiveFcp(Fcp.word(Fcp.OP_INIT, 7, 1, 300), 0);
        assertEquals(300, port.creditLimit(1));
        assertEquals(7, port.receiver().blocksReceived(1));
        port.receiveFcp(Fcp.word(Fcp.OP_NORMAL, 9, 1, 400), 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_STATE));
        assertEquals(300, port.creditLimit(1), "the discarded FCP moved nothing");
        port.receiveData(1, 1, 0);
        assertEquals(1, port.counters.discards(DiscardReason.DATA_STATE));
        assertFalse(port.trySend(1, 1), "credit, but not Active");
        port.receiveData(15, 1, 0);
        assertEquals(1, port.buffers.smpsHeld(), "SMPs pass in Initialize");
        assertTrue(port.trySend(15, 1), "and are sent: VL15 needs no credit");
        assertEquals(Fcp.OP_INIT, Fcp.op(firstFcp(port.out).word()));

        // Armed: data is received (not sent), FCPs of both Ops are applied (the peer may still be initializing)
        port.arm(0);
        port.receiveFcp(Fcp.word(Fcp.OP_INIT, 8, 1, 301), 0);
        assertEquals(301, port.creditLimit(1));
        port.receiveFcp(Fcp.word(Fcp.OP_NORMAL, 9, 1, 302), 0);
        assertEquals(302, port.creditLimit(1));
        assertFalse(port.trySend(1, 1));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(lastFcp(port.out).word()), "on arming every VL's FCP is due, Op 0");
        port.receiveData(1, 1, 0);
        assertEquals(ACTIVE, port.state());
        assertTrue(port.trySend(1, 1));
    }

    @Test
    void downTakesNothingAndSendsNothing()
    {
        final TestPort port = new TestPort(config(true));
        port.receiveFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 10), 0);
        port.receiveData(0, 1, 0);
        port.receiveData(15, 1, 0);
        assertFalse(port.trySend(15, 1));
        assertFalse(port.trySend(0, 1));
        port.credit(1_000_000_000);
        port.transmit();
        assertEquals(0, port.out.committed, "no FCP either");
        assertEquals(DOWN, port.state());
        assertEquals(1, port.counters.discards(DiscardReason.FCP_STATE));
        assertEquals(1, port.counters.discards(DiscardReason.DATA_STATE));
        assertEquals(1, port.counters.discards(DiscardReason.VL15_STATE));
        assertFalse(port.arm(0));
        assertFalse(port.activate(0));
    }

    @Test
    void aLostDataPacketCostsCreditUntilTheNextFctbsFcp()
    {
        final TestLink link = new TestLink(config(true), STEP_NS);
        link.a.port.up(link.now());
        link.b.port.up(link.now());
        link.steps(3);
        assertEquals(ACTIVE, link.a.port.state());
        final TestPort a = link.a.port;
        final TestPort b = link.b.port;
        assertEquals(512, Credits.available(a.creditLimit(1), a.transmitter().blocksSent(1)));

        // a 10-block packet is lost on the wire: a counted it, b never saw it
        assertTrue(a.trySend(1, 10));
        assertFalse(a.out.poll().isFcp());
        assertEquals(0, b.receiver().blocksReceived(1));
        // b's FCPs (a period later): FCCL = ABR (0) + 512, so a's window is 10 short
        final long period = a.config.fcpPeriodNs();
        link.clock.advance(period);
        b.credit(link.now());
        b.transmit();
        a.receiveFrom(b.out, link.now());
        assertEquals(502, Credits.available(a.creditLimit(1), a.transmitter().blocksSent(1)));
        // a's FCP carries FCTBS 10: b's ABR := 10; b's next FCP gives the whole window back
        link.clock.advance(period);
        a.credit(link.now());
        a.transmit();
        b.receiveFrom(a.out, link.now());
        assertEquals(10, b.receiver().blocksReceived(1));
        assertEquals(522, b.receiver().fccl(1));
        link.clock.advance(period);
        b.credit(link.now());
        b.transmit();
        a.receiveFrom(b.out, link.now());
        assertEquals(512, Credits.available(a.creditLimit(1), a.transmitter().blocksSent(1)));
    }

    private static TestWire.Frame firstFcp(final TestWire wire)
    {
        for (TestWire.Frame frame; null != (frame = wire.poll()); )
        {
            if (FrameSink.LINK_FRAME == frame.type)
            {
                return frame;
            }
        }
        throw new AssertionError("no FCP on the wire");
    }

    private static TestWire.Frame lastFcp(final TestWire wire)
    {
        TestWire.Frame last = null;
        for (TestWire.Frame frame; null != (frame = wire.poll()); )
        {
            if (FrameSink.LINK_FRAME == frame.type)
            {
                last = frame;
            }
        }
        if (null == last)
        {
            throw new AssertionError("no FCP on the wire");
        }
        return last;
    }
}
