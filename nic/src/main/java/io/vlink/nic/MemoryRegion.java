package io.vlink.nic;

import org.agrona.DirectBuffer;

/**
 * Memory registered with an engine so that messages can be posted by reference to it (a DMA command in the terms
 * of docs/injection.md): the engine copies the bytes straight from here into its cell buffer, once. The memory
 * must stay valid and unchanged from the post until the queue pair reports the message complete.
 */
public final class MemoryRegion
{
    private final int key;
    private final DirectBuffer buffer;

    MemoryRegion(final int key, final DirectBuffer buffer)
    {
        this.key = key;
        this.buffer = buffer;
    }

    /**
     * @return the region's key within its engine.
     */
    public int key()
    {
        return key;
    }

    /**
     * @return the registered memory.
     */
    public DirectBuffer buffer()
    {
        return buffer;
    }
}
