package io.vlink.core.credit;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exhaustive check of link training ({@link LinkTrainingCheck}, docs/flow-control.md, "Checking the rule"): every
 * interleaving up to a depth, for each shape of link and set of events below. A broken property fails the test with the
 * events that lead to it. {@code -Dvlink.check.deeper=N} adds N events to every depth, {@code -Dvlink.check.depth=N}
 * sets them all (each event more takes about 2.5 times as long);
 * {@code -Dvlink.check.verbose=true} lists every FCP of a counterexample's continuation.
 */
@Tag("long")
class LinkTrainingCheckTest
{
    static Stream<Arguments> shapes()
    {
        return Stream.of(
            Arguments.of("a bounced, b up (duty cycles)", LinkTrainingConfig.builder().bounces(1, 0).build(), 10),
            Arguments.of("a bounced, b up (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 0).agentSteps(true).build(), 11),
            Arguments.of("a bounced twice", LinkTrainingConfig.builder().bounces(2, 0).offers(1).build(), 10),
            Arguments.of("both bounced", LinkTrainingConfig.builder().bounces(1, 1).offers(1).build(), 9),
            Arguments.of("both bounced (agent turns)",
                LinkTrainingConfig.builder().bounces(1, 1).offers(1).agentSteps(true).build(), 10),
            Arguments.of("bring-up, a bounced", LinkTrainingConfig.builder().bounces(1, 0).startActive(false).build(), 11),
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

    @ParameterizedTest(name = "{0}")
    @MethodSource("shapes")
    void everyInterleavingKeepsTheInvariantsAndProgresses(final String name, final LinkTrainingConfig config,
        final int depth)
    {
        final LinkTrainingCheck.Result result =
            new LinkTrainingCheck(config,
                Integer.getInteger("vlink.check.depth", depth + Integer.getInteger("vlink.check.deeper", 0))).run();
        System.out.println("link-training check, " + name + " (" + config + "): " + result);
        assertNull(result.failure(), result::toString);
        assertTrue(result.states() > 1_000, "the search went somewhere: " + result);
    }
}
