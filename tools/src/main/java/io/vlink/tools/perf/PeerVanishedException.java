package io.vlink.tools.perf;

/**
 * The other side of a {@code vlink perf} run is gone: nothing arrived in time, or the link says so.
 */
public final class PeerVanishedException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /**
     * @param reason one line: what was seen.
     */
    public PeerVanishedException(final String reason)
    {
        super(reason, null, false, false);
    }
}
