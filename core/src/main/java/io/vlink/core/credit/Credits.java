package io.vlink.core.credit;

/**
 * The 12-bit arithmetic of link-level credit flow control (docs/flow-control.md, IBA flow control "Receive
 * Buffer Full Example": "the ABR, FCCL, FCTBS and Free Space Count registers are all 12 bits wide").
 * <p>
 * Every counter here counts 64-byte flow-control blocks modulo 4096. These pure functions are the rule in
 * one place: the stateful classes of this package use them, and so can code that keeps a counter somewhere
 * else (an off-heap slot shared between threads).
 */
public final class Credits
{
    /** Counters wrap at 4096: they are 12 bits wide. */
    public static final int MODULUS = 4096;
    /** Mask that reduces any int to its 12-bit counter value. */
    public static final int MASK = MODULUS - 1;
    /**
     * The most credit a receiver may ever grant beyond what it has received: 2048 blocks (128 KB). Half the
     * counter range, so that {@code (CL - CR) mod 4096} tells "ahead" from "behind" without ambiguity.
     */
    public static final int MAX_CREDIT = 2048;

    private Credits()
    {
    }

    /**
     * @param counter a 12-bit counter.
     * @param blocks  blocks to add.
     * @return {@code (counter + blocks) mod 4096}.
     */
    public static int add(final int counter, final int blocks)
    {
        return (counter + blocks) & MASK;
    }

    /**
     * @param to   a 12-bit counter.
     * @param from a 12-bit counter.
     * @return {@code (to - from) mod 4096}, in 0..4095.
     */
    public static int distance(final int to, final int from)
    {
        return (to - from) & MASK;
    }

    /**
     * The transmitter's credit check (IBA flow control "An Example", step 6; spec: send iff
     * {@code (CL - CR) mod 4096 <= 2048} with {@code CR = FCTBS + NP}).
     *
     * @param creditLimit the transmitter's CL for the VL (the peer's latest FCCL).
     * @param blocksSent  the transmitter's FCTBS for the VL.
     * @param blocks      NP, the blocks of the packet about to be sent.
     * @return true if the peer's receive buffer has room for the packet.
     */
    public static boolean mayTransmit(final int creditLimit, final int blocksSent, final int blocks)
    {
        return ((creditLimit - blocksSent - blocks) & MASK) <= MAX_CREDIT;
    }

    /**
     * @param creditLimit the transmitter's CL.
     * @param blocksSent  the transmitter's FCTBS.
     * @return blocks the transmitter may still send, {@code (CL - FCTBS) mod 4096}, or 0 when CL is behind
     * FCTBS (a distance above 2048 means "behind": blocks were sent that the peer has not yet accounted for).
     */
    public static int available(final int creditLimit, final int blocksSent)
    {
        final int distance = (creditLimit - blocksSent) & MASK;
        return distance <= MAX_CREDIT ? distance : 0;
    }

    /**
     * The receiver's credit limit (IBA flow control "Credit Limit Calculation"): {@code FCCL = ABR + min(free, 2048)}
     * modulo 4096, where {@code free} is what the buffer can take from any mix of valid packets.
     *
     * @param adjustedBlocksReceived the receiver's ABR for the VL.
     * @param capacityBlocks         blocks the receive buffer can still take whatever the packet mix.
     * @return the FCCL to advertise.
     */
    public static int creditLimit(final int adjustedBlocksReceived, final int capacityBlocks)
    {
        return (adjustedBlocksReceived + Math.min(capacityBlocks, MAX_CREDIT)) & MASK;
    }

    /**
     * A port has 1, 2, 4, 8 or 15 data VLs (IBA VLCap).
     *
     * @param dataVls the count to check.
     * @return {@code dataVls}.
     * @throws IllegalArgumentException for any other count: a configuration mistake.
     */
    public static int requireDataVls(final int dataVls)
    {
        if (dataVls != 1 && dataVls != 2 && dataVls != 4 && dataVls != 8 && dataVls != 15)
        {
            throw new IllegalArgumentException("data VLs must be 1, 2, 4, 8 or 15, not " + dataVls);
        }
        return dataVls;
    }
}
