package io.vlink.core.credit;

import java.util.ArrayList;
import java.util.List;

/**
 * Two ports back to back ({@link TrainingPort}: the shipped {@link CreditControl} and {@link CreditTransmitter} as the
 * engine composes them), a wire each way ({@link TrainingWire}), a clock, and the events the checker interleaves:
 * each side's next agent turn, the clock moving on, data offered, a receive buffer freed, a port taken down and up,
 * and the wire's faults. After every event {@link #violation()} checks the invariants; {@link #fingerprint()} names
 * the state for the checker's visited set.
 * <p>
 * Invariants, at every state:
 * <ul>
 *   <li><b>no overflow</b>: no data packet reaches a receive buffer that cannot hold it;</li>
 *   <li><b>credit within the buffer</b>: an Active port may send, on every VL, no more than its peer's buffer can
 *   take beside the data on its way (the ghosts of {@link TrainingPort} tell which of its incarnations a peer's ABR
 *   counts, for the next invariant);</li>
 *   <li><b>FCTBS/ABR agreement</b>: once both are Active, a receiver whose ABR follows the sender's current epoch and
 *   has lost nothing since the last FCP it applied counts exactly what the sender sent less what is on its way;</li>
 *   <li><b>one re-training per episode</b>: while the wire has had no fault, a port re-trains (a link error
 *   recovered) no more often than its peer went through Initialize on its own (an up, a silent or closed peer):
 *   a port bounced alone costs its peer one re-training and itself none.</li>
 * </ul>
 * Progress is the checker's ({@link LinkTrainingCheck#progress}).
 */
final class LinkTrainingModel
{
    // event kinds, in bits 8..15 of an event; the side or direction in bit 4, an argument in bits 0..3
    static final int STEP = 1;
    static final int TICK = 2;
    static final int OFFER = 3;
    static final int RELEASE = 4;
    static final int DOWN = 5;
    static final int UP = 6;
    static final int LOSE = 7;
    static final int DUPLICATE = 8;
    static final int DELAY = 9;
    /** A {@link #STEP}'s argument: the side's whole duty cycle (its agents in the engine's order). */
    static final int CYCLE = 3;

    private static final String[] NAMES = {"", "step", "tick", "offer", "release", "down", "up", "lose", "duplicate",
        "delay"};

    final LinkTrainingConfig config;
    final long[] clock = new long[1];
    final TrainingWire ab;
    final TrainingWire ba;
    final TrainingPort a;
    final TrainingPort b;

    // budgets and ghosts: part of the state
    final int[] offersLeft = new int[2];
    final int[] bouncesLeft = new int[2];
    int faultsLeft;
    /** Ghost: the wire has had a fault: re-training counts are no longer bounded by episodes. */
    boolean faulty;
    /** Ghost, per side: the peer's own Initialize entries less this side's re-trainings, capped. */
    final int[] slack = new int[2];

    // the ports' counts last seen (not state)
    private final long[] statUps = new long[2];
    private final long[] statRecoveries = new long[2];
    private final long[] statDowns = new long[2];

    private final StateCodec codec;
    private final int[] rule;
    private final long[] scratch;
    private static final int RAW = 0;
    private static final int SKIP = 1;
    private static final int TIME = 2;
    private static final int ACCEPTED = 4;
    private static final int RELEASED_TOTAL = 5;
    private static final int GHOST = 6;

    LinkTrainingModel(final LinkTrainingConfig config)
    {
        this.config = config;
        final int vls = config.dataVls;
        ab = new TrainingWire(config.wireCapacity, vls);
        ba = new TrainingWire(config.wireCapacity, vls);
        a = new TrainingPort(vls, config.bufferBlocks, config.fcpPeriodNs, config.earlyThresholdBlocks,
            config.silenceLimitNs, config.queueCapacity, config.previousRule, config.creditBeforeReceive, ab, ba, clock);
        b = new TrainingPort(vls, config.bufferBlocks, config.fcpPeriodNs, config.earlyThresholdBlocks,
            config.silenceLimitNs, config.queueCapacity, config.previousRule, config.creditBeforeReceive, ba, ab, clock);
        offersLeft[0] = offersLeft[1] = config.offers;
        bouncesLeft[0] = config.bouncesA;
        bouncesLeft[1] = config.bouncesB;
        faultsLeft = config.faults;
        codec = new StateCodec(this);
        scratch = new long[codec.length()];
        rule = rules(codec.paths());
        releasedSlots = releasedSlots();
    }

