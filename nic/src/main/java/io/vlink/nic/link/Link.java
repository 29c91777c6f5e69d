package io.vlink.nic.link;

import io.vlink.core.port.FrameSink;

/**
 * One end of a link: the wire between two ports. The transmit side ({@link FrameSink}, what a port's transmit half
 * uses) claims space in the link's off-heap buffer, writes (frames) one packet there (the only copy a packet makes on
 * its way out) and commits it; the receive side polls the frames the peer sent.
 * <p>
 * Frames are whole packets as they appear on the wire: a data packet (LRH through VCRC, {@code 4 * PktLen + 2}
 * bytes) or a link packet (an 8-byte FCP). A link never interprets their bytes; the receive path checks them.
 * <p>
 * Threading: one thread transmits ({@link #tryClaim}, {@link #commit}, {@link #abort}) and one thread receives
 * ({@link #poll}); they may differ. Back-pressure is a return value: {@link #tryClaim} returns a negative code and
 * the link counts it, never blocks. A link writes the counters it was handed when made
 * ({@link io.vlink.nic.status.LinkCounters}), no others.
 */
public interface Link extends FrameSink, AutoCloseable
{
    /** {@link #incarnation()}, {@link #peerIncarnation()}: none known (a link without incarnations, or no peer). */
    long UNKNOWN_INCARNATION = 0;
    /** {@link #peerHeartbeat()}: the link has no liveness word. */
    long NO_HEARTBEAT = -1;

    /**
     * Deliver up to {@code frameLimit} received frames to the handler.
     *
     * @param handler    receives each frame.
     * @param frameLimit the most frames to deliver.
     * @return frames delivered (dropped frames are counted, not returned).
     */
    int poll(FrameHandler handler, int frameLimit);

    /**
     * This end's incarnation: a random non-zero number drawn when the link opened, so that a peer recognises a
     * restarted end.
     *
     * @return the incarnation, or {@link #UNKNOWN_INCARNATION} for a link without incarnations.
     */
    default long incarnation()
    {
        return UNKNOWN_INCARNATION;
    }

    /**
     * The peer's incarnation as this end knows it now: it changes when the peer restarts (any thread).
     *
     * @return the peer's incarnation, or {@link #UNKNOWN_INCARNATION} when no peer is known.
     */
    default long peerIncarnation()
    {
        return UNKNOWN_INCARNATION;
    }

    /**
     * The peer's liveness word: a number the peer advances once per receive duty cycle; a value that stops moving is
     * a silent peer (any thread).
     *
     * @return the peer's heartbeat, or {@link #NO_HEARTBEAT} for a link without one.
     */
    default long peerHeartbeat()
    {
        return NO_HEARTBEAT;
    }

    /**
     * Release the link's buffers and sockets. Idempotent.
     */
    @Override
    void close();
}
