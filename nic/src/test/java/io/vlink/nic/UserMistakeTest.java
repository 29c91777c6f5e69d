package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Bad input from a user never loses data that was accepted. A bad configuration pushed to a running engine
 * is refused and the old one keeps working; closing while traffic flows delivers or reports every accepted packet.
 * Both with the engine on its own thread (shared), traffic posted and polled from the test's thread.
 */
class UserMistakeTest
{
    private static final int SL = 3;
    private static final int LENGTH = 1024;

    @TempDir
    File dir;

    private final long[] next = new long[16];
    private long delivered;
    private final PacketHandler handler = packet ->
    {
        final int vl = packet.vl();
        assertEquals(next[vl]++, packet.buffer().getLong(packet.payloadOffset()), "FIFO on VL " + vl);
        delivered++;
    };
    /** In order, never twice; a link error's flush and the wire at it leave gaps. */
    private final PacketHandler gapHandler = packet ->
    {
        final int vl = packet.vl();
        final long seq = packet.buffer().getLong(packet.payloadOffset());
        assertTrue(seq >= next[vl], "in order on VL " + vl + ": " + seq + " after " + (next[vl] - 1));
        next[vl] = seq + 1;
        delivered++;
    };

    private Engine engine(final String name)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.SHARED).idle("backoff")
            .qos(QosConfig.seedExample()).build();
    }

    private static UnsafeBuffer packet()
    {
        final UnsafeBuffer packet = new UnsafeBuffer(new byte[LENGTH]);
        new LrhFlyweight().wrap(packet, 0).vl(0).sl(SL).lnh(LrhFlyweight.LNH_LOCAL).dlid(2).slid(1);
        return packet;
    }

    @Test
    void aBadConfigurationIsRefusedWhileTrafficFlowsAndTheOldOneKeepsWorking()
    {
        try (Engine engine = engine("refuse"))
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
            final UnsafeBuffer packet = packet();
            final QosConfig before = a.currentQos();
            long accepted = 0;
            for (int round = 0; round < 3; round++)
            {
                final long target = accepted + 2_000;
                while (accepted < target)
                {
                    packet.putLong(20, accepted);
                    if (a.postPacket(SL, packet, 0, LENGTH) != QueuePair.BACK_PRESSURED)
                    {
                        accepted++;
                    }
                    b.poll(handler, 64);
                }
                // mid-flow: other data VLs, then another SL2VL: each refused with the reason; nothing changes
                final IllegalArgumentException vls = assertThrows(IllegalArgumentException.class,
                    () -> a.replaceQos(QosConfig.opensmDefaults(4)));
                assertTrue(vls.getMessage().contains("data VLs"), vls.getMessage());
                final IllegalArgumentException sl2vl = assertThrows(IllegalArgumentException.class,
                    () -> a.replaceQos(QosConfig.seedExample().toBuilder().sl2vl("1,0,2,3,4,5,6,7,0,1,2,3,4,5,6,7")
                        .build()));
                assertTrue(sl2vl.getMessage().contains("SL2VL"), sl2vl.getMessage());
                assertSame(before, a.currentQos(), "the settings in force stay");
            }
            final long sent = accepted;
            Deadline.await(20, "every accepted packet delivered", () -> delivered == sent, () -> b.poll(handler, 64));
            assertEquals(sent, next[QosConfig.seedExample().sl2vl(SL)]);
            assertSame(before, a.currentQos());
            EngineErrors.assertNone(engine.countersFile());
        }
    }

    @Test
    void closingWhileTrafficFlowsDeliversOrReportsEveryAcceptedPacket()
    {
        final Engine engine = engine("close");
        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
        final UnsafeBuffer packet = packet();
        long accepted = 0;
        // keep the queue pair, the cells, the wire and the receive buffer busy: post until back-pressure and
        // poll only a few, so that packets are everywhere when the engine closes
        while (delivered < 3_000)
        {
            packet.putLong(20, accepted);
            if (a.postPacket(SL, packet, 0, LENGTH) != QueuePair.BACK_PRESSURED)
            {
                accepted++;
            }
            else
            {
                b.poll(handler, 4);
            }
        }
        assertNull(a.closeReport());
        engine.close(Duration.ZERO);
        final CloseReport sender = a.closeReport();
        final CloseReport receiver = b.closeReport();
        assertNotNull(sender);
        assertTrue(sender.notInjected() + sender.notSent() + receiver.onWire() + receiver.notDelivered() > 0,
            "packets were in flight: " + sender + " / " + receiver);
        assertEquals(accepted, delivered + sender.notInjected() + sender.notSent() + receiver.onWire() +
            receiver.notDelivered(), "accepted = delivered + reported: " + sender + " / " + receiver);
    }

    @Test
    void aLinkErrorWhileTrafficFlowsFlushesAndTheCloseReportStillAccountsForEveryAcceptedPacket()
    {
        final Engine engine = engine("flush-close");
        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
        final UnsafeBuffer packet = packet();
        long accepted = 0;
        boolean downAsked = false;
        boolean upAsked = false;
        // the receiving port goes down and up mid-flow: the sender sees its init FCPs after its normal ones, a link
        // error, and flushes what it holds; the packets on the wire then are discarded by the receiver for its state
        while (delivered < 3_000 || a.counters().linkErrorRecovery().get() == 0)
        {
            if (delivered >= 1_000 && !downAsked)
            {
                b.down();
                downAsked = true;
            }
            if (downAsked && !upAsked && b.linkState() == LinkState.DOWN)
            {
                b.up();
                upAsked = true;
            }
            packet.putLong(20, accepted);
            if (a.postPacket(SL, packet, 0, LENGTH) != QueuePair.BACK_PRESSURED)
            {
                accepted++;
            }
            else
            {
                b.poll(gapHandler, 4);
            }
        }
        engine.close(Duration.ZERO);
        final CloseReport sender = a.closeReport();
        final CloseReport receiver = b.closeReport();
        final long stateDiscards = engine.countersSnapshot().discards(1, DiscardReason.DATA_STATE.id());
        assertTrue(engine.countersSnapshot().port(0, CounterType.LINK_ERROR_RECOVERY) >= 1, "the sender re-trained");
        assertTrue(sender.flushed() > 0, "the sender held packets at the link error: " + sender);
        assertEquals(accepted, delivered + sender.flushed() + sender.notInjected() + sender.notSent() +
            receiver.onWire() + receiver.notDelivered() + stateDiscards,
            "accepted = delivered + flushed + reported + discarded on the way down: " + sender + " / " + receiver +
            ", " + stateDiscards + " discarded for the link state");
    }

    @Test
    void closeDrainsWhatWasOfferedOntoTheWireFirst()
    {
        final Engine engine = engine("drain");
        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "active", () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
        final UnsafeBuffer packet = packet();
        // fewer than the receive buffer holds: everything can leave the sender while the receiver polls nothing
        final int count = 64;
        for (int i = 0; i < count; i++)
        {
            packet.putLong(20, i);
            Deadline.await(10, "room to post", () -> a.postPacket(SL, packet, 0, LENGTH) != QueuePair.BACK_PRESSURED);
        }
        engine.close();
        final CloseReport sender = a.closeReport();
        final CloseReport receiver = b.closeReport();
        assertEquals(0, sender.notInjected(), sender.toString());
        assertEquals(0, sender.notSent(), sender.toString());
        assertEquals(count, receiver.onWire() + receiver.notDelivered(), receiver.toString());
    }
}
