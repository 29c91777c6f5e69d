package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;

import java.util.Arrays;

/**
 * The receiving half of one port's link-level flow control and its link state: the {@link LinkStateMachine}, the
 * receiver's credits of every data VL ({@link CreditReceiver}: ABR, free space, FCCL), the {@link FcpSchedule},
 * and the rules that tie them together and to the peer (docs/flow-control.md). The engine's credit agent runs one
 * per port; the transmitting half, {@link CreditTransmitter} (FCTBS and the credit check), belongs to the thread
 * that puts packets on the wire and is told of every new credit limit this class accepts.
 * <p>
 * What it decides:
 * <ul>
 *   <li>Commands: {@link #up}, {@link #arm}, {@link #activate}, {@link #down}. Entering Initialize resets every
 *   credit counter and makes every VL's init FCP due; entering Armed makes every VL's FCP due at once (the Op
 *   changes to 0 and the peer may be waiting for it).</li>
 *   <li>FCPs from the peer ({@link #onFcp}): checked (Op, VL, link state, and staleness: an FCP whose FCTBS is behind
 *   this receiver's ABR, or whose FCCL is behind the credit limit already applied, was duplicated, replayed or
 *   reordered, and is discarded), then applied: {@code ABR := FCTBS} and the VL's new credit limit
 *   {@code CL := FCCL}. An init FCP arriving while Active means the peer went back to Initialize (it
 *   restarted, or its link went down and up): a link error, recovered by re-training ({@code Down -> Initialize},
 *   counted in {@link #errorRecoveries()}); that FCP counts for nothing more. Armed and Initialize apply init FCPs.
 *   What may arm the port follows the link-training rule (docs/flow-control.md, "Link training: a peer that starts
 *   again"; {@link LinkStateMachine}). Staleness is checked on normal FCPs only: init FCPs come from a peer whose
 *   counters start from zero.</li>
 *   <li>Data accepted into a receive buffer ({@link #onAccepted}): {@code ABR += NP, free -= NP}; the first packet in
 *   Armed activates the port. Space released by the upper layer ({@link #onReleased}): {@code free += NP}, which may
 *   make an FCP due early.</li>
 *   <li>FCPs to send ({@link #pollFcp}, {@link #fcpRequest}): Op by link state, FCCL from the receiver; the
 *   transmitter adds its FCTBS when the FCP goes on the wire ({@link CreditTransmitter#fcp}).</li>
 *   <li>A silent peer ({@link #checkLiveness}): a port that is Armed or Active and has heard nothing from its peer
 *   (no FCP, no packet) for the silence limit has lost it: a link error, the port goes down and re-initializes
 *   at once ({@code Down -> Initialize}), so it comes back when the peer does; counted in {@link #downs()}. The
 *   wait limit (the silence limit, or {@link #WAIT_LIMIT_PERIODS} FCP periods without one) ends the two waits of
 *   link training: an Armed port whose peer sends only init FCPs that long goes down the same way, and a port in
 *   Initialize that waits for a peer heard only in init FCPs that long stops waiting (rules 5 and 6). Before that,
 *   after a window of a quarter of the wait limit (at least {@link #REANNOUNCE_PERIODS} FCP periods) and two rounds of
 *   the peer's init FCPs of every VL, an Armed port initializes again at once, no link error (rule 4: its peer waits
 *   for a restart of it), and a waiting port in Initialize stops waiting (rule 6).</li>
 *   <li>Transmit flushes ({@link #transmitFlushes()}): a link error that takes the port down from Armed or Active
 *   (a silent peer, a peer's close, a peer that initialized again, a run of stale FCPs) means the peer may not be the
 *   one the queued work was meant for, or lost what it held: everything the port's transmit path holds at that moment
 *   is discarded and reported, never sent to the peer's next incarnation. A link error while Initialize (nothing was
 *   sent yet) and a {@link #down} on request are not flushes.</li>
 * </ul>
 * Every state entry is reported to the {@link StateListener} after its resets, so the owner can publish the new
 * state and epoch; a link error that flushes counts {@link #transmitFlushes()} before its {@code Down} is reported.
 * Single-threaded and allocation-free; wire input is never thrown, it is refused with a
 * {@link DiscardReason} id.
 */
