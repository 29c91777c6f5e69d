package io.vlink.core.fuzz;

import io.vlink.core.arb.Scenario;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the {@code vlink arb simulate} scenario reader ({@link Scenario}) with mutated valid scenarios and
 * arbitrary bytes: parsing gives diagnostics inside the file, never an exception; a scenario that parses runs to
 * its end within {@link Scenario#MAX_SLOTS} slots, however large the counts it asks for.
 */
@AddLifecycleHook(FuzzTries.class)
class ScenarioFuzzTest
{
    @Property(tries = 800, seed = "7401")
    void mutatedScenarios(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final String text = mutator.mutateText(FuzzInputs.ARB_SCENARIOS.get(mutator.random().nextInt(FuzzInputs.ARB_SCENARIOS.size())),
            1 + mutator.random().nextInt(5));
        parseAndRun(text.getBytes(StandardCharsets.ISO_8859_1), "seed " + seed);
    }

    @Property(tries = 500, seed = "7402")
    void arbitraryBytes(@ForAll @Size(max = 400) final byte[] bytes)
    {
        parseAndRun(bytes, Base64.getEncoder().encodeToString(bytes));
    }

    static void parseAndRun(final byte[] bytes, final String input)
    {
        final List<String> lines = Fuzz.lines(bytes);
        final Result<Scenario> parsed;
        try
        {
            parsed = Scenario.parse("scenario.txt", lines);
        }
        catch (final RuntimeException ex)
        {
            throw new AssertionError(input + ": the scenario reader threw", ex);
        }
        assertNotNull(parsed, input);
        boolean errors = false;
        for (final Diagnostic d : parsed.diagnostics())
        {
            Fuzz.checkLocation(d, "scenario.txt", lines, input);
            errors |= d.isError();
        }
        assertEquals(errors, parsed.value() == null, input);
        if (parsed.value() != null)
        {
            final long[] printed = new long[1];
            parsed.value().run(line ->
            {
                // a slot line each slot; a drop line per traffic line and a share line per VL besides
                if (++printed[0] > Scenario.MAX_SLOTS + lines.size() + 16)
                {
                    throw new AssertionError(input + ": the run goes on past " + Scenario.MAX_SLOTS + " slots");
                }
            });
            assertTrue(printed[0] >= 0);
        }
    }
}
