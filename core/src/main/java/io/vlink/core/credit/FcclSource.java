package io.vlink.core.credit;

/**
 * Where the {@link FcpSchedule} reads a VL's current FCCL to decide whether enough credit has been freed to send
 * an FCP early. {@link CreditReceiver} is one; the engine may supply a view of a counter kept elsewhere.
 */
@FunctionalInterface
public interface FcclSource
{
    /**
     * @param vl a data VL.
     * @return the FCCL the receiver would advertise for it now.
     */
    int fccl(int vl);
}
