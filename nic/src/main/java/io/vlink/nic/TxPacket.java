package io.vlink.nic;

/**
 * A packet waiting in the cell buffer, as the per-VL rings carry it: a preallocated descriptor per cell (a packet
 * is named by its first cell, so at most one in-flight packet uses each descriptor). The injection agent writes
 * the fields before offering it to a ring (release); the arbiter reads them after taking it (acquire).
 */
final class TxPacket
{
    final int firstCell;
    /** The packet's size S, LRH through ICRC. */
    int size;
    int vl;

    TxPacket(final int firstCell)
    {
        this.firstCell = firstCell;
    }
}
