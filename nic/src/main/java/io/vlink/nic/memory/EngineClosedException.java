package io.vlink.nic.memory;

import io.vlink.nic.Engine;
import io.vlink.nic.Port;

/**
 * Thrown by every call on an engine, port, queue pair or counter whose engine has closed: the engine's memory is
 * freed, so the call is refused before it could touch it. The final counter values stay readable from
 * {@link Engine#countersSnapshot()}, and what each port still held from {@link Port#closeReport()}.
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
