package io.vlink.tools;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Ctrl-C (SIGINT) for a long command: the first one sets a flag the command polls, so that it stops its work, finishes
 * what it owes (a summary, its files, closing engines that remove their counters files) and exits 130; a second one
 * does what Ctrl-C does by default (the JVM's handler: exit 130 at once).
 * <p>
 * The JVM's own handler runs the shutdown hooks and halts, which leaves no room to drain and report; this replaces it
 * for the duration of the command and puts it back when closed. Where the platform has no SIGINT, nothing is
 * installed and {@link #interrupted()} stays false.
 */
final class Interrupt implements AutoCloseable
{
    /** The exit status of a command stopped by SIGINT: 128 + 2, as a shell reports it. */
    static final int EXIT_INTERRUPTED = 130;

    private static final String SIGINT = "INT";

    private final AtomicBoolean interrupted = new AtomicBoolean();
    private final Signal signal;
    private final SignalHandler previous;

    private Interrupt(final Runnable onFirst)
    {
        Signal installed = null;
        SignalHandler replaced = null;
        try
        {
            installed = new Signal(SIGINT);
            final Signal signal = installed;
            replaced = Signal.handle(signal, ignored ->
            {
                if (interrupted.compareAndSet(false, true))
                {
                    restore(signal);
                    onFirst.run();
                }
            });
        }
        catch (final IllegalArgumentException | UnsupportedOperationException ex)
        {
            // no SIGINT here (or the JVM was started with -Xrs): the command runs to its end
            installed = null;
        }
        this.signal = installed;
        this.previous = replaced;
    }

    /**
     * @param onFirst run on the signal's thread at the first SIGINT (e.g. to say what happens next).
     * @return the installed handler; close it when the command ends.
     */
    static Interrupt install(final Runnable onFirst)
    {
        return new Interrupt(onFirst);
    }

    /**
     * Ignore SIGINT in this process: for a helper process that shares its parent's terminal (Ctrl-C reaches the whole
     * foreground process group) and is ended by its parent instead.
     */
    static void ignore()
    {
        try
        {
            Signal.handle(new Signal(SIGINT), SignalHandler.SIG_IGN);
        }
        catch (final IllegalArgumentException | UnsupportedOperationException ex)
        {
            // no SIGINT here: nothing to ignore
        }
    }

    /**
     * @return whether SIGINT came.
     */
    boolean interrupted()
    {
        return interrupted.get();
    }

    private void restore(final Signal signal)
    {
        if (null != previous)
        {
            Signal.handle(signal, previous);
        }
    }

    @Override
    public void close()
    {
        if (null != signal && !interrupted.get())
        {
            restore(signal);
        }
    }
}
