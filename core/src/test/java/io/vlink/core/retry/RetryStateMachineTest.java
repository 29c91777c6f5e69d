package io.vlink.core.retry;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The retry state machines at their edges, on an injected clock: the window, acknowledgements valid and not, replay
 * requests, the retry timer and its backoff for a lost acknowledgement or replay request, gaps and their request
 * interval, duplicates, rejected frames up to the limit, a forged acknowledgement's recovery, sequence wrap, and the
 * acknowledgement schedule.
 */
class RetryStateMachineTest
{
    @Test
    void theWindowHoldsCapacityFramesAndAnAcknowledgementFreesThem()
    {
        final RetrySender sender = new RetrySender(3, 1000, 2, 10);
        assertTrue(sender.canAccept());
        assertEquals(10, sender.accept());
        assertEquals(11, sender.accept());
        assertEquals(12, sender.accept());
        assertFalse(sender.canAccept(), "three held: full");
        assertEquals(3, sender.held());
        assertTrue(sender.hasToSend());
        assertEquals(10, sender.nextToSend());
        assertTrue(sender.isOldest(10));
        assertFalse(sender.onSent(0), "first transmission");
        assertFalse(sender.isOldest(11));
        assertFalse(sender.onSent(0));
        assertEquals(12, sender.nextToSend());
        assertEquals(RetrySender.INVALID, sender.onAck(13, 5), "12 was never sent: forged or another session's");
        assertEquals(RetrySender.INVALID, sender.onAck(9, 5), "before the oldest: stale");
        assertEquals(0, sender.onAck(10, 5), "no progress");
        assertEquals(2, sender.onAck(12, 5), "10 and 11 released");
        assertEquals(12, sender.oldest());
        assertEquals(1, sender.held());
        assertTrue(sender.canAccept());
        assertTrue(sender.hasToSend(), "12 still to send");
        assertFalse(sender.onSent(6));
        assertFalse(sender.hasToSend());
        assertEquals(1, sender.onAck(13, 7));
        assertEquals(0, sender.held());
        assertEquals(Long.MAX_VALUE, sender.timerDeadlineNs(), "nothing out: no timer");
    }

    @Test
    void aLostAcknowledgementIsRepairedByTheTimerWhichProbesWithTheOldestFrameAndBacksOff()
    {
        final RetrySender sender = new RetrySender(8, 1000, 2, 0);
        sender.accept();
        sender.accept();
        sender.onSent(100);
        sender.onSent(150);
        assertEquals(1100, sender.timerDeadlineNs(), "from the first frame out after idle");
        assertFalse(sender.onTimer(1099));
        assertTrue(sender.onTimer(1100), "no acknowledgement");
        assertTrue(sender.hasToSend());
        assertEquals(0, sender.nextToSend(), "the oldest frame again");
        assertTrue(sender.onSent(1100), "a retransmission");
        assertFalse(sender.hasToSend(), "alone: a probe");
        sender.accept();
        assertFalse(sender.hasToSend(), "a new frame waits for the answer too");
        assertEquals(1100 + 2000, sender.timerDeadlineNs(), "doubled");
        assertFalse(sender.onTimer(3099));
        assertTrue(sender.onTimer(3100), "the probe went unanswered");
        assertEquals(3100 + 4000, sender.timerDeadlineNs(), "doubled again");
        assertEquals(0, sender.nextToSend());
        sender.onSent(3100);
        assertTrue(sender.onTimer(7100));
        assertEquals(7100 + 4000, sender.timerDeadlineNs(), "at most 2^2 times");
        sender.onSent(7100);
        assertEquals(1, sender.onAck(1, 7200), "the peer lacked 0 and 1: 0 arrived at last; progress resets the backoff");
        assertEquals(7200 + 1000, sender.timerDeadlineNs());
        assertTrue(sender.hasToSend(), "after the probe's answer, the rest goes again");
        assertEquals(1, sender.nextToSend());
        assertTrue(sender.onSent(7200), "1 again");
        assertFalse(sender.onSent(7200), "2 for the first time");
        assertEquals(2, sender.onAck(3, 7300));

        // the acknowledgements were only late: the probe's answer covers everything, nothing more goes again
        sender.accept();
        sender.accept();
        sender.onSent(8000);
        sender.onSent(8000);
        assertTrue(sender.onTimer(9000));
        assertTrue(sender.onSent(9000));
        assertEquals(2, sender.onAck(5, 9100));
        assertFalse(sender.hasToSend());

        // a replay request ends a probe too
        sender.accept();
        sender.accept();
        sender.onSent(9200);
        sender.onSent(9200);
        assertTrue(sender.onTimer(10_200));
        sender.onSent(10_200);
        assertEquals(1, sender.onReplayRequest(5, false, 10_300));
        assertEquals(5, sender.nextToSend());
        sender.onSent(10_300);
        assertTrue(sender.hasToSend(), "go-back-N: 6 follows");
        sender.reset();
        assertFalse(sender.hasToSend());
    }

