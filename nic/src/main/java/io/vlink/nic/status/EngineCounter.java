package io.vlink.nic.status;

import io.vlink.nic.memory.EngineClosedException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

import java.util.function.Consumer;

/**
 * A counter of an engine's {@link CountersFile}: an Agrona {@link AtomicCounter} that refuses every call once its
 * file is closed ({@link EngineClosedException}) instead of reading or writing the unmapped memory, which would
 * crash the JVM. The final values stay readable from a {@link CountersSnapshot} taken before the file closed.
 * <p>
 * The check is one plain field read, set once by the thread that closes the file after every writer stopped;
 * a call from another thread must be ordered after {@link CountersFile#close()} (as any use after close is) to see
 * it. {@link #close()} after the file closed does nothing (the counter went with the file).
 */
public final class EngineCounter extends AtomicCounter
{
    private boolean fileClosed;

    EngineCounter(final AtomicBuffer valuesBuffer, final int counterId, final CountersManager countersManager)
    {
        super(valuesBuffer, counterId, countersManager);
    }

    void fileClosed()
    {
        fileClosed = true;
    }

    private void checkOpen()
    {
        if (fileClosed)
        {
            throw new EngineClosedException();
        }
    }

    /**
     * Free the counter in its file, unless the file itself is closed (then nothing is left to free).
     */
    @Override
    public void close()
    {
        if (!fileClosed)
        {
            super.close();
        }
    }

    @Override
    public String toString()
    {
        return fileClosed ? "EngineCounter{id=" + id() + ", engine closed}" : super.toString();
    }

    @Override
    public long increment()
    {
        checkOpen();
        return super.increment();
    }

    @Override
    public long incrementOrdered()
    {
        checkOpen();
        return super.incrementOrdered();
    }

    @Override
    public long incrementRelease()
    {
        checkOpen();
        return super.incrementRelease();
    }

    @Override
    public long incrementOpaque()
    {
        checkOpen();
        return super.incrementOpaque();
    }

    @Override
    public long incrementPlain()
    {
        checkOpen();
        return super.incrementPlain();
    }

    @Override
    public long decrement()
    {
        checkOpen();
        return super.decrement();
    }

    @Override
    public long decrementOrdered()
    {
        checkOpen();
        return super.decrementOrdered();
    }

    @Override
    public long decrementRelease()
    {
        checkOpen();
        return super.decrementRelease();
    }

    @Override
    public long decrementOpaque()
    {
        checkOpen();
        return super.decrementOpaque();
    }

    @Override
    public long decrementPlain()
    {
        checkOpen();
        return super.decrementPlain();
    }

    @Override
    public long get()
    {
        checkOpen();
        return super.get();
    }

    @Override
    public long getAcquire()
    {
        checkOpen();
        return super.getAcquire();
    }

    @Override
    public long getOpaque()
    {
        checkOpen();
        return super.getOpaque();
    }

    @Override
    public long getWeak()
    {
        checkOpen();
        return super.getWeak();
    }

    @Override
    public long getPlain()
    {
        checkOpen();
        return super.getPlain();
    }

    @Override
    public void set(final long value)
    {
        checkOpen();
        super.set(value);
    }

    @Override
    public void setOrdered(final long value)
    {
        checkOpen();
        super.setOrdered(value);
    }

    @Override
    public void setRelease(final long value)
    {
        checkOpen();
        super.setRelease(value);
    }

    @Override
    public void setOpaque(final long value)
    {
        checkOpen();
        super.setOpaque(value);
    }

    @Override
    public void setWeak(final long value)
    {
        checkOpen();
        super.setWeak(value);
    }

    @Override
    public void setPlain(final long value)
    {
        checkOpen();
        super.setPlain(value);
    }

    @Override
    public long getAndAdd(final long value)
    {
        checkOpen();
        return super.getAndAdd(value);
    }

    @Override
    public long getAndAddOrdered(final long value)
    {
        checkOpen();
        return super.getAndAddOrdered(value);
    }

    @Override
    public long getAndAddRelease(final long value)
    {
        checkOpen();
        return super.getAndAddRelease(value);
    }

    @Override
    public long getAndAddOpaque(final long value)
    {
        checkOpen();
        return super.getAndAddOpaque(value);
    }

    @Override
    public long getAndAddPlain(final long value)
    {
        checkOpen();
        return super.getAndAddPlain(value);
    }

    @Override
    public long getAndSet(final long value)
    {
        checkOpen();
        return super.getAndSet(value);
    }

    @Override
    public boolean proposeMax(final long proposedValue)
    {
        checkOpen();
        return super.proposeMax(proposedValue);
    }

    @Override
    public boolean proposeMaxOrdered(final long proposedValue)
    {
        checkOpen();
        return super.proposeMaxOrdered(proposedValue);
    }

    @Override
    public boolean proposeMaxRelease(final long proposedValue)
    {
        checkOpen();
        return super.proposeMaxRelease(proposedValue);
    }

    @Override
    public boolean proposeMaxOpaque(final long proposedValue)
    {
        checkOpen();
        return super.proposeMaxOpaque(proposedValue);
    }

    @Override
    public boolean compareAndSet(final long expectedValue, final long updateValue)
    {
        checkOpen();
        return super.compareAndSet(expectedValue, updateValue);
    }

    @Override
    public String label()
    {
        checkOpen();
        return super.label();
    }

    @Override
    public void updateLabel(final String newLabel)
    {
        checkOpen();
        super.updateLabel(newLabel);
    }

    @Override
    public AtomicCounter appendToLabel(final String suffix)
    {
        checkOpen();
        return super.appendToLabel(suffix);
    }

    @Override
    public void updateKey(final Consumer<MutableDirectBuffer> keyFunc)
    {
        checkOpen();
        super.updateKey(keyFunc);
    }

    @Override
    public void updateKey(final DirectBuffer keyBuffer, final int offset, final int length)
    {
        checkOpen();
        super.updateKey(keyBuffer, offset, length);
    }
}
