package io.vlink.nic;

/**
 * Told how many of a queue pair's accepted messages a link error discarded: the port went down from Armed or Active
 * (the peer fell silent, closed, or initialized again) and its transmit path was flushed (docs/engine.md, "A peer's
 * life and death"). Called once per queue pair that lost messages in that flush, after {@link QueuePair#flushed()}
 * has counted them, on the thread that runs the engine's injection agent (the caller's, in {@code INVOKER} mode):
 * return quickly, never block, never throw, and hand anything slow to another thread. Ready packets and SMPs
 * ({@link Port#postPacket}, {@link Port#postSmp}) are counted in the port's {@code tx_flushed_messages} only.
 */
@FunctionalInterface
public interface FlushListener
{
    /**
     * @param qp       the queue pair.
     * @param messages its messages discarded by this flush (at least 1).
     */
    void onFlushed(QueuePair qp, long messages);
}
