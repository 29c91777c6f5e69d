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
