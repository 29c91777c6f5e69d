package io.vlink.core.credit;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The long randomized walk of link training, beside the exhaustive check ({@link LinkTrainingCheck}): the same model,
 * the same invariants, but runs far longer than the exhaustive depth. It goes in episodes: a burst of random events
 * (steps of either side, sometimes one side starved, the clock, data offered and released, ports taken down and up,
 * frames lost, duplicated and delayed), checking the invariants after every event; then progress from where the
 * burst ended (the checker's continuation); then the link is settled and the next episode starts from there, or
 * now and then the next burst goes on from the unsettled state. Seeded: a seed and a step count name a run.
 * <pre>{@code
 * mvn -B -ntp -pl core test -Dtest=LinkTrainingWalkTest -Dvlink.walk.steps=5000000 -Dvlink.walk.seed=1
 * }</pre>
 */
final class LinkTrainingWalk
{
    private static final int MANY = 1 << 30;

    record Outcome(long steps, long episodes, long continuations, long nanos, String failure)
    {
        @Override
        public String toString()
        {
            return String.format("%,d steps in %,d episodes, %,d continuations, %.1f s%s", steps, episodes, continuations,
                nanos / 1e9, null == failure ? "" : "\n" + failure);
        }
    }

    /** The shapes of link the walk rotates through: VLs, buffer, packet size, wire, agent steps, duty-cycle order. */
    static List<LinkTrainingConfig> shapes()
    {
        final List<LinkTrainingConfig> shapes = new ArrayList<>();
        final int[][] table = {
            // data VLs, buffer blocks, packet blocks, wire frames, agent steps (0/1)
            {1, 4, 2, 4, 0},
            {1, 4, 2, 4, 1},
            {2, 4, 1, 6, 0},
            {2, 6, 3, 6, 1},
            {4, 8, 2, 8, 0},
        };
        for (final int[] row : table)
        {
            // each in both of the engine's duty-cycle orders (TrainingPort)
            for (final boolean creditBeforeReceive : new boolean[] {true, false})
            {
                shapes.add(LinkTrainingConfig.builder().dataVls(row[0]).bufferBlocks(row[1]).packetBlocks(row[2])
                    .wireCapacity(row[3]).agentSteps(row[4] == 1).creditBeforeReceive(creditBeforeReceive)
                    .offers(MANY).bounces(MANY, MANY).faults(MANY, true, true, true).build());
            }
        }
        return shapes;
    }

    /**
     * @param seed  the run's seed.
     * @param steps random events in all, across the shapes.
     * @return what happened; a failure names the shape, the seed and the events from the episode's start.
     */
    static Outcome walk(final long seed, final long steps)
    {
        final long start = System.nanoTime();
        final SplittableRandom random = new SplittableRandom(seed);
        final List<LinkTrainingConfig> shapes = shapes();
        final long perShape = steps / shapes.size();
        long done = 0;
        long episodes = 0;
        long continuations = 0;
        for (final LinkTrainingConfig config : shapes)
        {
            final LinkTrainingCheck check = new LinkTrainingCheck(config, 0);
            final LinkTrainingModel model = check.model();
            final List<Integer> enabled = new ArrayList<>();
            final List<Integer> trace = new ArrayList<>();
            long[] episodeStart = model.save();
            long shapeSteps = 0;
            while (shapeSteps < perShape)
            {
                episodes++;
                final int burst = 5 + random.nextInt(120);
                // who runs: both fairly, or one side starved for the burst (a stalled process, a slow core)
                final int starved = random.nextInt(6) < 4 ? -1 : random.nextInt(2);
                for (int i = 0; i < burst && shapeSteps < perShape; i++, shapeSteps++)
                {
                    enabled.clear();
                    model.enabled(enabled);
                    final int event = pick(random, enabled, starved, model);
                    trace.add(event);
                    model.apply(event);
                    final String broken = model.violation();
                    if (null != broken)
                    {
                        return fail(start, done + shapeSteps, episodes, continuations, config, seed, episodeStart,
                            broken, trace);
                    }
                }
                final long[] beforeContinuation = model.save();
                continuations++;
                final String stuck = check.progress();
                if (null != stuck)
                {
                    return fail(start, done + shapeSteps, episodes, continuations, config, seed, episodeStart, stuck,
                        trace);
                }
                model.restore(beforeContinuation);
                if (random.nextInt(4) != 0)
                {
                    // a new episode from a settled link: the down ports up, both sides run until both are Active
                    settle(model);
                    episodeStart = model.save();
                    trace.clear();
                }
            }
            done += shapeSteps;
        }
        return new Outcome(done, episodes, continuations, System.nanoTime() - start, null);
    }

    private static Outcome fail(
        final long start,
        final long steps,
        final long episodes,
        final long continuations,
        final LinkTrainingConfig config,
        final long seed,
        final long[] episodeStart,
        final String property,
        final List<Integer> trace)
    {
        final LinkTrainingCheck.Counterexample example =
            LinkTrainingCheck.Counterexample.shrink(config, episodeStart, property, trace);
        return new Outcome(steps, episodes, continuations, System.nanoTime() - start,
            "seed " + seed + ", shape " + config + "\n" + example);
    }

    private static void settle(final LinkTrainingModel model)
    {
        for (final TrainingPort port : new TrainingPort[] {model.a, model.b})
        {
            if (port.lastCommand == TrainingPort.COMMAND_DOWN)
            {
                port.command(TrainingPort.COMMAND_UP);
            }
        }
        for (int round = 0; round < LinkTrainingCheck.ACTIVE_ROUNDS &&
            !(model.a.state() == LinkState.ACTIVE && model.b.state() == LinkState.ACTIVE); round++)
        {
            LinkTrainingCheck.round(model, true);
        }
        LinkTrainingCheck.settle(model);
        model.fresh();
    }

    private static int pick(
        final SplittableRandom random, final List<Integer> enabled, final int starved, final LinkTrainingModel model)
    {
        // weights by kind: steps most, then the clock and the applications, ports and faults seldom
        int total = 0;
        final int[] weights = new int[enabled.size()];
        for (int i = 0; i < weights.length; i++)
        {
            final int event = enabled.get(i);
            final int kind = LinkTrainingModel.kind(event);
            weights[i] = switch (kind)
            {
                case LinkTrainingModel.STEP -> LinkTrainingModel.side(event) == starved ? 0 : 30;
                case LinkTrainingModel.TICK -> 8;
                case LinkTrainingModel.OFFER, LinkTrainingModel.RELEASE -> 6;
                case LinkTrainingModel.DOWN, LinkTrainingModel.UP -> 1;
                default -> 1;
            };
            total += weights[i];
        }
        int r = random.nextInt(total);
        for (int i = 0; i < weights.length; i++)
        {
            r -= weights[i];
            if (r < 0)
            {
                return enabled.get(i);
            }
        }
        return enabled.get(0);
    }

    /**
     * @param args the steps (default 2,000,000) and the seed (default 1).
     */
    public static void main(final String[] args)
    {
        final long steps = args.length > 0 ? Long.parseLong(args[0].replace("_", "")) : 2_000_000L;
        final long seed = args.length > 1 ? Long.parseLong(args[1]) : 1L;
        final Outcome outcome = walk(seed, steps);
        System.out.println("link-training walk, seed " + seed + ": " + outcome);
        if (null != outcome.failure())
        {
            System.exit(1);
        }
    }
}
