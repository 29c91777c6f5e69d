package io.vlink.core.port;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The transmitting side of a link, as the port's transmit half ({@link PortTransmit}) uses it: claim space for one
 * frame in the link's buffer, write the frame there (the only copy a packet makes on its way out), commit it. A link
 * never interprets a frame's bytes.
 * <p>
 * Frames are whole packets as they appear on the wire: a data packet (LRH through VCRC, {@code 4 * PktLen + 2}
 * bytes) or a link packet (an 8-byte FCP). Back-pressure is a return value ({@link #tryClaim} returns
 * {@link #BACK_PRESSURED}, which the link counts); nothing blocks. One thread transmits.
 */
public interface FrameSink
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

    /**
     * @return the longest frame this link carries; longer frames are refused on transmit and dropped on receipt.
     */
    int maxFrameLength();

    /**
     * Claim space for one frame.
     *
     * @param frameType {@link #DATA_FRAME} or {@link #LINK_FRAME}.
     * @param length    the frame's length, 1 to {@link #maxFrameLength()}.
     * @return the offset in {@link #buffer()} where the frame is to be written, or {@link #BACK_PRESSURED} (counted
     * by the link).
     */
    int tryClaim(int frameType, int length);

    /**
     * @return the buffer that claimed offsets refer to. Stable for the life of the link.
     */
    AtomicBuffer buffer();

    /**
     * Whether a claim of {@code length} bytes would succeed now (conservative: it may say no when a claim would
     * succeed, never yes when it would fail). The transmit half asks before each arbitration decision, so a granted
     * packet always has room and back-pressure never undoes a decision.
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
     * Finish sending anything the link holds back (a datagram the socket refused); called from the transmitting
     * thread each duty cycle.
     *
     * @return work done (1 if something was flushed).
     */
    default int flush()
    {
        return 0;
    }
}
