package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * One port's link-level flow control, whole: link state, transmitter and receiver credits of every data VL, the
 * VL15 buffer, the FCP schedule and the discard counters, with the state rules applied between them (spec
 * docs/flow-control.md). For single-threaded use (a simulator, a test, an engine that runs a port on one
 * agent); the parts are separate classes so an engine can give each to the thread that needs it.
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
    private final LinkStateMachine link;
    private final CreditTransmitter transmitter;
    private final CreditReceiver receiver;
    private final Vl15Buffer vl15;
    private final FcpSchedule schedule;
    private final DiscardCounters discards = new DiscardCounters();
    private long fcpsSent;
    private long fcpsReceived;

    /**
     * @param config the port's settings.
     */
    public CreditPort(final CreditConfig config)
    {
        dataVls = config.dataVls();
        link = new LinkStateMachine(dataVls, config.automatic());
        transmitter = new CreditTransmitter(dataVls);
        receiver = new CreditReceiver(dataVls, config.bufferBlocks(), config.chunkBytes());
        vl15 = new Vl15Buffer(config.vl15Packets());
        schedule = new FcpSchedule(dataVls, config.fcpPeriodNs(), config.earlyFcpThresholdBlocks(), receiver);
    }

    public int dataVls()
    {
        return dataVls;
    }

    public LinkState state()
    {
        return link.state();
    }

    /**
     * Down -> Initialize: every credit counter starts from zero and every VL's init FCP is due.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean up(final long nowNs)
    {
        return link.up() && entered(nowNs);
    }

    /**
     * Initialize -> Armed (the SM's command; automatic mode also arms on received FCPs).
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean arm(final long nowNs)
    {
        return link.arm() && entered(nowNs);
    }

    /**
     * Armed -> Active.
     *
     * @return true if the state changed.
     */
    public boolean activate()
    {
        return link.activate();
    }

    /**
     * Any state -> Down, on request or a fatal error. Packets held in the receive buffers stay held.
     *
     * @return true if the state changed.
     */
    public boolean down()
    {
        if (link.down())
        {
            transmitter.reset();
            receiver.reset();
            return true;
        }
        return false;
    }

    private boolean entered(final long nowNs)
    {
        switch (link.state())
        {
            case INITIALIZE:
                transmitter.reset();
                receiver.reset();
                schedule.reset(nowNs);
                break;
            case ARMED:
                // the Op changes to 0: tell the peer at once, it may be waiting for that to arm or activate
                schedule.makeAllDue(nowNs);
                break;
            default:
                break;
        }
        return true;
    }

    // ---------------------------------------------------------------- transmit

    /**
     * @param vl     a data VL.
     * @param blocks NP, the head packet's blocks.
     * @return true if the link is Active and the peer's buffer has room for the packet.
     */
    public boolean mayTransmit(final int vl, final int blocks)
    {
        return link.state() == LinkState.ACTIVE && transmitter.mayTransmit(vl, blocks);
    }

    /**
     * The credit check and, if it passes, the accounting of the send ({@code FCTBS += NP}).
     *
     * @param vl     a data VL.
     * @param blocks NP, the packet's blocks.
     * @return true if the packet may go now and has been counted.
     */
    public boolean tryTransmit(final int vl, final int blocks)
    {
        return link.state() == LinkState.ACTIVE && transmitter.tryTransmit(vl, blocks);
    }

    /**
     * @return true if an SMP may be sent: VL15 needs no credit, only a link that is not Down.
     */
    public boolean maySendSmp()
    {
        return link.state().isUp();
    }

    // ---------------------------------------------------------------- FCPs

    /**
     * @param nowNs the clock, read once per duty cycle.
     * @return a data VL whose FCP is due, or {@link FcpSchedule#NONE} (always when Down).
     */
    public int pollFcp(final long nowNs)
    {
        return link.state().isUp() ? schedule.poll(nowNs) : FcpSchedule.NONE;
    }

    /**
     * Build the FCP for a VL as it goes on the wire (after any data sent before it, so its FCTBS counts exactly
     * the blocks ahead of it) and restart the VL's schedule.
     *
     * @param vl    a data VL.
     * @param nowNs the clock.
     * @return the FCP's first four bytes: Op by link state, this port's FCTBS(vl), vl, this port's FCCL(vl).
     * @throws IllegalStateException when Down: no FCP may be sent (a caller bug).
     */
    public int buildFcp(final int vl, final long nowNs)
    {
        final int op = link.state().fcpOp();
        if (op < 0)
        {
            throw new IllegalStateException("no FCP may be sent while the link is down");
        }
        final int fccl = receiver.fccl(vl);
        schedule.onFcpSent(vl, nowNs, fccl);
        fcpsSent++;
        return Fcp.word(op, transmitter.blocksSent(vl), vl, fccl);
    }

    /**
     * Build the FCP for a VL and write its 8 bytes with their LPCRC ({@link Fcp#encode}).
     *
     * @param buffer to write into.
     * @param offset of the FCP's first byte.
     * @param vl     a data VL.
     * @param nowNs  the clock.
     * @return {@link Fcp#LENGTH}, the bytes written.
     * @see #buildFcp(int, long)
     */
    public int buildFcp(final MutableDirectBuffer buffer, final int offset, final int vl, final long nowNs)
    {
        return Fcp.encode(buffer, offset, buildFcp(vl, nowNs));
    }

    /**
     * Check a received FCP's bytes ({@link Fcp#decode}: length, LPCRC, Op) and apply it.
     *
     * @param buffer holding the FCP.
     * @param offset of its first byte.
     * @param length bytes received.
     * @param nowNs  the clock.
     * @return true if applied; false if discarded (too short, bad LPCRC, reserved Op, or any reason of
     * {@link #onFcp(int, long)}), counted in {@link #discards()}.
     */
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

    /**
     * Apply an FCP from the peer whose LPCRC was good: {@code ABR(vl) := FCTBS}, {@code CL(vl) := FCCL}.
     *
     * @param word  the FCP's first four bytes.
     * @param nowNs the clock (a received FCP may arm or activate the link).
     * @return true if applied; false if discarded (reserved Op, VL15, a VL the port lacks, or not allowed in the
     * link state), counted in {@link #discards()}.
     */
    public boolean onFcp(final int word, final long nowNs)
    {
        final int verdict = FcpCheck.validate(word, dataVls);
        if (verdict != FcpCheck.VALID)
        {
            discards.increment(verdict);
            return false;
        }
        final int op = Fcp.op(word);
        final int vl = Fcp.vl(word);
        // allowed or not by the state it arrived in (a normal FCP that arms an initializing port is still discarded)
        final boolean allowed = link.state().mayReceiveFcp(op);
        if (link.onFcpReceived(vl, op))
        {
            entered(nowNs);
        }
        if (allowed)
        {
            receiver.onBlocksSent(vl, Fcp.fctbs(word));
            transmitter.onCreditLimit(vl, Fcp.fccl(word));
            fcpsReceived++;
        }
        else
        {
            discards.increment(DiscardReason.FCP_STATE);
        }
        return allowed;
    }

    /**
     * Count an FCP whose LPCRC did not match, when the caller checked it itself (
     * {@link #onFcp(DirectBuffer, int, int, long)} counts its own): it is discarded unread.
     */
    public void onBadFcp()
    {
        discards.increment(DiscardReason.FCP_BAD_LPCRC);
    }

    // ---------------------------------------------------------------- receive

    /**
     * A data packet arrived with good CRCs.
     *
     * @param vl     its LRH VL.
     * @param blocks NP, its blocks.
     * @return true if stored (the caller delivers it and later calls {@link #release(int, int)}); false if
     * discarded: a VL the port lacks, a link state that takes no data, or no room (the sender ignored its credit),
     * counted in {@link #discards()}.
     */
    public boolean onData(final int vl, final int blocks)
    {
        if (vl < 0 || vl >= dataVls)
        {
            discards.increment(DiscardReason.DATA_MISSING_VL);
            return false;
        }
        if (!link.state().mayReceiveData())
        {
            discards.increment(DiscardReason.DATA_STATE);
            return false;
        }
        if (!receiver.accept(vl, blocks))
        {
            discards.increment(DiscardReason.DATA_OVERFLOW);
            return false;
        }
        link.onDataReceived();
        return true;
    }

    /**
     * Count a data packet dropped for a bad VCRC, ICRC or LRH: ABR and free space do not move.
     */
    public void onBadData()
    {
        discards.increment(DiscardReason.DATA_BAD_CRC);
    }

    /**
     * The upper layer took a stored packet: its space is free again (an early FCP follows past the threshold).
     *
     * @param vl     the data VL.
     * @param blocks NP of the packet.
     */
    public void release(final int vl, final int blocks)
    {
        receiver.release(vl, blocks);
    }

    /**
     * An SMP arrived with good CRCs.
     *
     * @return true if stored; false if the link is Down or the VL15 buffer is full, counted in
     * {@link #discards()}.
     */
    public boolean onSmp()
    {
        if (!link.state().isUp())
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

    /**
     * The upper layer took an SMP from the VL15 buffer.
     */
    public void releaseSmp()
    {
        vl15.release();
    }

    // ---------------------------------------------------------------- parts and figures

    public LinkStateMachine link()
    {
        return link;
    }

    public CreditTransmitter transmitter()
    {
        return transmitter;
    }

    public CreditReceiver receiver()
    {
        return receiver;
    }

    public Vl15Buffer vl15()
    {
        return vl15;
    }

    public FcpSchedule schedule()
    {
        return schedule;
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
