package io.vlink.core.port;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.Fcp;

/**
 * A port's credit half: {@code core}'s {@link CreditControl} (the link state machine, the receiver's credits, the FCP
 * schedule and the rules between them; docs/flow-control.md), fed in wire order with what the receive half reported
 * ({@link CreditEvents}: through the {@link CreditEventRing} it reads each duty cycle, or at once), and its decisions
 * handed on:
 * <ul>
 *     <li>an FCP applied: the VL's new credit limit to the transmit half ({@link CreditLimits#publish}), the gauges;
 *     one refused: counted by reason;</li>
 *     <li>blocks stored: accounted ({@code ABR += NP, free -= NP}); the consumer's releases
 *     ({@link ReceiveBuffers#releasedBlocks}): {@code free += NP};</li>
 *     <li>each FCP due (Op, VL, FCCL) to the transmit half ({@link FcpRequestRing}), which adds its FCTBS as it
 *     sends it;</li>
 *     <li>a silent peer, a closed peer, a peer that initialized again, a run of stale FCPs: link errors, counted;</li>
 *     <li>every state entered: on Initialize a new credit epoch ({@link CreditLimits#reset}: every CL 0, then the
 *     epoch), on which the transmit half restarts FCTBS and CL from zero; then the state to the owner
 *     ({@link Listener}).</li>
 * </ul>
 * <b>The duty cycle.</b> {@link #up} asks for the init FCPs at once, before anything the peer sent is read, so that
 * a normal FCP already waiting arms the port (the peer gets the init FCPs first, on the wire). {@link #doWork} then
 * reads the events, the releases (of the VLs with blocks accepted and not yet released), checks the peer's silence,
 * and asks for every FCP due. Single-threaded and allocation-free; every counter it writes ({@link CreditCounters})
 * has no other writer.
 */
public final class PortCredit implements CreditControl.StateListener
{
    /** Events read per duty cycle at most. */
    static final int EVENT_LIMIT = 256;

    /**
     * What the owner does on a link-state entry, on the credit half's thread.
     */
    public interface Listener
    {
        /**
         * A link error took the port down from Armed or Active ({@link CreditControl#transmitFlushes()}): what the
         * transmit path holds was meant for a peer that is gone. Called before that {@code Down} is reported.
         *
         * @param flushes transmit flushes so far.
         */
        default void onTransmitFlush(final long flushes)
        {
        }

        /**
         * A state was entered, after its resets and the new credit epoch.
         *
         * @param state the state.
         */
        void onStateEntered(LinkState state);
    }

    private final int dataVls;
    private final CreditControl control;
    private final ReceiveBuffers buffers;
    private final CreditEventRing events;
    private final FcpRequestRing fcpRequests;
    private final CreditLimits limits;
    private final CreditCounters counters;
    private final Listener listener;
    private final QueuedEvents queued = new QueuedEvents();
    private long nowNs;
    private long downs;
    private long errorRecoveries;
    private long transmitFlushes;
    // what this half handed the transmit half since the owner last asked (takeTransmitWork)
    private boolean transmitWork;
    // the data VLs with accepted blocks their consumer may not have released yet (CreditControl#releasePending; a
    // superset): the only ones a duty cycle asks about releases
    private int releaseVls;

    /**
     * @param config      the port's configuration.
     * @param buffers     the receive buffers, for what their consumer released.
     * @param events      the hand-off from the receive half this half reads each duty cycle (its consumer), or null
     *                    when the receive half calls {@link #onFcp}, {@link #onAccepted}, {@link #onPeerClosed} itself.
     * @param fcpRequests the hand-off to the transmit half (this half is its producer).
     * @param limits      the credit limits and epoch the transmit half reads (this half is their writer).
     * @param counters    what this half counts.
     * @param listener    the owner's part of each state entry.
     */
    public PortCredit(
        final PortConfig config,
        final ReceiveBuffers buffers,
        final CreditEventRing events,
        final FcpRequestRing fcpRequests,
        final CreditLimits limits,
        final CreditCounters counters,
        final Listener listener)
    {
        this.dataVls = config.dataVls();
        this.buffers = buffers;
        this.events = events;
        this.fcpRequests = fcpRequests;
        this.limits = limits;
        this.counters = counters;
        this.listener = listener;
        this.control = new CreditControl(
            dataVls,
            config.bufferBlocks(),
            config.chunkBytes(),
            config.fcpPeriodNs(),
            config.earlyFcpThresholdBlocks(),
            config.automatic(),
            config.silenceLimitNs(),
            this);
        counters.linkState.setRelease(LinkState.DOWN.code());
        for (int vl = 0; vl < dataVls; vl++)
        {
            counters.rxFreeBlocks[vl].setRelease(control.receiver().freeBlocks(vl));
        }
    }