    TrainingPort port(final int side)
    {
        return side == 0 ? a : b;
    }

    // ---------------------------------------------------------------- state

    StateCodec codec()
    {
        return codec;
    }

    long[] save()
    {
        final long[] state = new long[codec.length()];
        codec.save(state);
        return state;
    }

    void save(final long[] into)
    {
        codec.save(into);
    }

    void restore(final long[] state)
    {
        codec.restore(state);
        syncStats();
    }

    /** After a restore: the counts the re-training ghost compares against are the restored ones. */
    void syncStats()
    {
        for (int side = 0; side < 2; side++)
        {
            statUps[side] = port(side).control.link().ups();
            statRecoveries[side] = port(side).control.errorRecoveries();
            statDowns[side] = port(side).control.downs();
        }
    }

    private static int[] rules(final List<String> paths)
    {
        final int[] rules = new int[paths.size()];
        for (int i = 0; i < rules.length; i++)
        {
            final String path = paths.get(i);
            final String field = path.substring(path.indexOf('.') + 1).replaceAll("\\[\\d+]$", "");
            if (path.startsWith("LinkTrainingModel#"))
            {
                rules[i] = field.startsWith("stat") || field.equals("clock") || (Boolean.getBoolean("noghost") && field.startsWith("slack")) ? SKIP : GHOST;
                continue;
            }
            rules[i] = switch (field)
            {
                case "lastHeardNs", "lastCheckNs", "lastNormalNs", "lastFcpNs", "reannounceFromNs", "quietUntilNs", "dueNs", "quiet", "quietChanges", "changes" -> TIME;
                case "errorRecoveries", "downs", "transmitFlushes", "ups", "transmitFlushesSeen", "clock",
                    "statUps", "statRecoveries", "statDowns", "reannounces", "released" -> SKIP;
                case "accepted" -> ACCEPTED;
                case "releasedTotal" -> RELEASED_TOTAL;
                case "arbiterEpoch", "publishedEpoch", "abrFrame", "clFrame", "requestFrames" ->
                    Boolean.getBoolean("noghost") ? SKIP : RAW;
                default -> field.startsWith("stat") ? SKIP : RAW;
            };
        }
        return rules;
    }

    /**
     * @return a 64-bit fingerprint of the state (see {@link #fingerprint(boolean)}).
     */
    long fingerprint()
    {
        return fingerprint(true);
    }

    /**
     * A 64-bit fingerprint of the state: two states with the same one behave alike under every future. Counts that
     * only grow enter as the differences the code compares; figures are left out; clock readings enter as what the
     * code can still tell apart ({@link #time}).
     *
     * @param ghosts whether the budgets and the re-training ghost count (the checker's visited states) or not (the
     *               progress continuation's, which uses neither).
     * @return the fingerprint.
     */
    long fingerprint(final boolean ghosts)
    {
        final long[] s = scratch;
        codec.save(s);
        long h = 0x9E37_79B9_7F4A_7C15L;
        for (int i = 0; i < s.length; i++)
        {
            long v = s[i];
            switch (rule[i])
            {
                case SKIP, TIME:
                    continue;
                case GHOST:
                    if (!ghosts)
                    {
                        continue;
                    }
                    break;
                case ACCEPTED, RELEASED_TOTAL:
                    v -= s[releasedOf(i)];
                    break;
                default:
                    break;
            }
            h = mix(h, v);
        }
        for (int side = 0; side < 2; side++)
        {
            h = time(side, s, h);
        }
        return h;
    }

