package io.vlink.core.retry;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The retry state machines end to end, on a wire that loses, duplicates, reorders and damages frames and loses,
 * duplicates and reorders acknowledgements and replay requests: every frame is delivered once, in order, whatever
 * the pattern, the sender never holds more than its window, no frame is ever given up (an honest run never skips),
 * sequence numbers wrap (the initial one is drawn near 2^31 and 2^32), and once the wire is clean everything sent
 * arrives within a bounded time.
 */
class RetryPropertyTest
{
    private static final int MESSAGES = 1500;
    private static final long TIMEOUT_NS = 400;

    /** A frame or an acknowledgement in flight, ordered by when it arrives. */
    private record InFlight(long atNs, long order, int sequence, boolean oldest, boolean damaged, boolean replay)
    {
    }

    @Provide
    Arbitrary<Integer> initialSequences()
    {
        return Arbitraries.oneOf(
            Arbitraries.of(0, -MESSAGES / 2, Integer.MAX_VALUE - MESSAGES / 2, Integer.MIN_VALUE, -1, 1),
            Arbitraries.integers());
    }

    @Property(tries = 60, seed = "31")
    void everyFrameArrivesOnceAndInOrderWithABoundedWindow(
        @ForAll final long seed, @ForAll("initialSequences") final int initial)
    {
        final Random random = new Random(seed);
        final int capacity = 1 + random.nextInt(random.nextBoolean() ? 8 : 96);
        final double loss = random.nextInt(4) * 0.05;
        final double duplication = random.nextInt(3) * 0.05;
        final double damage = random.nextInt(3) * 0.04;
        final long maxDelayNs = 1 + random.nextInt(random.nextBoolean() ? 5 : 120);
        final RetrySender sender = new RetrySender(capacity, TIMEOUT_NS, 3, initial);
        final RetryReceiver receiver = new RetryReceiver(TIMEOUT_NS / 2, 1000, initial);
        final AckSchedule acks = new AckSchedule(1 + random.nextInt(capacity), 1 + random.nextInt(200), initial);
        final PriorityQueue<InFlight> frames = new PriorityQueue<>(
            (x, y) -> x.atNs != y.atNs ? Long.compare(x.atNs, y.atNs) : Long.compare(x.order, y.order));
        final PriorityQueue<InFlight> answers = new PriorityQueue<>(frames.comparator());
        final List<Integer> delivered = new ArrayList<>();
        final long[] order = {0};
        int accepted = 0;
        long now = 0;
        boolean lossy = true;
        final long cleanFromNs = 40_000;
        final long deadlineNs = cleanFromNs + 60_000 + MESSAGES * 4L * maxDelayNs;
        while (delivered.size() < MESSAGES)
        {
            if (now > deadlineNs)
            {
                fail("stalled: " + delivered.size() + " of " + MESSAGES + " delivered, held " + sender.held());
            }
            if (lossy && now >= cleanFromNs)
            {
                lossy = false;
            }
            final double frameLoss = lossy ? loss : 0;
            // the sender: accept what the window takes, transmit a few frames a step, run the timer
            while (accepted < MESSAGES && sender.canAccept())
            {
                assertEquals(initial + accepted, sender.accept());
                accepted++;
            }
            assertTrue(sender.held() <= capacity, "window");
            for (int i = 0; i < 3 && sender.hasToSend(); i++)
            {
                final int sequence = sender.nextToSend();
                final boolean oldest = sender.isOldest(sequence);
                sender.onSent(now);
                if (random.nextDouble() >= frameLoss)
                {
                    final boolean damaged = lossy && random.nextDouble() < damage;
                    frames.add(new InFlight(now + 1 + random.nextInt((int)maxDelayNs), order[0]++, sequence, oldest,
                        damaged, false));
                    if (lossy && random.nextDouble() < duplication)
                    {
                        frames.add(new InFlight(now + 1 + random.nextInt((int)maxDelayNs), order[0]++, sequence,
                            oldest, false, false));
                    }
                }
            }
            sender.onTimer(now);
            // the receiver: every frame due now
            while (!frames.isEmpty() && frames.peek().atNs <= now)
            {
                final InFlight frame = frames.poll();
                final int verdict = receiver.onFrame(frame.sequence, frame.oldest, now);
                switch (verdict)
                {
                    case RetryReceiver.DELIVER:
                        if (frame.damaged)
                        {
                            assertEquals(RetryReceiver.REQUEST, receiver.rejected(now));
                            answer(answers, random, lossy ? loss : 0, now, maxDelayNs, order, receiver.expected(), true,
                                true);
                        }
                        else
                        {
                            delivered.add(frame.sequence - initial);
                            receiver.delivered();
                        }
                        break;
                    case RetryReceiver.DUPLICATE:
                        answer(answers, random, lossy ? loss : 0, now, maxDelayNs, order, receiver.expected(), false,
                            false);
                        acks.stamped(receiver.expected());
                        break;
                    case RetryReceiver.GAP_REQUEST:
                        answer(answers, random, lossy ? loss : 0, now, maxDelayNs, order, receiver.expected(), true,
                            false);
                        acks.stamped(receiver.expected());
                        break;
                    case RetryReceiver.GAP:
                        break;
                    default:
                        fail("an honest run gave up frames: verdict " + verdict + " at " + frame.sequence);
                }
            }
            if (acks.due(receiver.expected(), now))
            {
                answer(answers, random, lossy ? loss : 0, now, maxDelayNs, order, receiver.expected(), false, false);
                acks.stamped(receiver.expected());
            }
            // the sender hears the answers due now
            while (!answers.isEmpty() && answers.peek().atNs <= now)
            {
                final InFlight answer = answers.poll();
                final int result = answer.replay ?
                    sender.onReplayRequest(answer.sequence, answer.damaged, now) : sender.onAck(answer.sequence, now);
                assertTrue(result >= RetrySender.INVALID, "result");
            }
            now++;
        }
        for (int i = 0; i < MESSAGES; i++)
        {
            assertEquals(i, delivered.get(i), "frame " + i);
        }
        assertEquals(initial + MESSAGES, receiver.expected());
    }

    /** An acknowledgement, or a replay request ({@code replay}) for a gap or a frame that arrived {@code damaged}. */
    private static void answer(
        final PriorityQueue<InFlight> answers, final Random random, final double loss, final long now,
        final long maxDelayNs, final long[] order, final int ack, final boolean replay, final boolean damaged)
    {
        if (random.nextDouble() >= loss)
        {
            answers.add(new InFlight(now + 1 + random.nextInt((int)maxDelayNs), order[0]++, ack, false, damaged, replay));
            if (random.nextDouble() < loss)
            {
                // the wire duplicates as often as it loses
                answers.add(new InFlight(now + 1 + random.nextInt((int)maxDelayNs), order[0]++, ack, false, damaged,
                    replay));
            }
        }
    }
}
