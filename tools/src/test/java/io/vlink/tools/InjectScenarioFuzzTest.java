package io.vlink.tools;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.fuzz.Fuzz;
import io.vlink.core.fuzz.FuzzTries;
import io.vlink.core.fuzz.Mutator;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.lifecycle.AddLifecycleHook;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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

    /**
     * Random valid scenarios: 1-4 classes, 1-8 injectors, random marks, timers, policies, cell and MTU sizes,
     * IDC and DMA commands that fit, a drain from 1 to 20 cells, resets, sometimes a step limit. Each one runs
     * (the run's own checks throw if a priority change goes unprinted or has no reason) within its bound.
     */
    @Property(tries = 300, seed = "7702")
    void randomValidScenariosRun(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final List<String> lines = new ArrayList<>();
        final int cell = 64 << random.nextInt(4);
        final int mtu = 256 << random.nextInt(5);
        final int threshold = random.nextInt(Math.min(mtu, 300));
        final int shared = random.nextInt(3) == 0 ? 0 : random.nextInt(64);
        lines.add("cell " + cell);
        lines.add("mtu " + mtu);
        lines.add("shared " + shared);
        lines.add("idc-threshold " + threshold);
        final int idcLow = random.nextInt(6);
        lines.add("idc-marks " + idcLow + " " + (idcLow + 1 + random.nextInt(6)));
        final int classes = 1 + random.nextInt(4);
        final int largest = (mtu + cell - 1) / cell;
        for (int k = 0; k < classes; k++)
        {
            // enough reserved cells for the largest packet unless the shared pool covers it
            final int reserved = Math.max(largest - shared, 0) + random.nextInt(8);
            lines.add("class " + k + " weight " + (1 + random.nextInt(16)) + " reserved " + reserved +
                (random.nextBoolean() ? " policy first" : random.nextBoolean() ? " policy rr" : ""));
        }
        final int injectors = 1 + random.nextInt(8);
        for (int i = 0; i < injectors; i++)
        {
            final int low = random.nextInt(10);
            lines.add("injector " + i + " class " + random.nextInt(classes) + " marks " + low + " " +
                (low + 1 + random.nextInt(12)) + (random.nextBoolean() ? " timer " + (1 + random.nextInt(20)) : ""));
            for (int c = random.nextInt(4); c > 0; c--)
            {
                final boolean idc = threshold > 0 && random.nextBoolean();
                final int bytes = idc ? 1 + random.nextInt(threshold) : threshold + 1 + random.nextInt(3 * mtu);
                lines.add("command " + i + (idc ? " idc " : " dma ") + bytes + " " + (1 + random.nextInt(5)));
            }
        }
        lines.add("drain " + (1 + random.nextInt(20)));
        for (int r = random.nextInt(3); r > 0; r--)
        {
            lines.add("reset " + (1 + random.nextInt(100)));
        }
        if (random.nextInt(4) == 0)
        {
            lines.add("steps " + (1 + random.nextInt(200)));
        }
        final String input = "seed " + seed + ":\n" + String.join("\n", lines);
        final InjectScenario parsed;
        try
        {
            parsed = InjectScenario.parse("s.inj", lines).orThrow();
        }
        catch (final ConfigException ex)
        {
            // only a repeated reset step can refuse these
            assertTrue(ex.diagnostics().stream().allMatch(d -> d.message().startsWith("a reset at step")),
                input + "\n" + ex.diagnostics());
            return;
        }
        run(parsed, input);
    }

    private static void run(final InjectScenario parsed, final String input)
    {
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
    }

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
            parsed = InjectScenario.parse("s.inj", lines).orThrow();
        }
        catch (final ConfigException ex)
        {
            Statistics.collect("refused");
            assertFalse(ex.diagnostics().isEmpty(), input);
            for (final Diagnostic d : ex.diagnostics())
            {
                assertTrue(d.line() >= 1, input + ": " + d);
                Fuzz.checkLocation(d, "s.inj", lines, input);
            }
            return;
        }
        Statistics.collect("ran");
        run(parsed, input);
    }
}
