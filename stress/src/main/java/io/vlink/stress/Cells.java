package io.vlink.stress;

import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Small cell buffers, and the packet bodies every test writes and checks (the tests of {@code nic}'s package-private
 * classes, in their own packages, use them too).
 */
public final class Cells
{
    /** Cell size: the smallest allowed, so a packet of {@link #PACKET_SIZE} bytes spans a chain of two cells. */
    public static final int CELL_SIZE = 64;
    /** A two-cell packet. */
    public static final int PACKET_SIZE = 96;
    /** Ints in a packet body. */
    public static final int PACKET_INTS = PACKET_SIZE / Integer.BYTES;

    private Cells()
    {
    }

    /**
     * @param cells cells of the buffer (one injector, one class, no shared pool).
     * @return a fresh buffer: its first claims hand out cells 0, 1, 2, ... in order.
     */
    public static CellBuffer buffer(final int cells)
    {
        return new CellBuffer(new InjectionConfig()
            .shape(1, 1)
            .cellSize(CELL_SIZE)
            .sharedCells(0)
            .reservedCells(cells));
    }

    /**
     * @param value every int of the body.
     * @return a packet body of {@link #PACKET_SIZE} bytes.
     */
    public static UnsafeBuffer body(final int value)
    {
        final UnsafeBuffer body = new UnsafeBuffer(new byte[PACKET_SIZE]);
        for (int i = 0; i < PACKET_INTS; i++)
        {
            body.putInt(i * Integer.BYTES, value);
        }
        return body;
    }

    /**
     * @param body  a copied-out packet.
     * @param value the int expected everywhere.
     * @return how many of its ints hold {@code value}.
     */
    public static int count(final UnsafeBuffer body, final int value)
    {
        return count(body, 0, PACKET_SIZE, value);
    }

    /**
     * @param buffer holding a packet.
     * @param offset its first byte.
     * @param length its bytes.
     * @param value  the int expected everywhere.
     * @return how many of its ints hold {@code value}.
     */
    public static int count(final DirectBuffer buffer, final int offset, final int length, final int value)
    {
        int count = 0;
        for (int i = 0; i < length / Integer.BYTES; i++)
        {
            if (buffer.getInt(offset + i * Integer.BYTES) == value)
            {
                count++;
            }
        }
        return count;
    }
}