    /**
     * @return the link state.
     */
    public LinkState state()
    {
        return control.state();
    }

    /**
     * @return the rules this half runs (read them; this half makes every change).
     */
    public CreditControl control()
    {
        return control;
    }

    // ---------------------------------------------------------------- commands

    /**
     * Down -> Initialize, and the init FCPs asked for at once.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean up(final long nowNs)
    {
        this.nowNs = nowNs;
        if (control.up(nowNs))
        {
            requestFcps();
            return true;
        }
        return false;
    }

    /**
     * Any state -> Down (on request: not a link error, nothing is flushed).
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean down(final long nowNs)
    {
        this.nowNs = nowNs;
        return control.down(nowNs);
    }

    /**
     * Initialize -> Armed, a subnet manager's command.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean arm(final long nowNs)
    {
        this.nowNs = nowNs;
        return control.arm(nowNs);
    }

    /**
     * Armed -> Active, a subnet manager's command.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean activate(final long nowNs)
    {
        this.nowNs = nowNs;
        return control.activate(nowNs);
    }

    // ---------------------------------------------------------------- the duty cycle

    /**
     * Whether, since the last call, this half gave the transmit half something it can send at once: an FCP asked
     * for, a credit limit from an FCP applied, a state entered. A thread that runs both halves gives the transmit
     * half a second turn after this one when it did (nic's {@code DutyCycle}).
     *
     * @return true if so; cleared.
     */
    public boolean takeTransmitWork()
    {
        final boolean work = transmitWork;
        transmitWork = false;
        return work;
    }

    /**
     * One duty cycle: the receive half's events in wire order, the consumer's releases, the peer's silence, and
     * every FCP due asked for.
     *
     * @param nowNs the clock, read once per duty cycle.
     * @return work done.
     */
    public int doWork(final long nowNs)
    {
        this.nowNs = nowNs;
        int work = null == events ? 0 : events.read(queued, EVENT_LIMIT);
        int vls = releaseVls;
        while (0 != vls)
        {
            final int vl = Integer.numberOfTrailingZeros(vls);
            vls &= vls - 1;
            work += syncRelease(vl);
            if (!control.releasePending(vl))
            {
                releaseVls &= ~(1 << vl);
            }
        }
        if (control.checkLiveness(nowNs))
        {
            work++;
        }
        countLinkErrors();
        if (control.state().isUp())
        {
            work += requestFcps();
        }
        return work;
    }

    /** The events read from the ring, applied at this duty cycle's time. */
    private final class QueuedEvents implements CreditEvents
    {
        @Override
        public int room()
        {
            return EVENT_LIMIT;
        }

        @Override
        public void onFcp(final int word)
        {
            PortCredit.this.onFcp(word, nowNs);
        }

        @Override
        public void onAccepted(final int vl, final int blocks, final int epoch)
        {
            PortCredit.this.onAccepted(vl, blocks, epoch, nowNs);
        }

        @Override
        public void onPeerClosed()
        {
            PortCredit.this.onPeerClosed(nowNs);
        }
    }

    /**
     * An FCP from the peer (its length, LPCRC and Op checked): applied, its CL published; or refused and counted.
     *
     * @param word  the FCP's first four bytes.
     * @param nowNs the clock.
     */
    public void onFcp(final int word, final long nowNs)
    {
        this.nowNs = nowNs;
        final int verdict = control.onFcp(word, nowNs);
        if (CreditControl.APPLIED == verdict)
        {
            final int vl = Fcp.vl(word);
            final int creditLimit = control.creditLimit(vl);
            limits.publish(vl, creditLimit);
            transmitWork = true;
            counters.rxAbr[vl].setRelease(control.receiver().blocksReceived(vl));
            counters.txCreditLimit[vl].setRelease(creditLimit);
            counters.fcpReceived.incrementRelease();
        }
        else
        {
            counters.discard(verdict);
            counters.fcpDiscarded.incrementRelease();
        }
    }

