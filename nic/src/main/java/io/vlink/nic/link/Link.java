package io.vlink.nic.link;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import org.agrona.concurrent.AtomicBuffer;

/**
 * One end of a link: the wire between two ports. The transmit side claims space in the link's off-heap buffer,
 * writes (frames) one packet there (the only copy a packet makes on its way out) and commits it; the receive
 * side polls the frames the peer sent.
 * <p>
 * Frames are whole packets as they appear on the wire: a data packet (LRH through VCRC, {@code 4 * PktLen + 2}
 * bytes) or a link packet (an 8-byte FCP). A link never interprets their bytes; the receive path checks them.
 * <p>
 * Threading: one thread transmits ({@link #tryClaim}, {@link #commit}, {@link #abort}) and one thread receives
 * ({@link #poll}); they may differ. Back-pressure is a return value: {@link #tryClaim} returns a negative code and
 * the link counts it, never blocks.
 */
public interface Link extends AutoCloseable
{
    /** A data packet (ERF type 21 in a capture). */
    int DATA_FRAME = 1;
    /** A link packet: a flow-control packet (ERF type 25). */
    int LINK_FRAME = 2;

    /** {@link #tryClaim} result: the link cannot take the frame now; try again later. */
    int BACK_PRESSURED = -1;

    /** The longest data packet: PktLen 2047 words plus the VCRC (docs/wire.md). */
    int MAX_DATA_FRAME_LENGTH = Sizes.MAX_WIRE_LENGTH;
    /** The length of a flow-control packet (docs/wire.md). */
    int LINK_FRAME_LENGTH = Fcp.LENGTH;

    /** {@link #incarnation()}, {@link #peerIncarnation()}: none known (a link without incarnations, or no peer). */
    long UNKNOWN_INCARNATION = 0;
    /** {@link #peerHeartbeat()}: the link has no liveness word. */
    long NO_HEARTBEAT = -1;

    /**
     * @return the longest frame this link carries; longer frames are refused on transmit and dropped on receipt.
     */
    int maxFrameLength();

    /**
     * Claim space for one frame.
     *
     * @param frameType {@link #DATA_FRAME} or {@link #LINK_FRAME}.
     * @param length    the frame's length, 1 to {@link #maxFrameLength()}.
     * @return the offset in {@link #buffer()} where the frame is to be written, or {@link #BACK_PRESSURED}.
     */
    int tryClaim(int frameType, int length);

    /**
     * @return the buffer that claimed offsets refer to. Stable for the life of the link.
     */
    AtomicBuffer buffer();

    /**
     * Whether a claim of {@code length} bytes would succeed now (conservative: it may say no when a claim would
     * succeed, never yes when it would fail). The arbiter asks before it grants, so a granted packet always has
     * room and back-pressure never undoes a decision.
     *
     * @param length a frame length.
     * @return true if {@link #tryClaim} of that length will succeed before anything else claims.
     */
    boolean hasRoomFor(int length);

    /**
     * Send a claimed frame.
     *
     * @param offset the offset {@link #tryClaim} returned.
     */
    void commit(int offset);

    /**
     * Give back a claimed frame without sending it.
     *
     * @param offset the offset {@link #tryClaim} returned.
     */
    void abort(int offset);

    /**
     * Deliver up to {@code frameLimit} received frames to the handler.
     *
     * @param handler    receives each frame.
     * @param frameLimit the most frames to deliver.
     * @return frames delivered (dropped frames are counted, not returned).
     */
    int poll(FrameHandler handler, int frameLimit);

    /**
     * Finish sending anything the link holds back (a datagram the socket refused); called from the transmit thread
     * each duty cycle.
     *
     * @return work done (1 if something was flushed).
     */
    default int flush()
    {
        return 0;
    }

    /**
     * The frame the receiving thread is delivering (called from the {@link FrameHandler}, during {@link #poll}) is
     * damaged: its CRC failed. A link with retry ({@link RetryLink}) does not count it as delivered and asks the
     * peer for it again, as a link-level retry does on a CRC error; other links ignore the call (the frame is
     * discarded by the caller, as the link layer without retry does).
     */
    default void rejectFrame()
    {
    }

    /**
     * Frames sent and not yet acknowledged by the peer, as the transmitting thread last published it (any thread):
     * what {@code Engine.close()} waits for, while the link is up, besides the transmit path. A link without
     * acknowledgements has none.
     *
     * @return frames held until acknowledged.
     */
    default long unacknowledged()
    {
        return 0;
    }

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
