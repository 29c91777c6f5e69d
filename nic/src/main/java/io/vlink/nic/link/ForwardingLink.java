package io.vlink.nic.link;

import io.vlink.nic.EngineBuilder;
import org.agrona.concurrent.AtomicBuffer;

/**
 * A {@link Link} that forwards every call to the link it wraps: the base of wrappers installed with
 * {@code EngineBuilder.linkWrapper} or {@code Fabric.builder().linkWrapper} that change one side of the wire (the
 * soak's fault injector, a test's frame checker or garbage source override {@link #poll}).
 */
public class ForwardingLink implements Link
{
    /** The wrapped link. */
    protected final Link delegate;

    /**
     * @param delegate the link to forward to.
     */
    public ForwardingLink(final Link delegate)
    {
        this.delegate = delegate;
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        return delegate.poll(handler, frameLimit);
    }

    @Override
    public int maxFrameLength()
    {
        return delegate.maxFrameLength();
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        return delegate.tryClaim(frameType, length);
    }

    @Override
    public AtomicBuffer buffer()
    {
        return delegate.buffer();
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return delegate.hasRoomFor(length);
    }

    @Override
    public void commit(final int offset)
    {
        delegate.commit(offset);
    }

    @Override
    public void abort(final int offset)
    {
        delegate.abort(offset);
    }

    @Override
    public int flush()
    {
        return delegate.flush();
    }

    @Override
    public void rejectFrame()
    {
        delegate.rejectFrame();
    }

    @Override
    public long unacknowledged()
    {
        return delegate.unacknowledged();
    }

    @Override
    public long incarnation()
    {
        return delegate.incarnation();
    }

    @Override
    public long peerIncarnation()
    {
        return delegate.peerIncarnation();
    }

    @Override
    public long peerHeartbeat()
    {
        return delegate.peerHeartbeat();
    }

    @Override
    public void close()
    {
        delegate.close();
    }
}
