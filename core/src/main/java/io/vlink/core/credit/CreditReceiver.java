package io.vlink.core.credit;

import io.vlink.core.wire.Sizes;

import java.util.Arrays;

/**
 * The receiver half of link-level flow control for every data VL of one port (docs/flow-control.md,
 * "Receiver state"; IBA flow control "Receiver's Credit Limit"): {@code ABR}, the blocks received since link
 * initialization (12 bits), the receive buffer's free space, and the {@code FCCL} they give.
 * <p>
 * <b>Allocation granularity.</b> A buffer that allocates in chunks larger than a 64-byte block (128-byte chunks
 * and up, a power of two) charges each packet whole chunks: a 1-block packet takes a 2-block chunk of a
 * 128-byte-chunk buffer. Free space is kept in blocks at that granularity, and the capacity advertised is what
 * the buffer can take from the worst packet mix, all 1-block packets, one chunk each: the number of free chunks
 * (IBA flow control: "the receiver must use the smaller capacity in calculating the FCCL"). With 64-byte chunks this is
 * the free block count, as in the IBA flow-control examples.
 * <p>
 * {@code FCCL = ABR + min(capacity, 2048)} modulo 4096. Accepting a packet of NP blocks: {@code ABR += NP},
 * free space less its chunks. Releasing it to the upper layer gives its chunks back. A packet that would not fit
 * is refused (the sender broke the protocol) and moves nothing; neither does a packet the caller dropped for a bad
 * CRC, which never reaches this class. An FCP from the peer's transmitter sets {@code ABR := FCTBS}, which
 * re-synchronizes after lost or corrupted data packets.
 * <p>
 * Free space is the buffer's real occupancy, not a link counter: it is an int that does not wrap (a buffer may
 * exceed 4095 blocks; only {@code min(capacity, 2048)} enters FCCL), and a link reset leaves it alone: packets
 * the upper layer still holds are released as usual. Single-threaded and allocation-free.
 */
public final class CreditReceiver implements FcclSource
{
    private final int dataVls;
    private final int chunkShift;
    private final int chunkBlocksMask;
    private final int[] bufferBlocks;
    private final int[] freeBlocks;
    private final int[] blocksReceived;
    // every change of blocksReceived or freeBlocks (FcclSource#changes), and the VLs changed since the schedule last
    // took them (FcclSource#takeChangedVls)
    private long changes;
    private int changedVls;

    /**
     * @param dataVls      the port's data VLs: 1, 2, 4, 8 or 15.
     * @param bufferBlocks each VL's receive buffer, in 64-byte blocks (a multiple of the chunk).
     * @param chunkBytes   the buffer's allocation granularity: 64, 128, 256, ... bytes (a power of two).
     */
    public CreditReceiver(final int dataVls, final int bufferBlocks, final int chunkBytes)
    {
        this(dataVls, filled(Credits.requireDataVls(dataVls), bufferBlocks), chunkBytes);
    }

    /**
     * @param dataVls      the port's data VLs: 1, 2, 4, 8 or 15.
     * @param bufferBlocks the receive buffer of each VL in 64-byte blocks (each a multiple of the chunk).
     * @param chunkBytes   the buffer's allocation granularity: 64, 128, 256, ... bytes (a power of two).
     */
    public CreditReceiver(final int dataVls, final int[] bufferBlocks, final int chunkBytes)
    {
        this.dataVls = Credits.requireDataVls(dataVls);
        if (chunkBytes < Sizes.BLOCK_LENGTH || Integer.bitCount(chunkBytes) != 1)
        {
            throw new IllegalArgumentException("chunk must be a power of two of at least 64 bytes: " + chunkBytes);
        }
        if (bufferBlocks.length != dataVls)
        {
            throw new IllegalArgumentException("one buffer size per data VL: " + bufferBlocks.length + " for " +
                dataVls);
        }
        final int chunkBlocks = chunkBytes / Sizes.BLOCK_LENGTH;
        for (int vl = 0; vl < dataVls; vl++)
        {
            final int blocks = bufferBlocks[vl];
            if (blocks < chunkBlocks || blocks % chunkBlocks != 0)
            {
                throw new IllegalArgumentException("VL" + vl + " buffer of " + blocks +
                    " blocks is not a positive multiple of the " + chunkBytes + "-byte chunk");
            }
        }
        chunkShift = Integer.numberOfTrailingZeros(chunkBlocks);
        chunkBlocksMask = chunkBlocks - 1;
        this.bufferBlocks = bufferBlocks.clone();
        freeBlocks = bufferBlocks.clone();
        blocksReceived = new int[dataVls];
    }


