package io.vlink.core.port;

import org.agrona.DirectBuffer;

/**
 * Sees each frame where it enters the wire (or, on a port whose peer runs elsewhere, where it arrives): a capture.
 * Called on the thread that moves the frame; the buffer is valid only during the call.
 */
@FunctionalInterface
public interface FrameTap
{
    /**
     * @param frameType {@link FrameSink#DATA_FRAME} or {@link FrameSink#LINK_FRAME}.
     * @param buffer    the frame's buffer.
     * @param offset    where the frame starts.
     * @param length    the frame's length in bytes.
     */
    void onFrame(int frameType, DirectBuffer buffer, int offset, int length);
}
