package io.vlink.core.port;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.Fcp;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PortCredit} on its own, as the engine composes it: a {@link CreditEventRing} it reads each duty cycle (or no
 * ring: the receive half calls it), the {@link FcpRequestRing} it fills, the {@link CreditLimits} it publishes, a
 * consumer whose releases the test sets ({@link Consumer}), and the counters it writes ({@link TestCounters}). Every
 * counter and gauge it writes is read back after the call that writes it, every verdict of {@link CreditControl} it
 * acts on is followed to what it hands on (a credit limit, an FCP request, a discard by reason, a listener call), and
 * each duty cycle's work count is checked: the engine's idle strategy acts on it. The rules themselves are
 * {@code CreditControl}'s and tested there.
 */
class PortCreditTest
{
    private static final int VLS = 2;
    private static final int BLOCKS = 64;
    private static final long PERIOD_NS = 1_000;
    private static final long SILENCE_NS = 1_000_000;
    /** What a gauge holds before the credit half first writes it: a value it never writes by itself. */
    private static final long SENTINEL = 777;

    private final TestCounters counters = new TestCounters();
    private final CreditLimits limits = new CreditLimits();
    private final FcpRequestRing requests = new FcpRequestRing(memory(FcpRequestRing.MIN_CAPACITY,
        FcpRequestRing.TRAILER_LENGTH));
    private final CreditEventRing events = new CreditEventRing(memory(64 * 1024, CreditEventRing.TRAILER_LENGTH));
    private final Consumer consumer = new Consumer();
    private final Owner owner = new Owner();

    /** The consumer of the receive buffers: what it released, set by the test, and which VLs it was asked about. */
    static final class Consumer implements ReceiveBuffers
    {
        final long[] released = new long[16];
        final int[] asked = new int[16];

        @Override
        public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
        {
            throw new UnsupportedOperationException("the credit half stores nothing");
        }

        @Override
        public long releasedBlocks(final int vl)
        {
            asked[vl]++;
            return released[vl];
        }
    }

    /** The owner's part of each state entry: what it was told, and what the counters said when it was. */
    final class Owner implements PortCredit.Listener
    {
        final List<String> calls = new ArrayList<>();

        @Override
        public void onTransmitFlush(final long flushes)
        {
            calls.add("flush " + flushes + " in " + LinkState.get((int)counters.linkState()));
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            calls.add(state + " transitions " + counters.linkTransitions() + " state " + counters.linkState() +
                " epoch " + limits.epoch());
        }
    }

