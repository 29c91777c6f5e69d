package io.vlink.core.credit;

import org.agrona.collections.Long2LongHashMap;

import java.util.ArrayList;
import java.util.List;

/**
 * An exhaustive check of link training on the classes the engine ships, TLA+-style: from a start state, every
 * interleaving of the model's events ({@link LinkTrainingModel}) up to a depth, states named by a 64-bit fingerprint
 * so each is explored once (again only when reached with more depth left). At every state the safety invariants
 * hold ({@link LinkTrainingModel#violation()}) and progress holds ({@link #progress()}): once faults stop (a port
 * taken down is brought up again, the wire is clean, both sides keep running, the applications drain their buffers,
 * the clock moves one FCP period a round), both ports are Active within {@link #ACTIVE_ROUNDS} rounds and stay so,
 * each side re-trains at most once on the way, everything queued is delivered, and the credits agree exactly: ABR
 * equals FCTBS and CL equals FCCL in both directions. A broken property is reported with the shortest-found list of
 * events that leads to it, replayed with each step's effect ({@link Counterexample}).
 */
final class LinkTrainingCheck
{
    /** Rounds of the fault-free continuation within which both ports must be Active (the silence limit and more). */
    static final int ACTIVE_ROUNDS = 40;
    /** Rounds both must then stay Active without a transition. */
    static final int STABLE_ROUNDS = 12;

    private final LinkTrainingConfig config;
    private final int depth;
    private final LinkTrainingModel model;
    private final long[] initial;
    private final Long2LongHashMap visited = new Long2LongHashMap(-1);
    private final Long2LongHashMap memo = new Long2LongHashMap(-1);
    private final long[][] saved;
    private final int[] trace;
    private final List<List<Integer>> enabled = new ArrayList<>();
    private long transitions;
    private long progressChecks;
    /** When set, the continuation writes each state a port enters. */
    private StringBuilder log;
    private Counterexample failure;

    /**
     * @param config the ports, the link and the event budgets.
     * @param depth  the most events in a run.
     */
    LinkTrainingCheck(final LinkTrainingConfig config, final int depth)
    {
        this(config, depth, List.of());
    }

    /**
     * @param config the ports, the link and the event budgets.
     * @param depth  the most events in a run after the prefix.
     * @param prefix events applied to the start state, in order, to reach the state the search starts from (a shape
     *               deeper than the search could reach by itself, such as a port starved past its peer's silence limit).
     */
    LinkTrainingCheck(final LinkTrainingConfig config, final int depth, final List<Integer> prefix)
    {
        this.config = config;
        this.depth = depth;
        model = new LinkTrainingModel(config);
        start(model);
        for (final int event : prefix)
        {
            model.apply(event);
            final String broken = model.violation();
            if (null != broken)
            {
                throw new IllegalStateException("the prefix breaks " + broken + " at " + LinkTrainingModel.describe(event));
            }
        }
        initial = model.save();
        saved = new long[depth + 1][model.codec().length()];
        trace = new int[depth];
        for (int i = 0; i <= depth; i++)
        {
            enabled.add(new ArrayList<>());
        }
    }

    /**
     * The start state: both ports Active on a clean, empty wire (brought up by the same continuation progress uses),
     * or both Down with an up command waiting.
     */
    static void start(final LinkTrainingModel model)
    {
        model.a.command(TrainingPort.COMMAND_UP);
        model.b.command(TrainingPort.COMMAND_UP);
        if (model.config.startActive)
        {
            for (int round = 0; round < ACTIVE_ROUNDS &&
                !(model.a.state() == LinkState.ACTIVE && model.b.state() == LinkState.ACTIVE); round++)
            {
                round(model, true);
            }
            settle(model);
            if (model.a.state() != LinkState.ACTIVE || model.b.state() != LinkState.ACTIVE)
            {
                throw new IllegalStateException("the ports do not come up: " + model.summary());
            }
        }
        model.syncStats();
        model.slack[0] = 0;
        model.slack[1] = 0;
    }

    LinkTrainingModel model()
    {
        return model;
    }

    record Result(long states, long transitions, long progressChecks, long nanos, int depth, Counterexample failure)
    {
        @Override
        public String toString()
        {
            return String.format("%,d states, %,d transitions, %,d continuations, depth %d, %.2f s%s", states,
                transitions, progressChecks, depth, nanos / 1e9, null == failure ? "" : "\n" + failure);
        }
    }

