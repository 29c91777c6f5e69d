package io.vlink.nic;

import io.vlink.core.inject.CellBuffer;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Copies between a packet's chain of cells and a buffer, one copy per run of consecutive cells rather than one per
 * cell. A chain is usually one run: a fresh buffer hands its cells out in order and a freed chain is reused whole
 * by a packet of the same size ({@link CellBuffer}), so a 4 KiB packet of 256-byte cells is one 4 KiB copy instead
 * of sixteen short ones (each short copy pays the copy stub's fixed cost: about 140 ns saved a packet, each way).
 * <p>
 * Stateless; the caller is the thread the {@link CellBuffer} contract allows (injecting or sending side).
 */
final class CellCopy
{
    private CellCopy()
    {
    }

    /**
     * Injecting thread: bytes into a packet's cells.
     *
     * @param cells        the cell buffer.
     * @param firstCell    the packet's first cell.
     * @param packetOffset where in the packet to write.
     * @param src          source bytes.
     * @param srcIndex     first source byte.
     * @param length       bytes (within the packet's claimed size).
     */
    static void toCells(
        final CellBuffer cells,
        final int firstCell,
        final int packetOffset,
        final DirectBuffer src,
        final int srcIndex,
        final int length)
    {
        copy(cells, firstCell, packetOffset, null, src, srcIndex, length);
    }

    /**
     * Sending thread: bytes of a published packet out of its cells.
     *
     * @param cells        the cell buffer.
     * @param firstCell    the packet's first cell.
     * @param packetOffset where in the packet to start.
     * @param dst          destination.
     * @param dstIndex     first destination byte.
     * @param length       bytes.
     */
    static void fromCells(
        final CellBuffer cells,
        final int firstCell,
        final int packetOffset,
        final MutableDirectBuffer dst,
        final int dstIndex,
        final int length)
    {
        copy(cells, firstCell, packetOffset, dst, null, dstIndex, length);
    }

    private static void copy(
        final CellBuffer cells,
        final int firstCell,
        final int packetOffset,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int index,
        final int length)
    {
        final UnsafeBuffer data = cells.data();
        final int cellSize = cells.cellSize();
        int cell = firstCell;
        int skip = packetOffset;
        while (skip >= cellSize)
        {
            cell = cells.nextCell(cell);
            skip -= cellSize;
        }
        int done = 0;
        while (done < length)
        {
            final int at = cells.cellOffset(cell) + skip;
            int run = Math.min(cellSize - skip, length - done);
            while (done + run < length && cells.nextCell(cell) == cell + 1)
            {
                // the next cell follows in memory: the run goes on
                cell++;
                run += Math.min(cellSize, length - done - run);
            }
            if (null != dst)
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
                cell = cells.nextCell(cell);
            }
        }
    }
}