public final class CreditControl
{
    /** {@link #onFcp} result: the FCP was applied (the same value as {@link FcpCheck#VALID}). */
    public static final int APPLIED = FcpCheck.VALID;

    /**
     * Stale FCPs in a row on one VL that make the port re-train: one is a duplicate or a replay, discarded; a run means
     * this port applied an FCP of the peer's previous incarnation (one still in flight when both ends re-initialized)
     * and its ABR or CL is wrong, which only re-training repairs.
     */
    public static final int STALE_RUN_LIMIT = 3;

    /**
     * The wait limit of a port without a silence limit, in FCP periods (docs/flow-control.md, "Link training", rules 5
     * and 6): a peer heard only in init FCPs that long waits for this port, or initializes too.
     */
    public static final int WAIT_LIMIT_PERIODS = 64;

    /**
     * FCP periods of its own running after which an Armed port whose peer is still heard only in init FCPs starts
     * counting the two rounds of them that make it initialize again (docs/flow-control.md, "Link training", rule 4): a
     * peer that does not wait arms on the first normal FCP of this port it reads, so init FCPs of every VL read that
     * long after one went out, twice, come from a peer that waits for this port to start again.
     */
    public static final int REANNOUNCE_PERIODS = 2;

    /** No silence limit: a silent peer is never declared lost. */
    public static final long NO_SILENCE_LIMIT = Long.MAX_VALUE;

    /**
     * Told of every state the port enters, after the entry's resets.
     */
    @FunctionalInterface
    public interface StateListener
    {
        /**
         * @param state the state entered.
         */
        void onStateEntered(LinkState state);
    }

    /** Rule 4: no normal FCP has gone out since this port armed (or the port is neither Armed nor Initialize). */
    private static final int REANNOUNCE_NONE = 0;
    /**
     * Rules 4 and 6: Armed, a normal FCP went out; or in Initialize: the peer has been heard only in init FCPs since
     * {@link #reannounceFromNs}.
     */
    private static final int REANNOUNCE_WINDOW = 1;
    /** Rules 4 and 6: the window is over; the peer's init FCPs of every VL are to arrive after it. */
    private static final int REANNOUNCE_ROUND = 2;
    /** Rules 4 and 6: they did; the port acts once they arrive again, completed in a later duty cycle. */
    private static final int REANNOUNCE_AGAIN = 3;

    private final int dataVls;
    private final LinkStateMachine link;
    private final CreditReceiver receiver;
    private final FcpSchedule schedule;
    private final StateListener listener;
    private final long silenceLimitNs;
    private final int[] creditLimit;
    private final long[] accepted;
    private final long[] released;
    private final int[] staleRun;
    private long lastHeardNs;
    private long lastCheckNs;
    private long lastNormalNs;
    private long lastFcpNs;
    private final long waitLimitNs;
    private final long pauseNs;
    private final long reannounceWindowNs;
    private final int allVls;
    /** Rules 4 and 6's progress in this state: {@link #REANNOUNCE_NONE} to {@link #REANNOUNCE_AGAIN}. */
    private int reannounce;
    /** Since when (this port's running time) the peer has been heard only in init FCPs ({@link #REANNOUNCE_WINDOW}). */
    private long reannounceFromNs;
    /** The VLs whose init FCP the peer sent since the window closed ({@link #REANNOUNCE_ROUND}). */
    private int peerInitVls;
    private long reannounces;
    private long errorRecoveries;
    private long downs;
    private long transmitFlushes;

