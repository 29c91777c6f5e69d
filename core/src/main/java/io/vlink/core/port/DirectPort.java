package io.vlink.core.port;

import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.LinkState;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * One port's datapath on one thread, driven by explicit events: the three halves the engine runs on its receive,
 * credit and arbiter agents' threads ({@link PortReceive}, {@link PortCredit}, {@link PortTransmit}), composed the way
 * the engine composes them and handing each other FCP requests ({@link FcpRequestRing}) and credit limits
 * ({@link CreditLimits}) through the same classes, called in turn by one thread. A switch runs one per external port;
 * the credit tests and a link model checker run two back to back.
 * <pre>{@code
 * CachedNanoClock clock = new CachedNanoClock();
 * DirectPort port = new DirectPort(config, link, buffers, source, receiveCounters, creditCounters, transmitCounters,
 *     state -> { }, clock, DirectPort.Events.IMMEDIATE);
 * port.up();                                      // Down -> Initialize; its init FCPs asked for
 * // each duty cycle, one clock read:
 * clock.update(nanoTime);
 * PortReceive receive = port.receiveHalf();       // the link's frames, each to receive.onFrame(...)
 * int limit = receive.frameLimit(burst);
 * receive.endPoll();
 * port.credit();                                  // releases, silence, the FCPs due asked for
 * port.transmit();                                // a burst: VL15, FCPs (FCTBS of now), data with credit
 * }</pre>
 * What the receive half reports reaches the credit half {@link Events#IMMEDIATE at once} (a switch: an FCP applied,
 * or blocks accounted, before the next frame is checked, and the link state the next frame is admitted by is the one
 * that leaves) or {@link Events#QUEUED through the engine's ring}, in the credit half's next duty cycle (the engine's
 * timing, with its receive and credit agents on two threads). Each link state the credit half enters is given at
 * once to the receive half (what it admits) and the transmit half (what it sends), then to the owner's listener.
 * Single-threaded and allocation-free once built.
 */
public final class DirectPort implements PortCredit.Listener, CreditEvents
{
    /**
     * How the receive half's reports reach the credit half.
     */
    public enum Events
    {
        /** Applied as each is reported: the state changes they cause apply to the next frame. */
        IMMEDIATE,
        /** Queued in a {@link CreditEventRing} and applied in the credit half's next duty cycle, as in the engine. */
        QUEUED
    }

    private final NanoClock clock;
    private final PortReceive receive;
    private final PortCredit credit;
    private final PortTransmit transmit;
    private final PortCredit.Listener listener;

    /**
     * @param config           the port's configuration.
     * @param link             the link's transmitting side.
     * @param buffers          the receive buffers.
     * @param source           the packets to send.
     * @param receiveCounters  what the receive half counts.
     * @param creditCounters   what the credit half counts.
     * @param transmitCounters what the transmit half counts.
     * @param listener         the owner's part of each state entry.
     * @param clock            the clock, read at each command, duty cycle and (immediate) report.
     * @param events           how the receive half's reports reach the credit half.
     */
    public DirectPort(
        final PortConfig config,
        final FrameSink link,
        final ReceiveBuffers buffers,
        final PacketSource source,
        final ReceiveCounters receiveCounters,
        final CreditCounters creditCounters,
        final TransmitCounters transmitCounters,
        final PortCredit.Listener listener,
        final NanoClock clock,
        final Events events)
    {
        this.listener = listener;
        this.clock = clock;
        final CreditEventRing ring = Events.QUEUED == events ?
            new CreditEventRing(memory(config.eventRingLength(), CreditEventRing.TRAILER_LENGTH)) : null;
        final FcpRequestRing fcpRequests =
            new FcpRequestRing(memory(FcpRequestRing.MIN_CAPACITY, FcpRequestRing.TRAILER_LENGTH));
        final CreditLimits limits = new CreditLimits();
        receive = new PortReceive(config, buffers, null == ring ? this : ring, receiveCounters, null);
        transmit = new PortTransmit(config, link, source, fcpRequests, limits, transmitCounters, null);
        credit = new PortCredit(config, buffers, ring, fcpRequests, limits, creditCounters, this);
    }

    private static UnsafeBuffer memory(final int capacity, final int trailer)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity + trailer, BitUtil.CACHE_LINE_LENGTH));
    }

    // ---------------------------------------------------------------- commands

    /**
     * @return true if the port went Down -> Initialize (its init FCPs are asked for).
     */
    public boolean up()
    {
        return credit.up(clock.nanoTime());
    }

    /**
     * @return true if the port went Down (on request: nothing is flushed).
     */
    public boolean down()
    {
        return credit.down(clock.nanoTime());
    }

    /**
     * @return true if the port went Initialize -> Armed (a subnet manager's command).
     */
    public boolean arm()
    {
        return credit.arm(clock.nanoTime());
    }

    /**
     * @return true if the port went Armed -> Active (a subnet manager's command).
     */
    public boolean activate()
    {
        return credit.activate(clock.nanoTime());
    }

    // ---------------------------------------------------------------- the duty cycle

    /**
     * The credit half's duty cycle ({@link PortCredit#doWork}): queued reports, releases, the peer's silence, the FCPs
     * due asked for.
     *
     * @return work done.
     */
    public int credit()
    {
        return credit.doWork(clock.nanoTime());
    }

    /**
     * The transmit half's duty cycle ({@link PortTransmit#transmit}).
     *
     * @return work done.
     */
    public int transmit()
    {
        return transmit.transmit();
    }

    // ---------------------------------------------------------------- the halves' hand-offs

    @Override
    public void onTransmitFlush(final long flushes)
    {
        listener.onTransmitFlush(flushes);
    }

    @Override
    public void onStateEntered(final LinkState state)
    {
        receive.linkState(state);
        transmit.linkState(state);
        listener.onStateEntered(state);
    }

    @Override
    public int room()
    {
        return Integer.MAX_VALUE;
    }

    @Override
    public void onFcp(final int word)
    {
        credit.onFcp(word, clock.nanoTime());
    }

    @Override
    public void onAccepted(final int vl, final int blocks)
    {
        credit.onAccepted(vl, blocks, clock.nanoTime());
    }

    @Override
    public void onPeerClosed()
    {
        credit.onPeerClosed(clock.nanoTime());
    }

    // ---------------------------------------------------------------- parts

    /**
     * @return the link state.
     */
    public LinkState state()
    {
        return credit.state();
    }

    /**
     * @return the receive half: the link's frames go to its {@link PortReceive#onFrame}.
     */
    public PortReceive receiveHalf()
    {
        return receive;
    }

    /**
     * @return the credit half.
     */
    public PortCredit creditHalf()
    {
        return credit;
    }

    /**
     * @return the transmit half.
     */
    public PortTransmit transmitHalf()
    {
        return transmit;
    }
}
