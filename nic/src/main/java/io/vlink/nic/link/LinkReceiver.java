package io.vlink.nic.link;

import io.vlink.core.port.PortReceive;
import org.agrona.DirectBuffer;

/**
 * A port's receive half fed by its link: one poll of the link, each frame to {@link PortReceive}, a frame it finds
 * damaged handed back to the link ({@link Link#rejectFrame()}: a link with retry asks for it again), the peer's close
 * passed on, and the poll ended once. The engine's receive agent and every switch port poll through it.
 */
public final class LinkReceiver implements FrameHandler
{
    private final Link link;
    private final PortReceive receive;

    /**
     * @param link    the link the frames arrive on.
     * @param receive the port's receive half.
     */
    public LinkReceiver(final Link link, final PortReceive receive)
    {
        this.link = link;
        this.receive = receive;
    }

    /**
     * Polls the link once.
     *
     * @param limit the most frames to take.
     * @return the frames taken.
     */
    public int poll(final int limit)
    {
        final int frames = link.poll(this, limit);
        receive.endPoll();
        return frames;
    }

    @Override
    public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!receive.onFrame(frameType, buffer, offset, length))
        {
            link.rejectFrame();
        }
    }

    @Override
    public void onPeerClosed()
    {
        receive.onPeerClosed();
    }
}