    /** A clock reading a version of the rule may not have (0 then: it enters as a constant). */
    private static long at(final long[] s, final int slot)
    {
        return slot < 0 ? 0 : s[slot];
    }

    private static long mix(final long h, final long v)
    {
        final long x = (h ^ v) * 0xBF58_476D_1CE4_E5B9L;
        return x ^ (x >>> 29);
    }

    private int[][] timeSlots;

    /**
     * The clock readings of one port, as far as the code can tell them apart (these follow CreditControl's
     * checkLiveness and FcpSchedule's poll; change them with those):
     * <ul>
     *   <li>the silence and the wait limit's timers: every state entry sets the readings to now; a check compares each
     *   with the limit (beyond it, however far, is alike) after adding back whole a gap since the previous check longer
     *   than a quarter of the limit. So each reading as of the last check, capped past the limit, and
     *   {@code now - lastCheck}, capped past a quarter of the limit (and past two FCP periods, rule 4's shortest
     *   window), say all of it; while Down nothing reads them;</li>
     *   <li>the schedule: a VL whose time has come is due however long ago ({@code now - due >= 0}); the quiet answer's
     *   end and change count matter only while the schedule is quiet, and an end already past is no quiet answer.</li>
     * </ul>
     */
    private long time(final int side, final long[] s, final long hash)
    {
        if (null == timeSlots)
        {
            timeSlots = new int[2][];
            for (int k = 0; k < 2; k++)
            {
                final int vls = config.dataVls;
                final int[] slots = new int[12 + vls];
                slots[0] = Math.max(codec.slot("LinkStateMachine#" + k + ".state"),
                    codec.slot(PreviousTrainingRule.class.getSimpleName() + "#" + k + ".state"));
                slots[1] = codec.slot("CreditControl#" + k + ".lastHeardNs");
                slots[2] = codec.slot("CreditControl#" + k + ".lastCheckNs");
                slots[3] = codec.slot("FcpSchedule#" + k + ".quiet");
                slots[4] = codec.slot("FcpSchedule#" + k + ".quietUntilNs");
                slots[5] = codec.slot("FcpSchedule#" + k + ".quietChanges");
                slots[6] = codec.slot("CreditReceiver#" + k + ".changes");
                slots[7 + vls] = codec.slot("CreditControl#" + k + ".lastNormalNs");
                slots[8 + vls] = codec.slot("CreditControl#" + k + ".lastFcpNs");
                slots[10 + vls] = codec.slot("CreditControl#" + k + ".reannounceFromNs");
                slots[11 + vls] = codec.slot("CreditControl#" + k + ".reannounce");
                for (int vl = 0; vl < vls; vl++)
                {
                    slots[7 + vl] = codec.slot("FcpSchedule#" + k + ".dueNs") + vl;
                }
                for (int i = 0; i < 7 + vls; i++)
                {
                    if (slots[i] < 0)
                    {
                        throw new IllegalStateException("a clock reading the fingerprint expects is gone: " +
                            java.util.Arrays.toString(slots));
                    }
                }
                timeSlots[k] = slots;
            }
        }
        final int[] slots = timeSlots[side];
        final long now = clock[0];
        final long state = s[slots[0]];
        final long limit = config.silenceLimitNs + 1;
        long h = hash;
        if (state != LinkState.DOWN.ordinal())
        {
            // since the last check: a gap past a quarter of the limit is caught up whole (rule 4's window, at least two
            // FCP periods, below, is this plus the part before the check)
            h = mix(h, Math.min(now - s[slots[2]], Math.max(config.silenceLimitNs >> 2, 2 * config.fcpPeriodNs) + 1));
            // the silence, and the wait limit's two timers (the peer's last normal FCP, its last FCP), as of that check
            h = mix(h, Math.min(s[slots[2]] - s[slots[1]], limit));
            h = mix(h, Math.min(s[slots[2]] - at(s, slots[7 + config.dataVls]), limit));
            h = mix(h, Math.min(s[slots[2]] - at(s, slots[8 + config.dataVls]), limit));
            final boolean quiet = s[slots[3]] != 0 && now - s[slots[4]] < 0;
            h = mix(h, quiet ? s[slots[4]] - now : -1);
            h = mix(h, quiet && s[slots[5]] == s[slots[6]] ? 1 : 0);
            for (int i = 7; i < 7 + config.dataVls; i++)
            {
                h = mix(h, Math.max(0, s[slots[i]] - now));
            }
        }
        if ((state == LinkState.ARMED.ordinal() || state == LinkState.INITIALIZE.ordinal()) &&
            slots[11 + config.dataVls] >= 0 && s[slots[11 + config.dataVls]] == 1)
        {
            // rules 4 and 6's window (CreditControl.REANNOUNCE_WINDOW): how much of it had passed at the last check (less
            // than the window, or it would be over; negative when it opened after that check)
            h = mix(h, s[slots[2]] - s[slots[10 + config.dataVls]]);
        }
        return h;
    }

