package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A test fixture: one port's link-level flow control on one thread, composed exactly as the engine composes it across
 * its threads: {@link CreditControl} (the credit agent's: link state, receiver credits, FCP schedule),
 * {@link CreditTransmitter} (the arbiter's: FCTBS and the credit check), a VL15 buffer and discard counters by
 * reason (the receive agent's). Two of them back to back ({@link TestLink}) run the seeds' examples and properties
 * against the classes the engine runs.
 * <pre>{@code
 * CreditPort port = new CreditPort(new CreditConfig().dataVls(4).lineRate(LineRate.EDR_4X));
 * port.up(now);                                    // Down -> Initialize
 * for (int vl; (vl = port.pollFcp(now)) != FcpSchedule.NONE; )
 * {
 *     wire.sendFcp(port.buildFcp(vl, now));        // Op 1 now, Op 0 once Armed
 * }
 * port.onFcp(word, now);                           // from the peer: ABR := FCTBS, CL := FCCL
 * if (port.tryTransmit(vl, blocks)) { ... }        // Active only, and only with credit
 * port.onData(vl, blocks);                         // false: discarded, counted by reason
 * port.release(vl, blocks);                        // the upper layer took it
 * }</pre>
 * Every method is allocation-free; wire input is never thrown, it is refused and counted in {@link #discards()}.
 */
public final class CreditPort
{
    private final int dataVls;
    private final CreditTransmitter transmitter;
    private final CreditControl control;
    private final Vl15Buffer vl15;
    private final DiscardCounters discards = new DiscardCounters();
    private final long[] released;
    private long fcpsSent;
    private long fcpsReceived;

    /**
     * @param config the port's settings.
     */
    public CreditPort(final CreditConfig config)
    {
        dataVls = config.dataVls();
        transmitter = new CreditTransmitter(dataVls);
        released = new long[dataVls];
        control = new CreditControl(
            dataVls,
            config.bufferBlocks(),
            config.chunkBytes(),
            config.fcpPeriodNs(),
            config.earlyFcpThresholdBlocks(),
            config.automatic(),
            CreditControl.NO_SILENCE_LIMIT,
            this::entered);
        vl15 = new Vl15Buffer(config.vl15Packets());
    }

    private void entered(final LinkState state)
    {
        // the arbiter's side of a new link epoch: FCTBS and CL from zero
        if (LinkState.INITIALIZE == state || LinkState.DOWN == state)
        {
            transmitter.reset();
        }
    }

    public int dataVls()
    {
        return dataVls;
    }

    public LinkState state()
    {
        return control.state();
    }

    public boolean up(final long nowNs)
    {
        return control.up(nowNs);
    }

    public boolean arm(final long nowNs)
    {
        return control.arm(nowNs);
    }

    public boolean activate()
    {
        return control.activate(0);
    }

    public boolean down()
    {
        return control.down(0);
    }

    /**
     * The credit agent's check each duty cycle: without a silence limit only the training's wait limit runs.
     */
    public boolean checkLiveness(final long nowNs)
    {
        return control.checkLiveness(nowNs);
    }

    // ---------------------------------------------------------------- transmit

    public boolean mayTransmit(final int vl, final int blocks)
    {
        return control.state().maySendData() && transmitter.mayTransmit(vl, blocks);
    }

    public boolean tryTransmit(final int vl, final int blocks)
    {
        return control.state().maySendData() && transmitter.tryTransmit(vl, blocks);
    }

    public boolean maySendSmp()
    {
        return control.state().isUp();
    }

    // ---------------------------------------------------------------- FCPs

    public int pollFcp(final long nowNs)
    {
        return control.pollFcp(nowNs);
    }

    /**
     * @throws IllegalStateException when Down: no FCP may be sent (a caller bug).
     */
    public int buildFcp(final int vl, final long nowNs)
    {
        if (!control.state().isUp())
        {
            throw new IllegalStateException("no FCP may be sent while the link is down");
        }
        fcpsSent++;
        return transmitter.fcp(control.fcpRequest(vl, nowNs));
    }

    public int buildFcp(final MutableDirectBuffer buffer, final int offset, final int vl, final long nowNs)
    {
        return Fcp.encode(buffer, offset, buildFcp(vl, nowNs));
    }

    public boolean onFcp(final DirectBuffer buffer, final int offset, final int length, final long nowNs)
    {
        final long result = Fcp.decode(buffer, offset, length);
        final int verdict = Fcp.verdict(result);
        if (verdict != Fcp.OK)
        {
            discards.increment(FcpCheck.discardReason(verdict));
            return false;
        }
        return onFcp(Fcp.word(result), nowNs);
    }

    public boolean onFcp(final int word, final long nowNs)
    {
        final int verdict = control.onFcp(word, nowNs);
        if (CreditControl.APPLIED != verdict)
        {
            discards.increment(verdict);
            return false;
        }
        final int vl = Fcp.vl(word);
        transmitter.onCreditLimit(vl, control.creditLimit(vl));
        fcpsReceived++;
        return true;
    }

    public void onBadFcp()
    {
        discards.increment(DiscardReason.FCP_BAD_LPCRC);
    }

    // ---------------------------------------------------------------- receive

    /**
     * As the receive agent decides before it stores a packet, then the credit agent's accounting.
     */
    public boolean onData(final int vl, final int blocks)
    {
        if (vl < 0 || vl >= dataVls)
        {
            discards.increment(DiscardReason.DATA_MISSING_VL);
            return false;
        }
        if (!control.state().mayReceiveData())
        {
            discards.increment(DiscardReason.DATA_STATE);
            return false;
        }
        final CreditReceiver receiver = control.receiver();
        if (receiver.chargedBlocks(blocks) > receiver.freeBlocks(vl))
        {
            discards.increment(DiscardReason.DATA_OVERFLOW);
            return false;
        }
        control.onAccepted(vl, blocks, 0);
        return true;
    }

    public void onBadData()
    {
        discards.increment(DiscardReason.DATA_BAD_CRC);
    }

    /**
     * The upper layer took a stored packet: its chunks are released, as the engine's receive buffer counts them.
     */
    public void release(final int vl, final int blocks)
    {
        released[vl] += control.receiver().chargedBlocks(blocks);
        control.onReleased(vl, released[vl]);
    }

    public boolean onSmp()
    {
        if (!control.state().isUp())
        {
            discards.increment(DiscardReason.VL15_STATE);
            return false;
        }
        if (!vl15.accept())
        {
            discards.increment(DiscardReason.VL15_FULL);
            return false;
        }
        return true;
    }

    public void releaseSmp()
    {
        vl15.release();
    }

    // ---------------------------------------------------------------- parts and figures

    public CreditControl control()
    {
        return control;
    }

    public LinkStateMachine link()
    {
        return control.link();
    }

    public CreditTransmitter transmitter()
    {
        return transmitter;
    }

    public CreditReceiver receiver()
    {
        return control.receiver();
    }

    public Vl15Buffer vl15()
    {
        return vl15;
    }

    public DiscardCounters discards()
    {
        return discards;
    }

    public long fcpsSent()
    {
        return fcpsSent;
    }

    public long fcpsReceived()
    {
        return fcpsReceived;
    }
}
