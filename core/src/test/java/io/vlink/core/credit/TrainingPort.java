package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

/**
 * One engine port's link layer as the model checker runs it: {@link CreditControl} and {@link CreditTransmitter}
 * composed as the engine's agents compose them across their threads (nic's {@code CreditAgent}, {@code ArbiterAgent},
 * {@code ReceiveAgent}, each running its half of {@code io.vlink.core.port}), each agent's turn one step of the
 * checker, on an injected clock, in the order nic's {@code DutyCycle} runs them ({@link #ORDERS}: the arbiter, then
 * credit and receive in the order that suits where the application polls, and the arbiter's second turn after credit
 * when credit handed it work):
 * <ul>
 *   <li><b>credit</b> ({@link #creditTurn}): the application's command (up or down; the init FCPs of a port that
 *   just came up are asked for before anything the peer sent is read), then the receive agent's events in wire
 *   order (an FCP to {@link CreditControl#onFcp}, its CL published when applied; accepted blocks to
 *   {@link CreditControl#onAccepted}), the application's releases, the silence check, and the FCP requests of every
 *   VL due (Op, VL and FCCL now; FCTBS when sent). Every state entered publishes the state; Initialize also a new
 *   credit epoch with every published CL 0; a link error from Armed or Active marks the transmit flush.</li>
 *   <li><b>arbiter</b> ({@link #arbiterTurn}): a new epoch resets the transmitter (FCTBS and CL 0); the flush drops
 *   what was queued at the mark; every FCP requested goes first, completed with FCTBS as it goes; then data on each VL
 *   while the published state may send and the published CL covers it; nothing once the wire is full.</li>
 *   <li><b>receive</b> ({@link #receiveTurn}): every frame on the incoming wire, in order: an FCP becomes an event;
 *   data is admitted by the published state ({@link DataCheck}) and stored if its buffer has room, its blocks an
 *   event, else discarded and counted.</li>
 * </ul>
 * This class restates, on the heap, what {@code io.vlink.core.port}'s {@code PortCredit}, {@code PortTransmit} and
 * {@code PortReceive} do around these classes (their hand-offs there are off-heap rings and {@code CreditLimits}, which
 * the checker's {@link StateCodec} cannot save and restore); the two must stay in step (docs/flow-control.md,
 * "Checking the rule"): the order of the turns and within each, the epoch on each report of stored blocks, the resets
 * on Initialize.
 */
final class TrainingPort implements CreditControl.StateListener
{
    static final int COMMAND_NONE = 0;
    static final int COMMAND_UP = 1;
    static final int COMMAND_DOWN = 2;

    static final int CREDIT = 0;
    static final int ARBITER = 1;
    static final int RECEIVE = 2;

    /**
     * The agents' turns on a port's thread, as nic's {@code DutyCycle} runs them (docs/engine.md, "Threads and idle
     * strategies"): the application polling after each duty cycle on the same thread (invoker mode), then on a thread
     * of its own (shared mode). The second arbiter turn of each runs only when the credit turn before it handed the
     * arbiter something to send ({@link #transmitWork}); otherwise it is passed over.
     */
    private static final int[][] ORDERS = {{ARBITER, CREDIT, ARBITER, RECEIVE}, {ARBITER, RECEIVE, CREDIT, ARBITER}};
    /** The positions of each order: a duty cycle's turns, the arbiter's second one included. */
    static final int TURNS = 4;

    /** Ghost {@link #abrFrame}: the receiver's counters were reset and took nothing since. */
    static final int ZERO = 16;
    /** Ghost {@link #abrFrame}: ABR mixes blocks of two of the peer's transmit epochs. */
    static final int MIXED = 17;

    private static final long EVENT_FCP = 1L << 62;
    private static final int REQUESTS_IN_FLIGHT = 8;

    final int dataVls;
    final int bufferBlocks;
    final CreditControl control;
    final CreditTransmitter transmitter;
    final TrainingWire out;
    final TrainingWire in;
    private final long[] clock;

    // the port's words, written by the credit agent
    int publishedState;
    int publishedEpoch;
    final int[] publishedCl;
    int command;
    /** Ghost: the last command the application gave (what it wants the port to be). */
    int lastCommand;

    // the credit agent's
    long transmitFlushesSeen;
    final int[] requests = new int[REQUESTS_IN_FLIGHT];
    final int[] requestFrames = new int[REQUESTS_IN_FLIGHT];
    int requestCount;

    // receive agent -> credit agent, in wire order: an FCP (its frame's low 32 bits and ghosts) or accepted blocks
    final long[] events = new long[8];
    int eventCount;

