package io.vlink.tools.perf;

/**
 * The other side of a {@code vlink perf} run is gone: nothing arrived in time, or the link says so; or, with
 * {@link #lost()}, nothing arrived in time while the link stayed up, so a message was lost on it.
 */
public final class PeerVanishedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final boolean lost;

    /**
     * @param reason one line: what was seen.
     */
    public PeerVanishedException(final String reason)
    {
        this(reason, false);
    }

    /**
     * @param reason one line: what was seen.
     * @param lost   the link stayed up: the peer is there, a message was lost.
     */
    public PeerVanishedException(final String reason, final boolean lost)
    {
        super(reason, null, false, false);
        this.lost = lost;
    }

    /**
     * @return whether the link stayed up and a message was lost, rather than the peer gone.
     */
    public boolean lost()
    {
        return lost;
    }
}