    private final int[] releasedSlots;

    private int releasedOf(final int slot)
    {
        return releasedSlots[slot];
    }

    /** For each count that only grows, the slot of the count it is compared with (CreditControl's releases). */
    private int[] releasedSlots()
    {
        final int[] slots = pairs("TrainingPort", "releasedTotal", "CreditControl", "released");
        final int[] accepted = pairs("CreditControl", "accepted", "CreditControl", "released");
        for (int i = 0; i < accepted.length; i++)
        {
            slots[i] = Math.max(slots[i], accepted[i]);
        }
        return slots;
    }

    private int[] pairs(final String ownerA, final String fieldA, final String ownerB, final String fieldB)
    {
        final List<String> paths = codec.paths();
        final int[] map = new int[paths.size()];
        for (int i = 0; i < paths.size(); i++)
        {
            final String path = paths.get(i);
            if (path.startsWith(ownerA + "#") && path.replaceAll("\\[\\d+]$", "").endsWith("." + fieldA))
            {
                map[i] = paths.indexOf(path.replace(ownerA + "#", ownerB + "#").replace("." + fieldA, "." + fieldB));
                if (map[i] < 0)
                {
                    throw new IllegalStateException("no pair for " + path);
                }
            }
        }
        return map;
    }

    // ---------------------------------------------------------------- events

    static int event(final int kind, final int side, final int arg)
    {
        return kind << 8 | side << 4 | arg;
    }

    static int kind(final int event)
    {
        return event >>> 8;
    }

    static int side(final int event)
    {
        return (event >>> 4) & 1;
    }

    static int arg(final int event)
    {
        return event & 0xF;
    }

    /**
     * @param into the events enabled in this state are added.
     */
    void enabled(final List<Integer> into)
    {
        into.add(event(STEP, 0, config.agentSteps ? a.turn() : CYCLE));
        into.add(event(STEP, 1, config.agentSteps ? b.turn() : CYCLE));
        into.add(event(TICK, 0, 0));
        for (int side = 0; side < 2; side++)
        {
            final TrainingPort port = port(side);
            for (int vl = 0; vl < config.dataVls; vl++)
            {
                if (offersLeft[side] > 0 && port.mayOffer(vl))
                {
                    into.add(event(OFFER, side, vl));
                }
                if (port.mayRelease(vl))
                {
                    into.add(event(RELEASE, side, vl));
                }
            }
            if (port.lastCommand == TrainingPort.COMMAND_DOWN)
            {
                into.add(event(UP, side, 0));
            }
            else if (bouncesLeft[side] > 0)
            {
                into.add(event(DOWN, side, 0));
            }
        }
        if (faultsLeft > 0)
        {
            for (int dir = 0; dir < 2; dir++)
            {
                final TrainingWire wire = dir == 0 ? ab : ba;
                for (int i = 0; i < wire.count; i++)
                {
                    final long frame = wire.frames[i];
                    if (config.lose)
                    {
                        into.add(event(LOSE, dir, i));
                    }
                    if (config.duplicate && !TrainingWire.isData(frame) && wire.hasRoom())
                    {
                        into.add(event(DUPLICATE, dir, i));
                    }
                    // a data packet is never delayed past a later FCP of its VL (the FCTBS sync needs a link in order)
                    if (config.delay && i + 1 < wire.count && (!TrainingWire.isData(frame) ||
                        TrainingWire.isData(wire.frames[i + 1]) ||
                        TrainingWire.vl(wire.frames[i + 1]) != TrainingWire.vl(frame)))
                    {
                        into.add(event(DELAY, dir, i));
                    }
                }
            }
        }
    }