    Result run()
    {
        final long start = System.nanoTime();
        model.restore(initial);
        explore(0);
        return new Result(visited.size(), transitions, progressChecks, System.nanoTime() - start, depth, failure);
    }

    /**
     * @param level how many events led here.
     */
    private boolean explore(final int level)
    {
        final long fingerprint = model.fingerprint();
        final int remaining = depth - level;
        if (visited.get(fingerprint) >= remaining)
        {
            return false;
        }
        visited.put(fingerprint, remaining);
        final long[] here = saved[level];
        model.save(here);
        final String stuck = progress();
        if (null != stuck)
        {
            failure = counterexample(stuck, level);
            return true;
        }
        model.restore(here);
        if (remaining == 0)
        {
            return false;
        }
        final List<Integer> events = enabled.get(level);
        events.clear();
        model.enabled(events);
        for (int i = 0; i < events.size(); i++)
        {
            final int event = events.get(i);
            model.restore(here);
            model.apply(event);
            transitions++;
            trace[level] = event;
            final String broken = model.violation();
            if (null != broken)
            {
                failure = counterexample(broken, level + 1);
                return true;
            }
            if (explore(level + 1))
            {
                return true;
            }
        }
        return false;
    }

    private Counterexample counterexample(final String property, final int length)
    {
        final List<Integer> events = new ArrayList<>(length);
        for (int i = 0; i < length; i++)
        {
            events.add(trace[i]);
        }
        return Counterexample.shrink(config, initial, property, events);
    }

    // ---------------------------------------------------------------- progress

    /**
     * One round of the fault-free continuation: each side runs one whole duty cycle (its agents in the engine's order,
     * from wherever its thread is), the applications take everything their buffers hold, and the clock moves one tick.
     */
    static void round(final LinkTrainingModel model, final boolean tick)
    {
        model.a.cycle();
        model.b.cycle();
        drain(model.a);
        drain(model.b);
        if (tick)
        {
            model.clock[0] += model.config.tickNs;
        }
    }

    private static void drain(final TrainingPort port)
    {
        for (int vl = 0; vl < port.dataVls; vl++)
        {
            while (port.mayRelease(vl))
            {
                port.release(vl);
            }
        }
    }

    private static boolean quiet(final LinkTrainingModel model)
    {
        for (final TrainingPort port : new TrainingPort[] {model.a, model.b})
        {
            if (port.out.count > 0 || port.eventCount > 0 || port.requestCount > 0)
            {
                return false;
            }
        }
        return true;
    }

    /** Rounds without the clock until nothing moves: every frame delivered, every event and request taken. */
    static void settle(final LinkTrainingModel model)
    {
        for (int i = 0; i < 20 && !quiet(model); i++)
        {
            round(model, false);
        }
    }

    /** The re-training ghost's count for {@code port}: its peer's own Initialize entries and its own timeouts, less
     * its re-trainings ({@link LinkTrainingModel#account()}). */
    private static long slackOf(final TrainingPort port, final TrainingPort peer)
    {
        return own(peer) + port.control.downs() - port.control.errorRecoveries();
    }

    /** Initialize entries of the port's own: an up, a silent or closed peer (link_downed); not a re-training. */
    private static long own(final TrainingPort port)
    {
        return port.control.link().ups() - port.control.errorRecoveries();
    }

