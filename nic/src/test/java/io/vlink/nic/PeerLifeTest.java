package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A peer's life and death as the link layer sees it, between two engines over UDP on 127.0.0.1: a peer that closes
 * takes the link down at once (its BYE), a peer that falls silent takes it down after the link timeout (an injected
 * clock, no waiting), and a peer that comes back, or restarts, brings the link back to Active.
 */
class PeerLifeTest
{
    private static final long TIMEOUT_NS = 50_000_000;

    @TempDir
    File dir;

    private final InetAddress loopback = InetAddress.getLoopbackAddress();

    private final List<String> seenByA = new CopyOnWriteArrayList<>();

    private Engine engine(final String name, final int local, final int remote, final int localLid,
        final int remoteLid, final AtomicLong clock)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER)
            .linkStateListener((port, state) ->
            {
                if (name.endsWith("-a"))
                {
                    seenByA.add(port + ":" + state);
                }
            })
            .qos(QosConfig.opensmDefaults(2))
            .clocks(clock::get, SystemEpochClock.INSTANCE)
            .linkTimeoutNs(TIMEOUT_NS)
            .udp(new InetSocketAddress(loopback, local), new InetSocketAddress(loopback, remote), localLid, remoteLid)
            .build();
    }

    private static void awaitActive(final Engine a, final Engine b, final AtomicLong clock)
    {
        Deadline.await(10, "both Active", () -> a.port(0).linkState() == LinkState.ACTIVE &&
            b.port(0).linkState() == LinkState.ACTIVE, () ->
            {
                clock.addAndGet(10_000);
                a.invoke();
                b.invoke();
            });
    }

    @Test
    void aPeerThatClosesTakesTheLinkDownAtOnceAndARestartedOneBringsItBack() throws Exception
    {
        final int portA = freePort();
        final int portB = freePort();
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (Engine a = engine("life-a", portA, portB, 1, 2, clock))
        {
            try (Engine b = engine("life-b", portB, portA, 2, 1, clock))
            {
                awaitActive(a, b, clock);
            }
            // b said BYE as it closed: no timeout needed (the clock barely moves here)
            Deadline.await(10, "a down and re-initializing", () ->
                a.port(0).counters().linkDowned().get() == 1, () ->
                {
                    clock.addAndGet(1_000);
                    a.invoke();
                });
            assertEquals(LinkState.INITIALIZE, a.port(0).linkState());
            assertTrue(clock.get() < 1_000_000_000L + TIMEOUT_NS, "well before the link timeout");
            assertEquals(List.of("0:INITIALIZE", "0:ARMED", "0:ACTIVE", "0:DOWN", "0:INITIALIZE"), seenByA,
                "the listener saw the peer go");

            try (Engine b = engine("life-b2", portB, portA, 2, 1, clock))
            {
                awaitActive(a, b, clock);
                assertEquals(1, a.port(0).counters().linkDowned().get());
            }
        }
    }

    @Test
    void aSilentPeerTakesTheLinkDownAfterTheTimeoutAndTheLinkComesBackWhenItSpeaksAgain() throws Exception
    {
        final int portA = freePort();
        final int portB = freePort();
        final AtomicLong clock = new AtomicLong(1_000_000_000L);
        try (Engine a = engine("silent-a", portA, portB, 1, 2, clock);
            Engine b = engine("silent-b", portB, portA, 2, 1, clock))
        {
            awaitActive(a, b, clock);
            final long transitions = a.port(0).counters().linkTransitions().get();

            // b stops (a paused process) while a runs: a hears nothing as its clock runs to just below the timeout,
            // then past it
            final long stoppedNs = clock.get();
            while (clock.get() - stoppedNs < TIMEOUT_NS - 1_000_000)
            {
                clock.addAndGet(1_000_000);
                a.invoke();
            }
            assertEquals(LinkState.ACTIVE, a.port(0).linkState(), "not yet");
            clock.addAndGet(1_000_000);
            a.invoke();
            clock.addAndGet(1_000_000);
            a.invoke();
            assertEquals(LinkState.INITIALIZE, a.port(0).linkState());
            assertEquals(1, a.port(0).counters().linkDowned().get());
            assertEquals(transitions + 2, a.port(0).counters().linkTransitions().get(), "Down, then Initialize");

            // b resumes: a's init FCPs tell it a initialized again, both re-train and come back
            awaitActive(a, b, clock);
            assertEquals(1, b.port(0).counters().linkErrorRecovery().get());
            assertEquals(1, a.port(0).counters().linkDowned().get());
        }
    }

    private static int freePort() throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