    /**
     * Apply one event (it must be enabled).
     */
    void apply(final int event)
    {
        final int side = side(event);
        final int arg = arg(event);
        switch (kind(event))
        {
            case STEP ->
            {
                if (arg == CYCLE)
                {
                    port(side).cycle();
                }
                else
                {
                    port(side).step();
                }
            }
            case TICK -> clock[0] += config.tickNs;
            case OFFER ->
            {
                offersLeft[side]--;
                port(side).offer(arg, config.packetBlocks);
            }
            case RELEASE -> port(side).release(arg);
            case DOWN ->
            {
                bouncesLeft[side]--;
                port(side).command(TrainingPort.COMMAND_DOWN);
            }
            case UP -> port(side).command(TrainingPort.COMMAND_UP);
            case LOSE ->
            {
                faultsLeft--;
                faulty = true;
                wire(side).lose(arg);
            }
            case DUPLICATE ->
            {
                faultsLeft--;
                faulty = true;
                wire(side).duplicate(arg);
            }
            case DELAY ->
            {
                faultsLeft--;
                faulty = true;
                wire(side).delay(arg);
            }
            default -> throw new IllegalArgumentException("event " + event);
        }
        account();
    }

    private TrainingWire wire(final int dir)
    {
        return dir == 0 ? ab : ba;
    }

    /**
     * A new episode of the randomized walk: the ghosts start again (the re-training slack, the wire's fault count)
     * from a settled link.
     */
    void fresh()
    {
        syncStats();
        slack[0] = 0;
        slack[1] = 0;
        faultsLeft = config.faults;
        faulty = false;
    }

    /** @return the wire's faults so far: each may cost either side one re-training more. */
    int faultsUsed()
    {
        return config.faults - faultsLeft;
    }

    /** The re-training ghost after an event (the checker's continuation calls it after each round). */
    void account()
    {
        final long[] own = new long[2];
        final long[] retrain = new long[2];
        final long[] timeouts = new long[2];
        for (int side = 0; side < 2; side++)
        {
            final CreditControl control = port(side).control;
            final long ups = control.link().ups();
            final long recoveries = control.errorRecoveries();
            retrain[side] = recoveries - statRecoveries[side];
            // an Initialize entered on its own (an up, a silent or closed peer, a peer that waits), not in answer to it
            own[side] = ups - statUps[side] - retrain[side];
            timeouts[side] = control.downs() - statDowns[side];
            statUps[side] = ups;
            statRecoveries[side] = recoveries;
            statDowns[side] = control.downs();
        }
        for (int side = 0; side < 2; side++)
        {
            // additive, so events that commute keep commuting. A timeout decides on what it has not heard: when the
            // peer was only slow it may cost the port whose timeout fired one re-training more
            slack[side] += (int)(own[1 - side] + timeouts[side] - retrain[side]);
        }
    }