    /**
     * Blocks the receive half stored on a data VL: {@code ABR += NP, free -= NP}; or, stored in an earlier credit
     * epoch (before this port's link last re-initialized, reported only now: in the same batch of events, behind an
     * FCP that made it re-train), {@code free -= NP} alone: they came from the peer's previous incarnation
     * ({@link CreditControl#onAcceptedEarlier}).
     *
     * @param vl     the data VL.
     * @param blocks NP, summed over the packets reported together.
     * @param epoch  the credit epoch the receive half stored them in (its low {@link CreditEventRing#EPOCH_MASK} bits
     *               compared).
     * @param nowNs  the clock.
     */
    public void onAccepted(final int vl, final int blocks, final int epoch, final long nowNs)
    {
        this.nowNs = nowNs;
        // the consumer may already have taken packets whose acceptance is reported only now (the receive half
        // stores a packet, then reports it): what it released frees the room they were stored in
        syncRelease(vl);
        if (((epoch ^ limits.epoch()) & CreditEventRing.EPOCH_MASK) == 0)
        {
            control.onAccepted(vl, blocks, nowNs);
        }
        else
        {
            control.onAcceptedEarlier(vl, blocks);
        }
        releaseVls |= 1 << vl;
        counters.rxFreeBlocks[vl].setRelease(control.receiver().freeBlocks(vl));
        counters.rxAbr[vl].setRelease(control.receiver().blocksReceived(vl));
    }

    /**
     * The peer said it is closing: the link goes down and re-initializes at once.
     *
     * @param nowNs the clock.
     */
    public void onPeerClosed(final long nowNs)
    {
        this.nowNs = nowNs;
        control.onPeerClosed(nowNs);
    }

    private int syncRelease(final int vl)
    {
        // CreditControl releases only what was accepted: the rest waits for its acceptance
        if (control.releasePending(vl) && control.onReleased(vl, buffers.releasedBlocks(vl)) > 0)
        {
            counters.rxFreeBlocks[vl].setRelease(control.receiver().freeBlocks(vl));
            return 1;
        }
        return 0;
    }

    private void countLinkErrors()
    {
        if (control.downs() != downs)
        {
            downs = control.downs();
            counters.linkDowned.setRelease(downs);
        }
        if (control.errorRecoveries() != errorRecoveries)
        {
            errorRecoveries = control.errorRecoveries();
            counters.linkErrorRecovery.setRelease(errorRecoveries);
        }
    }

    private int requestFcps()
    {
        int work = 0;
        while (fcpRequests.hasRoom())
        {
            final int vl = control.pollFcp(nowNs);
            if (FcpSchedule.NONE == vl)
            {
                break;
            }
            fcpRequests.offer(control.fcpRequest(vl, nowNs));
            transmitWork = true;
            work++;
        }
        return work;
    }

    // ---------------------------------------------------------------- state entries

    @Override
    public void onStateEntered(final LinkState state)
    {
        if (control.transmitFlushes() != transmitFlushes)
        {
            transmitFlushes = control.transmitFlushes();
            listener.onTransmitFlush(transmitFlushes);
        }
        if (LinkState.INITIALIZE == state)
        {
            // every credit counter from zero: every CL 0, then the new epoch, on which the transmit half restarts
            // FCTBS and CL (docs/flow-control.md, "Who resets what")
            limits.reset();
            for (int vl = 0; vl < dataVls; vl++)
            {
                counters.rxAbr[vl].setRelease(0);
                counters.txCreditLimit[vl].setRelease(0);
                counters.rxFreeBlocks[vl].setRelease(control.receiver().freeBlocks(vl));
            }
        }
        // counted before it is published: whoever reads the new state (Port.linkState(), the link_state counter, a
        // listener) reads a link_transitions that includes its entry
        counters.linkTransitions.incrementRelease();
        counters.linkState.setRelease(state.code());
        transmitWork = true;
        listener.onStateEntered(state);
    }
}
