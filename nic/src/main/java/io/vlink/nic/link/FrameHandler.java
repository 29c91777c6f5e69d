package io.vlink.nic.link;

import org.agrona.DirectBuffer;

/**
 * Receives the frames a {@link Link} polls. The buffer is valid only during the call: copy what must outlive it.
 */
@FunctionalInterface
public interface FrameHandler
{
    /**
     * @param frameType {@link Link#DATA_FRAME} or {@link Link#LINK_FRAME}.
     * @param buffer    the link's receive buffer.
     * @param offset    where the frame starts.
     * @param length    the frame's length in bytes (at most {@link Link#maxFrameLength()}).
     */
    void onFrame(int frameType, DirectBuffer buffer, int offset, int length);

    /**
     * The peer said it is closing (a link-level notice, as a physical link dropping; not a frame): whatever it sent
     * before came first. The link has already forgotten the peer's session.
     */
    default void onPeerClosed()
    {
    }
}
