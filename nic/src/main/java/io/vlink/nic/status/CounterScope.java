package io.vlink.nic.status;

/**
 * What a counter is kept for: the whole engine, a port, a VL of a port, or a discard reason of a port. The scope
 * says which fields of the counter's key are meaningful (the others hold {@link CounterKey#NONE}).
 */
public enum CounterScope
{
    /** One counter per engine. */
    ENGINE,
    /** One counter per port. */
    PORT,
    /** One counter per VL of a port (the port's data VLs and VL15). */
    VL,
    /** One counter per discard reason of a port. */
    REASON
}
