package io.vlink.nic.agent;

import org.agrona.DirectBuffer;

import java.util.Arrays;

/**
 * The memory an engine registered for messages posted by reference, by key: the application's thread registers
 * (copy-on-write, published by one volatile store), a posting thread checks a region against it and the injection
 * agent reads a region's memory by the key a message carries.
 */
public final class MemoryRegions
{
    // each key's owner (the application's handle) and memory, in one array so that both are published together
    private volatile Object[] table = new Object[0];

    /**
     * @return the number of regions registered: the next region's key.
     */
    public int size()
    {
        return table.length / 2;
    }

    /**
     * Register memory under the next key ({@link #size()}); the caller serializes registrations.
     *
     * @param owner  the application's handle of the region.
     * @param buffer its memory.
     */
    public void add(final Object owner, final DirectBuffer buffer)
    {
        final Object[] grown = Arrays.copyOf(table, table.length + 2);
        grown[grown.length - 2] = owner;
        grown[grown.length - 1] = buffer;
        table = grown;
    }

    /**
     * @param owner the application's handle.
     * @param key   the key it names.
     * @return whether it is the handle registered here under that key.
     */
    public boolean isRegistered(final Object owner, final int key)
    {
        final Object[] table = this.table;
        return key >= 0 && 2 * key < table.length && table[2 * key] == owner;
    }

    /**
     * @param key a registered region's key.
     * @return its memory.
     */
    public DirectBuffer buffer(final int key)
    {
        return (DirectBuffer)table[2 * key + 1];
    }
}
