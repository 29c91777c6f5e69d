package io.vlink.nic;

/**
 * Told how many of a queue pair's accepted messages a link error discarded: the port went down from Armed or Active
 * (the peer fell silent, closed, or initialized again) and its transmit path was flushed (docs/engine.md, "A peer's
 * life and death"). Called once per queue pair that lost messages in that flush, after {@link QueuePair#flushed()}
 * has counted them, on the thread that runs the engine's injection agent (the caller's, in {@code INVOKER} mode):
 * return quickly, never block, never throw, and hand anything slow to another thread.
 * <p>
 * As InfiniBand's flush-error completions ({@code IBV_WC_WR_FLUSH_ERR}) do, this tells a transport which of its
 * messages a link error lost: a queue pair's messages leave in the order they were accepted, so the ones flushed are
 * the {@code messages} accepted last before the link error (their sequence numbers end at the one before the first
 * message that arrives after it). Ready packets ({@link Port#postPacket}) are reported per SL, each packet a message
 * of its SL's queue ({@link #onReadyPacketsFlushed}, {@link Port#flushedReadyPackets}); SMPs ({@link Port#postSmp})
 * are counted in the port's {@code tx_flushed_messages} only.
 */
@FunctionalInterface
public interface FlushListener
{
    /**
     * @param qp       the queue pair.
     * @param messages its messages discarded by this flush (at least 1).
     */
    void onFlushed(QueuePair qp, long messages);

    /**
     * Told how many ready packets posted on an SL ({@link Port#postPacket}) a link error discarded, once per SL that
     * lost some in that flush, after {@link Port#flushedReadyPackets} has counted them; on the same thread and under
     * the same rules as {@link #onFlushed}. Does nothing unless overridden.
     *
     * @param port    the port.
     * @param sl      the SL the packets were posted on.
     * @param packets its ready packets discarded by this flush (at least 1).
     */
    default void onReadyPacketsFlushed(final Port port, final int sl, final long packets)
    {
    }
}
