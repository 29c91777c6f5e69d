package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
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
 * The credit agent's state machine on its own: staleness, a peer that initializes again, a silent peer, releases
 * bounded by what was accepted, and the FCP hand-off to the transmitter.
 */
class CreditControlTest
{
    private static final long PERIOD_NS = 1_000;
    private static final long SILENCE_NS = 10_000;

    private final List<LinkState> entered = new ArrayList<>();
    private final CreditControl control = new CreditControl(
        2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, entered::add);

    private void bringUp(final long nowNs)
    {
        activate(control, nowNs);
        assertEquals(List.of(INITIALIZE, ARMED, ACTIVE), entered);
    }

    /** The next FCP due goes out: its Op. */
    private static int send(final CreditControl c, final long nowNs)
    {
        final int vl = c.pollFcp(nowNs);
        assertTrue(vl != FcpSchedule.NONE, "an FCP is due");
        return Fcp.op(c.fcpRequest(vl, nowNs));
    }

    @Test
    void everyStateEnteredIsReportedAfterItsResets()
    {
        bringUp(0);
        assertEquals(List.of(INITIALIZE, ARMED, ACTIVE), entered);
        assertEquals(1024, control.creditLimit(1));
        control.down(5);
        assertEquals(List.of(INITIALIZE, ARMED, ACTIVE, DOWN), entered);
        assertEquals(0, control.creditLimit(1), "a new epoch holds no credit");
        assertEquals(FcpSchedule.NONE, control.pollFcp(10), "no FCP while Down");
    }

