package io.vlink.core.credit;

/**
 * The VL15 receive buffer: no credits, counted in packets (docs/flow-control.md, "VL15"; IBA flow control "Only
 * Applies to Data VLs": "a minimum of a single packet buffer per port for VL15"). The VL15 transmitter sends
 * without knowing whether there is room, so an SMP arriving to a full buffer is dropped and counted
 * ({@link DiscardReason#VL15_FULL}): the only loss allowed without a fault.
 * <p>
 * Like data buffers, its occupancy survives a link reset. Single-threaded and allocation-free.
 */
public final class Vl15Buffer
{
    private final int capacityPackets;
    private int occupiedPackets;

    /**
     * @param capacityPackets SMPs the buffer holds: at least one.
     */
    public Vl15Buffer(final int capacityPackets)
    {
        if (capacityPackets < 1)
        {
            throw new IllegalArgumentException("the VL15 buffer must hold at least one packet: " + capacityPackets);
        }
        this.capacityPackets = capacityPackets;
    }

    /**
     * @return true if the SMP was stored; false if the buffer is full and it must be dropped.
     */
    public boolean accept()
    {
        if (occupiedPackets < capacityPackets)
        {
            occupiedPackets++;
            return true;
        }
        return false;
    }

    /**
     * The upper layer took one SMP out of the buffer.
     *
     * @throws IllegalStateException if the buffer is empty (a caller bug).
     */
    public void release()
    {
        if (occupiedPackets == 0)
        {
            throw new IllegalStateException("VL15 buffer released while empty");
        }
        occupiedPackets--;
    }

    public int occupiedPackets()
    {
        return occupiedPackets;
    }

    public int capacityPackets()
    {
        return capacityPackets;
    }
}
