package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.Link;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order of a duty cycle's agents ({@code DutyCycle} says why): inject and arbiter first, so a reply offered after
 * a poll is on the wire before the credit agent's bookkeeping of the request; a second arbiter turn when the credit
 * agent handed it work, so credit a release frees is used as soon as when credit came first; receive before credit
 * where the application polls on its own thread.
 */
class DutyCycleOrderTest
{
    private static final int VL = 1;

    @TempDir
    File dir;

    @Test
    void theReplyGoesOnTheWireBeforeTheFcpThatReceivingItsRequestMadeDue()
    {
        final List<FrameTypes> wires = new ArrayList<>();
        // periodic FCPs far apart: the only FCP due is the early one the request's release makes due (4 blocks)
        try (Engine engine = Engine.builder().name("order-reply").directory(dir).threading(ThreadingMode.INVOKER)
            .earlyFcpThresholdBlocks(4).fcpPeriodNs(1_000_000_000L).linkTimeoutNs(60_000_000_000L)
            .linkWrapper(link ->
            {
                final FrameTypes wire = new FrameTypes(link);
                wires.add(wire);
                return wire;
            }).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            awaitActive(engine, a, b);
            final QueuePair request = a.createQueuePair(1, VL, 1);
            final QueuePair reply = b.createQueuePair(1, VL, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);
            for (int i = 0; i < 10; i++)
            {
                engine.invoke();
            }

            assertTrue(request.offer(message, 0, 200) >= 0);
            engine.invoke();
            assertEquals(1, b.pending(VL), "the request is received in the duty cycle it was offered (loopback)");
            assertEquals(1, b.poll(packet -> { }, 1));
            assertTrue(reply.offer(message, 0, 200) >= 0);
            final FrameTypes bWire = wires.get(1);
            bWire.types.clear();
            engine.invoke();
            assertEquals(List.of(Link.DATA_FRAME, Link.LINK_FRAME), bWire.types,
                "the reply first, then the FCP the request's acceptance and release made due (arbiter, credit, arbiter)");
        }
    }

    @Test
    void creditTheReceiverReturnsIsUsedTwoDutyCyclesAfterItsRelease()
    {
        // periodic FCPs far apart, so that only the early FCP the release makes due carries the credit back
        try (Engine engine = Engine.builder().name("order-credit").directory(dir).threading(ThreadingMode.INVOKER)
            .vlBufferBlocks(64).fcpPeriodNs(1_000_000_000L).linkTimeoutNs(60_000_000_000L).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            awaitActive(engine, a, b);
            final QueuePair qp = a.createQueuePair(1, VL, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);
            for (int i = 0; i < 32; i++)
            {
                assertTrue(qp.offer(message, 0, 200) >= 0);
            }
            for (int i = 0; i < 50; i++)
            {
                engine.invoke();
            }
            assertEquals(16, b.pending(VL), "the 64-block buffer holds 16 of the 4-block packets");
            final long stalled = a.counters().txPackets(VL).get();
            assertEquals(16, stalled);

            // the application takes all 16: the FCCL moves 64 blocks, an early FCP is due
            assertEquals(16, b.poll(packet -> { }, 16));
            final long fcpsBefore = b.counters().fcpSent().get();
            // duty cycle 1: b's credit agent asks for the FCP, b's arbiter sends it in its second turn, a receives it
            engine.invoke();
            assertEquals(fcpsBefore + 1, b.counters().fcpSent().get(), "the FCP went out in the duty cycle it was asked");
            assertEquals(stalled, a.counters().txPackets(VL).get());
            // duty cycle 2: a's credit agent applies it, a's arbiter sends in its second turn
            engine.invoke();
            assertEquals(stalled + 16, a.counters().txPackets(VL).get(), "the credit used in the duty cycle it came");
        }
    }

    @Test
    void whereTheApplicationPollsOnItsOwnThreadReceiveComesBeforeCredit()
    {
        assertEquals(List.of("[clock,heartbeat,inject,arbiter,receive,credit]"), roles(ThreadingMode.SHARED));
        assertEquals(List.of("[clock,heartbeat,receive,credit]", "[clock,inject,arbiter]"), roles(ThreadingMode.SPLIT));
    }

    private static void awaitActive(final Engine engine, final Port a, final Port b)
    {
        Deadline.await(10, "link active", () -> a.linkState() == LinkState.ACTIVE &&
            b.linkState() == LinkState.ACTIVE, engine::invoke);
    }

    private List<String> roles(final ThreadingMode mode)
    {
        try (Engine engine = Engine.builder().name("order-" + mode).directory(dir).threading(mode).idle("backoff")
            .build())
        {
            final List<String> roles = new ArrayList<>();
            for (final Thread thread : engine.threads())
            {
                final String name = thread.getName();
                roles.add(name.substring(name.indexOf('[')));
            }
            return roles;
        }
    }

    /** The types of the frames a port puts on its link, in order. */
    private static final class FrameTypes extends ForwardingLink
    {
        final List<Integer> types = new ArrayList<>();

        FrameTypes(final Link link)
        {
            super(link);
        }

        @Override
        public int tryClaim(final int frameType, final int length)
        {
            final int offset = super.tryClaim(frameType, length);
            if (offset >= 0)
            {
                types.add(frameType);
            }
            return offset;
        }
    }
}