    /**
     * From the current state, with no more faults: the ports taken down come up again and the continuation runs.
     *
     * @return null, or what failed to happen. The model is left anywhere: restore it.
     */
    String progress()
    {
        progressChecks++;
        for (final TrainingPort port : new TrainingPort[] {model.a, model.b})
        {
            if (port.lastCommand == TrainingPort.COMMAND_DOWN)
            {
                port.command(TrainingPort.COMMAND_UP);
            }
        }
        final long[] path = new long[ACTIVE_ROUNDS + 1];
        // per side, the peer's own Initialize entries less this side's re-trainings, since the continuation began
        final long[][] delta = new long[ACTIVE_ROUNDS + 1][2];
        final long[] base = {slackOf(model.a, model.b), slackOf(model.b, model.a)};
        int activeAt = -1;
        long memoHit = -1;
        int round = 0;
        for (; round <= ACTIVE_ROUNDS; round++)
        {
            final long key = model.fingerprint(false);
            path[round] = key;
            delta[round][0] = slackOf(model.a, model.b) - base[0];
            delta[round][1] = slackOf(model.b, model.a) - base[1];
            memoHit = memo.get(key);
            if (memoHit >= 0)
            {
                break;
            }
            for (int k = 0; k < round; k++)
            {
                if (path[k] == key)
                {
                    return "livelock: the same state again after " + (round - k) + " rounds without both ports Active " +
                        "for good (" + model.summary() + ")";
                }
            }
            if (model.a.state() == LinkState.ACTIVE && model.b.state() == LinkState.ACTIVE)
            {
                final String stable = stable();
                if (null == stable)
                {
                    activeAt = round;
                    break;
                }
                if (!stable.startsWith("left"))
                {
                    return stable;
                }
            }
            if (null != log)
            {
                logRound(round);
            }
            else
            {
                round(model, true);
            }
            model.account();
            final String broken = model.violation();
            if (null != broken)
            {
                return broken + " (in the continuation, round " + round + ")";
            }
        }
        final int end = memoHit >= 0 ? round : activeAt;
        if (end < 0)
        {
            return "no progress: not both Active for good within " + ACTIVE_ROUNDS + " FCP periods of the faults " +
                "ending (" + model.summary() + ")";
        }
        // from each position of the path to the end (and on through the memo's), the rounds to go and the lowest
        // the re-training slack of each side falls below its value there
        final long endRounds = memoHit >= 0 ? memoHit >>> 16 : 0;
        final long[] endLow = memoHit >= 0 ? new long[] {-((memoHit >>> 8) & 0xFF), -(memoHit & 0xFF)} : new long[2];
        final long[] low = endLow.clone();
        for (int k = end; k >= 0; k--)
        {
            for (int side = 0; side < 2; side++)
            {
                if (k < end)
                {
                    low[side] = Math.min(0, delta[k + 1][side] - delta[k][side] + low[side]);
                }
            }
            if (k < end || memoHit < 0)
            {
                memo.put(path[k], (end - k + endRounds) << 16 | Math.min(0xFF, -low[0]) << 8 | Math.min(0xFF, -low[1]));
            }
        }
        if (end + endRounds > ACTIVE_ROUNDS)
        {
            return "no progress: both Active for good only after " + (end + endRounds) + " FCP periods";
        }
        // the path's own rounds were checked round by round (violation()); what the memo's suffix adds is checked here
        for (int side = 0; side < 2; side++)
        {
            if (memoHit >= 0 && model.slack[side] + endLow[side] < -model.faultsUsed())
            {
                return "re-training: " + (side == 0 ? "a" : "b") + " re-trains more often than " +
                    (side == 0 ? "b" : "a") + " goes through Initialize on its own, once faults stopped";
            }
        }
        return null;
    }

    private void logRound(final int round)
    {
        final String[] agents = {"credit", "arbiter", "receive"};
        for (final TrainingPort port : new TrainingPort[] {model.a, model.b})
        {
            // one whole duty cycle, as round() runs it, turn by turn
            for (int k = 0; k < TrainingPort.TURNS; )
            {
                final String agent = agents[port.turn()];
                final long before = port.statTransitions;
                final long recoveries = port.control.errorRecoveries() + port.control.downs();
                k += port.step();
                if (port.statTransitions != before)
                {
                    log.append(String.format("     round %2d %s %-7s -> %s%s%n", round, port == model.a ? "a" : "b",
                        agent, port.control.state(), port.control.errorRecoveries() + port.control.downs() != recoveries ?
                        " (re-trained: link error)" : ""));
                }
            }
        }
        drain(model.a);
        drain(model.b);
        model.clock[0] += model.config.tickNs;
    }

    /**
     * Both are Active now: they must stay so, without a transition, for {@link #STABLE_ROUNDS} rounds, and then the
     * credits must agree exactly once the wire is quiet.
     *
     * @return null, a reason they did not stay Active, or a credit disagreement ("credits ...").
     */
    private String stable()
    {
        final long[] here = model.save();
        // trial rounds, rolled back: not part of a counterexample's listing
        final StringBuilder logA = model.a.log;
        final StringBuilder logB = model.b.log;
        model.a.log = null;
        model.b.log = null;
        final long transitionsA = model.a.statTransitions;
        final long transitionsB = model.b.statTransitions;
        String result = null;
        for (int i = 0; i < STABLE_ROUNDS && null == result; i++)
        {
            round(model, true);
            if (model.a.statTransitions != transitionsA || model.b.statTransitions != transitionsB)
            {
                result = "left Active";
            }
            else if (null != model.violation())
            {
                result = model.violation() + " (in the continuation, both Active)";
            }
        }
        if (null == result)
        {
            settle(model);
            model.clock[0] += model.config.fcpPeriodNs;
            settle(model);
            result = model.config.checks(LinkTrainingConfig.CREDIT) ? agreement(model) : null;
        }
        model.restore(here);
        model.a.log = logA;
        model.b.log = logB;
        return result;
    }

