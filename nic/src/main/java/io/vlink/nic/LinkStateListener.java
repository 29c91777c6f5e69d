package io.vlink.nic;

import io.vlink.core.credit.LinkState;

/**
 * Told of every link state a port enters: {@code Down -> Initialize -> Armed -> Active}, and back to Down and
 * Initialize when the peer falls silent, closes or initializes again (docs/flow-control.md). Called on the thread
 * that runs the port's credit agent, after the state is published ({@link Port#linkState()} already returns it):
 * return quickly, never block, and hand anything slow to another thread.
 */
@FunctionalInterface
public interface LinkStateListener
{
    /**
     * @param port  the port's number in its engine.
     * @param state the state it entered.
     */
    void onLinkState(int port, LinkState state);
}