    @Test
    void aReplayRequestRewindsToTheFirstGapOnce()
    {
        final RetrySender sender = new RetrySender(8, 1000, 2, 0);
        for (int i = 0; i < 5; i++)
        {
            sender.accept();
            sender.onSent(0);
        }
        assertEquals(1, sender.onReplayRequest(2, false, 500), "0 and 1 arrived, 2 did not: from 2 again");
        assertEquals(2, sender.oldest());
        assertEquals(2, sender.nextToSend());
        assertEquals(1500, sender.timerDeadlineNs(), "the peer asked: the timer restarts");
        assertEquals(0, sender.onReplayRequest(2, false, 600), "already at the oldest");
        assertTrue(sender.onSent(600));
        assertEquals(0, sender.onReplayRequest(2, false, 700), "a repeat while the replay is on its way");
        assertEquals(1, sender.onReplayRequest(2, true, 700), "but 2 arrived damaged: the replay is over, again");
        assertEquals(2, sender.nextToSend());
        assertTrue(sender.onSent(700));
        assertEquals(3, sender.nextToSend());
        assertEquals(1700, sender.timerDeadlineNs(), "the damaged frame's request restarted the timer");
        assertEquals(0, sender.onReplayRequest(2, false, 1600), "a repeat: no new replay, no new timer");
        assertEquals(1700, sender.timerDeadlineNs());
        assertEquals(1, sender.onReplayRequest(2, false, 1700), "a timeout later: the replay was lost too, again");
        assertEquals(2, sender.nextToSend());
        assertTrue(sender.onSent(1700));
        assertEquals(RetrySender.INVALID, sender.onReplayRequest(1, false, 1800), "a stale request");
        assertEquals(RetrySender.INVALID, sender.onReplayRequest(6, false, 1800), "past what was sent");
        assertEquals(0, sender.onAck(2, 1800));
        assertEquals(2, sender.onAck(4, 1900), "during the replay: the peer has more than the replay sent");
        assertEquals(4, sender.nextToSend(), "the replay skips ahead");
        assertFalse(sender.onTimer(2899));
        assertTrue(sender.onSent(1950), "4 again (it went before the rewind to 2)");
        assertEquals(1, sender.onReplayRequest(4, false, 2000), "another frame: at once");
    }

    @Test
    void sequenceNumbersWrap()
    {
        final RetrySender sender = new RetrySender(4, 1000, 2, -2);
        final RetryReceiver receiver = new RetryReceiver(100, 4, -2);
        for (int i = 0; i < 4; i++)
        {
            final int sequence = sender.accept();
            sender.onSent(0);
            assertEquals(RetryReceiver.DELIVER, receiver.onFrame(sequence, sender.isOldest(sequence), 0));
            receiver.delivered();
        }
        assertEquals(2, receiver.expected(), "-2, -1, 0, 1");
        assertEquals(4, sender.onAck(receiver.expected(), 1));
        assertEquals(RetryReceiver.DUPLICATE, receiver.onFrame(-1, false, 2), "before, across the wrap");
        assertEquals(RetryReceiver.GAP_REQUEST, receiver.onFrame(3, false, 2), "after, across the wrap");

        final RetrySender signed = new RetrySender(4, 1000, 2, Integer.MAX_VALUE);
        assertEquals(Integer.MAX_VALUE, signed.accept());
        assertEquals(Integer.MIN_VALUE, signed.accept());
        signed.onSent(0);
        signed.onSent(0);
        assertEquals(2, signed.onAck(Integer.MIN_VALUE + 1, 1));
    }

