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
}
