package io.vlink.nic;

import io.vlink.core.fabric.Topology;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A fabric whose switches run on a thread of their own ({@code FabricConfiguration.Builder.switchThread}): while the caller holds
 * them paused the switch thread runs no duty cycle (its counters stand still and traffic waits on the cables), and
 * once resumed the traffic goes; nested pauses resume at the outermost; an exception in a switch's duty cycle goes to
 * that switch's error log and counter and the thread goes on; close stops and joins the thread.
 */
class FabricSwitchThreadTest
{
    /** The most any wait for the other thread takes. */
    private static final long DEADLINE_NS = TimeUnit.SECONDS.toNanos(20);
    private static final String TOPOLOGY = "net.2sw2path4hca";
    /**
     * The harness's clock moves 1 us per step of the caller, whoever runs: on a busy machine the switch thread may be
     * off the CPU for many steps, which must not read as a silent peer.
     */
    private static final long LINK_TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    @TempDir
    Path dir;

    @Test
    void pausedSwitchesRunNoDutyCycleAndTrafficWaitsUntilResumed()
    {
        final FabricConfiguration.Builder settings = Fabric.builder().name("paused").directory(dir.toFile())
            .switchThread(true).linkTimeoutNs(LINK_TIMEOUT_NS);
        try (FabricHarness h = new FabricHarness(FabricHarness.topology(TOPOLOGY), settings))
        {
            assertTrue(h.fabric.hasSwitchThread());
            await(h, "every link Active", h.fabric::isActive);
            final Fabric.Endpoint from = h.endpoint("Hca1");
            final Fabric.Endpoint to = h.endpoint("Hca2");
            final int packets = 10;
            final long cycles;
            final long forwarded;
            try (Fabric.Paused outer = h.fabric.pauseSwitches())
            {
                cycles = h.fabric.switchDutyCycles();
                forwarded = switchTxPackets(h);
                for (int i = 0; i < packets; i++)
                {
                    assertTrue(h.send(from, to.lid(), 0, 256));
                }
                try (Fabric.Paused inner = h.fabric.pauseSwitches())
                {
                    steps(h, 2_000);
                }
                // the inner pause ended, the outer stands: still nothing moves
                steps(h, 2_000);
                assertEquals(cycles, h.fabric.switchDutyCycles(), "duty cycles while paused");
                assertEquals(forwarded, switchTxPackets(h), "packets the switches sent while paused");
                assertEquals(0, h.delivered, "delivered while the switches are paused");
                assertEquals(packets, from.port().counters().txPackets(0).get(), "the CA port sent them");
            }
            await(h, "every packet delivered after the resume", () -> h.delivered == packets);
            // the switch thread publishes its duty-cycle count and its ports' packet counts after the work they
            // count, so a packet can be delivered here before the counts that include it are visible: waited for
            await(h, "a switch duty cycle after the resume", () -> h.fabric.switchDutyCycles() > cycles);
            await(h, "each packet crossed a switch at least once", () -> switchTxPackets(h) >= forwarded + packets);
            assertEquals(0, h.wrongOrder.size(), h.wrongOrder.toString());
            await(h, "credits back on every cable", () -> h.unrecoveredCredits().isEmpty());
            assertTrue(h.fabric.creditLoop().isEmpty());
            assertThrows(IllegalStateException.class, h.fabric::resumeSwitches);
        }
    }

    /**
     * A switch thread the machine starved past the link timeout while the CAs ran: the CA ports took their switches
     * for gone (a link error each, what they held flushed), and once the thread runs again every link comes back and
     * every credit with it; packets that were not flushed arrive in order.
     */
    @Test
    void aSwitchThreadStarvedPastTheLinkTimeoutComesBackWithEveryCredit()
    {
        final long linkTimeoutNs = TimeUnit.MILLISECONDS.toNanos(10);
        final FabricConfiguration.Builder settings = Fabric.builder().name("starved").directory(dir.toFile())
            .switchThread(true).linkTimeoutNs(linkTimeoutNs);
        try (FabricHarness h = new FabricHarness(FabricHarness.topology(TOPOLOGY), settings))
        {
            await(h, "every link Active", h.fabric::isActive);
            final Fabric.Endpoint from = h.endpoint("Hca1");
            final Fabric.Endpoint to = h.endpoint("Hca2");
            for (int i = 0; i < 20; i++)
            {
                assertTrue(h.send(from, to.lid(), 0, 256));
            }
            await(h, "some delivered", () -> h.delivered > 0);
            long downs = 0;
            try (Fabric.Paused starved = h.fabric.pauseSwitches())
            {
                for (int i = 0; i < 20; i++)
                {
                    assertTrue(h.send(from, to.lid(), 0, 256));
                }
                // the CAs run on, their clock past the link timeout many times over
                steps(h, (int)(4 * linkTimeoutNs / FabricHarness.STEP_NS));
                for (final Fabric.Endpoint ca : h.fabric.endpoints())
                {
                    downs += ca.port().counters().linkDowned().get();
                }
            }
            assertTrue(downs > 0, "the CA ports took their switches for gone");
            await(h, "every link Active again", h.fabric::isActive);
            for (int i = 0; i < 20; i++)
            {
                assertTrue(h.send(from, to.lid(), 0, 256));
            }
            final long sentAfter = h.delivered;
            await(h, "the packets sent after the starvation delivered", () -> h.delivered >= sentAfter + 20);
            assertEquals(0, h.wrongOrder.size(), h.wrongOrder.toString());
            await(h, "credits back on every cable", () -> h.unrecoveredCredits().isEmpty());
        }
    }

