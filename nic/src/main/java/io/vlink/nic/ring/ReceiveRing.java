package io.vlink.nic.ring;

import io.vlink.core.wire.Sizes;
import io.vlink.nic.memory.OffHeap;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An int for the gap after the object header (else the JVM places the producer's int there, next to whatever
 * precedes this object in memory), then two cache lines before the producer's fields.
 */
abstract class ReceiveRingPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The producer's fields: its cache of the consumer's block head, and its block tail modulo the capacity (no
 * division a packet).
 */
abstract class ReceiveRingProducer extends ReceiveRingPad1
{
    long blockHeadCache;
    // a long, so that the producer's fields leave no gap a field of the ring read by both threads would fill
    long tailBlock;
}

/**
 * Two cache lines between the producer's fields and the fields both threads read.
 */
abstract class ReceiveRingPad2 extends ReceiveRingProducer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * One VL's receive buffer: packets wait here between the receive agent (the single producer) and the application
 * thread that drains them (the single consumer). Space is accounted exactly in 64-byte blocks, the unit of
 * link-level credit: a packet of size S takes {@code ceil(S / 64)} blocks, no more (docs/flow-control.md: free space
 * at the buffer's real allocation granularity).
 * <p>
 * Packets are stored contiguously so the handler reads each in place: a packet that starts near the end of the
 * block area runs on into an overhang of one largest packet past it, so wrapping never costs blocks.
 * <p>
 * Ordering: the producer writes the bytes, then the packet's descriptor with release; the consumer reads the
 * descriptor at its head with acquire, and a descriptor is the packet's when it carries the lap tag of the head's
 * lap (a descriptor slot is reused once per lap; a fresh one, all zeros, is no lap's). The consumer so waits on the
 * descriptor itself, as Agrona's ring buffers wait on a record's header, rather than on a tail word and then the
 * descriptor (one load fewer in the chain a packet waits on). The producer also advances the packet tail with
 * release, for {@link #size()}. The consumer, after the handler returns, advances the block head with release;
 * the producer reads it with acquire to know the free space. {@link #releasedBlocks()} (the block head) is
 * monotonic, so the credit agent can turn it into {@code free += NP} on its own thread.
 * <p>
 * Layout: the producer's positions and the consumer's each have two cache lines of their own before them; in this
 * object, the producer's fields are two cache lines from the fields both threads read (class-hierarchy padding, as
 * Agrona's and JCTools' queues).
 */
public final class ReceiveRing extends ReceiveRingPad2 implements AutoCloseable
{
    private static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    private static final int PACKET_TAIL_OFFSET = PAD;
    private static final int BLOCK_TAIL_OFFSET = PACKET_TAIL_OFFSET + Long.BYTES;
    private static final int PACKET_HEAD_OFFSET = 2 * PAD;
    private static final int BLOCK_HEAD_OFFSET = PACKET_HEAD_OFFSET + Long.BYTES;
    private static final int DESCRIPTORS_OFFSET = 3 * PAD;

    private static final int SIZE_BITS = 16;
    private static final int START_SHIFT = SIZE_BITS;
    private static final int TAG_SHIFT = 48;
    private static final long SIZE_MASK = (1L << SIZE_BITS) - 1;
    private static final long TAG_MASK = 0xFFFF;

    private final int capacityBlocks;
    private final int descriptorMask;
    private final int lapShift;
    private final UnsafeBuffer positions;
    private final UnsafeBuffer data;

    /**
     * Handles a packet read in place.
     */
    @FunctionalInterface
    public interface PacketConsumer
    {
        /**
         * @param buffer holding the packet, valid only during the call.
         * @param offset of the first LRH byte.
         * @param length the packet's size S (LRH through ICRC).
         */
        void onPacket(DirectBuffer buffer, int offset, int length);
    }

    /**
     * @param capacityBlocks the blocks of buffer space this VL advertises.
     * @param maxPacketSize  the largest packet size S the port accepts.
     */
    public ReceiveRing(final int capacityBlocks, final int maxPacketSize)
    {
        if (capacityBlocks <= 0 || maxPacketSize <= 0 || maxPacketSize > Sizes.MAX_SIZE)
        {
            throw new IllegalArgumentException("capacity " + capacityBlocks + " blocks, max packet " + maxPacketSize);
        }
        this.capacityBlocks = capacityBlocks;
        final int descriptors = BitUtil.findNextPositivePowerOfTwo(capacityBlocks);
        descriptorMask = descriptors - 1;
        lapShift = Integer.numberOfTrailingZeros(descriptors);
        positions = OffHeap.allocate(DESCRIPTORS_OFFSET + descriptors * Long.BYTES);
        data = OffHeap.allocate((capacityBlocks + Sizes.blocks(maxPacketSize)) * Sizes.BLOCK_LENGTH);
    }

    /**
     * @return the blocks this buffer holds in all.
     */
    public int capacityBlocks()
    {
        return capacityBlocks;
    }

    /**
     * Producer. Copy a packet in, if it fits.
     *
     * @param src    the received bytes.
     * @param offset of the first LRH byte.
     * @param size   the packet's size S (the VCRC is not stored).
     * @return false, with nothing stored, when the free blocks do not cover it.
     */
    public boolean offer(final DirectBuffer src, final int offset, final int size)
    {
        final int blocks = Sizes.blocks(size);
        final long blockTail = positions.getLong(BLOCK_TAIL_OFFSET);
        if (blockTail + blocks - blockHeadCache > capacityBlocks)
        {
            blockHeadCache = positions.getLongAcquire(BLOCK_HEAD_OFFSET);
            if (blockTail + blocks - blockHeadCache > capacityBlocks)
            {
                return false;
            }
        }
        final int startBlock = (int)tailBlock;
        final int nextBlock = startBlock + blocks;
        tailBlock = nextBlock >= capacityBlocks ? nextBlock - capacityBlocks : nextBlock;
        data.putBytes(startBlock * Sizes.BLOCK_LENGTH, src, offset, size);
        final long packetTail = positions.getLong(PACKET_TAIL_OFFSET);
        positions.putLong(BLOCK_TAIL_OFFSET, blockTail + blocks);
        positions.putLongRelease(
            descriptorOffset(packetTail), (lapTag(packetTail) << TAG_SHIFT) | ((long)startBlock << START_SHIFT) | size);
        positions.putLongRelease(PACKET_TAIL_OFFSET, packetTail + 1);
        return true;
    }

    /**
     * Producer's view of the free blocks (exact on the producer's thread, up to the consumer's latest release).
     *
     * @return free blocks.
     */
    public int freeBlocks()
    {
        return (int)(capacityBlocks - (positions.getLong(BLOCK_TAIL_OFFSET) - positions.getLongAcquire(BLOCK_HEAD_OFFSET)));
    }

    /**
     * Consumer. Hand up to {@code limit} packets to the consumer, each read in place, releasing each one's blocks
     * once the consumer returns.
     *
     * @param consumer receives each packet.
     * @param limit    the most packets.
     * @return packets handed over.
     */
    public int poll(final PacketConsumer consumer, final int limit)
    {
        long packetHead = positions.getLong(PACKET_HEAD_OFFSET);
        int count = 0;
        while (count < limit)
        {
            final long descriptor = positions.getLongAcquire(descriptorOffset(packetHead));
            if (descriptor >>> TAG_SHIFT != lapTag(packetHead))
            {
                break;
            }
            final int startBlock = (int)(descriptor >>> START_SHIFT);
            final int size = (int)(descriptor & SIZE_MASK);
            try
            {
                consumer.onPacket(data, startBlock * Sizes.BLOCK_LENGTH, size);
            }
            finally
            {
                packetHead++;
                count++;
                positions.putLong(PACKET_HEAD_OFFSET, packetHead);
                positions.putLongRelease(
                    BLOCK_HEAD_OFFSET, positions.getLong(BLOCK_HEAD_OFFSET) + Sizes.blocks(size));
            }
        }
        return count;
    }

    /**
     * Consumer. Hand the oldest packet to the consumer without taking it: it stays, and its blocks stay charged, until
     * {@link #poll} takes it. A switch reads the head's LRH to route it while it waits in its input buffer.
     *
     * @param consumer receives the packet, read in place.
     * @return false when the ring is empty.
     */
    public boolean peek(final PacketConsumer consumer)
    {
        final long packetHead = positions.getLong(PACKET_HEAD_OFFSET);
        final long descriptor = positions.getLongAcquire(descriptorOffset(packetHead));
        if (descriptor >>> TAG_SHIFT != lapTag(packetHead))
        {
            return false;
        }
        consumer.onPacket(
            data, (int)(descriptor >>> START_SHIFT) * Sizes.BLOCK_LENGTH, (int)(descriptor & SIZE_MASK));
        return true;
    }

    /**
     * @return packets waiting (approximate from a third thread).
     */
    public int size()
    {
        return (int)(positions.getLongAcquire(PACKET_TAIL_OFFSET) - positions.getLongAcquire(PACKET_HEAD_OFFSET));
    }

    /**
     * Any thread. The blocks released by the consumer since the ring was made: monotonic, read with acquire.
     *
     * @return released blocks.
     */
    public long releasedBlocks()
    {
        return positions.getLongAcquire(BLOCK_HEAD_OFFSET);
    }

    /**
     * The tag a descriptor of this packet position carries: its lap plus one, in 16 bits. A slot's previous packet
     * is one lap earlier, so its tag differs by one; a slot never written holds 0, which lap 0's tag (1) is not.
     */
    private long lapTag(final long packetPosition)
    {
        return ((packetPosition >>> lapShift) + 1) & TAG_MASK;
    }

    private int descriptorOffset(final long packetPosition)
    {
        return DESCRIPTORS_OFFSET + (int)(packetPosition & descriptorMask) * Long.BYTES;
    }

    /**
     * Free the off-heap memory. Only once both threads have stopped using the ring.
     */
    @Override
    public void close()
    {
        OffHeap.free(positions);
        OffHeap.free(data);
    }
}
