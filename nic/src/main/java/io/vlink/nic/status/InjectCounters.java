package io.vlink.nic.status;

import org.agrona.concurrent.status.AtomicCounter;

/**
 * The counters an engine's injection agent writes, and only it ({@link PortCounterSet#inject()}): the cell buffer's
 * occupancy, injector priority changes, cells injected per VL, messages a link error flushed per VL, and packets of an SL its SL2VL maps to
 * no data VL. Each with release stores.
 */
public final class InjectCounters
{
    private final AtomicCounter cellOccupancy;
    private final AtomicCounter priorityChanges;
    private final AtomicCounter[] flushedMessages;
    private final AtomicCounter[] cells;
    private final AtomicCounter sl2vlUnmapped;

    InjectCounters(
        final AtomicCounter cellOccupancy,
        final AtomicCounter priorityChanges,
        final AtomicCounter[] flushedMessages,
        final AtomicCounter[] cells,
        final AtomicCounter sl2vlUnmapped)
    {
        this.cellOccupancy = cellOccupancy;
        this.priorityChanges = priorityChanges;
        this.flushedMessages = flushedMessages.clone();
        this.cells = cells.clone();
        this.sl2vlUnmapped = sl2vlUnmapped;
    }

    /** @return gauge: cells in use ({@code cell_occupancy}). */
    public AtomicCounter cellOccupancy()
    {
        return cellOccupancy;
    }

    /** @return injector priority changes ({@code injector_priority_changes}). */
    public AtomicCounter priorityChanges()
    {
        return priorityChanges;
    }

    /**
     * @param vl a data VL or 15.
     * @return messages a link error's transmit flush discarded, by the VL their SL maps to.
     */
    public AtomicCounter flushedMessages(final int vl)
    {
        return flushedMessages[vl];
    }

    /**
     * @param vl a data VL or 15.
     * @return cells the packets injected on the VL took in the transmit cell buffer ({@code tx_cells}).
     */
    public AtomicCounter txCells(final int vl)
    {
        return cells[vl];
    }

    /** @return packets of an SL that SL2VL maps to no data VL ({@code discards_sl2vl_unmapped}). */
    public AtomicCounter sl2vlUnmapped()
    {
        return sl2vlUnmapped;
    }
}
