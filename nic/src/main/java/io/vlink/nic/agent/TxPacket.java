package io.vlink.nic.agent;


/**
 * A packet waiting in the cell buffer, as the per-VL rings carry it: a preallocated descriptor per cell (a packet
 * is named by its first cell, so at most one in-flight packet uses each descriptor). The injection agent writes
 * the fields before offering it to a ring (release); the arbiter reads them after taking it (acquire). The queue pair,
 * end-of-message flag and generation are read only when a link error flushes the rings.
 */
public final class TxPacket
{
    public final int firstCell;
    /** The packet's size S, LRH through ICRC. */
    public int size;
    public int vl;
    /** The injection agent's flush generation when it injected the packet ({@link FlushControl}). */
    public int generation;
    /** Whether it ends its message (a ready packet or an SMP always does). */
    public boolean end;
    /**
     * The queue pair whose message it carries, credited with the message if a flush discards this last packet: its
     * index in {@link PortDatapath#queues()} (creation order), or {@link #SMP_QUEUE} for an SMP. An index, not a
     * reference: a reference store on every packet would pay the collector's write barrier.
     */
    public int queue;

    /** {@link #queue} of an SMP: the port's SMP queue. */
    public static final int SMP_QUEUE = -1;

    public TxPacket(final int firstCell)
    {
        this.firstCell = firstCell;
    }
}
