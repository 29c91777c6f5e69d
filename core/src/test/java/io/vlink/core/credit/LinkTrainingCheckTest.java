package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exhaustive check of link training ({@link LinkTrainingCheck}, docs/flow-control.md, "Checking the rule"): every
 * interleaving up to a depth, for each shape of link and set of events below. A broken property fails the test with the
 * events that lead to it. {@code -Dvlink.check.deeper=N} adds N events to every depth, {@code -Dvlink.check.depth=N}
 * sets them all (each event more takes about 2.5 times as long);
 * {@code -Dvlink.check.verbose=true} lists every FCP of a counterexample's continuation.
 */
class LinkTrainingCheckTest
{
    /**
     * A silence limit, hence a wait limit, of 48 FCP periods: out of the continuation's reach (40), while rule 4's window
     * (a quarter of it, 12 periods) and rounds are within it.
     */
    private static final long NO_WAIT_LIMIT_NS = 48L * 1_000;

    static Stream<Arguments> shapes()
    {
        return Stream.of(
            Arguments.of("a bounced, b up (duty cycles)", LinkTrainingConfig.builder().bounces(1, 0).build(), 10),
            Arguments.of("a bounced, b up (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 0).agentSteps(true).build(), 11),
            Arguments.of("a bounced twice", LinkTrainingConfig.builder().bounces(2, 0).offers(1).build(), 10),
            Arguments.of("both bounced", LinkTrainingConfig.builder().bounces(1, 1).offers(1).build(), 10),
            Arguments.of("both bounced (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 1).offers(1).agentSteps(true).build(), 11),
            Arguments.of("bring-up, a bounced", LinkTrainingConfig.builder().bounces(1, 0).startActive(false).build(), 12),
            Arguments.of("bring-up, both bounced",
                LinkTrainingConfig.builder().bounces(1, 1).offers(1).startActive(false).build(), 11),
            Arguments.of("two VLs, a bounced", LinkTrainingConfig.builder().dataVls(2).offers(1).bounces(1, 0).build(), 9),
            Arguments.of("a bounced, a frame lost",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).faults(1, true, false, false).build(), 10),
            Arguments.of("a bounced, an FCP duplicated or a frame delayed",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).faults(1, false, true, true).build(), 10),
            Arguments.of("up, a frame lost",
                LinkTrainingConfig.builder().bounces(0, 0).faults(1, true, false, false).build(), 10));
    }

    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void everyInterleavingKeepsTheInvariantsAndProgresses(final String name, final LinkTrainingConfig config,
        final int depth)
    {
        passes(name, config, depth, List.of());
    }

    /**
     * The shapes above run each port's agents in invoker mode's order (arbiter, credit, the arbiter's second turn,
     * receive); these in the order of a thread the application does not poll on (arbiter, receive, credit, the
     * arbiter's second turn): nic's {@code DutyCycle} runs both.
     */
    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("receiveBeforeCredit")
    void inTheOtherDutyCycleOrderEveryInterleavingKeepsTheInvariantsAndProgresses(final String name,
        final LinkTrainingConfig config, final int depth)
    {
        passes(name, config, depth, List.of());
    }

