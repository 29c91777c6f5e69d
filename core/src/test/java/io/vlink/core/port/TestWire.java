package io.vlink.core.port;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;

/**
 * One direction of a wire, in order: what a port's transmit half commits is queued as a frame, and the test delivers,
 * loses or damages each before the peer's receive half sees it. Test support: what a link is to the datapath.
 */
public final class TestWire implements FrameSink
{
    /** A frame on the wire. */
    public static final class Frame
    {
        public final int type;
        public final byte[] bytes;

        Frame(final int type, final byte[] bytes)
        {
            this.type = type;
            this.bytes = bytes;
        }

        public boolean isFcp()
        {
            return LINK_FRAME == type;
        }

        /** @return the FCP's first four bytes (an FCP frame). */
        public int word()
        {
            return Fcp.word(Fcp.decode(new UnsafeBuffer(bytes), 0, bytes.length));
        }

        /** @return a data packet's VL, or an FCP's. */
        public int vl()
        {
            return isFcp() ? Fcp.vl(word()) : LrhFlyweight.vl(new UnsafeBuffer(bytes), 0);
        }

        /** @return a data packet's blocks (0 for an FCP). */
        public int blocks()
        {
            return isFcp() ? 0 : Sizes.blocks(bytes.length - Sizes.VCRC_LENGTH);
        }
    }

    private final UnsafeBuffer claim = new UnsafeBuffer(new byte[MAX_DATA_FRAME_LENGTH]);
    private final ArrayDeque<Frame> frames = new ArrayDeque<>();
    private int claimedType;
    private int claimedLength;
    /** Frames the wire holds at most: a full wire refuses claims (back-pressure). */
    public int capacityFrames = Integer.MAX_VALUE;
    /** Claims to refuse although {@link #hasRoomFor} says yes (a link whose session is not trained yet). */
    public int refuseClaims;
    /** Claims refused. */
    public long backPressured;
    /** Frames committed. */
    public long committed;
    /** Every frame committed, in order, when set. */
    public java.util.List<Frame> history;

    @Override
    public int maxFrameLength()
    {
        return MAX_DATA_FRAME_LENGTH;
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        if (frames.size() >= capacityFrames || refuseClaims > 0)
        {
            refuseClaims = Math.max(0, refuseClaims - 1);
            backPressured++;
            return BACK_PRESSURED;
        }
        claimedType = frameType;
        claimedLength = length;
        return 0;
    }

    @Override
    public AtomicBuffer buffer()
    {
        return claim;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return frames.size() < capacityFrames;
    }

    @Override
    public void commit(final int offset)
    {
        final byte[] bytes = new byte[claimedLength];
        claim.getBytes(0, bytes);
        final Frame frame = new Frame(claimedType, bytes);
        frames.add(frame);
        if (null != history)
        {
            history.add(frame);
        }
        committed++;
    }

    @Override
    public void abort(final int offset)
    {
    }

    /**
     * @return the oldest frame, removed (lost, or to deliver), or null.
     */
    public Frame poll()
    {
        return frames.poll();
    }

    /**
     * @return the oldest frame, left on the wire, or null.
     */
    public Frame peek()
    {
        return frames.peek();
    }

    /**
     * Lose each frame on the wire with a chance.
     *
     * @param random the test's randomness.
     * @param chance the chance of each frame.
     * @return data packets lost.
     */
    public int lose(final java.util.Random random, final double chance)
    {
        int dataLost = 0;
        final int n = frames.size();
        for (int i = 0; i < n; i++)
        {
            final Frame frame = frames.poll();
            if (random.nextDouble() >= chance)
            {
                frames.add(frame);
            }
            else if (!frame.isFcp())
            {
                dataLost++;
            }
        }
        return dataLost;
    }

    public int size()
    {
        return frames.size();
    }

    public boolean isEmpty()
    {
        return frames.isEmpty();
    }

    /**
     * Hand a frame to a receive half, as a link's poll does.
     *
     * @param frame   the frame.
     * @param receive the peer's receive half.
     */
    public static void deliver(final Frame frame, final PortReceive receive)
    {
        receive.onFrame(frame.type, new UnsafeBuffer(frame.bytes), 0, frame.bytes.length);
    }

    /**
     * One poll of the peer's receive half: as many frames as it takes now, in order.
     *
     * @param receive the peer's receive half.
     * @return frames delivered.
     */
    public int deliverAll(final PortReceive receive)
    {
        final int limit = receive.frameLimit(Integer.MAX_VALUE);
        int delivered = 0;
        while (delivered < limit && !frames.isEmpty())
        {
            deliver(frames.poll(), receive);
            delivered++;
        }
        receive.endPoll();
        return delivered;
    }
}