    // the arbiter's
    int arbiterEpoch;
    boolean flushPending;
    final int[] flushMark;
    /** The transmit path: each VL's queued packets, their blocks. */
    final int[] queued;
    final int[] queuedCount;
    private final int queueCapacity;

    // the receive buffers (the application drains them)
    final int[] held;
    final int[] heldCount;
    final int[] heldBlocks;
    final long[] releasedTotal;

    /** The turns of this port's thread: one of {@link #ORDERS}. */
    private final int[] order;
    /** The position in {@link #order} of the turn that runs next on this port's thread. */
    int next;
    /**
     * The last credit turn handed the arbiter something to send (an FCP asked for, a CL from an FCP applied, a state
     * entered: {@code PortCredit.takeTransmitWork}), so the arbiter's second turn runs.
     */
    boolean transmitWork;

    /** Ghost, per VL: the peer transmit epoch ABR counts in, {@link #ZERO} or {@link #MIXED}. */
    final int[] abrFrame;
    /** Ghost, per VL: the {@link #abrFrame} of the peer's receiver when it computed the FCCL applied as CL. */
    final int[] clFrame;

    /** When set, what the port does is written here (not state). */
    StringBuilder log;
    static int nextFrameId = 1;
    String name = "";

    // figures (not state: left out of the fingerprint)
    long statFlushed;
    long statDiscarded;
    long statOverflow;
    long statTransitions;
    long statSent;

    TrainingPort(
        final int dataVls,
        final int bufferBlocks,
        final long fcpPeriodNs,
        final int earlyThresholdBlocks,
        final long silenceLimitNs,
        final int queueCapacity,
        final boolean previousRule,
        final boolean creditBeforeReceive,
        final TrainingWire out,
        final TrainingWire in,
        final long[] clock)
    {
        this.order = ORDERS[creditBeforeReceive ? 0 : 1];
        this.dataVls = dataVls;
        this.bufferBlocks = bufferBlocks;
        this.out = out;
        this.in = in;
        this.clock = clock;
        this.queueCapacity = queueCapacity;
        control = new CreditControl(previousRule ? new PreviousTrainingRule(dataVls) : new LinkStateMachine(dataVls, true),
            dataVls, bufferBlocks, 64, fcpPeriodNs, earlyThresholdBlocks, silenceLimitNs, this);
        transmitter = new CreditTransmitter(dataVls);
        publishedCl = new int[dataVls];
        flushMark = new int[dataVls];
        queued = new int[dataVls * queueCapacity];
        queuedCount = new int[dataVls];
        held = new int[dataVls * bufferBlocks];
        heldCount = new int[dataVls];
        heldBlocks = new int[dataVls];
        releasedTotal = new long[dataVls];
        abrFrame = new int[dataVls];
        clFrame = new int[dataVls];
        java.util.Arrays.fill(abrFrame, ZERO);
        java.util.Arrays.fill(clFrame, ZERO);
    }

    LinkState state()
    {
        return LinkState.get(publishedState);
    }

    // ---------------------------------------------------------------- the application

    void command(final int command)
    {
        this.command = command;
        lastCommand = command;
    }

    boolean mayOffer(final int vl)
    {
        return queuedCount[vl] < queueCapacity;
    }

    void offer(final int vl, final int blocks)
    {
        queued[vl * queueCapacity + queuedCount[vl]++] = blocks;
    }

    boolean mayRelease(final int vl)
    {
        return heldCount[vl] > 0;
    }

    /** The application took the oldest packet of the VL's receive buffer. */
    void release(final int vl)
    {
        final int base = vl * bufferBlocks;
        final int blocks = held[base];
        System.arraycopy(held, base + 1, held, base, --heldCount[vl]);
        held[base + heldCount[vl]] = 0;
        heldBlocks[vl] -= blocks;
        releasedTotal[vl] += blocks;
    }

    // ---------------------------------------------------------------- the agents

    /**
     * @return the agent whose turn is next on this port's thread: {@link #CREDIT}, {@link #ARBITER}, {@link #RECEIVE}.
     */
    int turn()
    {
        return order[next];
    }

    /**
     * Run the agent whose turn it is on this port's thread.
     *
     * @return the positions of the order it moved on: 2 when it passed over the arbiter's second turn.
     */
    int step()
    {
        switch (turn())
        {
            case CREDIT -> creditTurn();
            case ARBITER -> arbiterTurn();
            default -> receiveTurn();
        }
        final boolean credit = CREDIT == turn();
        next = (next + 1) % order.length;
        if (credit)
        {
            final boolean secondTurn = transmitWork;
            transmitWork = false;
            if (!secondTurn)
            {
                next = (next + 1) % order.length;
                return 2;
            }
        }
        return 1;
    }

