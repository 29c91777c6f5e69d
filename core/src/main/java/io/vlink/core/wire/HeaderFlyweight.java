package io.vlink.core.wire;

import org.agrona.MutableDirectBuffer;

/**
 * What every header flyweight shares: the buffer and the offset of the header it is wrapped over. A flyweight holds
 * no other state, so one instance is wrapped over packet after packet without allocating.
 *
 * @param <T> the concrete flyweight, so that {@link #wrap} chains into its fluent setters.
 */
public abstract class HeaderFlyweight<T extends HeaderFlyweight<T>>
{
    protected MutableDirectBuffer buffer;
    protected int offset;

    /**
     * @param buffer holding the header.
     * @param offset of the header's first byte.
     * @return this flyweight.
     */
    @SuppressWarnings("unchecked")
    public final T wrap(final MutableDirectBuffer buffer, final int offset)
    {
        this.buffer = buffer;
        this.offset = offset;
        return (T)this;
    }

    /** @return the wrapped buffer. */
    public final MutableDirectBuffer buffer()
    {
        return buffer;
    }

    /** @return the offset of the header's first byte in {@link #buffer()}. */
    public final int offset()
    {
        return offset;
    }
}
