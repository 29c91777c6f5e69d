package io.vlink.nic.agent;

/**
 * How an engine's agents (arbiter, credit, receive) are mapped to threads.
 * <p>
 * The agents never know which mode they run in: each is an Agrona {@link org.agrona.concurrent.Agent} whose
 * {@code doWork()} returns how much it did, so the same code runs on its own thread, shares one thread with the
 * others, or is driven by the caller.
 */
public enum ThreadingMode
{
    /**
     * Each agent on its own {@link org.agrona.concurrent.AgentRunner} thread: lowest latency, one core per agent
     * when the idle strategy spins.
     */
    DEDICATED,

    /**
     * All agents composed into one {@link org.agrona.concurrent.CompositeAgent} on a single thread: the mode for
     * small machines (with a back-off idle strategy it leaves the other cores alone).
     */
    SHARED,

    /**
     * Two threads: the transmit agents (injection, arbiter) on one, the receive agents (receive, credit) on the
     * other, each pair composed into one {@link org.agrona.concurrent.CompositeAgent}. The mode for two cores:
     * the two halves of the pipeline run in parallel, with no more threads than cores (as Aeron's
     * {@code SHARED_NETWORK} puts its sender and receiver on one thread and its conductor on another).
     */
    SPLIT,

    /**
     * No thread at all: the caller drives duty cycles through {@link AgentGroup#invoke()}. Deterministic, for tests
     * and for transports that already own a polling thread.
     */
    INVOKER;

    /**
     * @param name a mode name in any case: {@code dedicated}, {@code shared}, {@code split} or {@code invoker}.
     * @return the mode.
     * @throws IllegalArgumentException naming the accepted values when the name is not one of them.
     */
    public static ThreadingMode parse(final String name)
    {
        for (final ThreadingMode mode : values())
        {
            if (mode.name().equalsIgnoreCase(name.trim()))
            {
                return mode;
            }
        }
        throw new IllegalArgumentException(
            "unknown threading mode '" + name + "': use dedicated, shared, split or invoker");
    }
}