    static String describe(final int event)
    {
        final int kind = kind(event);
        final String who = kind >= LOSE ? (side(event) == 0 ? "a->b" : "b->a") : (side(event) == 0 ? "a" : "b");
        return switch (kind)
        {
            case TICK -> "tick";
            case STEP -> who + " " + new String[] {"credit", "arbiter", "receive", "duty cycle"}[arg(event)];
            case OFFER, RELEASE -> NAMES[kind] + " " + who + " VL" + arg(event);
            case LOSE, DUPLICATE, DELAY -> NAMES[kind] + " " + who + " #" + arg(event);
            default -> NAMES[kind] + " " + who;
        };
    }

    /**
     * @param event an event about to be applied.
     * @return what it does in this state, for a counterexample's listing.
     */
    String explain(final int event)
    {
        final int kind = kind(event);
        if (kind >= LOSE)
        {
            final TrainingWire wire = wire(side(event));
            return TrainingWire.describe(wire.frames[arg(event)]);
        }
        return "";
    }

    // ---------------------------------------------------------------- invariants

    /**
     * @return the first invariant broken in this state, or null.
     */
    String violation()
    {
        for (int side = 0; side < 2; side++)
        {
            final TrainingPort x = port(side);
            final TrainingPort y = port(1 - side);
            final String xn = side == 0 ? "a" : "b";
            final String yn = side == 0 ? "b" : "a";
            if (x.statOverflow > 0 && config.checks(LinkTrainingConfig.OVERFLOW))
            {
                return "overflow: a data packet reached " + xn + "'s full receive buffer";
            }
            if (slack[side] < -faultsUsed() && config.checks(LinkTrainingConfig.RETRAINING))
            {
                return "re-training: " + xn + " re-trained more often than " + yn +
                    " went through Initialize on its own" + (faulty ? ", and once more a wire fault" : "");
            }
            final boolean current = x.arbiterEpoch == x.publishedEpoch;
            if (current && x.state() == LinkState.ACTIVE && config.checks(LinkTrainingConfig.CREDIT))
            {
                for (int vl = 0; vl < config.dataVls; vl++)
                {
                    // the credit X may still use, against what Y's buffer can take beside the data on its way
                    x.transmitter.onCreditLimit(vl, x.publishedCl[vl]);
                    final int available = x.transmitter.available(vl);
                    final int room = Math.min(y.bufferBlocks - y.heldBlocks[vl], Credits.MAX_CREDIT) -
                        x.inflightData(vl);
                    if (available > room)
                    {
                        return "credit beyond the buffer: " + xn + " may send " + available + " blocks on VL" + vl +
                            " where " + yn + " has room for " + room + " (CL " + x.publishedCl[vl] + ", FCTBS " +
                            x.transmitter.blocksSent(vl) + ")";
                    }
                }
                if (y.state() == LinkState.ACTIVE)
                {
                    for (int vl = 0; vl < config.dataVls; vl++)
                    {
                        if (y.abrFrame[vl] == x.arbiterEpoch && x.out.dirty[vl] == 0)
                        {
                            final int abr = y.control.receiver().blocksReceived(vl);
                            final int expected = Credits.add(abr, x.inflightData(vl) + y.pendingAccepted(vl));
                            if (expected != x.transmitter.blocksSent(vl))
                            {
                                return "FCTBS/ABR disagree on VL" + vl + ": " + xn + " sent " +
                                    x.transmitter.blocksSent(vl) + ", " + yn + " counts " + abr + " and " +
                                    (expected - abr) + " on their way";
                            }
                        }
                    }
                }
            }
        }
        return null;
    }

    String summary()
    {
        final StringBuilder out = new StringBuilder();
        for (int side = 0; side < 2; side++)
        {
            final TrainingPort p = port(side);
            out.append(side == 0 ? "a " : "; b ").append(p.control.state())
                .append(" (published ").append(p.state()).append(')')
                .append(" recoveries ").append(p.control.errorRecoveries())
                .append(" downs ").append(p.control.downs())
                .append(" ups ").append(p.control.link().ups());
        }
        return out.toString();
    }

    List<Integer> enabled()
    {
        final List<Integer> list = new ArrayList<>();
        enabled(list);
        return list;
    }
}
