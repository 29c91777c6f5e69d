package io.vlink.stress;

import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.link.RetryLink;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * A {@link RetryLink} over a small loopback pair for the retry tests: the link under test transmits on end 0 and
 * receives what end 1 sends; the tests put the peer's frames on end 1 by hand and read what the link sent off it.
 */
final class RetryFrames
{
    /** Bytes of the replay buffer: four frames of up to 128 bytes. */
    static final int REPLAY_BYTES = 512;
    /** Frames the replay buffer holds (the acknowledgement schedule's batch is then one frame). */
    static final int SLOTS = 4;
    /** The length of each test frame after the retry header. */
    static final int FRAME_LENGTH = Link.LINK_FRAME_LENGTH;

    final LoopbackLink[] ends = Frames.pair();
    final RetryLink link = RetryLink.small(ends[0], Frames.COUNTERS, () -> 0L, REPLAY_BYTES, SLOTS);

    /**
     * The link sends {@code frames} frames (sequence numbers 0 on), held until acknowledged.
     */
    void send(final int frames)
    {
        for (int i = 0; i < frames; i++)
        {
            final int at = link.tryClaim(Link.LINK_FRAME, FRAME_LENGTH);
            link.buffer().putLong(at, i);
            link.commit(at);
        }
    }

    /**
     * The peer puts a frame on the wire to the link: a retry header and, for kinds 1 and 2, an 8-byte frame.
     */
    void peer(final int kind, final int flags, final int sequence, final int ack)
    {
        final int length = RetryLink.KIND_ACK == kind ? RetryLink.HEADER_LENGTH : RetryLink.HEADER_LENGTH + FRAME_LENGTH;
        final int at = ends[1].tryClaim(Link.DATA_FRAME, length);
        final UnsafeBuffer buffer = (UnsafeBuffer)ends[1].buffer();
        buffer.putInt(at, (RetryLink.MAGIC << 24) | (kind << 16) | flags, ByteOrder.BIG_ENDIAN);
        buffer.putInt(at + RetryLink.SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        buffer.putInt(at + RetryLink.ACK_OFFSET, ack, ByteOrder.BIG_ENDIAN);
        buffer.putInt(at + RetryLink.ACK_OFFSET + 4, 0, ByteOrder.BIG_ENDIAN);
        buffer.putLong(at + RetryLink.INCARNATION_OFFSET, Link.UNKNOWN_INCARNATION, ByteOrder.BIG_ENDIAN);
        ends[1].commit(at);
    }

    /**
     * Read what the link sent since the last call off the wire.
     *
     * @param frames  receives each frame's sequence number, in order, from index 0 (acknowledgements left out).
     * @param ack     receives the last acknowledgement's value and flags ({@code flags << 32 | ack}), or -1.
     * @return the frames read.
     */
    int sent(final int[] frames, final long[] ack)
    {
        final int[] count = {0};
        ack[0] = -1;
        ends[1].poll((type, buffer, offset, length) ->
        {
            final int first = buffer.getInt(offset, ByteOrder.BIG_ENDIAN);
            if (RetryLink.KIND_ACK == ((first >> 16) & 0xFF))
            {
                ack[0] = ((long)(first & 0xFF) << 32) | (buffer.getInt(offset + RetryLink.ACK_OFFSET,
                    ByteOrder.BIG_ENDIAN) & 0xFFFF_FFFFL);
            }
            else if (count[0] < frames.length)
            {
                frames[count[0]++] = buffer.getInt(offset + RetryLink.SEQUENCE_OFFSET, ByteOrder.BIG_ENDIAN);
            }
        }, 64);
        return count[0];
    }
}
