package io.vlink.nic.status;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * A counter as its readers see it: its value, never a way to change it. Each counter has one writer, handed it by the
 * engine or switch that owns the port ({@link PortCounterSet}); everyone else reads through this.
 */
public final class ReadableCounter
{
    private final AtomicCounter counter;

    ReadableCounter(final AtomicCounter counter)
    {
        this.counter = counter;
    }

    /**
     * @return the value, with acquire semantics (what the writer stored before it is visible).
     */
    public long get()
    {
        return counter.get();
    }

    /**
     * @return the counter's id in its counters file.
     */
    public int id()
    {
        return counter.id();
    }

    @Override
    public String toString()
    {
        return counter.toString();
    }
}
