package io.vlink.nic.status;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static org.agrona.BitUtil.SIZE_OF_INT;

/**
 * The key stored with each counter in the counters file, so that a reader in another process knows what the
 * counter is about without parsing its label.
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *  |                      Port (or -1)                             |
 *  +---------------------------------------------------------------+
 *  |                       VL (or -1)                              |
 *  +---------------------------------------------------------------+
 *  |                Discard reason id (or -1)                      |
 *  +---------------------------------------------------------------+
 * </pre>
 * Little-endian (the native order of Agrona's counters buffers).
 */
public final class CounterKey
{
    /** A key field that does not apply to the counter's scope. */
    public static final int NONE = -1;

    public static final int PORT_OFFSET = 0;
    public static final int VL_OFFSET = PORT_OFFSET + SIZE_OF_INT;
    public static final int REASON_OFFSET = VL_OFFSET + SIZE_OF_INT;
    public static final int LENGTH = REASON_OFFSET + SIZE_OF_INT;

    private CounterKey()
    {
    }

    /**
     * @param buffer the key buffer of a counter being allocated.
     * @param port   the port, or {@link #NONE}.
     * @param vl     the VL, or {@link #NONE}.
     * @param reason the discard reason id, or {@link #NONE}.
     */
    public static void write(final MutableDirectBuffer buffer, final int port, final int vl, final int reason)
    {
        buffer.putInt(PORT_OFFSET, port);
        buffer.putInt(VL_OFFSET, vl);
        buffer.putInt(REASON_OFFSET, reason);
    }

    public static int port(final DirectBuffer keyBuffer)
    {
        return keyBuffer.getInt(PORT_OFFSET);
    }

    public static int vl(final DirectBuffer keyBuffer)
    {
        return keyBuffer.getInt(VL_OFFSET);
    }

    public static int reason(final DirectBuffer keyBuffer)
    {
        return keyBuffer.getInt(REASON_OFFSET);
    }
}
