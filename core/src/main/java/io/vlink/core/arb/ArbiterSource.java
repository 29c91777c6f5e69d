package io.vlink.core.arb;

/**
 * What the {@link VlArbiter} asks about the port's transmit side at each packet boundary. The engine's
 * arbiter agent implements it over its per-VL rings and credit state; the simulator over its scenario
 * queues. Implementations are called on the arbiter's thread only, must not allocate, and should be a
 * single final class per process so the calls stay monomorphic and inline.
 */
public interface ArbiterSource
{
    /**
     * @return whether a VL15 (subnet management) packet is waiting. VL15 is never credit-checked.
     */
    boolean hasVl15();

    /**
     * @return whether a flow-control packet is waiting to be sent.
     */
    boolean hasFcp();

    /**
     * @param vl a data VL below the port's data VLs.
     * @return the size {@code S = 4 * PktLen} in bytes of the packet at the head of the VL's queue, or 0 when
     * the queue is empty.
     */
    int headSize(int vl);

    /**
     * Whether the VL's credits cover a packet of {@code size} bytes: with the credit limit {@code CL},
     * {@code CR = FCTBS + blocks(size)} and {@code (CL - CR) mod 4096 <= 2048} (docs/flow-control.md).
     *
     * @param vl   a data VL.
     * @param size the head packet's size, as {@link #headSize(int)} returned it (never 0).
     * @return whether the packet may be sent now.
     */
    boolean canSend(int vl, int size);
}