    private static UnsafeBuffer memory(final int capacity, final int trailer)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity + trailer, BitUtil.CACHE_LINE_LENGTH));
    }

    private static PortConfig config(final int dataVls, final boolean automatic)
    {
        return PortConfig.builder().qos(io.vlink.core.qos.QosConfig.opensmDefaults(dataVls)).bufferBlocks(BLOCKS)
            .fcpPeriodNs(PERIOD_NS).automatic(automatic).silenceLimitNs(SILENCE_NS).build();
    }

    private PortCredit credit(final boolean queued)
    {
        return new PortCredit(config(VLS, true), consumer, queued ? events : null, requests, limits, counters.credit(),
            owner);
    }

    private static int init(final int vl, final int fccl)
    {
        return Fcp.word(Fcp.OP_INIT, 0, vl, fccl);
    }

    private static int normal(final int vl, final int fctbs, final int fccl)
    {
        return Fcp.word(Fcp.OP_NORMAL, fctbs, vl, fccl);
    }

    /** Every FCP request in the ring, taken. */
    private List<Integer> takeRequests()
    {
        final List<Integer> taken = new ArrayList<>();
        for (int request = requests.take(); FcpRequestRing.NONE != request; request = requests.take())
        {
            taken.add(request);
        }
        return taken;
    }

    /** Up, trained on the peer's init FCPs, armed and made Active by its normal ones; the requests taken. */
    private PortCredit active(final PortCredit credit)
    {
        assertTrue(credit.up(0));
        train(credit, 0);
        return credit;
    }

    /**
     * From Initialize: the peer's init FCPs of every VL, the port's own in answer (on which it arms), the peer's
     * normal FCPs; Active, the requests taken, the transmit work and the owner's calls cleared.
     */
    private void train(final PortCredit credit, final long nowNs)
    {
        assertEquals(LinkState.INITIALIZE, credit.state());
        for (int vl = 0; vl < VLS; vl++)
        {
            credit.onFcp(init(vl, BLOCKS), nowNs);
        }
        credit.doWork(nowNs);
        assertEquals(LinkState.ARMED, credit.state());
        for (int vl = 0; vl < VLS; vl++)
        {
            credit.onFcp(normal(vl, 0, BLOCKS), nowNs);
        }
        assertEquals(LinkState.ACTIVE, credit.state());
        takeRequests();
        credit.takeTransmitWork();
        owner.calls.clear();
    }

    private void presetGauges()
    {
        for (int vl = 0; vl < 16; vl++)
        {
            counters.credit().rxFreeBlocks[vl].set(SENTINEL);
            counters.credit().rxAbr[vl].set(SENTINEL);
            counters.credit().txCreditLimit[vl].set(SENTINEL);
        }
        counters.credit().linkState.set(SENTINEL);
    }

    // ---------------------------------------------------------------- construction and commands

    @Test
    void aNewPortIsDownWithEveryDataVlsFreeBlocksPublishedAndNoOtherVls()
    {
        presetGauges();
        final PortCredit credit = credit(true);
        assertEquals(LinkState.DOWN, credit.state());
        assertEquals(LinkState.DOWN.code(), counters.linkState());
        for (int vl = 0; vl < VLS; vl++)
        {
            assertEquals(BLOCKS, counters.rxFreeBlocks(vl), "VL" + vl);
        }
        assertEquals(SENTINEL, counters.rxFreeBlocks(VLS), "a VL the port lacks");
        assertEquals(0, counters.linkTransitions());
        assertEquals(List.of(), owner.calls);
        assertFalse(credit.takeTransmitWork());
        assertEquals(BLOCKS, credit.control().receiver().freeBlocks(0), "the rules it runs");
    }

    @Test
    void upEntersInitializeWithANewEpochCountedBeforeTheOwnerIsToldAndAsksForEveryInitFcpAtOnce()
    {
        final PortCredit credit = credit(true);
        presetGauges();
        final int epoch = limits.epoch();
        limits.publish(1, 99);
        assertTrue(credit.up(5));
        assertEquals(LinkState.INITIALIZE, credit.state());
        assertEquals(epoch + 1, limits.epoch());
        assertEquals(0, limits.limit(1), "every CL from zero");
        assertEquals(List.of("INITIALIZE transitions 1 state 1 epoch " + (epoch + 1)), owner.calls);
        assertEquals(1, counters.linkTransitions());
        assertEquals(LinkState.INITIALIZE.code(), counters.linkState());
        for (int vl = 0; vl < VLS; vl++)
        {
            assertEquals(0, counters.rxAbr(vl));
            assertEquals(0, counters.txCreditLimit(vl));
            assertEquals(BLOCKS, counters.rxFreeBlocks(vl));
        }
        assertEquals(SENTINEL, counters.rxAbr(VLS), "a VL the port lacks");
        assertEquals(SENTINEL, counters.txCreditLimit(VLS));
        assertEquals(List.of(init(0, BLOCKS), init(1, BLOCKS)), takeRequests());
        assertTrue(credit.takeTransmitWork());
        assertFalse(credit.takeTransmitWork(), "cleared");

        assertFalse(credit.up(6), "already up");
        assertEquals(List.of(), takeRequests());
        assertFalse(credit.takeTransmitWork());
        assertEquals(1, counters.linkTransitions());
    }

    @Test
    void theSubnetManagersCommandsAnswerWhetherTheStateChanged()
    {
        final PortCredit credit = new PortCredit(config(VLS, false), consumer, events, requests, limits,
            counters.credit(), owner);
        assertFalse(credit.arm(1), "Down");
        assertFalse(credit.activate(1));
        assertFalse(credit.down(1));
        assertEquals(0, counters.linkTransitions());
        assertTrue(credit.up(1));
        assertFalse(credit.activate(2), "Initialize");
        assertTrue(credit.arm(2));
        assertEquals(LinkState.ARMED.code(), counters.linkState());
        assertFalse(credit.arm(3), "Armed");
        assertTrue(credit.activate(3));
        assertEquals(LinkState.ACTIVE.code(), counters.linkState());
        assertTrue(credit.down(4));
        assertFalse(credit.down(5));
        assertEquals(LinkState.DOWN.code(), counters.linkState());
        assertEquals(4, counters.linkTransitions());
        assertEquals(List.of("INITIALIZE transitions 1 state 1 epoch 1", "ARMED transitions 2 state 2 epoch 1",
            "ACTIVE transitions 3 state 3 epoch 1", "DOWN transitions 4 state 0 epoch 1"), owner.calls,
            "a down on request flushes nothing");
        assertEquals(0, counters.linkDowned());
    }

    // ---------------------------------------------------------------- FCPs

    @Test
    void anAppliedFcpPublishesItsVlsCreditLimitAndGaugesAndCountsIt()
    {
        final PortCredit credit = active(credit(false));
        final long received = counters.fcpReceived();
        credit.onFcp(normal(1, 5, 100), 10);
        assertEquals(100, limits.limit(1));
        assertEquals(100, counters.txCreditLimit(1));
        assertEquals(5, counters.rxAbr(1), "ABR := FCTBS");
        assertEquals(BLOCKS, limits.limit(0), "the other VL's CL as it was");
        assertEquals(BLOCKS, counters.txCreditLimit(0));
        assertEquals(0, counters.rxAbr(0));
        assertEquals(received + 1, counters.fcpReceived());
        assertEquals(0, counters.fcpDiscarded());
        assertTrue(credit.takeTransmitWork(), "a new credit limit for the transmit half");
        assertEquals(List.of(), owner.calls);
    }

    @Test
    void aRefusedFcpIsCountedByReasonAndChangesNothing()
    {
        // not automatic: the normal FCP does not arm the port
        final PortCredit credit = new PortCredit(config(VLS, false), consumer, null, requests, limits,
            counters.credit(), owner);
        credit.up(0);
        takeRequests();
        credit.takeTransmitWork();
        credit.onFcp(normal(0, 3, 30), 1);
        assertEquals(1, counters.discards(DiscardReason.FCP_STATE), "a normal FCP in Initialize");
        credit.onFcp(Fcp.word(Fcp.OP_INIT, 0, 15, 30), 1);
        assertEquals(1, counters.discards(DiscardReason.FCP_VL15));
        credit.onFcp(init(VLS, 30), 1);
        assertEquals(1, counters.discards(DiscardReason.FCP_MISSING_VL));
        assertEquals(3, counters.fcpDiscarded());
        assertEquals(0, counters.fcpReceived());
        assertEquals(0, limits.limit(0));
        assertEquals(0, counters.txCreditLimit(0));
        assertEquals(0, counters.rxAbr(0));
        assertFalse(credit.takeTransmitWork(), "nothing for the transmit half");
    }

    @Test
    void aRunOfStaleFcpsIsARetrainingCountedAtTheNextDutyCycleAfterTheFlushAndTheNewEpoch()
    {
        final PortCredit credit = active(credit(false));
        credit.onFcp(normal(0, 10, 100), 1);
        final int epoch = limits.epoch();
        for (int i = 1; i <= CreditControl.STALE_RUN_LIMIT; i++)
        {
            credit.onFcp(normal(0, 10, 90), 1 + i);
            assertEquals(i, counters.discards(DiscardReason.FCP_STALE));
        }
        assertEquals(CreditControl.STALE_RUN_LIMIT, counters.fcpDiscarded());
        assertEquals(LinkState.INITIALIZE, credit.state());
        assertEquals(List.of("flush 1 in ACTIVE", "DOWN transitions 4 state 0 epoch " + epoch,
            "INITIALIZE transitions 5 state 1 epoch " + (epoch + 1)), owner.calls);
        assertEquals(0, counters.txCreditLimit(0), "a new incarnation's gauges");
        assertEquals(0, counters.rxAbr(0));
        assertEquals(0, limits.limit(0));
        assertEquals(0, counters.linkErrorRecovery(), "counted by the duty cycle");
        credit.doWork(10);
        assertEquals(1, counters.linkErrorRecovery());
        assertEquals(0, counters.linkDowned());
        credit.doWork(11);
        assertEquals(1, counters.linkErrorRecovery(), "once");
    }

    @Test
    void anInitFcpWhileActiveIsARetrainingThatFlushesOnceEachTime()
    {
        final PortCredit credit = active(credit(false));
        credit.onFcp(init(0, 20), 1);
        credit.doWork(1);
        assertEquals(1, counters.linkErrorRecovery());
        assertEquals(20, counters.txCreditLimit(0), "then applied as Initialize applies it");
        assertEquals(20, limits.limit(0));
        assertEquals("flush 1 in ACTIVE", owner.calls.get(0));
        // trained again (a port that re-trained waits for the peer to start again after its normal FCPs: rule 3), then
        // again a restart of the peer: the second flush is counted as the second
        for (int vl = 0; vl < VLS; vl++)
        {
            credit.onFcp(normal(vl, 0, BLOCKS), 2);
        }
        train(credit, 2);
        credit.onFcp(init(0, 20), 4);
        credit.doWork(4);
        assertEquals(2, counters.linkErrorRecovery());
        assertEquals("flush 2 in ACTIVE", owner.calls.get(0));
    }

    // ---------------------------------------------------------------- blocks stored and released

    @Test
    void blocksStoredInThisEpochRaiseAbrAndTakeFreeSpace()
    {
        final PortCredit credit = active(credit(false));
        credit.onAccepted(1, 5, limits.epoch(), 2);
        assertEquals(5, counters.rxAbr(1));
        assertEquals(BLOCKS - 5, counters.rxFreeBlocks(1));
        assertEquals(BLOCKS, counters.rxFreeBlocks(0));
        assertEquals(5, credit.control().receiver().blocksReceived(1));
        // the same epoch in the ring's 12 bits
        credit.onAccepted(1, 2, limits.epoch() + CreditEventRing.EPOCH_MASK + 1, 3);
        assertEquals(7, counters.rxAbr(1));
        assertEquals(BLOCKS - 7, counters.rxFreeBlocks(1));
    }

    @Test
    void blocksStoredInAnEarlierEpochTakeFreeSpaceButNoAbr()
    {
        final PortCredit credit = active(credit(false));
        credit.onAccepted(0, 4, limits.epoch() - 1, 2);
        assertEquals(0, counters.rxAbr(0));
        assertEquals(BLOCKS - 4, counters.rxFreeBlocks(0));
        assertEquals(0, credit.control().receiver().blocksReceived(0));
        credit.onAccepted(0, 3, limits.epoch() + 1, 2);
        assertEquals(0, counters.rxAbr(0));
        assertEquals(BLOCKS - 7, counters.rxFreeBlocks(0));
        // released all the same
        consumer.released[0] = 7;
        assertEquals(1, credit.doWork(3) - fcpsAsked());
        assertEquals(BLOCKS, counters.rxFreeBlocks(0));
    }

    /** @return the FCP requests in the ring (those of the last duty cycle: the test takes them after each), taken. */
    private int fcpsAsked()
    {
        return takeRequests().size();
    }

    @Test
    void aDutyCycleAsksTheConsumerOnlyAboutVlsWithBlocksNotYetReleased()
    {
        final PortCredit credit = active(credit(false));
        credit.doWork(1);
        assertEquals(0, consumer.asked[0] + consumer.asked[1], "nothing stored");
        credit.onAccepted(1, 6, limits.epoch(), 1);
        final int asked = consumer.asked[1];
        takeRequests();
        assertEquals(0, credit.doWork(1) - fcpsAsked(), "nothing released yet");
        assertEquals(asked + 1, consumer.asked[1]);
        assertEquals(0, consumer.asked[0]);
        consumer.released[1] = 4;
        assertEquals(1, credit.doWork(1) - fcpsAsked());
        assertEquals(BLOCKS - 2, counters.rxFreeBlocks(1));
        assertEquals(6, counters.rxAbr(1), "ABR stays");
        consumer.released[1] = 6;
        assertEquals(1, credit.doWork(1) - fcpsAsked());
        assertEquals(BLOCKS, counters.rxFreeBlocks(1));
        final int done = consumer.asked[1];
        credit.doWork(1);
        credit.doWork(1);
        assertEquals(done, consumer.asked[1], "all released: not asked again");
        assertEquals(0, consumer.asked[0]);
    }

    @Test
    void releasesOfVlsAboveTheLowestAreEachAskedForInOneDutyCycle()
    {
        final PortCredit credit = new PortCredit(config(8, true), consumer, null, requests, limits, counters.credit(),
            owner);
        credit.up(0);
        credit.onAccepted(3, 2, limits.epoch(), 0);
        credit.onAccepted(6, 5, limits.epoch(), 0);
        takeRequests();
        consumer.released[3] = 2;
        consumer.released[6] = 5;
        assertEquals(2, credit.doWork(0) - fcpsAsked());
        assertEquals(BLOCKS, counters.rxFreeBlocks(3));
        assertEquals(BLOCKS, counters.rxFreeBlocks(6));
        for (final int vl : new int[] {0, 1, 2, 4, 5, 7})
        {
            assertEquals(0, consumer.asked[vl], "VL" + vl);
        }
    }

    @Test
    void whatTheConsumerReleasedBeforeAnAcceptanceIsReportedMakesRoomForIt()
    {
        final PortCredit credit = active(credit(false));
        credit.onAccepted(0, BLOCKS, limits.epoch(), 1);
        assertEquals(0, counters.rxFreeBlocks(0));
        // the consumer took them all and the receive half stored 10 more blocks in their room before the next duty
        // cycle: the release is read first
        consumer.released[0] = BLOCKS;
        credit.onAccepted(0, 10, limits.epoch(), 2);
        assertEquals(BLOCKS - 10, counters.rxFreeBlocks(0));
        assertEquals(BLOCKS + 10, counters.rxAbr(0));
    }

    // ---------------------------------------------------------------- the duty cycle

    @Test
    void aDutyCycleAppliesTheQueuedEventsInOrderAndCountsItsWork()
    {
        final PortCredit credit = credit(true);
        credit.up(0);
        takeRequests();
        credit.takeTransmitWork();
        events.onFcp(init(0, 30));
        events.onFcp(init(1, 31));
        events.onFcp(normal(0, 0, 30));
        events.onAccepted(1, 3, limits.epoch());
        assertEquals(0, counters.fcpReceived() + counters.fcpDiscarded(), "queued until the duty cycle");
        assertEquals(BLOCKS, counters.rxFreeBlocks(1));
        // 4 events, then the FCPs asked for: the port's init FCP again (the peer started: owed), on which it arms,
        // then its normal ones
        final int work = credit.doWork(500);
        final List<Integer> asked = takeRequests();
        assertEquals(4 + asked.size(), work);
        assertEquals(3, counters.rxAbr(1));
        assertEquals(BLOCKS - 3, counters.rxFreeBlocks(1));
        assertEquals(init(0, BLOCKS), asked.get(0));
        assertEquals(2, counters.fcpReceived());
        assertEquals(1, counters.discards(DiscardReason.FCP_STATE), "the normal FCP before the port armed");
        assertEquals(1, counters.fcpDiscarded());
        assertEquals(30, counters.txCreditLimit(0));
        assertEquals(31, counters.txCreditLimit(1));
        assertEquals(LinkState.ARMED, credit.state());
        assertTrue(credit.takeTransmitWork());
    }

    @Test
    void queuedEventsAreHeardAtTheTimeOfTheDutyCycleThatReadsThem()
    {
        final PortCredit credit = active(credit(true));
        // duty cycles closer together than the pause bound (a quarter of the silence limit)
        final long step = SILENCE_NS / 8;
        long t = 0;
        for (; t < SILENCE_NS; t += step)
        {
            credit.doWork(t);
            takeRequests();
        }
        events.onFcp(normal(0, 0, BLOCKS));
        final long heard = t;
        credit.doWork(heard);
        for (t += step; t - heard <= SILENCE_NS; t += step)
        {
            credit.doWork(t);
            takeRequests();
            assertEquals(LinkState.ACTIVE, credit.state(), "at " + t + " ns, heard at " + heard);
        }
        credit.doWork(t);
        assertEquals(LinkState.INITIALIZE, credit.state(), "silent for longer than the limit at " + t + " ns");
        assertEquals(1, counters.linkDowned());
    }

    @Test
    void aDutyCycleReadsAtMostItsEventLimit()
    {
        final PortCredit credit = credit(true);
        credit.up(0);
        final int queued = PortCredit.EVENT_LIMIT + 44;
        for (int i = 0; i < queued; i++)
        {
            events.onFcp(Fcp.word(Fcp.OP_INIT, 0, 15, 1));
        }
        takeRequests();
        assertEquals(PortCredit.EVENT_LIMIT, credit.doWork(0));
        assertEquals(PortCredit.EVENT_LIMIT, counters.fcpDiscarded());
        assertEquals(44, credit.doWork(0));
        assertEquals(queued, counters.discards(DiscardReason.FCP_VL15));
        assertEquals(0, credit.doWork(0), "idle");
        assertTrue(events.isEmpty());
    }

    @Test
    void aDutyCycleAsksForEveryFcpDueAndNoneWhileDown()
    {
        final PortCredit credit = active(credit(false));
        assertEquals(0, credit.doWork(0), "none due");
        assertEquals(List.of(), takeRequests());
        assertFalse(credit.takeTransmitWork());
        assertEquals(VLS, credit.doWork(PERIOD_NS));
        final List<Integer> asked = takeRequests();
        asked.sort(null);
        assertEquals(List.of(normal(0, 0, BLOCKS), normal(1, 0, BLOCKS)), asked);
        assertTrue(credit.takeTransmitWork());
        credit.down(PERIOD_NS);
        takeRequests();
        assertEquals(0, credit.doWork(10 * PERIOD_NS));
        assertEquals(List.of(), takeRequests());
    }

    @Test
    void aDutyCycleLeavesTheRequestsInFlightTheRingAllowsAndAsksForTheRestWhenThereIsRoom()
    {
        final int vls = 15;
        final PortCredit credit = new PortCredit(config(vls, false), consumer, null, requests, limits,
            counters.credit(), owner);
        credit.up(0);
        credit.arm(0);
        credit.activate(0);
        int asked = vls;
        for (long t = PERIOD_NS; asked < FcpRequestRing.IN_FLIGHT; t += PERIOD_NS)
        {
            final int work = credit.doWork(t);
            asked += work;
            assertTrue(work <= vls);
        }
        assertEquals(FcpRequestRing.IN_FLIGHT, asked);
        assertFalse(requests.hasRoom());
        assertEquals(0, credit.doWork(100 * PERIOD_NS), "no room: none asked for");
        assertEquals(FcpRequestRing.IN_FLIGHT, takeRequests().size());
        assertEquals(vls, credit.doWork(100 * PERIOD_NS), "room again: every VL's, all due");
    }

    @Test
    void aSilentPeerIsALinkDownCountedByTheDutyCycleThatFindsIt()
    {
        final PortCredit credit = active(credit(false));
        final int epoch = limits.epoch();
        long t = 0;
        while (LinkState.ACTIVE == credit.state())
        {
            t += SILENCE_NS / 8;
            takeRequests();
            final int work = credit.doWork(t) - takeRequests().size();
            if (LinkState.ACTIVE != credit.state())
            {
                assertEquals(1, work, "the link going down is work");
            }
        }
        assertEquals(LinkState.INITIALIZE, credit.state());
        assertEquals(1, counters.linkDowned());
        assertEquals(0, counters.linkErrorRecovery());
        assertEquals(List.of("flush 1 in ACTIVE", "DOWN transitions 4 state 0 epoch " + epoch,
            "INITIALIZE transitions 5 state 1 epoch " + (epoch + 1)), owner.calls);
    }

    @Test
    void aPeerThatClosesTakesThePortDownThroughTheRingOrAtOnce()
    {
        final PortCredit queued = active(credit(true));
        events.onPeerClosed();
        assertEquals(LinkState.ACTIVE, queued.state(), "until the duty cycle reads it");
        queued.doWork(1);
        assertEquals(LinkState.INITIALIZE, queued.state());
        assertEquals(1, counters.linkDowned());
        assertEquals("flush 1 in ACTIVE", owner.calls.get(0));

        final TestCounters direct = new TestCounters();
        final PortCredit at = new PortCredit(config(VLS, false), consumer, null, requests, new CreditLimits(),
            direct.credit(), owner);
        at.up(0);
        at.arm(0);
        at.onPeerClosed(1);
        assertEquals(LinkState.INITIALIZE, at.state());
        assertEquals(0, direct.linkDowned(), "counted by the duty cycle");
        at.doWork(2);
        assertEquals(1, direct.linkDowned());
    }

    @Test
    void anIdleDutyCycleOfAPortThatIsNotUpDoesNothing()
    {
        final PortCredit credit = credit(false);
        assertEquals(0, credit.doWork(SILENCE_NS * 10));
        assertEquals(LinkState.DOWN, credit.state());
        assertEquals(List.of(), takeRequests());
        assertEquals(FcpSchedule.NONE, credit.control().pollFcp(0));
    }
}