    @Test
    void anExceptionInASwitchGoesToItsErrorLogAndCounterAndTheThreadGoesOn()
    {
        final Topology topology = FabricHarness.topology(TOPOLOGY);
        final ThrowOnce bad = new ThrowOnce();
        final FabricConfiguration.Builder settings = Fabric.builder().name("thrown").directory(dir.toFile())
            .switchThread(true).linkTimeoutNs(LINK_TIMEOUT_NS)
            .linkWrapper((node, port, link) ->
                "Switch2".equals(node.id()) && 1 == port ? bad.wrap(link) : link);
        try (FabricHarness h = new FabricHarness(topology, settings))
        {
            await(h, "every link Active", h.fabric::isActive);
            final Switch sw = h.switchNamed("Switch2");
            bad.armed = true;
            await(h, "the exception thrown", () -> !bad.armed);
            await(h, "the exception counted", () -> 1 == sw.countersFile().snapshot().engine(CounterType.ERRORS));
            final int[] logged = new int[1];
            // logged before it is counted
            ErrorLogReader.read(sw.countersFile().errorLogBuffer(), (count, first, last, text) ->
            {
                logged[0] += count;
                assertTrue(text.contains("a bad duty cycle"), text);
            });
            assertEquals(1, logged[0]);
            assertTrue(h.send(h.endpoint("Hca1"), h.endpoint("Hca2").lid(), 0, 128));
            await(h, "traffic through the switch after the exception", () -> h.delivered == 1);
            assertEquals(0, h.switchNamed("Switch1").countersFile().snapshot().engine(CounterType.ERRORS));
        }
    }

    @Test
    void closeStopsAndJoinsTheSwitchThread()
    {
        final FabricConfiguration.Builder settings = Fabric.builder().name("closed").directory(dir.toFile())
            .switchThread(true).linkTimeoutNs(LINK_TIMEOUT_NS);
        final FabricHarness h = new FabricHarness(FabricHarness.topology(TOPOLOGY), settings);
        final Thread thread = switchThread("vlink-closed-switches");
        assertTrue(thread.isAlive());
        // closed while a pause stands: the thread still leaves
        h.fabric.pauseSwitches();
        h.close();
        assertFalse(thread.isAlive());
        // a pause after close does not wait for a thread that is gone
        h.fabric.pauseSwitches().close();
    }

    @Test
    void withoutASwitchThreadTheCallerRunsTheSwitchesAndAPauseDoesNothing()
    {
        final FabricConfiguration.Builder settings = Fabric.builder().name("caller").directory(dir.toFile());
        try (FabricHarness h = new FabricHarness(FabricHarness.topology(TOPOLOGY), settings))
        {
            assertFalse(h.fabric.hasSwitchThread());
            h.bringUp();
            try (Fabric.Paused p = h.fabric.pauseSwitches())
            {
                final long cycles = h.fabric.switchDutyCycles();
                h.step();
                assertEquals(cycles + 1, h.fabric.switchDutyCycles());
            }
        }
    }

    private static Thread switchThread(final String name)
    {
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            if (name.equals(thread.getName()))
            {
                return thread;
            }
        }
        throw new AssertionError("no thread " + name);
    }

    private static long switchTxPackets(final FabricHarness h)
    {
        long total = 0;
        for (final Switch sw : h.fabric.switches())
        {
            for (int p = 1; p <= sw.ports(); p++)
            {
                final PortCounters c = sw.counters(p);
                for (int vl = 0; vl < c.dataVls(); vl++)
                {
                    total += c.txPackets(vl).get();
                }
            }
        }
        return total;
    }

    private static void steps(final FabricHarness h, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            h.step();
        }
    }

    /** Step the CA engines (the switches run on their thread) until the condition holds, within the deadline. */
    private static void await(final FabricHarness h, final String what, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + DEADLINE_NS;
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("not within " + TimeUnit.NANOSECONDS.toSeconds(DEADLINE_NS) + " s: " + what +
                    "; not Active: " + h.fabric.portsNotActive() + "; credits not back: " + h.unrecoveredCredits() +
                    "; switch duty cycles " + h.fabric.switchDutyCycles());
            }
            h.step();
            Thread.yield();
        }
    }

    /** A switch port's link whose poll throws once, on the switch thread, after the test arms it. */
    private static final class ThrowOnce
    {
        volatile boolean armed;

        Link wrap(final Link link)
        {
            return new ForwardingLink(link)
            {
                @Override
                public int poll(final FrameHandler handler, final int frameLimit)
                {
                    if (armed)
                    {
                        armed = false;
                        throw new IllegalStateException("a bad duty cycle");
                    }
                    return super.poll(handler, frameLimit);
                }
            };
        }
    }
}
