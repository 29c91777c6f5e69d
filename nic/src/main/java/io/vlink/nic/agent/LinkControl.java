package io.vlink.nic.agent;

import io.vlink.nic.memory.OffHeap;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A port's two control words, each in off-heap memory on its own cache lines (two lines of padding each side):
 * <ul>
 * <li>the <em>command word</em>: the application asks the link up or down ({@link #command}, release); the credit
 * agent takes the command ({@link #takeCommand}: acquire, then a compare-and-set back to {@link #NO_COMMAND}, so a
 * command written meanwhile stays for the next take). A command is taken once; the latest one is never lost;</li>
 * <li>the <em>link-state word</em>: the credit agent publishes each state it enters ({@link #publishState},
 * release), after the state's side effects (the new credit epoch); the arbiter, the receive agent and the
 * application read it ({@link #state}, acquire).</li>
 * </ul>
 */
public final class LinkControl implements AutoCloseable
{
    /** The command word when no command waits. */
    public static final int NO_COMMAND = 0;

    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int STATE_OFFSET = PAD;
    private static final int COMMAND_OFFSET = 2 * PAD;
    private static final int LENGTH = 3 * PAD;

    private final UnsafeBuffer words = OffHeap.allocate(LENGTH);

    /**
     * Application, any thread. Replace the waiting command, if any.
     *
     * @param command a non-zero command.
     */
    public void command(final int command)
    {
        words.putIntRelease(COMMAND_OFFSET, command);
    }

    /**
     * Credit agent. Take the waiting command.
     *
     * @return the command, or {@link #NO_COMMAND}.
     */
    public int takeCommand()
    {
        final int command = words.getIntAcquire(COMMAND_OFFSET);
        if (NO_COMMAND != command)
        {
            // fails when a command was written since the load: that one stays for the next take
            words.compareAndSetInt(COMMAND_OFFSET, command, NO_COMMAND);
        }
        return command;
    }

    /**
     * Credit agent. Publish the link state entered, after what the state's entry changed.
     *
     * @param code the state's code.
     */
    public void publishState(final int code)
    {
        words.putIntRelease(STATE_OFFSET, code);
    }

    /**
     * Any thread.
     *
     * @return the code of the state last published (0 before any).
     */
    public int state()
    {
        return words.getIntAcquire(STATE_OFFSET);
    }

    /**
     * Free the memory, once no thread uses the words any more.
     */
    @Override
    public void close()
    {
        OffHeap.free(words);
    }
}
