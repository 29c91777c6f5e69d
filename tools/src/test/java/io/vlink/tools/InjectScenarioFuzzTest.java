package io.vlink.tools;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.fuzz.Fuzz;
import io.vlink.core.fuzz.FuzzTries;
import io.vlink.core.fuzz.Mutator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the {@code vlink inject simulate} scenario reader and run through the class ({@code InjectScenario} is
 * package-private, hence this package; the CLI side is {@code fuzz.CliFuzzTest}): a scenario is parsed, or refused
 * with a {@link ConfigException} whose findings name lines and columns of the file; a parsed one runs without
 * throwing (the run checks its own invariants: every priority change the arbiter counts is printed once, with
 * its reason) within its step limit, or within the bound {@code checkRunLength} proves, and prints only the
 * spec's lines.
 */
@AddLifecycleHook(FuzzTries.class)
class InjectScenarioFuzzTest
{
    /** Every directive, mixed kinds and sizes, a slow wire, timers, resets, both policies. */
    static final List<String> VALID = List.of(
        "cell 128",
        "shared 20",
        "mtu 512",
        "idc-threshold 200",
        "idc-marks 2 6",
        "class 0 weight 8 reserved 6",
        "class 1 weight 3 reserved 5 policy first",
        "injector 0 class 0 marks 4 8",
        "injector 1 class 0 marks 1 3 timer 5",
        "injector 2 class 1 marks 2 9 timer 2",
        "injector 3 class 1 marks 0 1",
        "command 0 dma 3000 3",
        "command 0 idc 150 4",
        "command 1 idc 64 7",
        "command 2 dma 700 5",
        "command 3 dma 513",
        "command 3 idc 1 2",
        "drain 3",
        "reset 7",
        "reset 12");

    private static final Pattern LINE = Pattern.compile(
        "step \\d+ (release injector=\\d+ cells=\\d+ occ=\\d+" +
            "|priority injector=\\d+ (high|low) reason=(low-mark|high-mark|timer|reset) occ=\\d+" +
            "|inject injector=\\d+ class=\\d+ cmd=(idc|dma) bytes=\\d+ cells=\\d+ occ=\\d+ prio=(high|low))" +
            "|share class=\\d+ cells=\\d+ fraction=[01]\\.\\d{4}" +
            "|injector \\d+ cells=\\d+ stalls=\\d+ max-wait=\\d+ changes=\\d+");

    @Property(tries = 300, seed = "7701")
    void mutatedScenarios(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final byte[] bytes = mutator.mutateText(VALID, 1 + mutator.random().nextInt(5))
            .getBytes(StandardCharsets.ISO_8859_1);
        final List<String> lines = Fuzz.lines(bytes);
        final String input = "seed " + seed;

        final InjectScenario parsed;
        try
        {
            parsed = InjectScenario.parse("s.inj", lines);
        }
        catch (final ConfigException ex)
        {
            assertFalse(ex.diagnostics().isEmpty(), input);
            for (final Diagnostic d : ex.diagnostics())
            {
                assertTrue(d.line() >= 1, input + ": " + d);
                Fuzz.checkLocation(d, "s.inj", lines, input);
            }
            return;
        }
        final long[] printed = new long[1];
        final long steps = parsed.run(line ->
        {
            printed[0]++;
            assertTrue(LINE.matcher(line).matches(), input + ": " + line);
        });
        if (parsed.stepLimit() != 0)
        {
            assertTrue(steps == parsed.stepLimit(), input + ": " + steps + " steps, limit " + parsed.stepLimit());
        }
        else
        {
            assertTrue(steps <= parsed.stepBound() && steps <= InjectScenario.MAX_STEPS,
                input + ": " + steps + " steps, bound " + parsed.stepBound());
        }
        assertTrue(printed[0] > 0 || lines.stream().noneMatch(l -> l.trim().startsWith("class")), input);
    }
}
