package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A port taken down and up while its peer stays up costs the peer exactly one re-training and the port itself none
 * (docs/flow-control.md, "Link training: a peer that starts again"), on a loopback engine as a user runs it: 64
 * blocks a VL, FCPs every microsecond, port a bounced 20 times. After each bounce, once both are Active, 200,000 more
 * duty cycles pass without a transition; then 10,000 messages each way all arrive, in order.
 */
@Tag("long")
class LinkBounceTest
{
    static final int BOUNCES = 20;
    static final long WATCHED_DUTY_CYCLES = 200_000;
    static final int MESSAGES = 10_000;

    @TempDir
    File dir;

    /** The engine's clock, counting its reads: every duty cycle reads it once. */
    static final class CountingClock
    {
        final AtomicLong reads = new AtomicLong();

        long nanoTime()
        {
            reads.incrementAndGet();
            return System.nanoTime();
        }
    }

    @ParameterizedTest
    @EnumSource(value = ThreadingMode.class, names = {"INVOKER", "SHARED"})
    void aPortBouncedTwentyTimesCostsItsPeerOneRetrainingEachTimeAndItselfNone(final ThreadingMode mode)
    {
        final CountingClock clock = new CountingClock();
        try (Engine engine = Engine.builder().name("bounce-" + mode).directory(dir).threading(mode).idle("yield")
            .vlBufferBlocks(64).fcpPeriodNs(1_000).clocks(clock::nanoTime, SystemEpochClock.INSTANCE).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            final Runnable work = mode == ThreadingMode.INVOKER ? engine::invoke : null;
            Deadline.await(10, "both Active", () -> bothActive(a, b), work);
            for (int i = 1; i <= BOUNCES; i++)
            {
                a.down();
                Deadline.await(10, "a Down", () -> a.linkState() == LinkState.DOWN, work);
                a.up();
                final long retrainings = i;
                Deadline.await(10, "both Active again after bounce " + i, () -> bothActive(a, b) &&
                    b.counters().linkErrorRecovery().get() == retrainings, work);
                final long transitionsA = a.counters().linkTransitions().get();
                final long transitionsB = b.counters().linkTransitions().get();
                final long from = clock.reads.get();
                Deadline.await(60, WATCHED_DUTY_CYCLES + " duty cycles after bounce " + i, () ->
                    clock.reads.get() - from >= WATCHED_DUTY_CYCLES, work);
                assertEquals(transitionsA, a.counters().linkTransitions().get(), "a after both were Active, bounce " + i);
                assertEquals(transitionsB, b.counters().linkTransitions().get(), "b after both were Active, bounce " + i);
            }
            assertEquals(BOUNCES, b.counters().linkErrorRecovery().get(), "b re-trained once a bounce");
            assertEquals(0, a.counters().linkErrorRecovery().get(), "a never");
            assertEquals(0, a.counters().linkDowned().get() + b.counters().linkDowned().get(), "no timeout");
            exchange(a, b, work);
        }
    }

    /**
     * A port bounced the moment its peer is seen Active after re-training (the peer unsettled: Active for less than two
     * FCP periods when the bounced port's new init FCP reaches it) settles without the wait limit (docs/flow-control.md,
     * "Link training", rules 4 and 6): no {@code link_downed} anywhere, the peer re-trains once a bounce, the bounced port
     * never, and each bounce is over, on the engine's clock, before the wait limit. FCPs every millisecond, so that two
     * periods outlast the few duty cycles a bounce takes; the engine is invoked duty cycle by duty cycle on a clock that
     * moves 10 microseconds a read (one read a duty cycle), so the run is the same every time.
     */
    @org.junit.jupiter.api.Test
    void aPortBouncedWhileItsPeerIsUnsettledSettlesWithoutTheWaitLimit()
    {
        final long[] now = {0};
        final long waitLimitNs = 200_000_000;
        try (Engine engine = Engine.builder().name("unsettled-bounce").directory(dir).threading(ThreadingMode.INVOKER)
            .idle("yield").vlBufferBlocks(64).fcpPeriodNs(1_000_000).linkTimeoutNs(waitLimitNs)
            .clocks(() -> now[0] += 10_000, SystemEpochClock.INSTANCE).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            final Runnable work = engine::invoke;
            Deadline.await(10, "both Active", () -> bothActive(a, b), work);
            bounce(a, work);
            for (int i = 1; i <= UNSETTLED_BOUNCES; i++)
            {
                final long retrainings = i;
                final long from = now[0];
                Deadline.await(10, "b re-trained " + i + " times and Active again", () ->
                    b.counters().linkErrorRecovery().get() == retrainings && bothActive(a, b), work);
                assertTrue(now[0] - from < waitLimitNs, "bounce " + i + " took " + (now[0] - from) + " ns");
                // b is Active now, a a moment ago: a's new init FCP finds b unsettled
                bounce(a, work);
            }
            Deadline.await(10, "both Active after the last bounce", () -> bothActive(a, b) &&
                b.counters().linkErrorRecovery().get() == UNSETTLED_BOUNCES + 1, work);
            assertEquals(UNSETTLED_BOUNCES + 1, b.counters().linkErrorRecovery().get(), "b re-trained once a bounce");
            assertEquals(0, a.counters().linkErrorRecovery().get(), "a never");
            assertEquals(0, a.counters().linkDowned().get() + b.counters().linkDowned().get(), "no wait limit");
            exchange(a, b, work);
        }
    }

    static final int UNSETTLED_BOUNCES = 5;

    private static void bounce(final Port port, final Runnable work)
    {
        port.down();
        Deadline.await(10, "Down", () -> port.linkState() == LinkState.DOWN, work);
        port.up();
    }

    /** {@link #MESSAGES} messages each way, each carrying its sequence number: all arrive, in order. */
    static void exchange(final Port a, final Port b, final Runnable work)
    {
        final QueuePair toB = a.createQueuePair(100, 1, 200);
        final QueuePair toA = b.createQueuePair(200, 2, 100);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final long[] receivedA = new long[1];
        final long[] receivedB = new long[1];
        final String[] error = new String[1];
        final long[] sent = new long[2];
        Deadline.await(60, MESSAGES + " messages each way", () ->
        {
            for (int side = 0; side < 2; side++)
            {
                if (sent[side] < MESSAGES)
                {
                    message.putLong(0, sent[side]);
                    if ((side == 0 ? toB : toA).offer(message, 0, 64) >= 0)
                    {
                        sent[side]++;
                    }
                }
            }
            a.poll(packet -> check(packet.buffer().getLong(packet.payloadOffset()), receivedA, error), 64);
            b.poll(packet -> check(packet.buffer().getLong(packet.payloadOffset()), receivedB, error), 64);
            return receivedA[0] == MESSAGES && receivedB[0] == MESSAGES || null != error[0];
        }, work);
        assertEquals(null, error[0]);
        assertTrue(a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
    }

    private static void check(final long sequence, final long[] received, final String[] error)
    {
        if (sequence != received[0] && null == error[0])
        {
            error[0] = "got " + sequence + ", expected " + received[0];
        }
        received[0]++;
    }

    private static boolean bothActive(final Port a, final Port b)
    {
        return a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE;
    }
}
