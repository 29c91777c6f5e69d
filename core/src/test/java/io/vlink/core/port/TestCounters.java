package io.vlink.core.port;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.wire.LrhFlyweight;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersManager;

/**
 * Every counter of one port's datapath, in a counters manager of its own: what the tests hand the three halves and
 * read back. Test support.
 */
public final class TestCounters
{
    private static final int VLS = LrhFlyweight.VL_COUNT;

    private final CountersManager manager = new CountersManager(
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(512 * 256, 64)),
        new UnsafeBuffer(BufferUtil.allocateDirectAligned(128 * 256, 64)));
    private final AtomicCounter[] discards = new AtomicCounter[DiscardReason.count()];
    private final AtomicCounter fcpMalformed = counter("fcp_malformed");
    private final AtomicCounter vl15Drops = counter("vl15_drops");
    private final AtomicCounter linkState = counter("link_state");
    private final AtomicCounter linkTransitions = counter("link_transitions");
    private final AtomicCounter fcpReceived = counter("fcp_received");
    private final AtomicCounter fcpDiscarded = counter("fcp_discarded");
    private final AtomicCounter linkDowned = counter("link_downed");
    private final AtomicCounter linkErrorRecovery = counter("link_error_recovery");
    private final AtomicCounter fcpSent = counter("fcp_sent");
    private final AtomicCounter linkFull = counter("tx_link_full");
    private final AtomicCounter[] rxPackets = perVl("rx_packets");
    private final AtomicCounter[] rxBytes = perVl("rx_bytes");
    private final AtomicCounter[] txPackets = perVl("tx_packets");
    private final AtomicCounter[] txBytes = perVl("tx_bytes");
    private final AtomicCounter[] rxFreeBlocks = perVl("rx_free_blocks");
    private final AtomicCounter[] rxAbr = perVl("rx_abr");
    private final AtomicCounter[] txCreditLimit = perVl("tx_credit_limit");
    private final AtomicCounter[] txFctbs = perVl("tx_fctbs");
    private final AtomicCounter[] creditStalls = perVl("credit_stalls");
    private final ReceiveCounters receive;
    private final CreditCounters credit;
    private final TransmitCounters transmit;

    public TestCounters()
    {
        for (final DiscardReason reason : DiscardReason.values())
        {
            discards[reason.id()] = counter("discards_" + reason.name());
        }
        receive = new ReceiveCounters(discards, fcpMalformed, vl15Drops, rxPackets, rxBytes);
        credit = new CreditCounters(discards, linkState, linkTransitions, fcpReceived, fcpDiscarded, linkDowned,
            linkErrorRecovery, rxFreeBlocks, rxAbr, txCreditLimit);
        transmit = new TransmitCounters(fcpSent, linkFull, creditStalls, txFctbs, txPackets, txBytes);
    }

    private AtomicCounter counter(final String label)
    {
        return manager.newCounter(label);
    }

    private AtomicCounter[] perVl(final String label)
    {
        final AtomicCounter[] counters = new AtomicCounter[VLS];
        for (int vl = 0; vl < VLS; vl++)
        {
            counters[vl] = counter(label + "_vl" + vl);
        }
        return counters;
    }

    public ReceiveCounters receive()
    {
        return receive;
    }

    public CreditCounters credit()
    {
        return credit;
    }

    public TransmitCounters transmit()
    {
        return transmit;
    }

    public long discards(final DiscardReason reason)
    {
        return discards[reason.id()].get();
    }

    /**
     * @return discards of every reason.
     */
    public long discardsTotal()
    {
        long total = 0;
        for (final AtomicCounter counter : discards)
        {
            total += counter.get();
        }
        return total;
    }

    /**
     * @return discards of the FCP reasons (too short or long, reserved Op, bad LPCRC, VL15, missing VL, state, stale).
     */
    public long fcpDiscardsTotal()
    {
        long total = 0;
        for (final DiscardReason reason : DiscardReason.values())
        {
            if (reason.name().startsWith("FCP_"))
            {
                total += discards(reason);
            }
        }
        return total;
    }

    public long fcpSent()
    {
        return fcpSent.get();
    }

    public long fcpReceived()
    {
        return fcpReceived.get();
    }

    public long fcpDiscarded()
    {
        return fcpDiscarded.get();
    }

    public long fcpMalformed()
    {
        return fcpMalformed.get();
    }

    public long vl15Drops()
    {
        return vl15Drops.get();
    }

    public long linkFull()
    {
        return linkFull.get();
    }

    public long linkState()
    {
        return linkState.get();
    }

    public long linkTransitions()
    {
        return linkTransitions.get();
    }

    public long linkDowned()
    {
        return linkDowned.get();
    }

    public long linkErrorRecovery()
    {
        return linkErrorRecovery.get();
    }

    public long creditStalls(final int vl)
    {
        return creditStalls[vl].get();
    }

    public long txPackets(final int vl)
    {
        return txPackets[vl].get();
    }

    public long txBytes(final int vl)
    {
        return txBytes[vl].get();
    }

    public long rxPackets(final int vl)
    {
        return rxPackets[vl].get();
    }

    public long rxBytes(final int vl)
    {
        return rxBytes[vl].get();
    }

    public long rxFreeBlocks(final int vl)
    {
        return rxFreeBlocks[vl].get();
    }

    public long rxAbr(final int vl)
    {
        return rxAbr[vl].get();
    }

    public long txCreditLimit(final int vl)
    {
        return txCreditLimit[vl].get();
    }

    public long txFctbs(final int vl)
    {
        return txFctbs[vl].get();
    }
}
