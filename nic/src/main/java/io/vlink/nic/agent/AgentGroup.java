package io.vlink.nic.agent;

import org.agrona.CloseHelper;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentInvoker;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * An engine's agents mapped to threads by a {@link ThreadingMode}: one {@link AgentRunner} thread each
 * ({@link ThreadingMode#DEDICATED}), one thread running a {@link CompositeAgent} ({@link ThreadingMode#SHARED}),
 * one such thread per group of agents ({@link ThreadingMode#SPLIT}), or an {@link AgentInvoker} the caller drives
 * ({@link ThreadingMode#INVOKER}).
 * <p>
 * Whatever the mode, an exception thrown by an agent's duty cycle goes to the error handler and increments the
 * error counter, and the loop carries on with the next duty cycle: one bad packet never stops an engine.
 * {@link #close()} stops every thread (waiting for each to leave its loop) and closes every agent exactly once.
 */
public final class AgentGroup implements AutoCloseable
{
    private final ThreadingMode mode;
    private final List<AgentRunner> runners;
    private final List<Thread> threads;
    private final AgentInvoker invoker;
    private boolean closed;

    private AgentGroup(final String threadNamePrefix, final ThreadingMode mode, final List<AgentRunner> runners, final AgentInvoker invoker)
    {
        this.mode = mode;
        this.runners = runners;
        this.threads = null == invoker ? startAll(threadNamePrefix, runners) : List.of();
        this.invoker = invoker;
    }

    /**
     * Start agents in the given mode, as one group ({@link ThreadingMode#SPLIT} then runs them on one thread).
     *
     * @param threadNamePrefix prefixed to each agent's role name to name its thread, e.g. {@code "vlink-e1-"}.
     * @param mode             how agents map to threads.
     * @param idleStrategy     a fresh idle strategy per thread (unused in invoker mode).
     * @param errorHandler     receives every exception an agent throws.
     * @param errorCounter     incremented for every such exception; may be null.
     * @param agents           the agents, in the order a shared thread runs them.
     * @return the started group.
     */
    public static AgentGroup start(
        final String threadNamePrefix,
        final ThreadingMode mode,
        final Supplier<IdleStrategy> idleStrategy,
        final ErrorHandler errorHandler,
        final AtomicCounter errorCounter,
        final List<? extends Agent> agents)
    {
        return startGroups(threadNamePrefix, mode, idleStrategy, errorHandler, errorCounter, List.of(agents));
    }

    /**
     * Start agents in the given mode. The groups matter only to {@link ThreadingMode#SPLIT}, which gives each group
     * a thread of its own; the other modes run the agents in order, group after group.
     *
     * @param threadNamePrefix prefixed to the role name of each thread's agent (a composite's names its agents).
     * @param mode             how agents map to threads.
     * @param idleStrategy     a fresh idle strategy per thread (unused in invoker mode).
     * @param errorHandler     receives every exception an agent throws.
     * @param errorCounter     incremented for every such exception; may be null.
     * @param groups           the agents, in groups, in the order a shared thread runs them.
     * @return the started group.
     */
    public static AgentGroup startGroups(
        final String threadNamePrefix,
        final ThreadingMode mode,
        final Supplier<IdleStrategy> idleStrategy,
        final ErrorHandler errorHandler,
        final AtomicCounter errorCounter,
        final List<? extends List<? extends Agent>> groups)
    {
        Objects.requireNonNull(errorHandler, "errorHandler");
        final List<Agent> agents = new ArrayList<>();
        for (final List<? extends Agent> group : groups)
        {
            agents.addAll(group);
        }
        if (agents.isEmpty())
        {
            throw new IllegalArgumentException("no agents to run");
        }

        switch (mode)
        {
            case DEDICATED:
            {
                final List<AgentRunner> runners = new ArrayList<>(agents.size());
                for (final Agent agent : agents)
                {
                    runners.add(new AgentRunner(idleStrategy.get(), errorHandler, errorCounter, agent));
                }
                return new AgentGroup(threadNamePrefix, mode, runners, null);
            }

            case SHARED:
            {
                final AgentRunner runner = new AgentRunner(
                    idleStrategy.get(), errorHandler, errorCounter, composite(agents));
                return new AgentGroup(threadNamePrefix, mode, List.of(runner), null);
            }

            case SPLIT:
            {
                final List<AgentRunner> runners = new ArrayList<>(groups.size());
                for (final List<? extends Agent> group : groups)
                {
                    if (!group.isEmpty())
                    {
                        runners.add(new AgentRunner(idleStrategy.get(), errorHandler, errorCounter, composite(group)));
                    }
                }
                return new AgentGroup(threadNamePrefix, mode, runners, null);
            }

            case INVOKER:
            {
                final AgentInvoker invoker = new AgentInvoker(errorHandler, errorCounter, composite(agents));
                invoker.start();
                return new AgentGroup(threadNamePrefix, mode, List.of(), invoker);
            }

            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static Agent composite(final List<? extends Agent> agents)
    {
        return agents.size() == 1 ? agents.get(0) : new CompositeAgent(agents);
    }

    private static List<Thread> startAll(final String threadNamePrefix, final List<AgentRunner> runners)
    {
        final List<Thread> threads = new ArrayList<>(runners.size());
        for (final AgentRunner runner : runners)
        {
            // Not AgentRunner.startOnThread: it names the thread after the role only.
            final Thread thread = new Thread(runner, threadNamePrefix + runner.agent().roleName());
            thread.setDaemon(false);
            thread.start();
            threads.add(thread);
        }
        return Collections.unmodifiableList(threads);
    }

    /**
     * @return the mode the agents run in.
     */
    public ThreadingMode mode()
    {
        return mode;
    }

    /**
     * One duty cycle of every agent, on the caller's thread ({@link ThreadingMode#INVOKER} only).
     *
     * @return the work done, as the agents report it (0 when idle).
     * @throws IllegalStateException in the other modes, where threads drive the agents.
     */
    public int invoke()
    {
        if (null == invoker)
        {
            throw new IllegalStateException("agents run on their own threads in " + mode + " mode");
        }
        return invoker.invoke();
    }

    /**
     * @return the threads started for the agents (empty in invoker mode; stopped after {@link #close()}), for diagnostics and tests.
     */
    public List<Thread> threads()
    {
        return threads;
    }

    /**
     * @return true once {@link #close()} has run.
     */
    public boolean isClosed()
    {
        return closed;
    }

    /**
     * Stop every thread, waiting for each to leave its duty cycle, and close every agent once. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            CloseHelper.closeAll(runners);
            CloseHelper.close(invoker);
            // A runner closed before its thread entered run() does not join it: make sure every thread is gone.
            for (final Thread thread : threads)
            {
                try
                {
                    thread.join();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
    }
}