    /**
     * The whole duty cycle of the port's thread, from wherever it is: every agent once (the arbiter's second turn when
     * the credit turn handed it work).
     */
    void cycle()
    {
        for (int k = 0; k < TURNS; )
        {
            k += step();
        }
    }

    void creditTurn()
    {
        final long nowNs = clock[0];
        final int taken = command;
        command = COMMAND_NONE;
        final boolean moved = COMMAND_UP == taken ? control.up(nowNs) :
            COMMAND_DOWN == taken && control.down(nowNs);
        if (moved && LinkState.INITIALIZE == control.state())
        {
            // just came up: the init FCPs are asked for before anything the peer sent is read
            requestFcps(nowNs);
        }
        for (int i = 0; i < eventCount; i++)
        {
            final long event = events[i];
            if ((event & EVENT_FCP) != 0)
            {
                onFcp(event, nowNs);
            }
            else
            {
                final int vl = (int)(event >>> 16) & 0xF;
                syncRelease(vl);
                if (((int)(event >>> 24) & TrainingWire.EPOCH_MASK) == publishedEpoch)
                {
                    control.onAccepted(vl, (int)event & 0xFFFF, nowNs);
                    final int epoch = (int)(event >>> 20) & 0xF;
                    abrFrame[vl] = abrFrame[vl] == epoch ? epoch : MIXED;
                }
                else
                {
                    // stored while this port's link was in an earlier epoch: it holds buffer space, ABR does not count it
                    control.onAcceptedEarlier(vl, (int)event & 0xFFFF);
                }
            }
        }
        java.util.Arrays.fill(events, 0, eventCount, 0);
        eventCount = 0;
        for (int vl = 0; vl < dataVls; vl++)
        {
            syncRelease(vl);
        }
        control.checkLiveness(nowNs);
        if (control.state().isUp())
        {
            requestFcps(nowNs);
        }
    }

    private void onFcp(final long event, final long nowNs)
    {
        final int word = (int)event;
        final int verdict = control.onFcp(word, nowNs);
        if (null != log)
        {
            log.append("       ").append(name).append(" takes #").append((event >>> 44) & 0x3FFFF).append(' ')
                .append(TrainingWire.describe(event & 0xFFFF_FFFFL))
                .append(CreditControl.APPLIED == verdict ? " applied" : " " + DiscardReason.get(verdict))
                .append(" -> ").append(control.state()).append('\n');
        }
        if (CreditControl.APPLIED == verdict)
        {
            final int vl = Fcp.vl(word);
            publishedCl[vl] = control.creditLimit(vl);
            transmitWork = true;
            abrFrame[vl] = (int)(event >>> 32) & TrainingWire.EPOCH_MASK;
            clFrame[vl] = (int)(event >>> 36) & TrainingWire.FRAME_MASK;
            in.fcpApplied(vl, Fcp.fctbs(word), (int)(event >>> 32) & TrainingWire.EPOCH_MASK);
        }
        else
        {
            statDiscarded++;
        }
    }

    private void syncRelease(final int vl)
    {
        if (control.releasePending(vl))
        {
            control.onReleased(vl, releasedTotal[vl]);
        }
    }

    private void requestFcps(final long nowNs)
    {
        while (requestCount < REQUESTS_IN_FLIGHT)
        {
            final int vl = control.pollFcp(nowNs);
            if (FcpSchedule.NONE == vl)
            {
                break;
            }
            requestFrames[requestCount] = abrFrame[vl];
            requests[requestCount++] = control.fcpRequest(vl, nowNs);
            transmitWork = true;
        }
    }

    @Override
    public void onStateEntered(final LinkState state)
    {
        if (control.transmitFlushes() != transmitFlushesSeen)
        {
            // a link error from Armed or Active: everything queued now is flushed
            transmitFlushesSeen = control.transmitFlushes();
            System.arraycopy(queuedCount, 0, flushMark, 0, dataVls);
            flushPending = true;
        }
        if (LinkState.INITIALIZE == state)
        {
            // every credit counter from zero: the published CLs, then a new epoch (the arbiter resets FCTBS on it)
            java.util.Arrays.fill(publishedCl, 0);
            publishedEpoch = (publishedEpoch + 1) & TrainingWire.EPOCH_MASK;
            java.util.Arrays.fill(abrFrame, ZERO);
            java.util.Arrays.fill(clFrame, ZERO);
        }
        publishedState = state.code();
        transmitWork = true;
        statTransitions++;
        if (null != log)
        {
            log.append("       ").append(name).append(" enters ").append(state).append('\n');
        }
    }

