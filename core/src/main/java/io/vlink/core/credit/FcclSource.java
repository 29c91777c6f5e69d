package io.vlink.core.credit;

/**
 * Where the {@link FcpSchedule} reads a VL's current FCCL to decide whether enough credit has been freed to send
 * an FCP early. {@link CreditReceiver} is one; a test may supply any function of the VL.
 */
@FunctionalInterface
public interface FcclSource
{
    /** {@link #changes()}: this source does not count its changes, so every FCCL must be read every time. */
    long UNCOUNTED = -1;

    /**
     * @param vl a data VL.
     * @return the FCCL the receiver would advertise for it now.
     */
    int fccl(int vl);

    /**
     * A count that moves whenever any VL's FCCL may have moved, so that a schedule which found nothing to send can
     * skip reading every VL's FCCL until it moves or an FCP falls due.
     *
     * @return the count (never negative), or {@link #UNCOUNTED}.
     */
    default long changes()
    {
        return UNCOUNTED;
    }

    /**
     * The VLs whose FCCL may have moved since the previous call (bit v for VL v), and forget them: a schedule that
     * found nothing to send reads only these VLs' FCCLs when {@link #changes()} moves. A source that does not keep
     * them answers every VL (-1).
     *
     * @return the VLs, as bits.
     */
    default int takeChangedVls()
    {
        return -1;
    }
}
