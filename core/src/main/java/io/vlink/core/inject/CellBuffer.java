package io.vlink.core.inject;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The shared output buffer of the HPE patent: an off-heap region of C fixed-size cells where injected packets wait
 * until they are sent. A packet of S bytes takes {@code ceil(S / cell)} cells from {@link #claim} until its
 * cells are {@link #free freed} and {@link #reclaim reclaimed}.
 * <p>
 * <b>Cells are chained, not contiguous.</b> A packet is identified by its first cell; each cell's metadata holds
 * the next cell of the packet ({@link #NO_CELL} after the last). Chaining never fails for fragmentation, so the
 * accounting below ("a class has N cells available") is exact; readers copy a packet out with
 * {@link #getBytes} (at most {@code ceil(MTU packet / cell)} segments) or walk {@link #nextCell}.
 * <p>
 * <b>Accounting.</b> C = the reserved cells of every class + the shared pool. A class may hold its reserved
 * cells plus up to its shared limit of the pool (while the pool lasts). Occupancy (OCC) is kept per injector,
 * with the cells of immediate-data (IDC) packets also counted apart, and per class.
 * <p>
 * <b>Threading contract.</b> Two roles, each on one thread at a time:
 * <ul>
 * <li>the <em>injecting</em> thread owns allocation and every count: {@link #claim}, {@link #putBytes},
 * {@link #publish}, {@link #reclaim} and the figures ({@link #occ}, {@link #classCells}, ...);</li>
 * <li>the <em>sending</em> thread reads and frees: {@link #publishedLength}, {@link #getBytes},
 * {@link #nextCell}, {@link #cellOffset}, {@link #free}.</li>
 * </ul>
 * Publication follows Aeron's {@code FrameDescriptor}: the injecting thread writes the body and the chain,
 * then the length last with a release store; the sending thread reads the length with an acquire load and only
 * then the body (0 = not yet published). The cells' bytes are off-heap; their metadata (length, next cell) and
 * the return ring are plain {@code int[]}/{@code long[]} with {@link VarHandle} release/acquire, so the JIT sees
 * array accesses it can schedule, not raw memory accesses it must keep in order. Freeing never touches the
 * injecting side's state: {@link #free} clears the length and offers the first cell to a single-producer
 * single-consumer return ring (slot written plainly, tail position stored with release); {@link #reclaim} on
 * the injecting thread reads the tail with acquire once, puts each packet's chain back whole on the free list of
 * its size (O(1)), updates the counts and stores the head with release once. The ring holds one slot per
 * cell, so under correct use (each claimed packet freed once) it can never be full. No locks, no allocation
 * after construction. The figures are plain fields of the injecting thread; another thread reading them sees
 * approximate values. A packet's cells are reused only after the sending thread freed it, and the free
 * happens-before the reclaim (release/acquire on the ring), so the injecting thread never writes a cell the
 * sending thread may still read.
 * <p>
 * Single-threaded use (tests, simulations) calls {@link #free} then {@link #reclaim} on the same thread.
 */
public final class CellBuffer
{
    /** Returned by {@link #claim} when the class has not enough cells available; ends a chain. */
    public static final int NO_CELL = -1;

    /** Release/acquire access to the packet lengths and the return ring's positions. */
    private static final VarHandle INT_ARRAY = MethodHandles.arrayElementVarHandle(int[].class);
    private static final VarHandle LONG_ARRAY = MethodHandles.arrayElementVarHandle(long[].class);
    /** The return ring's positions, each alone on its line (16 longs apart: 128 bytes, two lines). */
    private static final int RETURN_TAIL = 16;
    /** The sending side's cached copy of the head, on the tail's line: the injecting side never writes it. */
    private static final int RETURN_HEAD_CACHE = 17;
    private static final int RETURN_HEAD = 32;
    private static final int RETURN_POSITIONS = 48;

    private final int cellSize;
    private final int cellShift;
    private final int totalCells;
    private final UnsafeBuffer data;
    // per-cell metadata, on the heap so that the JIT sees plain array accesses: the packet length (first cell
    // only, release/acquire) and the next cell of the chain
    private final int[] length;
    private final int[] next;
    private final long[] returnPositions;
    private final int[] returnSlots;
    private final int returnMask;
    private final ByteBuffer[] parents = new ByteBuffer[1];
    private int parentCount;

    // injecting side: free cells are kept as whole chains in one list per chain size (a reclaimed packet's chain
    // goes back whole, its links and its NO_CELL end intact), plus the never used cells [wild, totalCells), still
    // linked in order. A reclaim pushes in O(1); a claim pops a chain of its exact size in O(1), or carves the
    // never used cells in O(1); only when neither has it are chains split (a walk) or joined
    private final int[] sizeHead;
    private final int[] chainNext;
    private final long[] sizeNonEmpty;
    private int wild;
    private int takenLast;
    // injecting side's copy of the return ring's head (it is the only writer)
    private long returnHead;
    // per packet, at its first cell: what its reclaim needs in one long (see packetWord()), and its chain's last
    // cell (kept for the free chains on their lists too)
    private final long[] packetWord;
    private final int[] chainLast;
    private final int[] reserved;
    private final int[] sharedLimit;
    private final int sharedPool;
    private int sharedUsed;
    // per class: its reserved cells not in use; negative: the cells it holds of the shared pool (one number
    // answers both "does it fit in the reserved cells" and "how much of the pool does it hold")
    private final int[] room;
    // per injector: its OCC in the low 32 bits, the IDC part of it in the high 32 (one add per claim or reclaim)
    private final long[] occ;
    private final int[] injectorClass;
    private long cellsClaimed;
    // cells given back by reclaims: the cells in use are the claimed less these, no scan of the classes
    private long cellsReclaimed;
    private long refusals;

    /**
     * A cell buffer over off-heap memory of its own, freed by {@link #close()}.
     *
     * @param config cell size, classes (reserved cells, shared limits), shared pool, injectors and their classes.
     */
    public CellBuffer(final InjectionConfig config)
    {
        this(config, null);
    }

    /**
     * A cell buffer over memory the caller allocated and frees (an engine that accounts for all its off-heap memory).
     *
     * @param config cell size, classes (reserved cells, shared limits), shared pool, injectors and their classes.
     * @param cells  at least {@link #dataLength(InjectionConfig)} bytes starting on a cache line, or null to allocate.
     */
    public CellBuffer(final InjectionConfig config, final UnsafeBuffer cells)
    {
        cellSize = config.cellSize;
        cellShift = Integer.numberOfTrailingZeros(cellSize);
        totalCells = config.totalCells();
        if (totalCells == 0)
        {
            throw new IllegalArgumentException("the buffer needs at least one cell");
        }
        final int dataLength = dataLength(config);
        if (null == cells)
        {
            data = new UnsafeBuffer(allocate(dataLength, BitUtil.CACHE_LINE_LENGTH));
        }
        else
        {
            if (cells.capacity() < dataLength || (cells.addressOffset() & (BitUtil.CACHE_LINE_LENGTH - 1)) != 0)
            {
                throw new IllegalArgumentException("cell memory must be " + dataLength +
                    " bytes or more starting on a cache line: " + cells.capacity() + " bytes at " + cells.addressOffset());
            }
            data = new UnsafeBuffer(cells, 0, dataLength);
        }
        length = new int[totalCells];
        next = new int[totalCells];
        final int returnCapacity = BitUtil.findNextPositivePowerOfTwo(totalCells);
        returnMask = returnCapacity - 1;
        returnSlots = new int[returnCapacity];
        returnPositions = new long[RETURN_POSITIONS];

        for (int i = 0; i < totalCells; i++)
        {
            // a fresh buffer hands out cells 0, 1, 2, ... in order: one chain of every cell
            next[i] = i + 1 < totalCells ? i + 1 : NO_CELL;
        }
        sizeHead = new int[totalCells + 1];
        Arrays.fill(sizeHead, NO_CELL);
        chainNext = new int[totalCells];
        sizeNonEmpty = new long[(totalCells >>> 6) + 1];
        wild = 0;
        packetWord = new long[totalCells];
        chainLast = new int[totalCells];
        reserved = config.reservedCells.clone();
        sharedLimit = config.sharedLimit.clone();
        sharedPool = config.sharedCells;
        room = reserved.clone();
        occ = new long[config.injectors];
        injectorClass = config.injectorClass.clone();
    }

    /**
     * @param config the buffer's configuration.
     * @return the bytes of memory its cells take.
     */
    public static int dataLength(final InjectionConfig config)
    {
        return BitUtil.align(config.totalCells() * config.cellSize, BitUtil.CACHE_LINE_LENGTH);
    }

    // Aligned slices of direct buffers whose parents are kept, so that close() can free them (a slice cannot be).
    private ByteBuffer allocate(final int length, final int alignment)
    {
        final ByteBuffer parent = ByteBuffer.allocateDirect(length + alignment);
        parents[parentCount++] = parent;
        final int misalignment = (int)(BufferUtil.address(parent) & (alignment - 1));
        final int start = 0 == misalignment ? 0 : alignment - misalignment;
        return parent.position(start).limit(start + length).slice();
    }

    /**
     * Free the off-heap memory now rather than when the collector finds it. Call once, after both threads have
     * stopped using the buffer.
     */
    public void close()
    {
        for (int i = 0; i < parentCount; i++)
        {
            BufferUtil.free(parents[i]);
            parents[i] = null;
        }
        parentCount = 0;
    }

    /**
     * @param size packet bytes.
     * @return cells it takes: {@code ceil(size / cell)}.
     */
    public int cellsFor(final int size)
    {
        return (size + cellSize - 1) >>> cellShift;
    }

    /**
     * Injecting thread. Cells a class can still claim: its free reserved cells plus what it may still take of
     * the shared pool (its shared limit, and what the pool has left).
     *
     * @param bufferClass which.
     * @return cells available to it.
     */
    public int available(final int bufferClass)
    {
        final int room = this.room[bufferClass];
        final int reservedFree = Math.max(0, room);
        final int sharedHeld = Math.max(0, -room);
        final int byLimit = sharedLimit[bufferClass] - sharedHeld;
        final int byPool = sharedPool - sharedUsed;
        return reservedFree + Math.max(0, Math.min(byLimit, byPool));
    }

    /**
     * Injecting thread: {@code cells <= available(bufferClass)}, answered from the class's reserved cells alone when
     * they suffice (the common case: two loads, no shared pool arithmetic).
     */
    boolean fits(final int bufferClass, final int cells)
    {
        return cells <= room[bufferClass] || cells <= available(bufferClass);
    }

    /**
     * Injecting thread: whether class {@code bufferClass} can take {@code cells} cells while class {@code waiting}
     * waits for cells, without taking any cell the waiting class could use, now or later: the packet fits in the
     * class's own reserved cells, or it fits and the shared cells held by every class but the waiting one stay within
     * what the pool has beyond the waiting class's shared limit (so that limit, never the pool, caps the waiting
     * class, whatever it holds). With a shared limit of the whole pool only reserved cells qualify; with shared limits
     * that sum to the pool at most (an engine's port) every packet that fits does.
     *
     * @param bufferClass the class that would take the cells.
     * @param cells       cells to take.
     * @param waiting     the class waiting for cells.
     * @return true when the claim would leave {@code available(waiting)} as it is, now and after any release.
     */
    boolean fitsBeside(final int bufferClass, final int cells, final int waiting)
    {
        final int room = this.room[bufferClass];
        if (cells <= room)
        {
            return true;
        }
        final int shared = cells - Math.max(0, room);
        final int heldByOthers = sharedUsed - Math.max(0, -this.room[waiting]);
        return cells <= available(bufferClass) && heldByOthers + shared <= sharedPool - sharedLimit[waiting];
    }

    /**
     * Injecting thread. Take the cells of one packet, reserved cells of the class first, then shared ones.
     *
     * @param injector    the injector the packet comes from (its OCC grows).
     * @param size        packet bytes (> 0).
     * @param idc         true when it comes from an immediate-data command (counted apart as well).
     * @return the packet's first cell, or {@link #NO_CELL} when the class has not enough cells (back-pressure,
     * counted in {@link #refusals()}).
     */
    public int claim(final int injector, final int size, final boolean idc)
    {
        final int bufferClass = injectorClass[injector];
        final int cells = cellsFor(size);
        if (size <= 0 || !fits(bufferClass, cells))
        {
            refusals++;
            return NO_CELL;
        }
        return take(injector, bufferClass, cells, idc);
    }

    /**
     * Injecting thread. Take cells already known to be available to the class ({@link InjectorArbiter} checked
     * {@link #available} when it chose the injector).
     *
     * @param injector    the packet's injector.
     * @param bufferClass its class: the buffer's own class of the injector (the arbiter and the buffer are built
     *                    from the same config), which its reclaim credits back.
     * @param cells       cells to take.
     * @param idc         true for an immediate-data packet.
     * @return the packet's first cell.
     */
    int take(final int injector, final int bufferClass, final int cells, final boolean idc)
    {
        int first = sizeHead[cells];
        if (first != NO_CELL)
        {
            // the common case in a steady state: a freed chain of the exact size, popped whole (its last cell is
            // still recorded at its first cell)
            sizeHead[cells] = chainNext[first];
        }
        else if (totalCells - wild >= cells)
        {
            // never used cells, linked in order: carve the next ones
            first = wild;
            final int last = first + cells - 1;
            next[last] = NO_CELL;
            wild = last + 1;
            chainLast[first] = last;
        }
        else
        {
            first = gather(cells);
            chainLast[first] = takenLast;
        }
        packetWord[first] = packetWord(injector, cells, idc);
        final int before = room[bufferClass];
        final int after = before - cells;
        room[bufferClass] = after;
        if (after < 0)
        {
            // the part beyond the reserved cells comes from the shared pool
            sharedUsed += Math.min(cells, -after);
        }
        occ[injector] += occDelta(cells, idc);
        cellsClaimed += cells;
        return first;
    }

    /** A packet's record at its first cell: injector << 32 | idc << 31 | cells (cells < 2^25: see the config). */
    private static long packetWord(final int injector, final int cells, final boolean idc)
    {
        return (long)injector << 32 | (idc ? 1L << 31 : 0L) | cells;
    }

    /** What a packet of {@code cells} adds to its injector's OCC word: the cells, and the IDC part in the high half. */
    private static long occDelta(final int cells, final boolean idc)
    {
        return idc ? (long)cells << 32 | cells : cells;
    }

    /**
     * Remove the chain {@code first} (the head of its size's list) from the list of chains of {@code size}. Its bit
     * in {@link #sizeNonEmpty} is left set: the bits are a superset of the non-empty sizes, cleared by the searches
     * that find one stale (only the rare split or join searches), so a claim pays no branch for them.
     */
    private void pop(final int first, final int size)
    {
        sizeHead[size] = chainNext[first];
    }

    /** Give a free chain back: {@code first} and {@code last} cells (last ends with NO_CELL), {@code size} cells. */
    private void push(final int first, final int last, final int size)
    {
        chainLast[first] = last;
        final int following = sizeHead[size];
        chainNext[first] = following;
        sizeHead[size] = first;
        if (following == NO_CELL)
        {
            // a list becomes non-empty only here (and in reclaimOne): so a non-empty size always has its bit
            sizeNonEmpty[size >>> 6] |= 1L << size;
        }
    }

    /**
     * No chain of the exact size and too few never used cells: take the never used ones, then the smallest
     * larger chain split in two (the remainder goes back), or failing that the largest smaller chains whole.
     *
     * @return the first cell taken; the last is left in {@link #takenLast}.
     */
    private int gather(final int cells)
    {
        int first = NO_CELL;
        int last = NO_CELL;
        int need = cells;
        while (need > 0)
        {
            final int from;
            final int to;
            if (wild < totalCells)
            {
                from = wild;
                to = totalCells - 1;
                need -= totalCells - wild;
                wild = totalCells;
            }
            else
            {
                final int larger = nonEmptyAtLeast(need);
                if (larger >= 0)
                {
                    from = sizeHead[larger];
                    pop(from, larger);
                    final int fromLast = chainLast[from];
                    if (larger == need)
                    {
                        to = fromLast;
                    }
                    else
                    {
                        to = walk(from, need - 1);
                        push(next[to], fromLast, larger - need);
                        next[to] = NO_CELL;
                    }
                    need = 0;
                }
                else
                {
                    final int smaller = nonEmptyBelow(need);
                    from = sizeHead[smaller];
                    pop(from, smaller);
                    to = chainLast[from];
                    need -= smaller;
                }
            }
            if (last == NO_CELL)
            {
                first = from;
            }
            else
            {
                next[last] = from;
            }
            last = to;
        }
        takenLast = last;
        return first;
    }

    /** @return the smallest chain size >= {@code size} with a free chain, or -1 (stale bits met are cleared). */
    private int nonEmptyAtLeast(final int size)
    {
        final long[] bits = sizeNonEmpty;
        int w = size >>> 6;
        long word = bits[w] & (-1L << size);
        while (true)
        {
            while (word != 0)
            {
                final int found = (w << 6) + Long.numberOfTrailingZeros(word);
                if (sizeHead[found] != NO_CELL)
                {
                    return found;
                }
                bits[w] &= ~(1L << found);
                word &= word - 1;
            }
            if (++w == bits.length)
            {
                return -1;
            }
            word = bits[w];
        }
    }

    /**
     * @return the largest chain size < {@code size} with a free chain (one exists when cells are available; stale
     * bits met are cleared).
     */
    private int nonEmptyBelow(final int size)
    {
        final long[] bits = sizeNonEmpty;
        int w = (size - 1) >>> 6;
        long word = bits[w] & (-1L >>> (63 - ((size - 1) & 63)));
        while (true)
        {
            while (word != 0)
            {
                final int found = (w << 6) + 63 - Long.numberOfLeadingZeros(word);
                if (sizeHead[found] != NO_CELL)
                {
                    return found;
                }
                bits[w] &= ~(1L << found);
                word &= ~(1L << found);
            }
            word = bits[--w];
        }
    }

    private int walk(final int from, final int links)
    {
        final int[] next = this.next;
        int cell = from;
        for (int k = 0; k < links; k++)
        {
            cell = next[cell];
        }
        return cell;
    }

    /**
     * Injecting thread. Write part of a packet, across cells as needed.
     *
     * @param firstCell    from {@link #claim}.
     * @param packetOffset where in the packet to write.
     * @param src          source bytes.
     * @param srcIndex     first source byte.
     * @param length       bytes to write (within the claimed size).
     */
    public void putBytes(
        final int firstCell, final int packetOffset, final DirectBuffer src, final int srcIndex, final int length)
    {
        copy(firstCell, packetOffset, null, src, srcIndex, length);
    }

    /**
     * Injecting thread. Make the packet visible to the sending thread: its length is stored last, with release
     * semantics, after the body and the chain (Aeron's {@code FrameDescriptor.frameLengthOrdered}).
     *
     * @param firstCell from {@link #claim}.
     * @param size      the packet's bytes (> 0), as claimed.
     */
    public void publish(final int firstCell, final int size)
    {
        INT_ARRAY.setRelease(length, firstCell, size);
    }

    /**
     * Sending thread. Read a packet's length with acquire semantics; the body may be read once it is non-zero.
     *
     * @param firstCell the packet's first cell.
     * @return its size in bytes, or 0 when it is not published yet.
     */
    public int publishedLength(final int firstCell)
    {
        return (int)INT_ARRAY.getAcquire(length, firstCell);
    }

    /**
     * Sending thread (after {@link #publishedLength}), or injecting thread. Copy part of a packet out.
     *
     * @param firstCell    the packet's first cell.
     * @param packetOffset where in the packet to start.
     * @param dst          destination.
     * @param dstIndex     first destination byte.
     * @param length       bytes to copy.
     */
    public void getBytes(
        final int firstCell, final int packetOffset, final MutableDirectBuffer dst, final int dstIndex, final int length)
    {
        copy(firstCell, packetOffset, dst, null, dstIndex, length);
    }

    private void copy(
        final int firstCell,
        final int packetOffset,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int index,
        final int length)
    {
        int cell = firstCell;
        int skip = packetOffset;
        while (skip >= cellSize)
        {
            cell = next[cell];
            skip -= cellSize;
        }
        int done = 0;
        while (done < length)
        {
            // one copy per run of consecutive cells, not one per cell: a chain is usually one run (a fresh buffer
            // hands cells out in order and a freed chain is reused whole by a packet of its size), and each short
            // copy pays the copy stub's fixed cost, sixteen times for a 4 KiB packet of 256-byte cells, each way
            final int at = (cell << cellShift) + skip;
            int run = Math.min(cellSize - skip, length - done);
            while (done + run < length && next[cell] == cell + 1)
            {
                cell++;
                run += Math.min(cellSize, length - done - run);
            }
            if (dst != null)
            {
                dst.putBytes(index + done, data, at, run);
            }
            else
            {
                data.putBytes(at, src, index + done, run);
            }
            done += run;
            skip = 0;
            if (done < length)
            {
                cell = next[cell];
            }
        }
    }

    /**
     * @param cell a cell of a published packet.
     * @return the packet's next cell, or {@link #NO_CELL} after its last.
     */
    public int nextCell(final int cell)
    {
        return next[cell];
    }

    /**
     * @param cell a cell.
     * @return the offset of its bytes in {@link #data()}.
     */
    public int cellOffset(final int cell)
    {
        return cell << cellShift;
    }

    /** @return the cells' memory (for zero-copy access through {@link #cellOffset}). */
    public UnsafeBuffer data()
    {
        return data;
    }

    /**
     * Sending thread. Hand a sent packet's cells back to the injecting thread, without locks: the length is
     * cleared (so a reused cell reads as unpublished) and the first cell is offered to the return ring with a
     * release store of the tail. The counts change when the injecting thread calls {@link #reclaim}.
     *
     * @param firstCell the packet's first cell.
     * @return false only on misuse (more frees than claims): the ring was full and nothing was done.
     */
    public boolean free(final int firstCell)
    {
        final long[] positions = returnPositions;
        final long tail = positions[RETURN_TAIL];
        if (tail - positions[RETURN_HEAD_CACHE] > returnMask)
        {
            final long head = (long)LONG_ARRAY.getAcquire(positions, RETURN_HEAD);
            positions[RETURN_HEAD_CACHE] = head;
            if (tail - head > returnMask)
            {
                return false;
            }
        }
        length[firstCell] = 0;
        returnSlots[(int)tail & returnMask] = firstCell;
        LONG_ARRAY.setRelease(positions, RETURN_TAIL, tail + 1);
        return true;
    }

    /**
     * Injecting thread. Take back every packet freed since the last call: its chain returns to the free list of
     * its size and the occupancy of its injector and class drops.
     *
     * @param handler told the injector of each reclaimed packet (its OCC changed), or null.
     * @return packets reclaimed.
     */
    public int reclaim(final ReleaseHandler handler)
    {
        final int returned = returned();
        if (returned != 0)
        {
            for (int k = 0; k < returned; k++)
            {
                final int injector = reclaimOne();
                if (handler != null)
                {
                    handler.onRelease(injector);
                }
            }
            reclaimed();
        }
        return returned;
    }

    /**
     * Injecting thread, first step of a reclaim: the packets freed and not yet reclaimed (the one acquire load of
     * the return ring's tail of the reclaim).
     *
     * @return how many; reclaim each with {@link #reclaimOne}, then call {@link #reclaimed}.
     */
    int returned()
    {
        return (int)((long)LONG_ARRAY.getAcquire(returnPositions, RETURN_TAIL) - returnHead);
    }

    /**
     * Injecting thread: reclaim the packet at the head of the return ring (one of {@link #returned}).
     *
     * @return its injector, whose OCC dropped.
     */
    int reclaimOne()
    {
        final long head = returnHead;
        returnHead = head + 1;
        final int first = returnSlots[(int)head & returnMask];
        final long word = packetWord[first];
        final int injector = (int)(word >>> 32);
        final int cells = (int)word & Integer.MAX_VALUE;
        // the packet's chain goes back whole (it still ends with NO_CELL, its last cell is recorded): O(1)
        final int following = sizeHead[cells];
        chainNext[first] = following;
        sizeHead[cells] = first;
        if (following == NO_CELL)
        {
            sizeNonEmpty[cells >>> 6] |= 1L << cells;
        }
        final int bufferClass = injectorClass[injector];
        final int before = room[bufferClass];
        room[bufferClass] = before + cells;
        if (before < 0)
        {
            // the part that was beyond the reserved cells goes back to the shared pool
            sharedUsed -= Math.min(cells, -before);
        }
        occ[injector] -= occDelta(cells, (int)word < 0);
        cellsReclaimed += cells;
        return injector;
    }

    /** Injecting thread, last step of a reclaim: hand the ring's slots back to the sending side (one release). */
    void reclaimed()
    {
        LONG_ARRAY.setRelease(returnPositions, RETURN_HEAD, returnHead);
    }

    /** Told which injector's cells were reclaimed. */
    @FunctionalInterface
    public interface ReleaseHandler
    {
        /**
         * @param injector whose occupancy dropped.
         */
        void onRelease(int injector);
    }

    /** @return cell size in bytes. */
    public int cellSize()
    {
        return cellSize;
    }

    /** @return every cell of the buffer. */
    public int totalCells()
    {
        return totalCells;
    }

    /** The cells held by packets: claimed less reclaimed (the injection agent reads it every duty cycle). */
    private int cellsInUse()
    {
        return (int)(cellsClaimed - cellsReclaimed);
    }

    /** @return cells not held by any packet (as of the last reclaim). */
    public int freeCells()
    {
        return totalCells - cellsInUse();
    }

    /**
     * @param injector which.
     * @return its occupied cell count (all its packets, IDC and DMA).
     */
    public int occ(final int injector)
    {
        return (int)occ[injector];
    }

    /**
     * @param injector which.
     * @return the part of its OCC from immediate-data packets.
     */
    public int idcOcc(final int injector)
    {
        return (int)(occ[injector] >>> 32);
    }

    /**
     * @param bufferClass which.
     * @return cells its packets hold.
     */
    public int classCells(final int bufferClass)
    {
        return reserved[bufferClass] - room[bufferClass];
    }

    /** @return cells of the shared pool in use. */
    public int sharedCellsUsed()
    {
        return sharedUsed;
    }

    /**
     * @param injector which.
     * @return its buffer class.
     */
    public int injectorClass(final int injector)
    {
        return injectorClass[injector];
    }

    /** @return cells ever claimed. */
    public long cellsClaimed()
    {
        return cellsClaimed;
    }

    /** @return cells ever reclaimed. */
    public long cellsReleased()
    {
        return cellsReclaimed;
    }

    /** @return claims refused for lack of cells. */
    public long refusals()
    {
        return refusals;
    }
}
