package io.vlink.core.credit;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The randomized walk of link training ({@link LinkTrainingWalk}), short in the build; longer runs:
 * {@code mvn -B -ntp -pl core test -Dtest=LinkTrainingWalkTest -Dvlink.walk.steps=5000000 -Dvlink.walk.seed=7}.
 */
class LinkTrainingWalkTest
{
    @Test
    void aSeededWalkKeepsEveryInvariantAndEveryEpisodeSettles()
    {
        final long steps = Long.getLong("vlink.walk.steps", 100_000L);
        final long seed = Long.getLong("vlink.walk.seed", 20261127L);
        final LinkTrainingWalk.Outcome outcome = LinkTrainingWalk.walk(seed, steps);
        System.out.println("link-training walk, seed " + seed + ": " + outcome);
        assertNull(outcome.failure(), outcome::toString);
    }
}
