package io.vlink.nic.agent;

import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.*;

class AgentGroupTest
{
    private final List<Throwable> errors = new CopyOnWriteArrayList<>();
    private final AtomicCounter errorCounter = new AtomicCounter(new UnsafeBuffer(new byte[128]), 0);

    /** Counts its duty cycles, throws on every 3rd, records the thread it ran on and whether it was closed. */
    static final class CountingAgent implements Agent
    {
        final String name;
        final AtomicLong cycles = new AtomicLong();
        final AtomicInteger closes = new AtomicInteger();
        volatile Thread thread;

        CountingAgent(final String name)
        {
            this.name = name;
        }

        @Override
        public int doWork()
        {
            thread = Thread.currentThread();
            final long cycle = cycles.incrementAndGet();
            if (cycle % 3 == 0)
            {
                throw new IllegalStateException(name + " bad packet " + cycle);
            }
            return 1;
        }

        @Override
        public void onClose()
        {
            closes.incrementAndGet();
        }

        @Override
        public String roleName()
        {
            return name;
        }
    }

    private AgentGroup start(final ThreadingMode mode, final List<CountingAgent> agents)
    {
        return AgentGroup.start("test-", mode, IdleStrategies.supplier("backoff"), errors::add, errorCounter, agents);
    }

    @Test
    void invokerModeRunsEveryAgentOnTheCallersThreadAndSurvivesErrors()
    {
        final List<CountingAgent> agents = List.of(new CountingAgent("a"), new CountingAgent("b"));
        try (AgentGroup group = start(ThreadingMode.INVOKER, agents))
        {
            assertTrue(group.threads().isEmpty());
            for (int i = 0; i < 9; i++)
            {
                group.invoke();
            }
            // CompositeAgent ends a cycle at a throwing agent and resumes with the next one.
            final long thrown = agents.get(0).cycles.get() / 3 + agents.get(1).cycles.get() / 3;
            assertTrue(agents.get(0).cycles.get() >= 6 && agents.get(1).cycles.get() >= 6);
            assertSame(Thread.currentThread(), agents.get(0).thread);
            assertSame(Thread.currentThread(), agents.get(1).thread);
            assertTrue(thrown >= 4);
            assertEquals(thrown, errorCounter.get());
            assertEquals(thrown, errors.size());
        }
        assertEquals(1, agents.get(0).closes.get());
        assertEquals(1, agents.get(1).closes.get());
    }

    @Test
    void sharedModeRunsAllAgentsOnOneThreadUntilClosed()
    {
        final List<CountingAgent> agents = List.of(new CountingAgent("a"), new CountingAgent("b"));
        final AgentGroup group = start(ThreadingMode.SHARED, agents);
        final List<Thread> threads = new ArrayList<>(group.threads());
        assertEquals(1, threads.size());
        Deadline.await(10, "both agents to run and errors to be handled",
            () -> agents.get(1).cycles.get() > 10 && errorCounter.get() > 3);
        assertSame(agents.get(0).thread, agents.get(1).thread);
        assertThrows(IllegalStateException.class, group::invoke);
        group.close();
        assertFalse(threads.get(0).isAlive());
        assertEquals(1, agents.get(0).closes.get());
        assertEquals(1, agents.get(1).closes.get());
        // an error raised while the runner is closing goes to the handler but is no longer counted
        assertTrue(errors.size() - errorCounter.get() <= 1, errors.size() + " errors, counted " + errorCounter.get());
    }

