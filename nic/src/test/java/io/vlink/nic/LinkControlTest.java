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
    private final ReceiveHandler handler = (buffer, offset, length, header) ->
    {
        final int vl = header.vl();
        if (vl != 15)
        {
            assertEquals(next[vl]++, buffer.getLong(offset), "FIFO on VL " + vl);
        }
        else
        {
            next[vl]++;
        }
    };

    private Engine engine(final String name)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER).vl15Packets(1).build();
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
                b.counters().vl15Drops.get() == 30, engine::invoke);
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
            assertTrue(a.counters().linkTransitions.get() >= 6, "Initialize, Armed, Active, Down, and again");
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
