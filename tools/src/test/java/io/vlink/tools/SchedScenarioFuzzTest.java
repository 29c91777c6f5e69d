package io.vlink.tools;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.fuzz.Fuzz;
import io.vlink.core.fuzz.FuzzTries;
import io.vlink.core.fuzz.Mutator;
import io.vlink.core.sched.SlScheduler;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the {@code vlink sched simulate} scenario reader through its class ({@code SchedCommand.SchedScenario} is
 * package-private, hence this package; the CLI side is {@code fuzz.CliFuzzTest}): a scenario is parsed, or refused
 * with a {@link ConfigException} whose findings name lines of the file, and a parsed one runs to its end within
 * {@code MAX_PACKETS} packets.
 */
@AddLifecycleHook(FuzzTries.class)
class SchedScenarioFuzzTest
{
    private static final List<String> VALID = List.of(
        "mtu 256", "tenure 1024 3", "slat 0:300,1:256,2:0,1:512", "qp 1 0", "qp 2 0", "qp 3 1", "qp 16777215 2",
        "message 1 700", "message 2 4096 3", "message 3 0", "message 16777215 100 2");

    @Property(tries = 300, seed = "7601")
    void mutatedScenarios(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final byte[] bytes = mutator.mutateText(VALID, 1 + mutator.random().nextInt(5)).getBytes(StandardCharsets.ISO_8859_1);
        final List<String> lines = Fuzz.lines(bytes);
        final String input = "seed " + seed;

        final SchedCommand.SchedScenario parsed;
        try
        {
            parsed = SchedCommand.SchedScenario.parse("s.sched", lines).orThrow();
        }
        catch (final ConfigException ex)
        {
            assertFalse(ex.diagnostics().isEmpty(), input);
            for (final Diagnostic d : ex.diagnostics())
            {
                assertTrue(d.line() >= 1, input + ": " + d);
                Fuzz.checkLocation(d, "s.sched", lines, input);
            }
            return;
        }
        final SlScheduler scheduler = parsed.scheduler();
        long produced = 0;
        while (produced < parsed.packetLimit() && scheduler.next() != SlScheduler.NO_WORK)
        {
            produced++;
            assertTrue(produced <= SchedCommand.SchedScenario.MAX_PACKETS, input + ": the run goes on");
            if (scheduler.packetEndOfMessage())
            {
                parsed.topUp(scheduler.packetQp());
            }
        }
    }
}