    @Test
    void splitModeRunsEachGroupOnAThreadOfItsOwn()
    {
        final List<CountingAgent> receive = List.of(new CountingAgent("receive"), new CountingAgent("credit"));
        final List<CountingAgent> transmit = List.of(new CountingAgent("inject"), new CountingAgent("arbiter"));
        final AgentGroup group = AgentGroup.startGroups(
            "test-", ThreadingMode.SPLIT, IdleStrategies.supplier("backoff"), errors::add, errorCounter,
            List.of(receive, transmit));
        final List<Thread> threads = new ArrayList<>(group.threads());
        assertEquals(2, threads.size());
        Deadline.await(10, "every agent to run",
            () -> receive.stream().allMatch((a) -> a.cycles.get() > 5) &&
            transmit.stream().allMatch((a) -> a.cycles.get() > 5));
        assertSame(receive.get(0).thread, receive.get(1).thread);
        assertSame(transmit.get(0).thread, transmit.get(1).thread);
        assertNotSame(receive.get(0).thread, transmit.get(0).thread);
        assertThrows(IllegalStateException.class, group::invoke);
        group.close();
        for (final Thread thread : threads)
        {
            assertFalse(thread.isAlive(), thread.getName());
        }
        for (final List<CountingAgent> side : List.of(receive, transmit))
        {
            for (final CountingAgent agent : side)
            {
                assertEquals(1, agent.closes.get(), agent.name);
            }
        }
    }

    @Test
    void groupsRunInOrderOnOneThreadInSharedModeAndOneThreadEachInDedicatedMode()
    {
        final List<CountingAgent> first = List.of(new CountingAgent("a"), new CountingAgent("b"));
        final List<CountingAgent> second = List.of(new CountingAgent("c"));
        try (AgentGroup shared = AgentGroup.startGroups(
            "shared-", ThreadingMode.SHARED, IdleStrategies.supplier("backoff"), errors::add, errorCounter,
            List.of(first, second)))
        {
            assertEquals(1, shared.threads().size());
            Deadline.await(10, "every agent to run", () -> second.get(0).cycles.get() > 5);
            assertSame(first.get(0).thread, second.get(0).thread);
        }
        final List<CountingAgent> third = List.of(new CountingAgent("d"), new CountingAgent("e"));
        final List<CountingAgent> fourth = List.of(new CountingAgent("f"));
        try (AgentGroup dedicated = AgentGroup.startGroups(
            "dedicated-", ThreadingMode.DEDICATED, IdleStrategies.supplier("backoff"), errors::add, errorCounter,
            List.of(third, fourth)))
        {
            assertEquals(3, dedicated.threads().size());
            Deadline.await(10, "every agent to run", () -> third.get(1).cycles.get() > 5);
            assertNotSame(third.get(0).thread, third.get(1).thread);
        }
    }

    @Test
    void dedicatedModeRunsEachAgentOnItsOwnNamedThread()
    {
        final List<CountingAgent> agents = List.of(
            new CountingAgent("arbiter"), new CountingAgent("credit"), new CountingAgent("receive"));
        final AgentGroup group = start(ThreadingMode.DEDICATED, agents);
        final List<Thread> threads = new ArrayList<>(group.threads());
        assertEquals(3, threads.size());
        Deadline.await(10, "every agent to run", () -> agents.stream().allMatch((a) -> a.cycles.get() > 5));
        assertNotSame(agents.get(0).thread, agents.get(1).thread);
        assertNotSame(agents.get(1).thread, agents.get(2).thread);
        assertEquals("test-arbiter", agents.get(0).thread.getName());
        group.close();
        group.close();
        for (final Thread thread : threads)
        {
            assertFalse(thread.isAlive(), thread.getName());
        }
        for (final CountingAgent agent : agents)
        {
            assertEquals(1, agent.closes.get());
        }
    }

    @Test
    void parsesModesAndIdleStrategies()
    {
        assertEquals(ThreadingMode.SHARED, ThreadingMode.parse("Shared"));
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> ThreadingMode.parse("x"));
        assertTrue(ex.getMessage().contains("dedicated, shared, split or invoker"));
        for (final String name : List.of("spin", "backoff", "yield", "sleep", "noop"))
        {
            assertNotNull(IdleStrategies.supplier(name).get());
        }
        assertNotSame(IdleStrategies.supplier("backoff").get(), IdleStrategies.supplier("backoff").get());
        assertThrows(IllegalArgumentException.class, () -> IdleStrategies.supplier("busy"));
    }
}