    /**
     * @return null if, on a quiet wire with both Active, each direction's counts agree exactly and nothing waits.
     */
    static String agreement(final LinkTrainingModel model)
    {
        for (int side = 0; side < 2; side++)
        {
            final TrainingPort x = model.port(side);
            final TrainingPort y = model.port(1 - side);
            final String name = side == 0 ? "a->b" : "b->a";
            if (!quiet(model))
            {
                return "credits: the wire does not go quiet";
            }
            for (int vl = 0; vl < x.dataVls; vl++)
            {
                final int fctbs = x.transmitter.blocksSent(vl);
                final int abr = y.control.receiver().blocksReceived(vl);
                final int fccl = y.control.receiver().fccl(vl);
                final int cl = x.publishedCl[vl];
                if (fctbs != abr || cl != fccl)
                {
                    return "credits: " + name + " VL" + vl + " FCTBS " + fctbs + " ABR " + abr + ", CL " + cl +
                        " FCCL " + fccl + " once the wire is quiet";
                }
                if (x.queuedCount[vl] > 0)
                {
                    return "credits: " + name + " VL" + vl + " keeps " + x.queuedCount[vl] + " packets queued";
                }
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- counterexamples

    /**
     * A run that breaks a property: the events from the start state, each with what it did.
     */
    record Counterexample(String property, List<Integer> events, String listing)
    {
        static Counterexample shrink(
            final LinkTrainingConfig config, final long[] initial, final String property, final List<Integer> events)
        {
            final String kind = property.substring(0, property.indexOf(':') < 0 ? property.length() :
                property.indexOf(':'));
            List<Integer> best = new ArrayList<>(events);
            String bestProperty = property;
            boolean shrunk = true;
            while (shrunk)
            {
                shrunk = false;
                for (int i = best.size() - 1; i >= 0; i--)
                {
                    final List<Integer> candidate = new ArrayList<>(best);
                    candidate.remove(i);
                    final String broken = replay(config, initial, candidate, null);
                    if (null != broken && broken.startsWith(kind))
                    {
                        best = candidate;
                        bestProperty = broken;
                        shrunk = true;
                    }
                }
            }
            final StringBuilder listing = new StringBuilder();
            replay(config, initial, best, listing);
            return new Counterexample(bestProperty, best, listing.toString());
        }

        /**
         * @return the property the events break (an invariant on the way, or progress at the end), or null.
         */
        static String replay(
            final LinkTrainingConfig config, final long[] initial, final List<Integer> events, final StringBuilder out)
        {
            final LinkTrainingCheck check = new LinkTrainingCheck(config, 0);
            final LinkTrainingModel model = check.model;
            model.restore(initial);
            if (null != out)
            {
                out.append("  start: ").append(model.summary()).append('\n');
            }
            int n = 0;
            for (final int event : events)
            {
                if (!model.enabled().contains(event))
                {
                    return null;
                }
                n++;
                final String what = model.explain(event);
                model.apply(event);
                if (null != out)
                {
                    out.append(String.format("  %2d %-16s %-40s %s%n", n, LinkTrainingModel.describe(event), what,
                        model.summary()));
                }
                final String broken = model.violation();
                if (null != broken)
                {
                    return broken;
                }
            }
            final long[] before = model.save();
            final String stuck = check.progress();
            if (null != stuck && null != out)
            {
                model.restore(before);
                check.log = new StringBuilder();
                if (Boolean.getBoolean("vlink.check.verbose"))
                {
                    model.a.log = check.log;
                    model.b.log = check.log;
                    model.a.name = "a";
                    model.b.name = "b";
                }
                check.progress();
                model.a.log = null;
                model.b.log = null;
                out.append("  then, with no more faults (ports taken down brought up, both sides running, buffers " +
                    "drained, one FCP period a round):\n").append(check.log).append("  ").append(stuck).append('\n');
            }
            return stuck;
        }

        @Override
        public String toString()
        {
            return "counterexample (" + events.size() + " events): " + property + "\n" + listing;
        }
    }
}
