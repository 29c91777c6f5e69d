package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;

import static org.junit.jupiter.api.Assertions.*;

/**
 * VL15, link down and up, and arbitration tables replaced while traffic flows.
 */
class LinkControlTest
{
    @TempDir
    File dir;

    private final long[] next = new long[16];
    private final PacketHandler handler = packet ->
    {
        final int vl = packet.vl();
        if (vl != 15)
        {
            assertEquals(next[vl]++, packet.buffer().getLong(packet.payloadOffset()), "FIFO on VL " + vl);
        }
        else
        {
            next[vl]++;
        }
    };

    private long delivered()
    {
        long sum = 0;
        for (int vl = 0; vl < 15; vl++)
        {
            sum += next[vl];
        }
        return sum;
    }

    private Engine engine(final String name)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER).vl15Packets(1).build();
    }

    @Test
    void aPortTakenDownAndUpAloneMakesItsPeerInitializeAgainAndFlush()
    {
        // a small receive buffer: 64 blocks a VL, so b runs out of credit while a is down and holds the rest; FCPs
        // every microsecond, so that one of b's is nearly always at hand when a comes up
        try (Engine engine = Engine.builder().name("bounce-one").directory(dir).threading(ThreadingMode.INVOKER)
            .vlBufferBlocks(64).fcpPeriodNs(1_000).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE &&
                b.linkState() == LinkState.ACTIVE, engine::invoke);
            final long bTransitions = b.counters().linkTransitions().get();
            final QueuePair qp = b.createQueuePair(1, 1, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            a.down();
            Deadline.await(10, "a down", () -> a.linkState() == LinkState.DOWN, engine::invoke);
            // b, still Active, sends what its credit allows (a discards it: a is down) and holds the rest
            for (int i = 0; i < 100; i++)
            {
                message.putLong(0, i);
                assertTrue(qp.offer(message, 0, 100) >= 0);
            }
            for (int i = 0; i < 100; i++)
            {
                engine.invoke();
            }
            final long discardedWhileDown = a.counters().discards(DiscardReason.DATA_STATE.id()).get();
            assertTrue(discardedWhileDown > 0 && discardedWhileDown < 100, "sent until out of credit: " +
                discardedWhileDown);
            assertEquals(LinkState.ACTIVE, b.linkState(), "b does not know yet");

            a.up();
            // a's counters start from zero: b must not go on as if nothing happened. a's init FCP, arriving after a's
            // normal ones, tells b, which re-trains (a link error recovered) and flushes what it held for the old a
            Deadline.await(10, "both active again", () -> a.linkState() == LinkState.ACTIVE &&
                b.linkState() == LinkState.ACTIVE && b.counters().linkErrorRecovery().get() == 1, engine::invoke);
            assertTrue(b.counters().linkTransitions().get() >= bTransitions + 3, "b went through Initialize again");
            assertEquals(0, a.counters().linkErrorRecovery().get(), "a was told: no error on its side");
            Deadline.await(10, "every message accounted", () ->
                discardedWhileDown + qp.flushed() == 100, engine::invoke);
            assertEquals(discardedWhileDown, a.counters().discards(DiscardReason.DATA_STATE.id()).get());

            // and the link works: a message after the re-training arrives
            message.putLong(0, 0);
            assertTrue(qp.offer(message, 0, 100) >= 0);
            Deadline.await(10, "a message after the re-training", () ->
            {
                a.poll(handler, 64);
                return delivered() == 1;
            }, engine::invoke);
        }
    }

    @Test
    void smpsBeyondTheVl15BufferAreDroppedAndCountedWhileDataIsUnaffected()
    {
        try (Engine engine = engine("vl15"))
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final UnsafeBuffer smp = new UnsafeBuffer(new byte[276]);
            new LrhFlyweight().wrap(smp, 0).vl(15).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(2).slid(1);
            final QueuePair qp = a.createQueuePair(1, 1, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            for (int i = 0; i < 30; i++)
            {
                assertTrue(a.postSmp(smp, 0, 276) >= 0);
                message.putLong(0, i);
                assertTrue(qp.offer(message, 0, 100) >= 0);
            }
            // the receiver does not drain VL15 until every SMP has arrived or been dropped
            Deadline.await(10, "every SMP accounted for", () -> b.counters().rxPackets(15).get() +
                b.counters().vl15Drops().get() == 30, engine::invoke);
            final long kept = b.counters().rxPackets(15).get();
            assertEquals(b.pending(15), kept);
            assertTrue(kept >= 1 && kept < 30, "the VL15 buffer holds some: " + kept);
            assertEquals(30 - kept, b.counters().discards(DiscardReason.VL15_FULL.id()).get());
            assertEquals(30, a.counters().txPackets(15).get());
            Deadline.await(10, "data delivered", () ->
            {
                b.poll(handler, 64);
                return next[1] == 30;
            }, engine::invoke);
            assertEquals(kept, next[15]);
            assertEquals(0, b.counters().discards(DiscardReason.DATA_OVERFLOW.id()).get());
        }
    }

    @Test
    void linkGoesDownAndComesBackThroughInitializeAndQueuedPacketsGoOutAfter()
    {
        try (Engine engine = engine("bounce"))
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE &&
                b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(1, 2, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            for (int i = 0; i < 50; i++)
            {
                message.putLong(0, i);
                assertTrue(qp.offer(message, 0, 100) >= 0);
            }
            Deadline.await(10, "first half", () ->
            {
                b.poll(handler, 64);
                return next[2] == 50;
            }, engine::invoke);

            a.down();
            b.down();
            Deadline.await(10, "down", () -> a.linkState() == LinkState.DOWN &&
                b.linkState() == LinkState.DOWN, engine::invoke);
            for (int i = 50; i < 100; i++)
            {
                message.putLong(0, i);
                assertTrue(qp.offer(message, 0, 100) >= 0);
            }
            for (int i = 0; i < 50; i++)
            {
                engine.invoke();
            }
            assertEquals(50, a.counters().txPackets(2).get(), "nothing sent while down");

            a.up();
            b.up();
            Deadline.await(10, "second half after the link came back", () ->
            {
                b.poll(handler, 64);
                return next[2] == 100;
            }, engine::invoke);
            assertEquals(LinkState.ACTIVE, a.linkState());
            assertTrue(a.counters().linkTransitions().get() >= 6, "Initialize, Armed, Active, Down, and again");
        }
    }

    @Test
    void arbitrationTablesAreReplacedAtAPacketBoundaryAndABadReplacementIsRefused()
    {
        try (Engine engine = engine("retable"))
        {
            final Port a = engine.port(0);
            final QosConfig seed = QosConfig.seedExample();
            a.replaceQos(seed);
            engine.invoke();
            assertSame(seed, a.currentQos());
            final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> a.replaceQos(QosConfig.opensmDefaults(4)));
            assertTrue(refused.getMessage().contains("data VLs"), refused.getMessage());
            engine.invoke();
            assertSame(seed, a.currentQos(), "the settings in force stay");
        }
    }
}