    void arbiterTurn()
    {
        if (publishedEpoch != arbiterEpoch)
        {
            arbiterEpoch = publishedEpoch;
            transmitter.reset();
        }
        final LinkState state = LinkState.get(publishedState);
        if (flushPending)
        {
            flushPending = false;
            for (int vl = 0; vl < dataVls; vl++)
            {
                for (int k = 0; k < flushMark[vl]; k++)
                {
                    takeQueued(vl);
                    statFlushed++;
                }
                flushMark[vl] = 0;
            }
        }
        while (requestCount > 0)
        {
            if (!out.hasRoom())
            {
                return;
            }
            final int word = transmitter.fcp(requests[0]);
            long frame = TrainingWire.fcp(word, arbiterEpoch, requestFrames[0]);
            if (null != log)
            {
                final int id = nextFrameId++;
                frame |= (long)id << 48;
                log.append("       ").append(name).append(" sends #").append(id).append(' ')
                    .append(TrainingWire.describe(word & 0xFFFF_FFFFL)).append('\n');
            }
            out.add(frame);
            System.arraycopy(requests, 1, requests, 0, requestCount - 1);
            System.arraycopy(requestFrames, 1, requestFrames, 0, requestCount - 1);
            requestCount--;
            requests[requestCount] = 0;
            requestFrames[requestCount] = 0;
        }
        boolean sent = true;
        while (sent && state.maySendData())
        {
            sent = false;
            for (int vl = 0; vl < dataVls; vl++)
            {
                if (queuedCount[vl] > 0 && out.hasRoom())
                {
                    final int blocks = queued[vl * queueCapacity];
                    transmitter.onCreditLimit(vl, publishedCl[vl]);
                    if (transmitter.mayTransmit(vl, blocks))
                    {
                        takeQueued(vl);
                        transmitter.onTransmit(vl, blocks);
                        out.add(TrainingWire.data(vl, blocks, transmitter.blocksSent(vl), arbiterEpoch));
                        statSent++;
                        sent = true;
                    }
                }
            }
        }
    }

    private void takeQueued(final int vl)
    {
        final int base = vl * queueCapacity;
        System.arraycopy(queued, base + 1, queued, base, --queuedCount[vl]);
        queued[base + queuedCount[vl]] = 0;
    }

    void receiveTurn()
    {
        final LinkState state = LinkState.get(publishedState);
        // the link epoch the state belongs to: each accepted packet's event carries it
        final long epochTag = (long)publishedEpoch << 24;
        while (in.count > 0 && eventCount < events.length)
        {
            final long frame = in.poll();
            if (!TrainingWire.isData(frame))
            {
                // the word and the frame's ghosts
                events[eventCount++] = EVENT_FCP | (TrainingWire.word(frame) & 0xFFFF_FFFFL) |
                    (long)TrainingWire.epoch(frame) << 32 | (long)TrainingWire.fcclFrame(frame) << 36 |
                    (frame >>> 48) << 44;
                continue;
            }
            final int vl = TrainingWire.vl(frame);
            final int blocks = TrainingWire.blocks(frame);
            if (DataCheck.STORE != DataCheck.admit(state, vl, dataVls))
            {
                statDiscarded++;
                in.dataGone(frame);
            }
            else if (heldBlocks[vl] + blocks > bufferBlocks)
            {
                // the sender ignored its credit: the engine discards it (DATA_OVERFLOW); the checker's invariant fails
                statOverflow++;
                in.dataGone(frame);
            }
            else
            {
                held[vl * bufferBlocks + heldCount[vl]++] = blocks;
                heldBlocks[vl] += blocks;
                // one event per packet: the engine's sums per VL charge the same (one-block chunks)
                events[eventCount++] = (long)vl << 16 | blocks | (long)TrainingWire.epoch(frame) << 20 | epochTag;
            }
        }
    }

    int inflightData(final int vl)
    {
        int blocks = 0;
        for (int i = 0; i < out.count; i++)
        {
            final long f = out.frames[i];
            if (TrainingWire.isData(f) && TrainingWire.vl(f) == vl)
            {
                blocks += TrainingWire.blocks(f);
            }
        }
        return blocks;
    }

    /** Blocks the peer stored that its credit agent has not yet counted in ABR. */
    int pendingAccepted(final int vl)
    {
        int blocks = 0;
        for (int i = 0; i < eventCount; i++)
        {
            final long event = events[i];
            if ((event & EVENT_FCP) == 0 && ((int)(event >>> 16) & 0xF) == vl)
            {
                blocks += (int)event & 0xFFFF;
            }
        }
        return blocks;
    }
}