    static Stream<Arguments> receiveBeforeCredit()
    {
        return Stream.of(
            Arguments.of("a bounced, b up (duty cycles, receive before credit)",
                LinkTrainingConfig.builder().bounces(1, 0).creditBeforeReceive(false).build(), 10),
            Arguments.of("both bounced (agent turns, receive before credit)",
                LinkTrainingConfig.builder().bounces(1, 1).offers(1).agentSteps(true).creditBeforeReceive(false).build(),
                10),
            Arguments.of("a bounced, a frame lost (receive before credit)",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).faults(1, true, false, false)
                    .creditBeforeReceive(false).build(), 10));
    }

    private static void passes(final String name, final LinkTrainingConfig config, final int depth,
        final List<Integer> prefix)
    {
        final LinkTrainingCheck.Result result = new LinkTrainingCheck(config,
            Integer.getInteger("vlink.check.depth", depth + Integer.getInteger("vlink.check.deeper", 0)), prefix).run();
        System.out.println("link-training check, " + name + " (" + config + "): " + result);
        assertNull(result.failure(), result::toString);
        assertTrue(result.states() > 1_000, "the search went somewhere: " + result);
    }

    /**
     * A port that goes down alone on its silence limit while its peer, starved (it runs not at all), stays Active with
     * data on the way (the suspected cause of the two-JVM UDP bounce test's failure under load): the prefix below gets there, deeper than the
     * shapes above reach, and every interleaving from there must bring both back, each side re-training at most once.
     */
    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("starved")
    void aPortDownOnItsSilenceLimitWhileItsPeerStaysActiveComesBack(final String name, final LinkTrainingConfig config,
        final List<Integer> prefix, final int depth)
    {
        passes(name, config, depth, prefix);
    }

    /**
     * With the wait limit (rules 5 and 6) beyond the continuation's 40 FCP periods, a bounce of ports that have been
     * Active a while (both run three FCP periods before the search starts) must settle on FCP round trips and rule 4
     * alone: the peer re-trains and waits for the bounced port's restart, which rule 4 makes after its window (12 FCP
     * periods) and two rounds, as after an unsettled bounce ({@link #anUnsettledBounceSettlesWithoutTheWaitLimit}).
     */
    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("noWaitLimit")
    void aSettledBounceNeedsNoWaitLimit(final String name, final LinkTrainingConfig config, final int depth)
    {
        passes(name, config, depth, settledPrefix());
    }

    static Stream<Arguments> noWaitLimit()
    {
        return Stream.of(
            Arguments.of("settled, a bounced, b up, no wait limit (duty cycles)",
                LinkTrainingConfig.builder().bounces(1, 0).silenceLimitNs(NO_WAIT_LIMIT_NS).build(), 9),
            Arguments.of("settled, a bounced, b up, no wait limit (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 0).agentSteps(true).silenceLimitNs(NO_WAIT_LIMIT_NS).build(), 12));
    }

    /**
     * Without the wait limit, unsettled (both Active a moment ago) with data offered: a bounce must settle on round trips
     * and rule 4's re-initialization alone, in duty cycles and in agent turns.
     */
    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("unsettledNoWaitLimit")
    void anUnsettledLinkNeedsNoWaitLimit(final String name, final LinkTrainingConfig config, final int depth)
    {
        passes(name, config, depth, List.of());
    }

    static Stream<Arguments> unsettledNoWaitLimit()
    {
        return Stream.of(
            Arguments.of("unsettled, a bounced, b up, no wait limit",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).silenceLimitNs(NO_WAIT_LIMIT_NS).build(), 10),
            Arguments.of("unsettled, a bounced, b up, no wait limit (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).agentSteps(true).silenceLimitNs(NO_WAIT_LIMIT_NS)
                    .build(), 11),
            Arguments.of("bring-up, a bounced, no wait limit",
                LinkTrainingConfig.builder().bounces(1, 0).offers(1).startActive(false).silenceLimitNs(NO_WAIT_LIMIT_NS)
                    .build(), 11));
    }

    private static List<Integer> settledPrefix()
    {
        final List<Integer> prefix = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            prefix.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
            prefix.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
            prefix.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        }
        return prefix;
    }

    /**
     * A port bounced while its peer has been Active for less than two FCP periods (unsettled) settles without the wait
     * limit (docs/flow-control.md, "Link training", rule 4). The peer re-trains and waits {@code AWAIT_RESTART}, as after
     * any re-training (for an init FCP after the bounced port's normal ones); the bounced port arms on the peer's new init FCPs and,
     * hearing nothing but init FCPs two FCP periods after its first normal FCP went out and then in two rounds,
     * initializes again, and its init FCP after its normal ones ends the peer's wait. Before rule 4 the search below found, in five events (down a, a's duty cycle,
     * up a, a's duty cycle, b's duty cycle), a state from which only the wait limit went on.
     */
    @Test
    void anUnsettledBounceSettlesWithoutTheWaitLimit()
    {
        final LinkTrainingConfig config = LinkTrainingConfig.builder().bounces(1, 0).offers(0)
            .silenceLimitNs(NO_WAIT_LIMIT_NS).build();
        final LinkTrainingCheck.Result result = new LinkTrainingCheck(config,
            Integer.getInteger("vlink.check.depth", 11 + Integer.getInteger("vlink.check.deeper", 0))).run();
        System.out.println("link-training check, an unsettled bounce without the wait limit (" + config + "): " + result);
        assertNull(result.failure(), result::toString);
        assertTrue(result.states() > 1_000, "the search went somewhere: " + result);
    }

    /**
     * The walk's seed-99 episode (docs/flow-control.md, "Link training", rule 3, "Why not the peer's next init FCP"), from
     * a settled link: a bounced with data offered, b runs once (its normal FCP duplicated) while a is Down, then a runs
     * alone for ten FCP periods in Initialize, its init FCPs filling the link and its requests queued behind them, until b
     * runs: b re-trains and arms, a arms and goes Active with its backlog of init FCPs still going out, b initializes
     * again on them (rule 4) and arms on a's normal FCPs. When a port that re-trained from a settled incarnation waited
     * {@code AWAIT_INIT}, a then ended its wait on an init FCP b had asked for before it heard a's, and took an FCCL of
     * b's that counted a's previous incarnation: credit beyond the buffer (a may send 6 blocks where b has room for 4).
     * Every interleaving of a few events more from there.
     */
    @Tag("long")
    @Test
    void aRetrainedPortWaitsForItsPeersRestartNotItsBacklog()
    {
        final LinkTrainingConfig config = LinkTrainingConfig.builder().dataVls(1).bufferBlocks(4).packetBlocks(2)
            .wireCapacity(4).offers(2).bounces(1, 0).faults(2, true, true, true).build();
        passes("the walk's seed-99 episode", config, 8, seed99Prefix());
    }

    static List<Integer> seed99Prefix()
    {
        final List<Integer> events = settledPrefix();
        events.add(LinkTrainingModel.event(LinkTrainingModel.OFFER, 0, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.DOWN, 0, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        events.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        // b's normal FCP on the wire to a, duplicated
        events.add(LinkTrainingModel.event(LinkTrainingModel.DUPLICATE, 1, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.UP, 0, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        for (int i = 0; i < 10; i++)
        {
            events.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
            events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        }
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        events.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        events.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
        return events;
    }

    /**
     * The walk's seed-7 episode (docs/flow-control.md, "Link training", rule 4's window and the pause bound), from a
     * settled link: both ports bounced, both arm, then b is starved for {@link #SEED7_PAUSE_PERIODS} FCP periods while a
     * runs alone, goes down on its silence limit and sends init FCPs behind its last normal ones. b's first duty cycle
     * after the pause reads a's normal FCPs (opening rule 4's window at that moment) and then measures the pause: when it
     * shifted the window's start, just set, by the whole pause, the window ran a pause late and b initialized again only
     * 38 FCP periods after the faults ended (both Active at 40). Every interleaving of a few events more from there.
     */
    @Tag("long")
    @ParameterizedTest(name = "{0}")
    @MethodSource("seed7")
    void aPausedPortsWindowOpensWhenItHearsItsPeerNotAPauseLater(final String name, final LinkTrainingConfig config,
        final int depth)
    {
        passes(name, config, depth, seed7Prefix(config));
    }

    static Stream<Arguments> seed7()
    {
        return Stream.of(
            Arguments.of("the walk's seed-7 episode (receive before credit)", seed7Config(false), 8),
            Arguments.of("the walk's seed-7 episode (credit before receive)", seed7Config(true), 8));
    }

    private static LinkTrainingConfig seed7Config(final boolean creditBeforeReceive)
    {
        return LinkTrainingConfig.builder().dataVls(2).bufferBlocks(4).packetBlocks(1).wireCapacity(6).offers(1)
            .bounces(1, 1).faults(1, true, true, true).creditBeforeReceive(creditBeforeReceive).build();
    }

    /** How long the seed-7 episode starves b: as long as the walk did (34 FCP periods), and more. */
    private static final int SEED7_PAUSE_PERIODS = 36;

    /**
     * The seed-7 episode's events for a shape: played on a model of the shape as they are chosen, to lose on the wire
     * each normal FCP of VL1 that a sends while Armed (b then hears a only in normal FCPs of VL0, which do not make it
     * Active).
     */
    static List<Integer> seed7Prefix(final LinkTrainingConfig config)
    {
        final LinkTrainingModel model = new LinkTrainingModel(config);
        LinkTrainingCheck.start(model);
        final List<Integer> events = new ArrayList<>();
        for (final int event : settledPrefix())
        {
            play(model, events, event);
        }
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.DOWN, 1, 0));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.DOWN, 0, 0));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.UP, 0, 0));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.UP, 1, 0));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        // b starved from here: a alone, Armed, then down on its silence limit, then in Initialize
        play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        for (int i = 0; i < SEED7_PAUSE_PERIODS; i++)
        {
            play(model, events, LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
            play(model, events, LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        }
        return events;
    }

    private static void play(final LinkTrainingModel model, final List<Integer> events, final int event)
    {
        events.add(event);
        model.apply(event);
        final TrainingWire wire = model.ab;
        for (int i = wire.count - 1; i >= 0; i--)
        {
            final long frame = wire.frames[i];
            if (!TrainingWire.isData(frame) && Fcp.OP_NORMAL == Fcp.op(TrainingWire.word(frame)) &&
                1 == TrainingWire.vl(frame) && LinkState.ARMED == model.a.state())
            {
                final int lose = LinkTrainingModel.event(LinkTrainingModel.LOSE, 0, i);
                events.add(lose);
                model.apply(lose);
            }
        }
    }

    @Test
    void theSeed7PrefixStarvesBWhileAGoesDownAlone()
    {
        final List<Integer> prefix = seed7Prefix(seed7Config(false));
        System.out.println("the seed-7 prefix: " + prefix.size() + " events, " +
            prefix.stream().filter(e -> LinkTrainingModel.kind(e) == LinkTrainingModel.LOSE).count() + " lost frames");
        assertTrue(prefix.stream().anyMatch(e -> LinkTrainingModel.kind(e) == LinkTrainingModel.LOSE),
            "a's normal FCPs of VL1 lost");
        final LinkTrainingCheck check = new LinkTrainingCheck(seed7Config(false), 0, prefix);
        final LinkTrainingModel model = check.model();
        assertEquals(LinkState.INITIALIZE, model.a.state(), model.summary());
        assertEquals(LinkState.ARMED, model.b.state(), model.summary());
        assertEquals(1, model.a.control.downs(), model.summary());
    }

    static Stream<Arguments> starved()
    {
        return Stream.of(
            Arguments.of("a down on its silence limit, b starved, data a to b",
                LinkTrainingConfig.builder().bounces(0, 0).offers(2).build(), starvedPrefix(true, false), 10),
            Arguments.of("a down on its silence limit, b starved, data both ways",
                LinkTrainingConfig.builder().bounces(0, 0).offers(2).build(), starvedPrefix(true, true), 10),
            Arguments.of("a down on its silence limit, b starved, a frame lost",
                LinkTrainingConfig.builder().bounces(0, 0).offers(1).faults(1, true, false, false).build(),
                starvedPrefix(true, false), 9));
    }

    /**
     * Data offered, then a runs alone, one duty cycle an FCP period, until its silence limit takes it down.
     */
    static List<Integer> starvedPrefix(final boolean fromA, final boolean fromB)
    {
        final List<Integer> events = new ArrayList<>();
        if (fromA)
        {
            events.add(LinkTrainingModel.event(LinkTrainingModel.OFFER, 0, 0));
        }
        if (fromB)
        {
            events.add(LinkTrainingModel.event(LinkTrainingModel.OFFER, 1, 0));
            events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 1, LinkTrainingModel.CYCLE));
        }
        for (int i = 0; i < 6; i++)
        {
            events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
            events.add(LinkTrainingModel.event(LinkTrainingModel.TICK, 0, 0));
        }
        events.add(LinkTrainingModel.event(LinkTrainingModel.STEP, 0, LinkTrainingModel.CYCLE));
        return events;
    }

    @Test
    void theStarvedPrefixTakesAOnlyDown()
    {
        final LinkTrainingCheck check = new LinkTrainingCheck(LinkTrainingConfig.builder().bounces(0, 0).build(), 0,
            starvedPrefix(true, false));
        assertEquals(1, check.model().a.control.downs(), check.model().summary());
        assertEquals(LinkState.INITIALIZE, check.model().a.state(), check.model().summary());
        assertEquals(LinkState.ACTIVE, check.model().b.state(), check.model().summary());
    }

    /**
     * The checker's test of itself, on the rule before this one ({@link PreviousTrainingRule}) with data offered: in a
     * handful of events and without a wire fault it finds a port bounced alone that takes credit beyond its peer's
     * buffer, and, the credit properties set aside, the ping-pong of issue 27: the bounced port re-trains after its
     * peer re-trained, where it should never re-train.
     */
    @Test
    void failsOnThePreviousRuleWithThePingPong()
    {
        final LinkTrainingCheck.Counterexample any = previousRule(LinkTrainingConfig.ALL);
        assertTrue(any.property().startsWith("credit beyond the buffer"), any::toString);
        final LinkTrainingCheck.Counterexample pingPong = previousRule(LinkTrainingConfig.RETRAINING);
        assertTrue(pingPong.property().startsWith("re-training: a re-trained more often than b"), pingPong::toString);
        assertTrue(pingPong.listing().contains("INITIALIZE (re-trained: link error)"), pingPong::toString);
    }

    private static LinkTrainingCheck.Counterexample previousRule(final int properties)
    {
        final LinkTrainingConfig config =
            LinkTrainingConfig.builder().bounces(1, 0).previousRule(true).properties(properties).build();
        final LinkTrainingCheck.Result result = new LinkTrainingCheck(config, 6).run();
        System.out.println("link-training check, the previous rule (" + config + "): " + result);
        assertNotNull(result.failure(), "the checker fails on the previous rule: " + result);
        assertTrue(result.failure().events().size() <= 6, result::toString);
        assertTrue(result.failure().events().stream().noneMatch(e -> LinkTrainingModel.describe(e).contains("->")),
            "no wire fault: " + result);
        return result.failure();
    }
}
