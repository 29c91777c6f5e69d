package io.vlink.nic.agent;

import io.vlink.core.credit.LinkState;

/**
 * What the agents tell the engine about its ports, on the agent's thread: the engine passes it on to the
 * application's listeners. Implementations return quickly, never block and never throw.
 */
public interface PortEvents
{
    /**
     * Credit agent: a port's link entered a state.
     *
     * @param port  the port's number within its engine.
     * @param state the state entered.
     */
    void onLinkState(int port, LinkState state);

    /**
     * Injection agent: a link error flushed messages of a queue pair ({@link SendQueue#KIND_DATA} only).
     *
     * @param queue    the queue pair.
     * @param messages its messages discarded by this flush (at least 1).
     */
    void onFlushed(SendQueue queue, long messages);

    /**
     * Injection agent: a link error flushed ready packets posted on an SL ({@link SendQueue#KIND_RAW}).
     *
     * @param port    the port's number within its engine.
     * @param sl      the SL they were posted on.
     * @param packets its ready packets discarded by this flush (at least 1).
     */
    void onReadyPacketsFlushed(int port, int sl, long packets);
}
