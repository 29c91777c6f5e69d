package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
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
 * Where each threading mode puts the credit agent in its duty cycle ({@code DutyCycle} says why): before receive when
 * the application polls after the duty cycle on the same thread (invoker), after it when the application polls on a
 * thread of its own.
 */
class DutyCycleOrderTest
{
    @TempDir
    File dir;

    @Test
    void inInvokerModeAPacketIsReceivedBeforeTheCreditAgentAccountsForIt()
    {
        try (Engine engine = Engine.builder().name("order-invoker").directory(dir).threading(ThreadingMode.INVOKER)
            .build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "link active", () -> a.linkState() == LinkState.ACTIVE &&
                b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(1, 1, 1);
            final long abr = b.counters().rxAbr(1).get();
            assertTrue(qp.offer(new UnsafeBuffer(new byte[64]), 0, 64) >= 0);
            // one duty cycle: injected, sent, received (the loopback peer, later in the same duty cycle), and the
            // credit agent, which ran before receive, has not seen it yet
            engine.invoke();
            assertEquals(1, b.pending(1), "received in the duty cycle it was offered");
            assertEquals(abr, b.counters().rxAbr(1).get(), "its acceptance is the next duty cycle's bookkeeping");
            engine.invoke();
            assertEquals(abr + 2, b.counters().rxAbr(1).get(), "LRH, BTH, 64 bytes and ICRC: 2 blocks");
        }
    }

    @Test
    void inTheOtherModesReceiveComesBeforeTheCreditAgent()
    {
        assertEquals(List.of("[clock,heartbeat,inject,arbiter,receive,credit]"), roles(ThreadingMode.SHARED));
        assertEquals(List.of("[clock,heartbeat,receive,credit]", "[clock,inject,arbiter]"), roles(ThreadingMode.SPLIT));
    }

    private List<String> roles(final ThreadingMode mode)
    {
        try (Engine engine = Engine.builder().name("order-" + mode).directory(dir).threading(mode).idle("yield")
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
}
