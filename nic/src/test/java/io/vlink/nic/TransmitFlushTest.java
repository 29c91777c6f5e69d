package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.PortCounters;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link error flushes the sender's transmit path, between two engines over UDP on 127.0.0.1 (invoker threading, an
 * injected clock): a queue pair holds messages behind no credits when its peer is killed (silent), closes, or
 * re-trains. The queue pair's {@code flushed()} is then exactly what it accepted and the peer did not deliver, the
 * listener is told once with that number (ready packets: per SL, {@code Port.flushedReadyPackets} and
 * {@code onReadyPacketsFlushed}), every cell is back, and after the link comes back the messages offered
 * meanwhile arrive while none of the flushed ones does.
 */
class TransmitFlushTest
{
    private static final long TIMEOUT_NS = 50_000_000;
    /** The peer's receive buffer: 64 blocks, 32 packets of 88 bytes (a 64-byte message). */
    private static final int VL_BUFFER_BLOCKS = 64;
    private static final int WINDOW = VL_BUFFER_BLOCKS / 2;
    private static final int ACCEPTED = 100;
    private static final int LATER = 10;
    private static final long LATER_ID = 1_000;

    @TempDir
    File dir;

    private final InetAddress loopback = InetAddress.getLoopbackAddress();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final List<String> flushes = new CopyOnWriteArrayList<>();
    private final List<Long> received = new ArrayList<>();
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);

    private enum PeerFate
    {
        KILLED, CLOSED, RETRAINED
    }

    private Engine engine(final String name, final int local, final int remote, final int localLid,
        final int remoteLid)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER)
            .flushListener(new FlushListener()
            {
                @Override
                public void onFlushed(final QueuePair qp, final long messages)
                {
                    flushes.add(name + " QP " + qp.qpn() + ": " + messages);
                }

                @Override
                public void onReadyPacketsFlushed(final Port port, final int sl, final long packets)
                {
                    flushes.add(name + " SL " + sl + ": " + packets);
                }
            })
            .qos(QosConfig.opensmDefaults(2))
            .vlBufferBlocks(VL_BUFFER_BLOCKS)
            .clocks(clock::get, SystemEpochClock.INSTANCE)
            .linkTimeoutNs(TIMEOUT_NS)
            .udp(new InetSocketAddress(loopback, local), new InetSocketAddress(loopback, remote), localLid, remoteLid)
            .build();
    }

    private void awaitActive(final Engine a, final Engine b)
    {
        Deadline.await(10, "both Active", () -> a.port(0).linkState() == LinkState.ACTIVE &&
            b.port(0).linkState() == LinkState.ACTIVE, () -> invoke(a, b));
    }

    private void invoke(final Engine a, final Engine b)
    {
        clock.addAndGet(10_000);
        a.invoke();
        b.invoke();
    }

    private long offer(final QueuePair qp, final long id)
    {
        message.putLong(0, id);
        final long seq = qp.offer(message, 0, message.capacity());
        assertTrue(seq >= 0, "accepted");
        return seq;
    }

    /** A ready packet on SL 0 with the same 64-byte payload: LRH, BTH (RC SEND Only to QP 9), the id. */
    private long post(final Port port, final long id)
    {
        final UnsafeBuffer packet = new UnsafeBuffer(new byte[LrhFlyweight.LENGTH + BthFlyweight.LENGTH + 64]);
        new LrhFlyweight().wrap(packet, 0).vl(0).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(2).slid(1);
        new BthFlyweight().wrap(packet, LrhFlyweight.LENGTH).opcode(BthFlyweight.RC_SEND_ONLY).pKey(0xFFFF).destQp(9);
        packet.putLong(LrhFlyweight.LENGTH + BthFlyweight.LENGTH, id);
        final long seq = port.postPacket(0, packet, 0, packet.capacity());
        assertTrue(seq >= 0, "accepted");
        return seq;
    }

    private int pollAll(final Engine b)
    {
        return b.port(0).poll(packet -> received.add(packet.buffer().getLong(packet.payloadOffset())), 256);
    }

    @Test
    void aKilledPeerFlushesWhatWasQueuedBehindNoCredits() throws Exception
    {
        flushAndRecover(PeerFate.KILLED);
    }

    @Test
    void aPeerThatClosesFlushesWhatWasQueuedBehindNoCredits() throws Exception
    {
        flushAndRecover(PeerFate.CLOSED);
    }

    @Test
    void aKilledPeerFlushesTheReadyPacketsQueuedBehindNoCreditsAndSaysSoPerSl() throws Exception
    {
        flushAndRecover(PeerFate.KILLED, true);
    }

    @Test
    void aPeerThatReinitializesFlushesWhatWasQueuedBehindNoCredits() throws Exception
    {
        flushAndRecover(PeerFate.RETRAINED);
    }

    private void flushAndRecover(final PeerFate fate) throws Exception
    {
        flushAndRecover(fate, false);
    }

    /**
     * @param ready whether the messages are ready packets on SL 0 ({@link Port#postPacket}) rather than a queue
     *              pair's.
     */
    private void flushAndRecover(final PeerFate fate, final boolean ready) throws Exception
    {
        final long offHeapBefore = OffHeap.allocatedBytes();
        final int portA = freePort();
        final int portB = freePort();
        final String nameA = "flush-a-" + fate.ordinal();
        Engine b = null;
        try (Engine a = engine(nameA, portA, portB, 1, 2))
        {
            b = engine("flush-b-" + fate.ordinal(), portB, portA, 2, 1);
            awaitActive(a, b);
            final Port port = a.port(0);
            final PortCounters counters = port.counters();
            final QueuePair qp = port.createQueuePair(7, 0, 9);
            final int vl = port.qos().sl2vl(0);

            // the peer's buffer takes 32 packets and its application does not poll: the rest waits for credits
            for (long id = 0; id < ACCEPTED; id++)
            {
                if (ready)
                {
                    post(port, id);
                }
                else
                {
                    offer(qp, id);
                }
            }
            final Engine peer = b;
            Deadline.await(10, "the window sent and received, the sender stalled", () ->
                peer.port(0).counters().rxPackets(vl).get() == WINDOW && counters.creditStalls(vl).get() > 0,
                () -> invoke(a, peer));
            assertEquals(WINDOW, counters.txPackets(vl).get());
            // the peer's application takes what arrived; its engine never runs again before the link error, so no
            // credit goes back
            assertEquals(WINDOW, pollAll(b));
            final long delivered = received.size();
            assertEquals(0, qp.flushed());
            assertEquals(0, port.flushedReadyPackets(0));

            final long downsBefore = counters.linkDowned().get();
            switch (fate)
            {
                case KILLED:
                    // nothing more from the peer: the sender's link timeout
                    Deadline.await(10, "the sender's link down", () -> counters.linkDowned().get() > downsBefore,
                        () ->
                        {
                            clock.addAndGet(1_000_000);
                            a.invoke();
                        });
                    break;
                case CLOSED:
                    // its BYE takes the link down at once
                    b.close();
                    b = null;
                    Deadline.await(10, "the sender's link down", () -> counters.linkDowned().get() > downsBefore,
                        () ->
                        {
                            clock.addAndGet(1_000);
                            a.invoke();
                        });
                    break;
                default:
                    // its link goes down and up: its init FCPs after its normal ones make the sender re-train
                    b.port(0).down();
                    final Engine restarting = b;
                    Deadline.await(10, "the peer down", () -> restarting.port(0).linkState() == LinkState.DOWN,
                        restarting::invoke);
                    // its init FCPs go before the sender runs again: none of the sender's normal FCPs can arm it first
                    final long fcpsBefore = b.port(0).counters().fcpSent().get();
                    b.port(0).up();
                    Deadline.await(10, "the peer's init FCPs sent",
                        () -> restarting.port(0).counters().fcpSent().get() > fcpsBefore, restarting::invoke);
                    Deadline.await(10, "the sender re-trained", () -> counters.linkErrorRecovery().get() == 1,
                        () -> invoke(a, restarting));
                    break;
            }
            assertTrue(port.linkState() != LinkState.ACTIVE, "the link error took the sender's port down");

            // the flush: reported once the arbiter drained the rings (the next duty cycle)
            final java.util.function.LongSupplier flushedCount = ready ? () -> port.flushedReadyPackets(0) : qp::flushed;
            Deadline.await(10, "the flush reported", () -> flushedCount.getAsLong() > 0, a::invoke);
            final long flushed = ACCEPTED - delivered;
            assertEquals(flushed, flushedCount.getAsLong(), "every message accepted and not delivered is flushed");
            assertEquals(List.of(nameA + (ready ? " SL 0: " : " QP 7: ") + flushed), flushes, "the listener told once");
            assertEquals(flushed, counters.txFlushedMessages(vl).get());
            assertEquals(ready ? 0 : ACCEPTED, qp.completed(), "flushed messages are done with: their slots are free");
            assertEquals(ready ? 0 : flushed, qp.flushed(), "a queue pair counts its own messages only");
            assertEquals(ready ? flushed : 0, port.flushedReadyPackets(0), "the ready packets of SL 0 likewise");
            a.invoke();
            assertEquals(0, counters.cellOccupancy().get(), "every cell back");
            assertEquals(WINDOW, counters.txPackets(vl).get(), "nothing more was sent");

            // offered after the port left Active: kept, and sent once the link is back
            for (long id = LATER_ID; id < LATER_ID + LATER; id++)
            {
                if (ready)
                {
                    post(port, id);
                }
                else
                {
                    offer(qp, id);
                }
            }
            if (null == b)
            {
                b = engine("flush-b2-" + fate.ordinal(), portB, portA, 2, 1);
            }
            awaitActive(a, b);
            final Engine peer2 = b;
            Deadline.await(10, "the later messages delivered", () ->
            {
                pollAll(peer2);
                return received.size() >= delivered + LATER;
            }, () -> invoke(a, peer2));
            for (int i = 0; i < 100; i++)
            {
                invoke(a, b);
                pollAll(b);
            }
            final List<Long> expected = new ArrayList<>();
            for (long id = 0; id < delivered; id++)
            {
                expected.add(id);
            }
            for (long id = LATER_ID; id < LATER_ID + LATER; id++)
            {
                expected.add(id);
            }
            assertEquals(expected, received, "the window, then the later messages: none of the flushed ones");
            assertEquals(flushed, flushedCount.getAsLong(), "the later messages were not flushed");
            assertEquals(1, flushes.size());

            a.close();
            assertEquals(flushed, port.closeReport().flushed(), "the close report agrees");
            assertEquals(0, port.closeReport().notInjected() + port.closeReport().notSent());
        }
        finally
        {
            if (null != b)
            {
                b.close();
            }
        }
        assertEquals(offHeapBefore, OffHeap.allocatedBytes(), "every off-heap byte back");
    }

    private static int freePort() throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
