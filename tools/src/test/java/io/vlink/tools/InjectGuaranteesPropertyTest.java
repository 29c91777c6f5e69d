package io.vlink.tools;

import io.vlink.core.inject.InjectionBounds;
import io.vlink.core.inject.InjectionConfig;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guarantees of docs/injection.md on {@code vlink inject simulate} itself, over random backlogged scenarios that
 * jqwik shrinks to the smallest failing one: every run holds every wait to its bound ({@code InjectorWaits} throws
 * otherwise, so a run that returns is a run that kept them); without reserved cells every class's cells are within
 * {@link InjectionBounds#shareSlack} of its weight share, and within 3 points once the run is long enough; with every
 * injector high all the time, the printed {@code max-wait} never exceeds {@link InjectionBounds#highWait}.
 */
class InjectGuaranteesPropertyTest
{
    private static final int STEPS = 2_000;
    private static final Pattern SHARE = Pattern.compile("share class=(\\d+) cells=(\\d+) fraction=.*");
    private static final Pattern INJECTOR = Pattern.compile("injector (\\d+) cells=\\d+ stalls=\\d+ max-wait=(\\d+) .*");

    /** An injector: its class, marks, timer (0: none) and commands {idc 1/0, bytes}. */
    static final class Injector
    {
        final int bufferClass;
        final int low;
        final int high;
        final int timer;
        final List<int[]> commands;

        Injector(final int bufferClass, final int low, final int span, final int timer, final List<int[]> commands)
        {
            this.bufferClass = bufferClass;
            this.low = low;
            this.high = low + span;
            this.timer = timer;
            this.commands = commands;
        }
    }

    /** A scenario: the buffer, the classes {weight, reserved, first}, the injectors, the wire. */
    static final class Scenario
    {
        final int cell;
        final int mtu;
        final List<int[]> classes;
        final List<Injector> injectors;
        final int extraShared;
        final int drain;
        final boolean alwaysHigh;

        Scenario(final int cell, final int mtu, final List<int[]> classes, final List<Injector> injectors,
            final int extraShared, final int drain, final boolean alwaysHigh)
        {
            this.cell = cell;
            this.mtu = mtu;
            this.classes = classes;
            this.injectors = injectors;
            this.extraShared = extraShared;
            this.drain = drain;
            this.alwaysHigh = alwaysHigh;
        }

        int largestCells()
        {
            int largest = 1;
            for (final Injector i : injectors)
            {
                for (final int[] c : i.commands)
                {
                    largest = Math.max(largest, (Math.min(c[1], mtu) + cell - 1) / cell);
                }
            }
            return largest;
        }

        boolean reserved()
        {
            return classes.stream().anyMatch(k -> k[1] > 0);
        }

        int shared()
        {
            return largestCells() + extraShared;
        }

        List<String> lines()
        {
            final List<String> lines = new ArrayList<>();
            lines.add("cell " + cell);
            lines.add("mtu " + mtu);
            lines.add("idc-threshold 64");
            lines.add(alwaysHigh ? "idc-marks 1000000 1000001" : "idc-marks 2 5");
            lines.add("shared " + shared());
            for (int k = 0; k < classes.size(); k++)
            {
                final int[] c = classes.get(k);
                lines.add("class " + k + " weight " + c[0] + " reserved " + c[1] + " policy " + (c[2] != 0 ? "first" :
                    "rr"));
            }
            for (int i = 0; i < injectors.size(); i++)
            {
                final Injector injector = injectors.get(i);
                lines.add("injector " + i + " class " + injector.bufferClass + " marks " +
                    (alwaysHigh ? "1000000 1000001" : injector.low + " " + injector.high) +
                    (injector.timer == 0 || alwaysHigh ? "" : " timer " + injector.timer));
                for (final int[] c : injector.commands)
                {
                    lines.add("command " + i + (c[0] != 0 ? " idc " : " dma ") + c[1] + " 100000");
                }
            }
            lines.add("drain " + drain);
            lines.add("steps " + STEPS);
            return lines;
        }

        /** The configuration the simulator builds from the scenario. */
        InjectionConfig config()
        {
            final InjectionConfig config = new InjectionConfig().shape(injectors.size(), classes.size())
                .cellSize(cell).sharedCells(shared()).idcThreshold(64);
            for (int k = 0; k < classes.size(); k++)
            {
                final int[] c = classes.get(k);
                config.bufferClass(k, c[1], Integer.MAX_VALUE, c[0], c[2] != 0 ?
                    InjectionConfig.Policy.FIRST_AVAILABLE : InjectionConfig.Policy.ROUND_ROBIN);
            }
            for (int i = 0; i < injectors.size(); i++)
            {
                config.injectorClass(i, injectors.get(i).bufferClass);
            }
            return config;
        }

        @Override
        public String toString()
        {
            return String.join("\n", lines());
        }
    }

    @Provide
    Arbitrary<Scenario> scenarios()
    {
        return scenarios(Arbitraries.just(0), Arbitraries.of(false));
    }

    @Provide
    Arbitrary<Scenario> reservedScenarios()
    {
        return scenarios(Arbitraries.integers().between(0, 40), Arbitraries.of(true, false));
    }

    private static Arbitrary<Scenario> scenarios(final Arbitrary<Integer> reserved, final Arbitrary<Boolean> alwaysHigh)
    {
        return Arbitraries.integers().between(1, 5).flatMap(k -> Combinators.combine(
            Arbitraries.of(64, 128, 256),
            Arbitraries.of(256, 512, 1024, 2048, 4096),
            Combinators.combine(Arbitraries.integers().between(1, 255), reserved, Arbitraries.integers().between(0, 1))
                .as((w, r, f) -> new int[] {w, r, f}).list().ofSize(k),
            injector(k).list().ofMinSize(1).ofMaxSize(8),
            Arbitraries.integers().between(0, 100),
            Arbitraries.integers().between(1, 64),
            alwaysHigh).as(Scenario::new));
    }

    private static Arbitrary<Injector> injector(final int classes)
    {
        final Arbitrary<int[]> command = Arbitraries.of(true, false).flatMap(idc -> idc ?
            Arbitraries.integers().between(1, 64).map(b -> new int[] {1, b}) :
            Arbitraries.integers().between(65, 9000).map(b -> new int[] {0, b}));
        return Combinators.combine(
            Arbitraries.integers().between(0, classes - 1),
            Arbitraries.integers().between(0, 12),
            Arbitraries.integers().between(1, 24),
            Arbitraries.integers().between(0, 2).flatMap(t -> t == 0 ? Arbitraries.just(0) :
                Arbitraries.integers().between(1, 60)),
            command.list().ofMinSize(1).ofMaxSize(3)).as(Injector::new);
    }

    /** Runs the scenario (its waits held to their bounds by the run) and returns its output. */
    private static List<String> run(final Scenario scenario)
    {
        final List<String> out = new ArrayList<>();
        InjectScenario.parse("s.inj", scenario.lines()).orThrow().run(line ->
        {
            if (!line.startsWith("step "))
            {
                out.add(line);
            }
        });
        return out;
    }

    @Property(tries = 1000, seed = "2611")
    void everyClassGetsItsWeightShareAndNoWaitExceedsItsBound(@ForAll("scenarios") final Scenario scenario)
    {
        final List<String> out = run(scenario);
        final int classes = scenario.classes.size();
        final long[] cells = new long[classes];
        long total = 0;
        for (final String line : out)
        {
            final Matcher share = SHARE.matcher(line);
            if (share.matches())
            {
                cells[Integer.parseInt(share.group(1))] = Long.parseLong(share.group(2));
                total += Long.parseLong(share.group(2));
            }
        }
        // the classes with injectors take part in the turns; a class without any forfeits every turn
        final boolean[] present = new boolean[classes];
        scenario.injectors.forEach(i -> present[i.bufferClass] = true);
        long weights = 0;
        int count = 0;
        for (int k = 0; k < classes; k++)
        {
            weights += present[k] ? scenario.classes.get(k)[0] : 0;
            count += present[k] ? 1 : 0;
        }
        final InjectionConfig among = new InjectionConfig().shape(1, count);
        final int[] index = new int[classes];
        for (int k = 0, j = 0; k < classes; k++)
        {
            if (present[k])
            {
                index[k] = j;
                among.classWeight(j++, scenario.classes.get(k)[0]);
            }
        }
        long most = 0;
        for (int k = 0; k < classes; k++)
        {
            if (present[k])
            {
                final long slack = InjectionBounds.shareSlack(among, index[k], scenario.largestCells());
                most = Math.max(most, slack);
                final double share = (double)scenario.classes.get(k)[0] / weights;
                assertTrue(Math.abs(cells[k] - share * total) <= slack, "class " + k + ": " + cells[k] + " of " +
                    total + " cells, weight share " + share + ", slack " + slack);
            }
            else
            {
                assertEquals(0, cells[k]);
            }
        }
        if (total >= 34 * most)
        {
            for (int k = 0; k < classes; k++)
            {
                if (present[k])
                {
                    assertEquals((double)scenario.classes.get(k)[0] / weights, (double)cells[k] / total, 0.03,
                        "class " + k);
                }
            }
        }
    }

    @Property(tries = 1000, seed = "2612")
    void withReservedCellsNoWaitExceedsItsBoundAndAlwaysHighInjectorsPrintIt(
        @ForAll("reservedScenarios") final Scenario scenario)
    {
        final List<String> out = run(scenario);
        if (!scenario.alwaysHigh)
        {
            return;
        }
        final InjectionConfig config = scenario.config();
        for (final String line : out)
        {
            final Matcher injector = INJECTOR.matcher(line);
            if (injector.matches())
            {
                final int i = Integer.parseInt(injector.group(1));
                final long bound = InjectionBounds.highWait(config, i, scenario.largestCells(), scenario.drain);
                assertTrue(Long.parseLong(injector.group(2)) <= bound, line + ": bound " + bound);
            }
        }
    }
}
