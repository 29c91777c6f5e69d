package io.vlink.nic.agent;

import io.vlink.nic.memory.OffHeap;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A port's transmit flush, handed between three agents through three words, each with one writer, in off-heap
 * memory on cache lines of its own (two lines of padding each side). A link error that takes the port down from
 * Armed or Active ({@code core}'s {@code CreditControl.transmitFlushes()}) discards everything the transmit path
 * holds at that moment (docs/engine.md, "A peer's life and death"):
 * <ol>
 * <li>the <em>flush epoch</em> ({@link #publishEpoch}, credit agent): written after each queue pair's flush mark
 * (the messages posted so far, {@link SendQueue#markFlush()}) and before the {@code Down} state is published. The
 * injection agent reads it ({@link #epoch}, acquire), then the marks;</li>
 * <li>the <em>generation</em> ({@link #publishGeneration}, injection agent): once it dropped what it holds (its
 * pending packets, the SL scheduler's queues, the queue pairs' messages up to their marks), it stamps every packet it
 * injects from then on with the new generation, and publishes it after the last packet of the old one was offered to
 * the per-VL rings. The arbiter reads it ({@link #generation}, acquire) and drains every ring of the older
 * packets;</li>
 * <li>the <em>drained generation</em> ({@link #publishDrained}, arbiter): written after it freed the drained packets'
 * cells and counted, per queue pair, the messages whose last packet it discarded. The injection agent reads it
 * ({@link #drained}, acquire), then those counts, and reports each queue pair's flushed messages once.</li>
 * </ol>
 * Until the generation has caught up with the epoch the arbiter sends nothing of the transmit path (no data, no
 * SMP): a packet of the old generation never reaches the peer's next incarnation.
 */
public final class FlushControl implements AutoCloseable
{
    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int EPOCH_OFFSET = PAD;
    private static final int GENERATION_OFFSET = 2 * PAD;
    private static final int DRAINED_OFFSET = 3 * PAD;
    private static final int LENGTH = 4 * PAD;

    private final UnsafeBuffer words = OffHeap.allocate(LENGTH);

    /**
     * Credit agent. A link error flushes the transmit path: publish its epoch after marking every queue pair.
     *
     * @param epoch the port's transmit flushes so far.
     */
    public void publishEpoch(final int epoch)
    {
        words.putIntRelease(EPOCH_OFFSET, epoch);
    }

    /**
     * Any agent.
     *
     * @return the flush epoch (0 before any link error).
     */
    public int epoch()
    {
        return words.getIntAcquire(EPOCH_OFFSET);
    }

    /**
     * Injection agent. Every packet of an older generation is in the rings; what it injects from now on carries this
     * one.
     *
     * @param generation the epoch it flushed for.
     */
    public void publishGeneration(final int generation)
    {
        words.putIntRelease(GENERATION_OFFSET, generation);
    }

    /**
     * Arbiter.
     *
     * @return the injection agent's generation.
     */
    public int generation()
    {
        return words.getIntAcquire(GENERATION_OFFSET);
    }

    /**
     * Arbiter. Every packet of an older generation has left the rings, its cells freed and its message counted.
     *
     * @param generation the generation drained for.
     */
    public void publishDrained(final int generation)
    {
        words.putIntRelease(DRAINED_OFFSET, generation);
    }

    /**
     * Injection agent.
     *
     * @return the generation the arbiter drained for.
     */
    public int drained()
    {
        return words.getIntAcquire(DRAINED_OFFSET);
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
