package io.vlink.nic.memory;

/**
 * Thrown by every call on an engine, port, queue pair or counter whose engine has closed: the engine's memory is
 * freed, so the call is refused before it could touch it. The final counter values stay readable from
 * {@code Engine.countersSnapshot()}, and what each port still held from {@code Port.closeReport()}.
 */
public final class EngineClosedException extends IllegalStateException
{
    private static final long serialVersionUID = 1L;

    /** The message of every such refusal. */
    public static final String MESSAGE = "engine closed";

    /**
     * A refusal: {@value #MESSAGE}.
     */
    public EngineClosedException()
    {
        super(MESSAGE);
    }
}
