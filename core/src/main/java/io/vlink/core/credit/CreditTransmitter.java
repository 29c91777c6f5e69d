package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

import java.util.Arrays;

/**
 * The transmitter half of link-level flow control for every data VL of one port (docs/flow-control.md,
 * "Transmitter state"; IBA flow control "Terminology"): {@code FCTBS}, the blocks sent since link initialization, and
 * {@code CL}, the latest FCCL the peer advertised. Both are 12-bit counters in {@code int[]} indexed by VL.
 * <p>
 * Single-threaded and allocation-free. In the engine the arbiter owns {@code FCTBS} (it sends) and the credit
 * agent supplies {@code CL} (it decodes FCPs); each value the other side needs is a plain int:
 * {@link #blocksSent(int)} for building FCPs, {@link #creditLimit(int)} for the check, and
 * {@link Credits#mayTransmit(int, int, int)} for code that keeps CL elsewhere.
 */
public final class CreditTransmitter
{
    private final int dataVls;
    private final int[] blocksSent;
    private final int[] creditLimit;

    /**
     * @param dataVls the port's data VLs: 1, 2, 4, 8 or 15.
     */
    public CreditTransmitter(final int dataVls)
    {
        this.dataVls = Credits.requireDataVls(dataVls);
        blocksSent = new int[dataVls];
        creditLimit = new int[dataVls];
    }

    public int dataVls()
    {
        return dataVls;
    }

    /**
     * The credit check: {@code CR = FCTBS + NP}, may send iff {@code (CL - CR) mod 4096 <= 2048}.
     *
     * @param vl     the data VL.
     * @param blocks NP, the packet's 64-byte blocks.
     * @return true if the peer's receive buffer has room for the packet.
     */
    public boolean mayTransmit(final int vl, final int blocks)
    {
        return Credits.mayTransmit(creditLimit[vl], blocksSent[vl], blocks);
    }

    /**
     * Account for a packet put on the wire: {@code FCTBS += NP}. Call only after {@link #mayTransmit(int, int)}
     * said yes (or use {@link #tryTransmit(int, int)}).
     *
     * @param vl     the data VL.
     * @param blocks NP, the packet's blocks.
     */
    public void onTransmit(final int vl, final int blocks)
    {
        blocksSent[vl] = Credits.add(blocksSent[vl], blocks);
    }

    /**
     * The credit check and, if it passes, the accounting of the send.
     *
     * @param vl     the data VL.
     * @param blocks NP, the packet's blocks.
     * @return true if the packet may go and has been counted in FCTBS; false if it must wait for credit.
     */
    public boolean tryTransmit(final int vl, final int blocks)
    {
        final int sent = blocksSent[vl];
        if (Credits.mayTransmit(creditLimit[vl], sent, blocks))
        {
            blocksSent[vl] = (sent + blocks) & Credits.MASK;
            return true;
        }
        return false;
    }

    /**
     * Apply the FCCL of a received FCP: {@code CL := FCCL}.
     *
     * @param vl   the data VL the FCP named.
     * @param fccl the FCP's FCCL.
     */
    public void onCreditLimit(final int vl, final int fccl)
    {
        creditLimit[vl] = fccl & Credits.MASK;
    }

    /**
     * @param vl the data VL.
     * @return FCTBS, the blocks sent on the VL since link initialization, modulo 4096.
     */
    public int blocksSent(final int vl)
    {
        return blocksSent[vl];
    }

    /**
     * @param vl the data VL.
     * @return CL, the latest FCCL received for the VL.
     */
    public int creditLimit(final int vl)
    {
        return creditLimit[vl];
    }

    /**
     * @param vl the data VL.
     * @return blocks that may still be sent on the VL before new credit arrives.
     */
    public int available(final int vl)
    {
        return Credits.available(creditLimit[vl], blocksSent[vl]);
    }

    /**
     * Complete an FCP as it goes on the wire: it carries this transmitter's FCTBS of its VL, so that it counts exactly
     * the blocks sent before it (the receiving side set Op, VL and FCCL: {@link CreditControl#fcpRequest}).
     *
     * @param request the FCP's first four bytes with any FCTBS.
     * @return the same FCP with this transmitter's FCTBS.
     */
    public int fcp(final int request)
    {
        final int vl = Fcp.vl(request);
        return Fcp.word(Fcp.op(request), blocksSent[vl], vl, Fcp.fccl(request));
    }

    /**
     * Link (re)initialization: every counter from zero, so no credit until the peer's first FCP arrives.
     */
    public void reset()
    {
        Arrays.fill(blocksSent, 0);
        Arrays.fill(creditLimit, 0);
    }
}
