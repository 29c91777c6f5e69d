package io.vlink.nic;

import io.vlink.nic.agent.MemoryRegions;
import io.vlink.nic.agent.SendQueue;
import io.vlink.nic.memory.EngineClosedException;
import io.vlink.nic.status.ApplicationCounters;
import org.agrona.DirectBuffer;

/**
 * A queue pair's send queue: the application posts messages, the engine's injection agent slices them into
 * packets on the queue pair's SL (SL arbitration with tenure, docs/injection.md).
 * <p>
 * A message is either immediate data, copied here at post time (up to {@link #inlineCapacity()} bytes), or a
 * reference to registered memory ({@link MemoryRegion}), copied once, straight into the cell buffer, when it is
 * sliced. Posting never blocks: a full queue returns {@link #BACK_PRESSURED}. Each accepted message gets a
 * sequence number from 0; {@link #completed()} counts the messages whose bytes are all in the cell buffer, after
 * which referenced memory may be reused.
 * <p>
 * A link error from Armed or Active flushes the port's transmit path (docs/engine.md, "A peer's life and death"):
 * the messages accepted before it and not wholly on the wire are discarded (a message partly sent included: the peer
 * cannot assemble it), counted once in {@link #flushed()} and reported to the engine's {@link FlushListener}; they
 * count as completed too, so their slots and memory are free again. Messages offered after the application saw the
 * port leave Armed or Active ({@link Port#linkState()}) are kept and sent once the link is Active again.
 * <p>
 * One application thread posts to a queue pair, through a single-producer single-consumer ring in off-heap memory
 * ({@link SendQueue} says how it is ordered and padded).
 * Once the engine has closed, every call but the queue pair's fixed numbers throws {@link EngineClosedException}.
 */
public final class QueuePair
{
    /** {@code offer} result: the queue is full, nothing was posted; try again after the engine made progress. */
    public static final long BACK_PRESSURED = SendQueue.BACK_PRESSURED;

    private final Port port;
    private final MemoryRegions regions;
    private final SendQueue queue;

    QueuePair(
        final Port port,
        final MemoryRegions regions,
        final ApplicationCounters counters,
        final int qpn,
        final int sl,
        final int remoteQpn,
        final int capacity,
        final int inlineCapacity)
    {
        this.port = port;
        this.regions = regions;
        this.queue = new SendQueue(this, counters, qpn, sl, remoteQpn, SendQueue.KIND_DATA, capacity, inlineCapacity);
    }

    /**
     * @return the queue the engine's agents read.
     */
    SendQueue queue()
    {
        return queue;
    }

    /**
     * @return the queue pair number.
     */
    public int qpn()
    {
        return queue.qpn();
    }

    /**
     * @return the service level its packets carry (mapped to a VL by the port's SL2VL table).
     */
    public int sl()
    {
        return queue.sl();
    }

    /**
     * @return the destination queue pair number its packets carry in the BTH.
     */
    public int remoteQpn()
    {
        return queue.remoteQpn();
    }

    /**
     * @return the port it sends on.
     */
    public Port port()
    {
        return port;
    }

    /**
     * @return the most bytes an immediate-data message may carry.
     */
    public int inlineCapacity()
    {
        return queue.inlineCapacity();
    }

    /**
     * @return how many messages may wait in the queue.
     */
    public int capacity()
    {
        return queue.capacity();
    }

    /**
     * Post a message of immediate data: its bytes are copied now.
     *
     * @param src    the bytes.
     * @param offset first byte.
     * @param length 1 to {@link #inlineCapacity()} bytes.
     * @return the message's sequence number, or {@link #BACK_PRESSURED} when the queue is full.
     */
    public long offer(final DirectBuffer src, final int offset, final int length)
    {
        return queue.offerInline(src, offset, length);
    }

    /**
     * Post a message by reference to registered memory: its bytes are copied once, into the cell buffer, when the
     * engine slices it; they must not change until {@link #completed()} passes the returned sequence number.
     *
     * @param region registered memory of the same engine.
     * @param offset first byte in the region.
     * @param length bytes (at least 1).
     * @return the message's sequence number, or {@link #BACK_PRESSURED} when the queue is full.
     */
    public long offer(final MemoryRegion region, final int offset, final int length)
    {
        queue.checkOpen();
        if (length <= 0 || offset < 0 || (long)offset + length > region.buffer().capacity() ||
            !regions.isRegistered(region, region.key()))
        {
            throw new IllegalArgumentException("message of " + length + " bytes at " + offset +
                " is not within a region registered with this engine");
        }
        return queue.offerRegion(region.key(), offset, length);
    }

    /**
     * @return messages completed: every byte of each is in the cell buffer (in posting order).
     */
    public long completed()
    {
        return queue.completed();
    }

    /**
     * @return messages accepted and then discarded by link errors (not sent, or only partly), monotonic; readable
     * from any thread.
     */
    public long flushed()
    {
        return queue.flushed();
    }
}