    @Test
    void aGapAsksForAReplayOncePerIntervalAndADuplicateIsDiscarded()
    {
        final RetryReceiver receiver = new RetryReceiver(100, 4, 0);
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(0, true, 0));
        receiver.delivered();
        assertEquals(RetryReceiver.DUPLICATE, receiver.onFrame(0, true, 1));
        assertEquals(RetryReceiver.GAP_REQUEST, receiver.onFrame(2, false, 10), "1 is missing");
        assertEquals(RetryReceiver.GAP, receiver.onFrame(3, false, 109), "asked already");
        assertEquals(RetryReceiver.GAP_REQUEST, receiver.onFrame(4, false, 110), "the request or the replay was lost");
        assertEquals(1, receiver.expected());
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(1, false, 120));
        receiver.delivered();
        assertEquals(RetryReceiver.GAP_REQUEST, receiver.onFrame(3, false, 121), "a new gap asks at once");
        receiver.reset();
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(0, false, 130), "a new session starts again");
    }

    @Test
    void aRejectedFrameIsAskedForAgainUpToTheLimitThenLetThrough()
    {
        final RetryReceiver receiver = new RetryReceiver(100, 2, 0);
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(0, true, 0));
        assertEquals(RetryReceiver.REQUEST, receiver.rejected(0));
        assertEquals(RetryReceiver.GAP, receiver.onFrame(1, false, 50), "the rejection asked already");
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(0, true, 60));
        assertEquals(RetryReceiver.REQUEST, receiver.rejected(60));
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(0, true, 70));
        assertEquals(RetryReceiver.GIVE_UP, receiver.rejected(70), "a third time: given up");
        assertEquals(1, receiver.expected());
        assertEquals(RetryReceiver.DELIVER, receiver.onFrame(1, false, 71));
        assertEquals(RetryReceiver.REQUEST, receiver.rejected(71), "the count starts again for the next frame");
        assertEquals(RetryReceiver.GIVE_UP, new RetryReceiver(100, 0, 0).rejected(0), "limit 0: never asked again");
    }

    @Test
    void aForgedAcknowledgementEndsInASkipNotAStall()
    {
        final RetrySender sender = new RetrySender(8, 1000, 2, 0);
        final RetryReceiver receiver = new RetryReceiver(100, 4, 0);
        for (int i = 0; i < 3; i++)
        {
            sender.accept();
            sender.onSent(0);
        }
        // 0 arrived; 1 and 2 were lost; someone acknowledged all three in the receiver's name
        receiver.onFrame(0, true, 0);
        receiver.delivered();
        assertEquals(3, sender.onAck(3, 10));
        assertEquals(RetrySender.INVALID, sender.onReplayRequest(1, false, 20), "the sender no longer holds 1");
        final int next = sender.accept();
        assertTrue(sender.isOldest(next), "the next frame out says nothing before it can come");
        sender.onSent(30);
        assertEquals(RetryReceiver.DELIVER_AFTER_SKIP, receiver.onFrame(next, true, 40));
        assertEquals(2, receiver.skipped());
        assertEquals(3, receiver.expected());
        receiver.delivered();
        assertEquals(4, receiver.expected());
        assertEquals(RetryReceiver.DUPLICATE, receiver.onFrame(2, true, 50),
            "an old oldest frame is a duplicate, never a jump back");
    }

    @Test
    void theAcknowledgementScheduleBatchesAndDelays()
    {
        final AckSchedule acks = new AckSchedule(4, 100, 7);
        assertFalse(acks.due(7, 0), "nothing received");
        assertFalse(acks.due(9, 10), "two frames, just now");
        assertFalse(acks.due(10, 109), "three, 99 ns");
        assertTrue(acks.due(10, 110), "100 ns behind");
        assertTrue(acks.due(11, 20), "four: at once");
        acks.stamped(11);
        assertFalse(acks.due(11, 200), "rode on a frame");
        assertFalse(acks.due(12, 300));
        assertTrue(acks.due(12, 400), "behind since 300");
        acks.reset(0);
        assertTrue(acks.due(4, 400), "a new session, four frames");
        assertFalse(new AckSchedule(1, 0, 0).due(-1, 0), "behind never means ahead");
    }

    @Test
    void settingsAreChecked()
    {
        assertThrows(IllegalArgumentException.class, () -> new RetrySender(0, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetrySender((1 << 30) + 1, 1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetrySender(1, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetrySender(1, 1, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetrySender(1, 1, 21, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetryReceiver(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetryReceiver(1, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new RetryReceiver(1, 1001, 0));
        assertThrows(IllegalArgumentException.class, () -> new AckSchedule(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new AckSchedule(1, -1, 0));
        new RetrySender(1 << 30, 1, 20, 0);
        new RetryReceiver(1, 1000, 0);
        new AckSchedule(1, 0, 0);
    }
}
