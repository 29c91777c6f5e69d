package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A link state read from another thread comes with its transition counted: the credit agent counts
 * {@code link_transitions} before it publishes the state ({@link Port#linkState()}, the {@code link_state} counter, the
 * {@link LinkStateListener}). Counted after, a thread that saw a port Active could read the count one short, and see one
 * transition more later where none happened: the two-process bounce test failed so, now and then, under load (the
 * credit agent's thread preempted between the two writes).
 */
class LinkTransitionsCountTest
{
    @TempDir
    File dir;

    @Test
    void aStateSeenActiveHasItsTransitionCounted() throws Exception
    {
        // the credit agent's thread held in the listener right after it published Active: the widest the gap can be
        final CountDownLatch read = new CountDownLatch(1);
        final CountDownLatch held = new CountDownLatch(1);
        final LinkStateListener listener = (port, state) ->
        {
            if (0 == port && LinkState.ACTIVE == state && held.getCount() > 0)
            {
                held.countDown();
                try
                {
                    read.await(10, TimeUnit.SECONDS);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (Engine engine = Engine.builder().name("transitions").directory(dir).threading(ThreadingMode.SHARED)
            .idle("yield").linkStateListener(listener).build())
        {
            final Port a = engine.port(0);
            assertTrue(held.await(10, TimeUnit.SECONDS), "a went Active");
            assertEquals(LinkState.ACTIVE, a.linkState());
            final long transitions = a.counters().linkTransitions().get();
            read.countDown();
            assertEquals(3, transitions, "Initialize, Armed, Active: counted when Active is seen");
        }
    }
}