    private static int[] filled(final int length, final int value)
    {
        final int[] array = new int[length];
        Arrays.fill(array, value);
        return array;
    }

    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @param blocks NP, a packet's 64-byte blocks.
     * @return the buffer blocks the packet occupies: NP rounded up to whole chunks.
     */
    public int chargedBlocks(final int blocks)
    {
        return (blocks + chunkBlocksMask) & ~chunkBlocksMask;
    }

    /**
     * Accept a data packet that arrived with good CRCs: {@code ABR += NP}, free space less the packet's chunks.
     *
     * @param vl     the data VL.
     * @param blocks NP, the packet's blocks.
     * @return true if it was stored; false if it would not fit (a sender protocol violation: discard and count it
     * as {@link DiscardReason#DATA_OVERFLOW}); nothing moves then.
     */
    public boolean accept(final int vl, final int blocks)
    {
        if (!occupy(vl, blocks))
        {
            return false;
        }
        blocksReceived[vl] = (blocksReceived[vl] + blocks) & Credits.MASK;
        return true;
    }

    /**
     * A packet stored before the link re-initialized, reported since: it takes its chunks until released, but ABR
     * counts blocks of the peer's present incarnation only (its FCTBS restarted from zero since), so ABR stays.
     *
     * @param vl     the data VL.
     * @param blocks NP, the packet's blocks.
     * @return true if the buffer had room for it; false if not (nothing moves).
     */
    public boolean occupy(final int vl, final int blocks)
    {
        final int charge = chargedBlocks(blocks);
        final int free = freeBlocks[vl];
        if (charge > free)
        {
            return false;
        }
        freeBlocks[vl] = free - charge;
        changes++;
        changedVls |= 1 << vl;
        return true;
    }

    /**
     * The upper layer took an accepted packet out of the buffer: its chunks are free again.
     *
     * @param vl     the data VL.
     * @param blocks NP of the packet being released, as given to {@link #accept(int, int)}.
     * @throws IllegalStateException if more is released than the buffer holds (a caller bug, not wire input).
     */
    public void release(final int vl, final int blocks)
    {
        final int free = freeBlocks[vl] + ((blocks + chunkBlocksMask) & ~chunkBlocksMask);
        if (free > bufferBlocks[vl])
        {
            throw new IllegalStateException("VL" + vl + " released more than it holds: free " + free + " of " +
                bufferBlocks[vl]);
        }
        freeBlocks[vl] = free;
        changes++;
        changedVls |= 1 << vl;
    }

    /**
     * Apply the FCTBS of an FCP from the peer's transmitter: {@code ABR := FCTBS}. Data and FCPs share the wire in
     * order, so every block sent before the FCP has arrived or has been lost: ABR now counts the lost ones too,
     * and the credit they held comes back.
     *
     * @param vl    the data VL the FCP named.
     * @param fctbs the FCP's FCTBS.
     */
    public void onBlocksSent(final int vl, final int fctbs)
    {
        blocksReceived[vl] = fctbs & Credits.MASK;
        changes++;
        changedVls |= 1 << vl;
    }

    /**
     * @param vl the data VL.
     * @return FCCL, {@code ABR + min(capacity, 2048)} modulo 4096.
     */
    @Override
    public int fccl(final int vl)
    {
        return Credits.creditLimit(blocksReceived[vl], freeBlocks[vl] >>> chunkShift);
    }

    /**
     * @return how many times ABR or the free space of any VL has changed: each FCCL moves only with them.
     */
    @Override
    public long changes()
    {
        return changes;
    }

    @Override
    public int takeChangedVls()
    {
        final int vls = changedVls;
        changedVls = 0;
        return vls;
    }

    /**
     * @param vl the data VL.
     * @return ABR, the blocks received since link initialization (re-synchronized by FCPs), modulo 4096.
     */
    public int blocksReceived(final int vl)
    {
        return blocksReceived[vl];
    }

    /**
     * @param vl the data VL.
     * @return buffer blocks free, at the buffer's allocation granularity.
     */
    public int freeBlocks(final int vl)
    {
        return freeBlocks[vl];
    }

    /**
     * @param vl the data VL.
     * @return the blocks the buffer can still take from any mix of valid packets: its free chunks.
     */
    public int capacityBlocks(final int vl)
    {
        return freeBlocks[vl] >>> chunkShift;
    }

    /**
     * @param vl the data VL.
     * @return the buffer's size in blocks.
     */
    public int bufferBlocks(final int vl)
    {
        return bufferBlocks[vl];
    }

    /**
     * Link (re)initialization: ABR from zero. Free space is the buffer's occupancy and stays as it is.
     */
    public void reset()
    {
        Arrays.fill(blocksReceived, 0);
        changes++;
        changedVls = -1;
    }
}