    /**
     * @param dataVls              the port's data VLs: 1, 2, 4, 8 or 15.
     * @param bufferBlocks         each data VL's receive buffer, in 64-byte blocks.
     * @param chunkBytes           the receive buffer's allocation granularity (64 for exact accounting).
     * @param fcpPeriodNs          the longest gap between two FCPs of a VL (65,536 symbol times: {@link FcpSchedule#periodNs}).
     * @param earlyThresholdBlocks FCCL advance that sends an FCP early, 1..2048.
     * @param automatic            whether received FCPs arm and activate the port ({@link LinkStateMachine}).
     * @param silenceLimitNs       how long an Armed or Active port waits without hearing from its peer before the
     *                             link is down, or {@link #NO_SILENCE_LIMIT}.
     * @param listener             told of every state entered.
     */
    public CreditControl(
        final int dataVls,
        final int bufferBlocks,
        final int chunkBytes,
        final long fcpPeriodNs,
        final int earlyThresholdBlocks,
        final boolean automatic,
        final long silenceLimitNs,
        final StateListener listener)
    {
        this(new LinkStateMachine(dataVls, automatic), dataVls, bufferBlocks, chunkBytes, fcpPeriodNs,
            earlyThresholdBlocks, silenceLimitNs, listener);
    }

    /**
     * Around a given link state machine: the model checker's seam, which runs the previous link-training rule in it
     * to show that the checker finds that rule's ping-pong (LinkTrainingCheckTest).
     */
    CreditControl(
        final LinkStateMachine link,
        final int dataVls,
        final int bufferBlocks,
        final int chunkBytes,
        final long fcpPeriodNs,
        final int earlyThresholdBlocks,
        final long silenceLimitNs,
        final StateListener listener)
    {
        if (silenceLimitNs <= 0)
        {
            throw new IllegalArgumentException("silence limit must be positive: " + silenceLimitNs + " ns");
        }
        this.dataVls = Credits.requireDataVls(dataVls);
        this.link = link;
        this.receiver = new CreditReceiver(dataVls, bufferBlocks, chunkBytes);
        this.schedule = new FcpSchedule(dataVls, fcpPeriodNs, earlyThresholdBlocks, receiver);
        this.silenceLimitNs = silenceLimitNs;
        this.allVls = (1 << dataVls) - 1;
        this.waitLimitNs = NO_SILENCE_LIMIT == silenceLimitNs ? WAIT_LIMIT_PERIODS * fcpPeriodNs : silenceLimitNs;
        this.pauseNs = waitLimitNs >> 2;
        // rule 4's window: what a peer's stall may be taken for without a timeout (the pause bound), at least
        // REANNOUNCE_PERIODS FCP periods
        this.reannounceWindowNs = Math.max(REANNOUNCE_PERIODS * fcpPeriodNs, pauseNs);
        this.listener = listener;
        this.creditLimit = new int[dataVls];
        this.accepted = new long[dataVls];
        this.released = new long[dataVls];
        this.staleRun = new int[dataVls];
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
     * @return the link state machine (its counts: {@link LinkStateMachine#ups()}).
     */
    public LinkStateMachine link()
    {
        return link;
    }

    /**
     * @return the receiver's credits (read-only use: this class applies every change).
     */
    public CreditReceiver receiver()
    {
        return receiver;
    }

    // ---------------------------------------------------------------- commands

    /**
     * Down -> Initialize: every credit counter from zero, every VL's init FCP due now.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean up(final long nowNs)
    {
        return link.up() && entered(nowNs);
    }

    /**
     * Initialize -> Armed (a subnet manager's command; automatic mode arms on received FCPs).
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
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean activate(final long nowNs)
    {
        return link.activate() && entered(nowNs);
    }

    /**
     * Any state -> Down, on request or a fatal error. Packets held in the receive buffers stay held and are released
     * as usual.
     *
     * @param nowNs the clock.
     * @return true if the state changed.
     */
    public boolean down(final long nowNs)
    {
        return link.down() && entered(nowNs);
    }

    private boolean entered(final long nowNs)
    {
        final LinkState state = link.state();
        if (LinkState.INITIALIZE == state || LinkState.DOWN == state)
        {
            receiver.reset();
            Arrays.fill(creditLimit, 0);
            Arrays.fill(staleRun, 0);
            if (LinkState.INITIALIZE == state)
            {
                schedule.reset(nowNs);
            }
        }
        else if (LinkState.ARMED == state)
        {
            schedule.makeAllDue(nowNs);
        }
        lastHeardNs = nowNs;
        lastCheckNs = nowNs;
        lastNormalNs = nowNs;
        lastFcpNs = nowNs;
        // rule 4's window opens in Armed with the first normal FCP sent; rule 6's (a waiting port) on entering Initialize
        reannounce = LinkState.INITIALIZE == state ? REANNOUNCE_WINDOW : REANNOUNCE_NONE;
        reannounceFromNs = nowNs;
        peerInitVls = 0;
        listener.onStateEntered(state);
        return true;
    }

    // ---------------------------------------------------------------- from the peer

    /**
     * Apply an FCP from the peer whose length, LPCRC and Op were checked ({@link Fcp#decode}).
     *
     * @param word  the FCP's first four bytes.
     * @param nowNs the clock.
     * @return {@link #APPLIED}, after which {@link #creditLimit(int)} of the FCP's VL is the new CL to hand to the
     * transmitter; or the {@link DiscardReason} id it was discarded for (reserved Op, VL15, a VL the port lacks, not
     * allowed in the link state, stale).
     */
    public int onFcp(final int word, final long nowNs)
    {
        final int verdict = FcpCheck.validate(word, dataVls);
        if (FcpCheck.VALID != verdict)
        {
            return verdict;
        }
        final int op = Fcp.op(word);
        final int vl = Fcp.vl(word);
        LinkState state = link.state();
        final boolean restarted = link.peerRestarted(op);
        if (restarted)
        {
            // An init FCP while Active: the peer initialized again, its counters restarted from zero while ours run
            // on, and data this port sent may be counted against the previous incarnation's credit. Re-train; the FCP
            // is then applied as Initialize applies it (FCTBS 0, the peer's new FCCL) and counts for nothing more.
            errorRecoveries++;
            linkError(nowNs);
            state = link.state();
        }
        lastFcpNs = nowNs;
        if (state.isUp())
        {
            lastHeardNs = nowNs;
            if (Fcp.OP_NORMAL == op)
            {
                lastNormalNs = nowNs;
            }
        }
        // allowed or not by the state it arrived in (a normal FCP that arms an initializing port is still discarded)
        final boolean allowed = state.mayReceiveFcp(op);
        final int fctbs = Fcp.fctbs(word);
        final int fccl = Fcp.fccl(word);
        // Within one incarnation of the peer FCTBS never falls behind ABR (data sent before the FCP is received or
        // lost before it) and FCCL never falls behind the previous one (ABR + free only grows): either moving back
        // by more than the 2048-block window is a duplicate, a replay or a reordering.
        final boolean stale = allowed && Fcp.OP_NORMAL == op &&
            (Credits.distance(fctbs, receiver.blocksReceived(vl)) > Credits.MAX_CREDIT ||
            Credits.distance(fccl, creditLimit[vl]) > Credits.MAX_CREDIT);
        final boolean owed = link.initOwed();
        if (link.onFcpReceived(vl, op, restarted))
        {
            entered(nowNs);
        }
        else if (!owed && link.initOwed())
        {
            // the peer (re)started while this port initializes: its init FCPs again, now
            schedule.makeAllDue(nowNs);
        }
        heard(op, vl, nowNs);
        if (!allowed)
        {
            return DiscardReason.FCP_STATE.id();
        }
        if (stale)
        {
            if (++staleRun[vl] >= STALE_RUN_LIMIT)
            {
                errorRecoveries++;
                linkError(nowNs);
            }
            return DiscardReason.FCP_STALE.id();
        }
        staleRun[vl] = 0;
        receiver.onBlocksSent(vl, fctbs);
        creditLimit[vl] = fccl;
        return APPLIED;
    }

    /**
     * A data packet of {@code blocks} was stored in the VL's receive buffer ({@code ABR += NP, free -= NP}). The
     * caller checked, against this port's published state, that data may be received ({@link
     * LinkState#mayReceiveData()}) and stored it only if its buffer had room, which this accounting mirrors exactly.
     *
     * @param vl     a data VL.
     * @param blocks NP (or the sum over several packets of the VL, with 64-byte chunks).
     * @param nowNs  the clock.
     * @throws IllegalStateException if the accounting has no room: the buffer and this accounting disagree, a bug.
     */
    public void onAccepted(final int vl, final int blocks, final long nowNs)
    {
        accepted[vl] += receiver.chargedBlocks(blocks);
        if (!receiver.accept(vl, blocks))
        {
            throw new IllegalStateException("VL" + vl + ": " + blocks + " blocks accepted with " +
                receiver.freeBlocks(vl) + " free: the receive buffer and its credit accounting disagree");
        }
        lastHeardNs = nowNs;
        lastNormalNs = nowNs;
        if (link.onDataReceived())
        {
            entered(nowNs);
        }
    }

    /**
     * A data packet of {@code blocks} that the receive side stored before this port's link last re-initialized (it
     * saw an earlier link epoch), reported only now: it takes its buffer space until released ({@code free -= NP}), but
     * it came from the peer's incarnation before, whose blocks the new ABR must not count ({@code ABR} stays): counted,
     * they would raise the FCCL this port advertises above what its buffer holds for the peer's new incarnation.
     *
     * @param vl     a data VL.
     * @param blocks NP.
     * @throws IllegalStateException if the accounting has no room: the buffer and this accounting disagree, a bug.
     */
    public void onAcceptedEarlier(final int vl, final int blocks)
    {
        accepted[vl] += receiver.chargedBlocks(blocks);
        if (!receiver.occupy(vl, blocks))
        {
            throw new IllegalStateException("VL" + vl + ": " + blocks + " blocks stored with " +
                receiver.freeBlocks(vl) + " free: the receive buffer and its credit accounting disagree");
        }
    }

    /**
     * @param vl a data VL.
     * @return whether blocks accepted on the VL are not yet released: only then can {@link #onReleased} release any,
     * so a duty cycle may skip reading the VL's release position otherwise (what the application released ahead of
     * the acceptances is released when they arrive).
     */
    public boolean releasePending(final int vl)
    {
        return released[vl] != accepted[vl];
    }

    /**
     * The upper layer has released {@code releasedTotal} blocks of the VL's receive buffer since the port was
     * built (a monotonic count, read from the thread that releases). Only what was accepted can be released: the
     * upper layer may take a packet before its acceptance reaches this thread, and that part waits.
     *
     * @param vl            a data VL.
     * @param releasedTotal blocks released on the VL since construction.
     * @return blocks newly released ({@code free += NP}), 0 if none.
     */
    public int onReleased(final int vl, final long releasedTotal)
    {
        final long releasable = Math.min(releasedTotal, accepted[vl]);
        final long delta = releasable - released[vl];
        if (delta <= 0)
        {
            return 0;
        }
        released[vl] = releasable;
        receiver.release(vl, (int)delta);
        return (int)delta;
    }

    /**
     * Declare the peer lost if an Armed or Active port has heard nothing from it for the silence limit: the link goes
     * down and re-initializes ({@code Down -> Initialize}). A port in Initialize keeps waiting: its peer may not
     * be there yet. Call it every duty cycle: a gap between two calls of more than a quarter of the limit is time this
     * port was not running, and does not count as the peer's silence; what the duty cycle read before the call, after
     * such a gap, was heard at the call, not a gap later.
     * <p>
     * The same call keeps the training's two timeouts (docs/flow-control.md, "Link training", rules 5 and 6), on the
     * wait limit (the silence limit, or {@link #WAIT_LIMIT_PERIODS} FCP periods without one), from the peer's last
     * normal FCP or packet: an Armed port whose peer sent only init FCPs that long initializes again (counted as
     * {@link #downs()}), and a port in Initialize waiting for its peer, which sent only init FCPs that long, stops
     * waiting.
     *
     * @param nowNs the clock.
     * @return true if the link went down.
     */
    public boolean checkLiveness(final long nowNs)
    {
        // Silence is measured only while this port runs: a gap between two checks longer than a quarter of the limit
        // means this port's own thread was stopped (a collection, a starved CPU, an invoker that paused), and what the
        // peer sent meanwhile is still waiting to be read. That time is not the peer's.
        // The pause ends at this check: what this duty cycle read before it (the FCPs waiting through the pause) was
        // heard now, and its reading stays now.
        final long sinceCheckNs = nowNs - lastCheckNs;
        lastCheckNs = nowNs;
        if (sinceCheckNs > pauseNs)
        {
            lastHeardNs = pauseLeftOut(lastHeardNs, sinceCheckNs, nowNs);
            lastNormalNs = pauseLeftOut(lastNormalNs, sinceCheckNs, nowNs);
            lastFcpNs = pauseLeftOut(lastFcpNs, sinceCheckNs, nowNs);
        }
        final LinkState state = link.state();
        if ((LinkState.ARMED == state && link.automatic() || LinkState.INITIALIZE == state && link.awaitsPeerInit()) &&
            reannounce(sinceCheckNs, nowNs))
        {
            return true;
        }
        final boolean peerInitializing = nowNs - lastNormalNs > waitLimitNs && nowNs - lastFcpNs <= waitLimitNs;
        if (LinkState.INITIALIZE == state && peerInitializing && link.awaitsPeerInit() &&
            Fcp.OP_INIT == link.peerOp())
        {
            // both ends wait, each for the other: a peer in Initialize holds nothing of this port's earlier incarnations
            link.peerInitializesToo();
        }
        if ((LinkState.ARMED == state || LinkState.ACTIVE == state) && nowNs - lastHeardNs > silenceLimitNs ||
            LinkState.ARMED == state && link.automatic() && peerInitializing)
        {
            // silent, or (Armed) heard only in init FCPs: the peer waits for an init FCP of this port
            downs++;
            linkError(nowNs);
            if (peerInitializing)
            {
                // it took nothing of this port (Initialize discards normal FCPs): its next change of Op answers this one
                link.peerWaitedForInit();
            }
            return true;
        }
        return false;
    }

    /**
     * The peer closed its end (a link-level notice, as a physical link dropping): the link goes down at once and
     * re-initializes, to come back when a peer does, without waiting for the silence limit. Counted in
     * {@link #downs()}. Nothing happens while Down.
     *
     * @param nowNs the clock.
     * @return true if the link went down.
     */
    public boolean onPeerClosed(final long nowNs)
    {
        if (LinkState.DOWN == link.state())
        {
            return false;
        }
        downs++;
        linkError(nowNs);
        return true;
    }

    /**
     * Rules 4 and 6, what a port hears: a normal FCP (the peer is Armed or Active; a packet makes an Armed port Active)
     * opens the window again
     * from now; an init FCP, once the window is over, counts towards the rounds that make an Armed port initialize
     * again, or a waiting port in Initialize stop waiting.
     */
    private void heard(final int op, final int vl, final long nowNs)
    {
        if (Fcp.OP_NORMAL == op)
        {
            if (REANNOUNCE_WINDOW <= reannounce)
            {
                reannounce = REANNOUNCE_WINDOW;
                reannounceFromNs = nowNs;
            }
        }
        else if (REANNOUNCE_ROUND == reannounce || REANNOUNCE_AGAIN == reannounce)
        {
            peerInitVls |= 1 << vl;
        }
    }

    /**
     * Rules 4 and 6, each duty cycle of an automatic Armed port or of a port waiting in Initialize: the window counts
     * this port's running time only (a gap since the previous check longer than the silence limit's pause bound, a
     * quarter of the wait limit, is its own pause); once
     * it is over, two rounds of the peer's init FCPs of every VL, each completed in a later duty cycle, make an Armed
     * port initialize again (rule 4) and a waiting one stop waiting (rule 6).
     *
     * @return true if the port went down and initialized again.
     */
    private boolean reannounce(final long sinceCheckNs, final long nowNs)
    {
        if (REANNOUNCE_WINDOW == reannounce)
        {
            if (sinceCheckNs > pauseNs)
            {
                reannounceFromNs = pauseLeftOut(reannounceFromNs, sinceCheckNs, nowNs);
            }
            if (nowNs - reannounceFromNs >= reannounceWindowNs)
            {
                reannounce = REANNOUNCE_ROUND;
                peerInitVls = 0;
            }
        }
        else if (REANNOUNCE_ROUND == reannounce && allVls == peerInitVls)
        {
            reannounce = REANNOUNCE_AGAIN;
            peerInitVls = 0;
        }
        else if (REANNOUNCE_AGAIN == reannounce && allVls == peerInitVls && LinkState.INITIALIZE == link.state())
        {
            // rule 6: a waiting port whose peer initializes too, as long as rule 4 asks of an Armed port
            link.peerInitializesToo();
            reannounce = REANNOUNCE_WINDOW;
            reannounceFromNs = nowNs;
        }
        else if (REANNOUNCE_AGAIN == reannounce && allVls == peerInitVls)
        {
            // not a link error: nothing was sent, nothing is flushed, nothing counted as link_downed
            reannounces++;
            down(nowNs);
            up(nowNs);
            // the peer heard this port's normal FCPs and took nothing of them: its next init FCP answers this one
            link.peerWaitedForInit();
            return true;
        }
        return false;
    }

    /**
     * A reading of the clock with this port's own pause left out: one taken before the pause moves on by it; one taken in
     * the duty cycle that ends it (what the peer sent meanwhile, read before this check) stays at the check, never later
     * (docs/flow-control.md, "Link training", rule 4: the walk's seed-7 episode).
     *
     * @param readingNs    when the peer was last heard, or the window opened.
     * @param sinceCheckNs the pause: the time since the previous check.
     * @param nowNs        the clock at this check.
     */
    private static long pauseLeftOut(final long readingNs, final long sinceCheckNs, final long nowNs)
    {
        return Math.min(nowNs, readingNs + sinceCheckNs);
    }

    /**
     * A link error: down, then Initialize at once. From Armed or Active it is a transmit flush, counted before the
     * {@code Down} is reported so that the listener sees it.
     */
    private void linkError(final long nowNs)
    {
        final LinkState state = link.state();
        if (LinkState.ARMED == state || LinkState.ACTIVE == state)
        {
            transmitFlushes++;
        }
        down(nowNs);
        up(nowNs);
    }

    // ---------------------------------------------------------------- to the peer

    /**
     * @param nowNs the clock, read once per duty cycle.
     * @return a data VL whose FCP is due, or {@link FcpSchedule#NONE} (always when Down).
     */
    public int pollFcp(final long nowNs)
    {
        return link.state().isUp() ? schedule.poll(nowNs) : FcpSchedule.NONE;
    }

    /**
     * The FCP to send for a VL, without its FCTBS (the transmitter adds it when the FCP goes on the wire: {@link
     * CreditTransmitter#fcp}), and restart the VL's schedule.
     *
     * @param vl    a data VL that {@link #pollFcp} returned.
     * @param nowNs the clock.
     * @return the FCP's first four bytes with FCTBS 0: Op by link state, the VL, this receiver's FCCL.
     */
    public int fcpRequest(final int vl, final long nowNs)
    {
        final int fccl = receiver.fccl(vl);
        schedule.onFcpSent(vl, nowNs, fccl);
        final int op = link.state().fcpOp();
        if (Fcp.OP_NORMAL == op && LinkState.ARMED == link.state() && REANNOUNCE_NONE == reannounce)
        {
            // rule 4's window opens: from now on the peer may read this port as Armed
            reannounce = REANNOUNCE_WINDOW;
            reannounceFromNs = nowNs;
        }
        if (link.onFcpSent(op))
        {
            entered(nowNs);
        }
        return Fcp.word(op, 0, vl, fccl);
    }

    // ---------------------------------------------------------------- figures

    /**
     * @param vl a data VL.
     * @return the credit limit CL of the latest FCP applied on the VL since the link initialized.
     */
    public int creditLimit(final int vl)
    {
        return creditLimit[vl];
    }

    /**
     * @return link errors recovered by re-training (the peer initialized again while this port was Active).
     */
    public long errorRecoveries()
    {
        return errorRecoveries;
    }

    /**
     * @return times this port, Armed, initialized again because its peer was heard only in init FCPs
     * (docs/flow-control.md, "Link training", rule 4): no link error, counted neither in {@link #downs()} nor in
     * {@link #errorRecoveries()}.
     */
    public long reannounces()
    {
        return reannounces;
    }

    /**
     * @return times the link went down because the peer fell silent or said it was closing.
     */
    public long downs()
    {
        return downs;
    }

    /**
     * @return link errors that took the port down from Armed or Active: each time, the transmit path discards and
     * reports everything it holds (already counted when the listener hears of the {@code Down} it caused).
     */
    public long transmitFlushes()
    {
        return transmitFlushes;
    }
}