    @Test
    void anFcpWhoseFctbsFallsBehindAbrIsStaleAndDiscarded()
    {
        bringUp(0);
        control.onAccepted(0, 100, 1);
        assertEquals(100, control.receiver().blocksReceived(0));
        // FCTBS 60: the peer claims to have sent fewer blocks than arrived, a duplicate of an older FCP
        assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 60, 0, 1100), 2));
        assertEquals(100, control.receiver().blocksReceived(0), "ABR unchanged");
        assertEquals(1024, control.creditLimit(0), "CL unchanged");
        // FCTBS 120: 20 blocks were lost on the way; ABR catches up and CL moves on
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 120, 0, 1100), 3));
        assertEquals(120, control.receiver().blocksReceived(0));
        assertEquals(1100, control.creditLimit(0));
    }

    @Test
    void anFcpWhoseFcclFallsBehindTheCreditLimitIsStaleAndDiscarded()
    {
        bringUp(0);
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 3000), 1));
        assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 2999), 2));
        assertEquals(3000, control.creditLimit(1));
        // the same FCCL again is a repeat, not a step back; across the 12-bit wrap forward is still forward
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 3000), 3));
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 5), 4));
        assertEquals(5, control.creditLimit(1));
        assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 4090), 5));
    }

    @Test
    void anInitFcpAfterThePeersNormalOnesRetrainsTheLink()
    {
        bringUp(0);
        control.onAccepted(0, 40, 1);
        entered.clear();
        final int verdict = control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 2);
        assertEquals(CreditControl.APPLIED, verdict, "applied as in Initialize");
        assertEquals(List.of(DOWN, INITIALIZE), entered);
        assertEquals(INITIALIZE, control.state());
        assertEquals(1, control.errorRecoveries());
        assertEquals(0, control.receiver().blocksReceived(0), "ABR from zero");
        assertEquals(512, control.creditLimit(0));
        assertEquals(Fcp.OP_INIT, Fcp.op(control.fcpRequest(control.pollFcp(2), 2)), "init FCPs due at once");
    }

    @Test
    void anActivePortRetrainedWaitsForThePeersRestartHoweverLongItWasActive()
    {
        bringUp(0);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 2 * PERIOD_NS - 1);
        assertEquals(1, control.errorRecoveries());
        assertEquals(LinkStateMachine.AWAIT_RESTART, control.link().await(), "Active for less than two periods");
        activate(control, 3 * PERIOD_NS);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 10 * PERIOD_NS);
        assertEquals(2, control.errorRecoveries());
        assertEquals(LinkStateMachine.AWAIT_RESTART, control.link().await(), "Active for seven periods: the same");
        assertEquals(Fcp.OP_INIT, send(control, 10 * PERIOD_NS));
        // the peer's init FCPs asked for before it heard of this incarnation (behind a full link) answer nothing
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 11 * PERIOD_NS));
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 512), 11 * PERIOD_NS));
        assertTrue(control.link().awaitsPeerInit(), "still waiting");
        assertEquals(DiscardReason.FCP_STATE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 512), 12 * PERIOD_NS));
        assertEquals(INITIALIZE, control.state(), "the peer's normal FCP (it armed on this port's earlier ones) arms nothing");
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 13 * PERIOD_NS);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 512), 13 * PERIOD_NS);
        assertFalse(control.link().awaitsPeerInit(), "its init FCP after a normal one: it started again");
    }

    @Test
    void theWaitLimitCountsThePeersLastFcpWholeAndNotThePortsOwnPause()
    {
        // Armed on the peer's init FCPs at 0, then init FCPs only, the last at 1,000: down at exactly 1,000 plus the
        // limit (no normal FCP for more than the limit, an FCP within it)
        armOnInitFcps(control);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 1_000);
        for (long now = 1_000; now < 1_000 + SILENCE_NS; now += 1_000)
        {
            assertFalse(control.checkLiveness(now), "at " + now);
        }
        assertTrue(control.checkLiveness(1_000 + SILENCE_NS));
        assertEquals(1, control.downs());

        // waiting in Initialize, the peer heard in init FCPs until 9,000; this port's thread stops from 9,000 to
        // 30,000: the FCPs heard before the pause still count as heard just before it, so the wait ends at 32,000
        final CreditControl c = new CreditControl(2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, s -> {});
        armOnInitFcps(c);
        assertEquals(Fcp.OP_NORMAL, send(c, 0));
        c.down(0);
        c.up(0);
        send(c, 0);
        for (long now = 1_000; now <= 9_000; now += 1_000)
        {
            // VL0's init FCPs alone: no round of every VL, so the wait limit ends the wait, not rule 6's rounds
            c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
            c.checkLiveness(now);
        }
        assertTrue(c.link().awaitsPeerInit());
        c.checkLiveness(30_000);
        assertTrue(c.link().awaitsPeerInit(), "9,000 of the peer's time without a normal FCP");
        c.checkLiveness(32_000);
        assertFalse(c.link().awaitsPeerInit(), "11,000: the peer initializes too");
    }

    @Test
    void initFcpsOfAPeerStillInitializingAreAppliedWhileArmed()
    {
        control.up(0);
        assertEquals(Fcp.OP_INIT, send(control, 0));
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 0);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 0);
        assertEquals(INITIALIZE, control.state(), "the peer's first init FCP owes it one more of this port's");
        assertEquals(Fcp.OP_INIT, send(control, 0));
        assertEquals(ARMED, control.state());
        assertEquals(Fcp.OP_NORMAL, send(control, 0), "on arming every FCP is due at once, now Op 0");
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 200), 1));
        assertEquals(ARMED, control.state());
        assertEquals(200, control.creditLimit(0));
        assertEquals(0, control.errorRecoveries());
        // even after its normal FCPs: an Armed port has sent no data, the init FCP's counters are all it needs
        control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 300), 2);
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 3));
        assertEquals(ARMED, control.state());
        assertEquals(0, control.errorRecoveries());
        assertEquals(100, control.creditLimit(0));
    }

    @Test
    void thePeersFirstInitFcpMakesEveryInitFcpDueAgainAndArmingWaitsForOneOfThem()
    {
        control.up(0);
        while (control.pollFcp(0) != FcpSchedule.NONE)
        {
            assertEquals(Fcp.OP_INIT, Fcp.op(control.fcpRequest(control.pollFcp(0), 0)));
        }
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 1);
        assertTrue(control.pollFcp(1) != FcpSchedule.NONE, "due again at once, not a period later");
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 1);
        assertEquals(INITIALIZE, control.state());
        assertEquals(Fcp.OP_INIT, send(control, 1));
        assertEquals(List.of(INITIALIZE, ARMED), entered, "armed as the owed init FCP goes out");
    }

    @Test
    void anArmedPortHearsItsPeerInNormalFcpsAndDataOnlyAndInitializesAgainForAPeerThatWaitsForIt()
    {
        armOnInitFcps(control);
        boolean down = false;
        long now = 0;
        while (!down)
        {
            now += 1_000;
            control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
            down = control.checkLiveness(now);
        }
        assertEquals(SILENCE_NS + 1_000, now, "init FCPs alone for the silence limit");
        assertEquals(1, control.downs());
        assertEquals(INITIALIZE, control.state());
        assertEquals(LinkStateMachine.AWAIT_INIT, control.link().await(), "the peer took nothing of this port");

        // a peer heard in nothing at all: the next incarnation keeps its wait
        activate(control, 2 * SILENCE_NS);
        send(control, 2 * SILENCE_NS);
        assertEquals(LinkStateMachine.AWAIT_INIT, control.link().await(), "announced, the peer seen Armed");
        assertTrue(runUntil(2 * SILENCE_NS, 4 * SILENCE_NS, 1_000));
        assertEquals(LinkStateMachine.AWAIT_INIT, control.link().await());

        // under an SM the peer's init FCPs keep an Armed port alive: the SM arms the peer when it will
        final CreditControl sm = new CreditControl(
            2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, false, SILENCE_NS, (state) -> {});
        sm.up(0);
        sm.arm(0);
        for (long t = 1_000; t <= 5 * SILENCE_NS; t += 1_000)
        {
            sm.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), t);
            assertFalse(sm.checkLiveness(t));
        }
    }

    @Test
    void aWaitingPortThatHearsOnlyInitFcpsForTheSilenceLimitStopsWaiting()
    {
        // announced while the peer still initialized (so only its restart would end the wait), then bounced
        armOnInitFcps(control);
        assertEquals(Fcp.OP_NORMAL, send(control, 0));
        assertEquals(LinkStateMachine.AWAIT_RESTART, control.link().await());
        control.down(1);
        control.up(1);
        send(control, 1);
        long now = 1;
        while (control.link().awaitsPeerInit())
        {
            now += 1_000;
            // VL0's init FCPs alone: no round of every VL for rule 6's early end, the wait limit ends the wait
            control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
            assertFalse(control.checkLiveness(now));
            assertEquals(INITIALIZE, control.state());
        }
        assertEquals(1 + SILENCE_NS + 1_000, now, "the peer initializes too: it holds nothing of this port");
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), now);
        send(control, now);
        assertEquals(ARMED, control.state(), "armed on its init FCPs");

        // an Armed port counts the wait limit from the peer's last normal FCP (or packet): the peer armed then, and
        // has initialized again since
        final CreditControl c = new CreditControl(2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, s -> {});
        armOnInitFcps(c);
        for (int i = 1; i <= 20; i++)
        {
            c.onFcp(Fcp.word(i == 3 ? Fcp.OP_NORMAL : Fcp.OP_INIT, 0, 0, 100), i * 1_000L);
            c.checkLiveness(i * 1_000L);
            assertEquals(i < 14 ? 0 : 1, c.downs(), "at " + i + ": the limit counts from the normal FCP");
        }
    }

    @Test
    void blocksStoredBeforeAReinitializationHoldTheirSpaceButTheNewAbrDoesNotCountThem()
    {
        bringUp(0);
        control.onAccepted(0, 10, 1);
        control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 512), 2);
        assertEquals(INITIALIZE, control.state());
        control.onAcceptedEarlier(0, 6);
        assertEquals(0, control.receiver().blocksReceived(0), "the peer's FCTBS restarted: ABR counts from zero");
        assertEquals(1024 - 16, control.receiver().freeBlocks(0), "both packets still fill the buffer");
        assertEquals(1024 - 16, control.receiver().fccl(0));
        assertTrue(control.releasePending(0));
        assertEquals(16, control.onReleased(0, 16), "released as usual");
        assertEquals(1024, control.receiver().freeBlocks(0));
        assertThrows(IllegalStateException.class, () -> control.onAcceptedEarlier(1, 1025));

        // in whole chunks of the buffer's allocation, up to the last free one
        final CreditReceiver chunked = new CreditReceiver(1, 8, 128);
        assertTrue(chunked.occupy(0, 3), "3 blocks take two 128-byte chunks");
        assertEquals(4, chunked.freeBlocks(0));
        assertEquals(0, chunked.blocksReceived(0));
        assertTrue(chunked.occupy(0, 4), "exactly what is free");
        assertEquals(0, chunked.freeBlocks(0));
        assertFalse(chunked.occupy(0, 1), "nothing moves when it does not fit");
        assertEquals(0, chunked.freeBlocks(0));
    }

    /** Run the port's liveness check every {@code stepNs} from {@code fromNs} to {@code toNs}. */
    private boolean runUntil(final long fromNs, final long toNs, final long stepNs)
    {
        boolean down = false;
        for (long now = fromNs; now <= toNs && !down; now += stepNs)
        {
            down = control.checkLiveness(now);
        }
        return down;
    }

    @Test
    void aSilentPeerTakesAnArmedOrActivePortDownAndItReinitializes()
    {
        bringUp(0);
        assertFalse(runUntil(0, SILENCE_NS, 1_000), "exactly the limit is not yet silence");
        control.onAccepted(1, 1, 5_000);
        assertFalse(runUntil(SILENCE_NS, 5_000 + SILENCE_NS, 1_000), "a packet counts as hearing the peer");
        entered.clear();
        assertTrue(control.checkLiveness(5_001 + SILENCE_NS));
        assertEquals(List.of(DOWN, INITIALIZE), entered);
        assertEquals(1, control.downs());
        // waiting in Initialize for the peer to come back is not silence
        assertFalse(runUntil(5_001 + SILENCE_NS, 10 * SILENCE_NS, 1_000));
        assertEquals(1, control.downs());
    }

    @Test
    void timeThePortItselfWasNotRunningIsNotThePeersSilence()
    {
        bringUp(0);
        assertFalse(control.checkLiveness(2_000));
        // this port's thread stopped for five limits (a long collection): the peer's FCPs are still unread
        assertFalse(control.checkLiveness(2_000 + 5 * SILENCE_NS));
        assertEquals(ACTIVE, control.state());
        // running again, the peer really is silent: once the silence counted (2,000 ns before the pause, the rest
        // after it) passes the limit, it is declared lost
        assertFalse(runUntil(3_000 + 5 * SILENCE_NS, 6 * SILENCE_NS, 1_000));
        assertTrue(control.checkLiveness(6 * SILENCE_NS + 1));
    }

    @Test
    void aPortWithoutASilenceLimitNeverTimesOut()
    {
        final CreditControl patient = new CreditControl(
            1, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, false, CreditControl.NO_SILENCE_LIMIT, (state) -> {});
        patient.up(0);
        patient.arm(0);
        patient.activate(0);
        assertFalse(patient.checkLiveness(Long.MAX_VALUE));
        assertEquals(ACTIVE, patient.state());
    }

    /**
     * Rule 4's window counts a gap between two duty cycles longer than an FCP period but within the silence limit's pause
     * bound (a quarter of the wait limit) as running: with FCPs every microsecond and a thread that yields or sleeps, a
     * window that left out every gap of more than a period would never close, and the wait limit (rule 5, link_downed)
     * would end every one-sided bounce instead.
     */
    @Test
    void rule4sWindowLeavesOutOnlyAPauseLongerThanTheSilenceLimitsPauseBound()
    {
        final CreditControl port = windowOpenAt0();
        // the next check two periods later: a gap of two periods counts, so the window is over at 3's check; the rounds
        // complete at 4 and 5 (left out as a pause, the window would end at 5 and the rounds at 6 and 7)
        for (final long at : new long[] {3 * PERIOD_NS, 4 * PERIOD_NS})
        {
            assertFalse(initRound(port, at), "at " + at);
        }
        assertTrue(initRound(port, 5 * PERIOD_NS), "not left out: a gap of two periods is no pause here");
        assertEquals(1, port.reannounces());
        assertEquals(0, port.downs());
    }

    /**
     * A pause of this port's thread ends at the check of the duty cycle after it; what that duty cycle read before the
     * check (the FCPs that waited through the pause) was heard then, not a pause later. The walk's seed-7 episode: a port
     * starved for 34 FCP periods read its peer's normal FCP, which opened rule 4's window, and the check then moved the
     * window's start on by the whole pause, so that the port initialized again 38 periods after the faults ended.
     */
    @Test
    void whatADutyCycleReadsAfterAPauseIsHeardThenNotAPauseLater()
    {
        final CreditControl port = windowOpenAt0();
        // paused until 20: the first duty cycle reads the peer's normal FCP, then checks (the window starts at 20)
        port.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 100), 20 * PERIOD_NS);
        assertFalse(port.checkLiveness(20 * PERIOD_NS));
        // init FCPs of both VLs each period: the window is over at 23's check, the rounds complete at 24 and 25
        for (long at = 21 * PERIOD_NS; at <= 24 * PERIOD_NS; at += PERIOD_NS)
        {
            assertFalse(initRound(port, at), "at " + at);
        }
        assertTrue(initRound(port, 25 * PERIOD_NS), "rule 4 from the FCP read after the pause");
        assertEquals(1, port.reannounces());

        // the silence limit likewise: Active, paused until 20, the peer's normal FCP read, then silence: down once the
        // limit has passed since 20, not since 20 plus the pause
        final CreditControl active = new CreditControl(
            2, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, (state) -> {});
        activate(active, 0);
        assertFalse(active.checkLiveness(PERIOD_NS));
        active.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 1024), 20 * PERIOD_NS);
        assertFalse(active.checkLiveness(20 * PERIOD_NS));
        for (long at = 21 * PERIOD_NS; at <= 30 * PERIOD_NS; at += PERIOD_NS)
        {
            assertFalse(active.checkLiveness(at), "at " + at);
        }
        assertTrue(active.checkLiveness(31 * PERIOD_NS), "silent for the limit since the FCP read after the pause");
        assertEquals(1, active.downs());
    }

    /**
     * Rule 4: an Armed port that hears its peer only in init FCPs for two FCP periods of its own running after its first
     * normal FCP, then in two rounds of every VL each completed in a later duty cycle, initializes again at once: no link
     * error, no flush, no link_downed; it waits for the peer's next init FCP. A normal FCP of the peer opens the window
     * again, and a pause of this port's thread longer than the pause bound (a quarter of the wait limit) does not count.
     */
    @Test
    void anArmedPortHeardOnlyInInitFcpsInitializesAgainWithoutALinkError()
    {
        // a silence limit of 10 periods: the window is a quarter of it, 2.5 periods
        final CreditControl port = new CreditControl(
            2, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, (state) -> {});
        port.up(0);
        send(port, 0);
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 0);
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 0);
        send(port, 0);
        assertEquals(ARMED, port.state());
        assertEquals(Fcp.OP_NORMAL, Fcp.op(port.fcpRequest(0, 0)), "its first normal FCP opens the window");
        // a normal FCP of the peer a period later: the window starts again from there
        port.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 100), PERIOD_NS);
        assertFalse(port.checkLiveness(PERIOD_NS));
        // init FCPs of both VLs each period; a pause of this port's thread (three periods between two checks, past the
        // pause bound of 2.5) in the window does not count
        long now = PERIOD_NS;
        final long[] checks = {2 * PERIOD_NS, 5 * PERIOD_NS, 6 * PERIOD_NS, 7 * PERIOD_NS, 8 * PERIOD_NS};
        for (final long at : checks)
        {
            now = at;
            port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
            port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), now);
            assertFalse(port.checkLiveness(now), "at " + now);
            assertEquals(ARMED, port.state(), "at " + now);
        }
        // the window: 1 period before the pause, 2.5 after it (over at 7's check); the first round completed at 8, the
        // second at 9, when the port goes
        now = 9 * PERIOD_NS;
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
        assertFalse(port.checkLiveness(now), "one VL is no round");
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), now);
        assertTrue(port.checkLiveness(now));
        assertEquals(INITIALIZE, port.state());
        assertEquals(1, port.reannounces());
        assertEquals(0, port.downs(), "not link_downed");
        assertEquals(0, port.errorRecoveries(), "not a re-training");
        assertEquals(0, port.transmitFlushes(), "nothing flushed");
        assertEquals(LinkStateMachine.AWAIT_INIT, port.link().await(), "the peer took nothing of it");
        assertEquals(Fcp.OP_INIT, Fcp.op(port.fcpRequest(0, now)), "its init FCP after its normal ones");

        // a silence limit of 4 periods: the window is 2 periods (more than a quarter of the limit), from the first
        // normal FCP at 1; over at 3's check exactly, rounds at 4 and 5
        final CreditControl brisk = new CreditControl(
            1, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, 4 * PERIOD_NS, (state) -> {});
        brisk.up(0);
        send(brisk, 0);
        brisk.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 0);
        send(brisk, 0);
        assertEquals(ARMED, brisk.state());
        assertFalse(brisk.checkLiveness(PERIOD_NS));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(brisk.fcpRequest(0, PERIOD_NS)));
        for (long at = 2 * PERIOD_NS; at <= 4 * PERIOD_NS; at += PERIOD_NS)
        {
            brisk.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), at);
            assertFalse(brisk.checkLiveness(at), "at " + at);
        }
        brisk.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 5 * PERIOD_NS);
        assertTrue(brisk.checkLiveness(5 * PERIOD_NS));
        assertEquals(1, brisk.reannounces());
        assertEquals(0, brisk.downs());

        // rule 6: a port waiting for its peer's restart in Initialize, its peer heard only in init FCPs of every VL for
        // the window (from entering Initialize) and two rounds, stops waiting
        final CreditControl waiting = new CreditControl(
            2, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, (state) -> {});
        armOnInitFcps(waiting);
        assertEquals(Fcp.OP_NORMAL, send(waiting, 0));
        assertEquals(LinkStateMachine.AWAIT_RESTART, waiting.link().await());
        waiting.down(0);
        waiting.up(0);
        send(waiting, 0);
        for (long at = PERIOD_NS; at <= 4 * PERIOD_NS; at += PERIOD_NS)
        {
            waiting.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), at);
            waiting.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), at);
            assertFalse(waiting.checkLiveness(at));
            assertTrue(waiting.link().awaitsPeerInit(), "at " + at);
        }
        // window over at 3's check, rounds at 4 and 5
        waiting.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 5 * PERIOD_NS);
        waiting.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 5 * PERIOD_NS);
        assertFalse(waiting.checkLiveness(5 * PERIOD_NS));
        assertFalse(waiting.link().awaitsPeerInit(), "the peer initializes too");
        assertEquals(INITIALIZE, waiting.state());
        assertEquals(0, waiting.downs() + waiting.reannounces());
    }

    @Test
    void withoutASilenceLimitTheWaitLimitIsSixtyFourFcpPeriods()
    {
        final CreditControl patient = new CreditControl(
            2, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, CreditControl.NO_SILENCE_LIMIT, (state) -> {});
        patient.up(0);
        send(patient, 0);
        patient.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 0);
        patient.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 0);
        send(patient, 0);
        assertEquals(ARMED, patient.state());
        final long limit = CreditControl.WAIT_LIMIT_PERIODS * PERIOD_NS;
        long now = 0;
        while (ARMED == patient.state())
        {
            now += PERIOD_NS;
            patient.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
            patient.checkLiveness(now);
        }
        assertEquals(limit + PERIOD_NS, now, "an Armed port whose peer sends only init FCPs: rule 4 after 64 periods");
        assertEquals(1, patient.downs());
        assertEquals(INITIALIZE, patient.state());
        // silence alone never takes it down
        send(patient, now);
        patient.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 100), now);
        assertEquals(INITIALIZE, patient.state(), "waits for the peer's init FCP (AWAIT_INIT)");
        patient.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), now);
        send(patient, now);
        patient.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), now);
        patient.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 100), now);
        patient.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 1, 100), now);
        assertEquals(ACTIVE, patient.state());
        assertFalse(patient.checkLiveness(Long.MAX_VALUE / 2));
        assertEquals(ACTIVE, patient.state());
    }

    @Test
    void onlyWhatWasAcceptedIsReleased()
    {
        bringUp(0);
        final int free = control.receiver().freeBlocks(0);
        assertFalse(control.releasePending(0), "nothing accepted, nothing to release");
        control.onAccepted(0, 10, 1);
        assertTrue(control.releasePending(0));
        assertFalse(control.releasePending(1), "per VL");
        // the application already took 16 blocks, 6 of whose acceptance has not arrived yet
        assertEquals(10, control.onReleased(0, 16));
        assertEquals(free, control.receiver().freeBlocks(0));
        assertFalse(control.releasePending(0), "all accepted released: the 6 wait for their acceptance");
        assertEquals(0, control.onReleased(0, 16), "a count is handed over once");
        control.onAccepted(0, 6, 2);
        assertTrue(control.releasePending(0));
        assertEquals(6, control.onReleased(0, 16), "the rest, once accepted");
        assertFalse(control.releasePending(0));
        assertEquals(free, control.receiver().freeBlocks(0));
    }

    @Test
    void aMismatchBetweenBufferAndAccountingIsABugNotWireInput()
    {
        bringUp(0);
        assertThrows(IllegalStateException.class, () -> control.onAccepted(0, 1025, 1));
    }

    @Test
    void theTransmitterCompletesTheRequestWithItsFctbs()
    {
        bringUp(0);
        final CreditTransmitter transmitter = new CreditTransmitter(2);
        transmitter.onCreditLimit(1, 1024);
        assertTrue(transmitter.tryTransmit(1, 7));
        final int vl = control.pollFcp(0);
        final int request = control.fcpRequest(vl, 0);
        assertEquals(0, Fcp.fctbs(request));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(request));
        assertEquals(control.receiver().fccl(vl), Fcp.fccl(request));
        final int word = transmitter.fcp(request);
        assertEquals(vl, Fcp.vl(word));
        assertEquals(vl == 1 ? 7 : 0, Fcp.fctbs(word));
        assertEquals(Fcp.fccl(request), Fcp.fccl(word));
        assertEquals(Fcp.OP_NORMAL, Fcp.op(word));
    }

    @Test
    void wellFormedButUnusableFcpsAreRefusedByReason()
    {
        assertEquals(DiscardReason.FCP_STATE.id(), control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 1), 0), "Down");
        control.up(0);
        assertEquals(DiscardReason.FCP_VL15.id(), control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 15, 1), 0));
        assertEquals(DiscardReason.FCP_MISSING_VL.id(), control.onFcp(Fcp.word(Fcp.OP_INIT, 0, 2, 1), 0));
        assertEquals(DiscardReason.FCP_STATE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 1), 0),
            "a normal FCP in Initialize is not applied");
        assertEquals(INITIALIZE, control.state(), "nor does it arm the port before its own init FCP went out");
        final int vl = control.pollFcp(0);
        assertEquals(Fcp.OP_INIT, Fcp.op(control.fcpRequest(vl, 0)));
        assertEquals(ARMED, control.state(), "its init FCP out, the normal FCP seen arms it");
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 1), 0), "now applied");
    }

    @Test
    void aNonPositiveSilenceLimitIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> new CreditControl(
            1, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, 0, (state) -> {}));
    }

    @Test
    void aPauseIsMoreThanAQuarterOfTheLimitBetweenTwoChecks()
    {
        bringUp(0);
        // checks exactly a quarter of the limit apart are the port running: silence accumulates
        assertFalse(runUntil(0, SILENCE_NS, SILENCE_NS / 4));
        assertTrue(control.checkLiveness(SILENCE_NS + SILENCE_NS / 4), "silent for more than the limit");

        final CreditControl other = new CreditControl(
            2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, (state) -> {});
        other.up(0);
        send(other, 0);
        other.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 1), 0);
        other.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 1), 0);
        send(other, 0);
        assertEquals(ARMED, other.state());
        // one check, then a pause of twice the limit (well over a quarter): not the peer's silence
        assertFalse(other.checkLiveness(1));
        assertFalse(other.checkLiveness(1 + 2 * SILENCE_NS));
        assertFalse(other.checkLiveness(2 + 2 * SILENCE_NS));
        assertEquals(ARMED, other.state());
    }

    @Test
    void fcpsHeardRegularlyKeepThePeerAlive()
    {
        bringUp(0);
        for (long now = 1_000; now <= 20 * SILENCE_NS; now += 1_000)
        {
            if (now % (SILENCE_NS / 2) == 0)
            {
                assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 1024), now));
            }
            assertFalse(control.checkLiveness(now), "at " + now);
        }
        assertEquals(0, control.downs());
    }

    @Test
    void aWholeWindowAheadIsNotStale()
    {
        bringUp(0);
        control.onAccepted(0, 10, 1);
        // FCTBS a whole window (2048 blocks) ahead of ABR: that much may have been lost; FCCL 2048 past CL likewise
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 10 + 2048, 0, 1024 + 2048), 2));
        assertEquals(2058, control.receiver().blocksReceived(0));
        assertEquals(3072, control.creditLimit(0));
    }

    @Test
    void aPeerThatClosesTakesTheLinkDownAtOnceUnlessItIsDown()
    {
        assertFalse(control.onPeerClosed(0), "nothing happens while Down");
        assertEquals(0, control.downs());
        bringUp(0);
        entered.clear();
        assertTrue(control.onPeerClosed(5));
        assertEquals(List.of(DOWN, INITIALIZE), entered);
        assertEquals(1, control.downs());
        assertTrue(control.onPeerClosed(6), "closed again while initializing: down and up again");
        assertEquals(2, control.downs());
    }

    @Test
    void commandsReportWhetherTheStateChanged()
    {
        assertEquals(2, control.dataVls());
        assertTrue(control.up(0));
        assertFalse(control.up(1), "already up");
        assertTrue(control.arm(1));
        assertFalse(control.arm(2));
        assertTrue(control.activate(2));
        assertFalse(control.activate(3));
        assertTrue(control.down(3));
        assertFalse(control.down(4));
        assertEquals(List.of(INITIALIZE, ARMED, ACTIVE, DOWN), entered);
    }

    @Test
    void aRunOfStaleFcpsMeansTheCountersDisagreeAndTheLinkRetrains()
    {
        bringUp(0);
        // an FCP of the peer's previous incarnation, applied after both ends re-initialized, left ABR ahead: every FCP
        // of the peer's new incarnation now looks stale
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 2000, 0, 1024), 1));
        entered.clear();
        for (int i = 1; i < CreditControl.STALE_RUN_LIMIT; i++)
        {
            assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 5, 0, 1024), 1 + i));
            assertEquals(ACTIVE, control.state(), "one stale FCP is a duplicate or a replay: discarded");
        }
        assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 5, 0, 1024), 9));
        assertEquals(List.of(DOWN, INITIALIZE), entered, "a run of them: re-train");
        assertEquals(1, control.errorRecoveries());
        assertEquals(0, control.receiver().blocksReceived(0));

        // a run is counted within one incarnation: a run broken by a re-initialization starts again
        activate(control, 20);
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 2000, 0, 1024), 21));
        for (int i = 1; i < CreditControl.STALE_RUN_LIMIT; i++)
        {
            control.onFcp(Fcp.word(Fcp.OP_NORMAL, 5, 0, 1024), 21 + i);
        }
        control.down(30);
        activate(control, 30);
        assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 2000, 0, 1024), 31));
        assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 5, 0, 1024), 32));
        assertEquals(ACTIVE, control.state(), "the first stale FCP of this incarnation");
        assertEquals(1, control.errorRecoveries());
    }

    @Test
    void anAppliedFcpEndsAStaleRun()
    {
        bringUp(0);
        control.onAccepted(0, 100, 1);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(DiscardReason.FCP_STALE.id(), control.onFcp(Fcp.word(Fcp.OP_NORMAL, 50, 0, 1024), 2));
            assertEquals(CreditControl.APPLIED, control.onFcp(Fcp.word(Fcp.OP_NORMAL, 100, 0, 1024), 3));
        }
        assertEquals(ACTIVE, control.state(), "replays among good FCPs never take the link down");
        assertEquals(0, control.errorRecoveries());
    }

    @Test
    void everyLinkErrorFromArmedOrActiveFlushesTheTransmitPathButNotADownOnRequest()
    {
        // each flush is counted before the Down it causes is reported: the listener can act on it
        final List<Long> flushesAtDown = new ArrayList<>();
        final CreditControl[] self = new CreditControl[1];
        self[0] = new CreditControl(2, 1024, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, state ->
        {
            if (DOWN == state)
            {
                flushesAtDown.add(self[0].transmitFlushes());
            }
        });
        final CreditControl c = self[0];
        c.up(0);
        assertTrue(c.onPeerClosed(1), "a close while Initialize re-initializes");
        assertEquals(0, c.transmitFlushes(), "nothing was sent while Initialize: no flush");

        // Armed: the peer closes
        send(c, 2);
        c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 2);
        c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 2);
        send(c, 2);
        assertEquals(ARMED, c.state());
        assertTrue(c.onPeerClosed(3));
        assertEquals(1, c.transmitFlushes());

        // Active: the peer falls silent
        activate(c, 10);
        boolean silent = false;
        for (long now = 1_000; now <= 2 * SILENCE_NS && !silent; now += 1_000)
        {
            silent = c.checkLiveness(now);
        }
        assertTrue(silent);
        assertEquals(2, c.transmitFlushes());

        // Active: the peer initialized again
        activate(c, 20 * SILENCE_NS);
        c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 20 * SILENCE_NS + 1);
        assertEquals(3, c.transmitFlushes());
        assertEquals(1, c.errorRecoveries());

        // Active: a run of stale FCPs
        activate(c, 30 * SILENCE_NS);
        c.onFcp(Fcp.word(Fcp.OP_NORMAL, 2000, 0, 1024), 30 * SILENCE_NS);
        for (int i = 0; i < CreditControl.STALE_RUN_LIMIT; i++)
        {
            c.onFcp(Fcp.word(Fcp.OP_NORMAL, 5, 0, 1024), 30 * SILENCE_NS + 1);
        }
        assertEquals(4, c.transmitFlushes());
        assertEquals(2, c.errorRecoveries());

        // Active: down on request is not a link error
        activate(c, 40 * SILENCE_NS);
        assertTrue(c.down(40 * SILENCE_NS + 1));
        assertEquals(4, c.transmitFlushes());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 4L), flushesAtDown);
    }

    /**
     * From Initialize (or Down) to Active, whatever the port waits for: its init FCP out, then the peer's normal FCP
     * (it was Armed), its init FCPs (it initialized again: a change of Op), the owed init FCP out (armed), and the
     * peer's normal FCPs. No normal FCP of this port goes out.
     */
    /**
     * Two VLs, a silence limit of 10 periods (the window and the pause bound are 2.5 periods): Armed at 0, its first
     * normal FCP out at 0, which opens rule 4's window, and checked a period later.
     */
    private static CreditControl windowOpenAt0()
    {
        final CreditControl port = new CreditControl(
            2, 512, Sizes.BLOCK_LENGTH, PERIOD_NS, 64, true, SILENCE_NS, (state) -> {});
        armOnInitFcps(port);
        assertEquals(Fcp.OP_NORMAL, send(port, 0), "its first normal FCP, at 0, opens the window");
        assertFalse(port.checkLiveness(PERIOD_NS));
        return port;
    }

    /** A duty cycle that reads the peer's init FCPs of both VLs, then checks: whether the port initialized again. */
    private static boolean initRound(final CreditControl port, final long nowNs)
    {
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), nowNs);
        port.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), nowNs);
        return port.checkLiveness(nowNs);
    }

    /** Up at 0, its init FCPs out, the peer's init FCPs of both VLs, the owed one out again: Armed. */
    private static void armOnInitFcps(final CreditControl c)
    {
        c.up(0);
        send(c, 0);
        c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 0, 100), 0);
        c.onFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 100), 0);
        send(c, 0);
        assertEquals(ARMED, c.state());
    }

    private static void activate(final CreditControl c, final long nowNs)
    {
        c.up(nowNs);
        send(c, nowNs);
        c.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 0, 1024), nowNs);
        for (int vl = 0; vl < 2; vl++)
        {
            c.onFcp(Fcp.word(Fcp.OP_INIT, 0, vl, 1024), nowNs);
        }
        if (INITIALIZE == c.state())
        {
            assertEquals(Fcp.OP_INIT, send(c, nowNs));
        }
        for (int vl = 0; vl < 2; vl++)
        {
            c.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, vl, 1024), nowNs);
        }
        assertEquals(ACTIVE, c.state());
    }
}
