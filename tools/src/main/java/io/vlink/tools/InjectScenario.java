package io.vlink.tools;

import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.inject.InjectorArbiter;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A scenario of {@code vlink inject simulate} (docs/injection.md): the cell buffer, the buffer classes, the
 * injectors and their commands, the wire's drain and the resets. {@link #run} drives core's {@link InjectorArbiter}
 * and {@link CellBuffer}, unchanged, on an injected clock (one step = one tick) and prints one line per event.
 * <p>
 * Each step, in order: (1) the wire releases whole packets, oldest first, while its budget covers them (the budget
 * grows by {@code drain} cells each step something waits, is spent on the packets released and is dropped when
 * nothing waits); (2) a reset at this step, then the priority timers ({@link InjectorArbiter#tick}); (3) at most one
 * packet is injected ({@link InjectorArbiter#select}). An injector always has its next packet ready while it has
 * commands.
 * <p>
 * Priority changes are read from the arbiter ({@link InjectorArbiter#isHigh}, {@link InjectorArbiter#priorityChanges})
 * after each operation, their reason from the phase: a raise outside a reset is the low mark, a demotion in phase 2 is
 * the timer, elsewhere the high mark. That is exact because the timers are applied in phase 2 at the step's tick: no
 * timer can expire again in phases 1 and 3 of the same step, which {@link #check} verifies on every step.
 */
final class InjectScenario
{
    // the reasons of a raise and of a demotion: by the marks (releases, commands), in a reset, by a timer
    private static final String[] MARKS = {"low-mark", "high-mark"};
    private static final String[] RESET = {"reset", null};
    private static final String[] TIMER = {null, "timer"};

    /** The most steps a run may take: it prints a line an event, for people to read. */
    static final long MAX_STEPS = 1_000_000;
    static final int MAX_CLASSES = 64;
    static final int MAX_INJECTORS = 256;
    /** Bounds the off-heap buffer a scenario may ask for: cells times cell size. */
    static final long MAX_BUFFER_BYTES = 16L << 20;
    static final int MIN_CELL = 64;
    static final int MAX_CELL = 4096;
    static final int MAX_POOL = 65_536;
    static final int MAX_WEIGHT = 255;
    static final int DEFAULT_MTU = 2048;
    static final int DEFAULT_DRAIN = 8;

    static final String DIRECTIVES = "cell, shared, mtu, idc-threshold, idc-marks, class, injector, command, " +
        "drain, reset or steps";
    static final String CLASS_USAGE = "class K weight W reserved R [policy rr|first]";
    static final String INJECTOR_USAGE = "injector I class K marks LOW HIGH [timer STEPS]";
    static final String COMMAND_USAGE = "command I idc|dma BYTES [COUNT]";

    private final int cell;
    private final int shared;
    private final int mtu;
    private final int idcThreshold;
    private final int idcLow;
    private final int idcHigh;
    private final int drain;
    private final long stepLimit;
    private final long stepBound;
    private final long[] resets;
    final List<BufferClass> classes;
    final List<Injector> injectors;

    InjectScenario(final InjectScenarioReader p)
    {
        cell = p.cell.value;
        shared = p.shared.value;
        mtu = p.mtu.value;
        idcThreshold = p.idcThreshold.value;
        idcLow = p.idcLow;
        idcHigh = p.idcHigh;
        drain = p.drain.value;
        stepLimit = p.steps.line == 0 ? 0 : p.steps.value;
        stepBound = p.stepBound;
        resets = p.resets.stream().mapToLong(r -> r[0]).sorted().toArray();
        classes = p.classes;
        injectors = p.injectors;
    }

    /**
     * Reads a scenario: every malformed line in one pass, then the checks that need the whole file.
     *
     * @param file  the name findings carry.
     * @param lines the file's lines.
     * @return the scenario, or every finding, in line order.
     */
    static Result<InjectScenario> parse(final String file, final List<String> lines)
    {
        final LineReader<InjectScenario> parser = reader(file);
        for (int i = 0; i < lines.size(); i++)
        {
            parser.line(i + 1, lines.get(i));
        }
        return parser.finish();
    }

    /**
     * @param file the name findings carry.
     * @return a fresh reader of one scenario, to feed through {@link io.vlink.core.config.TextLines}.
     */
    static LineReader<InjectScenario> reader(final String file)
    {
        return new InjectScenarioReader(file);
    }

    /** @return the step limit of {@code steps N}, or 0 when the run stops once all is sent and released. */
    long stepLimit()
    {
        return stepLimit;
    }

    /** @return the most steps the run can take without {@code steps N} (see {@code checkRunLength}). */
    long stepBound()
    {
        return stepBound;
    }

    /**
     * Runs the scenario.
     *
     * @param out receives each output line, without a line terminator.
     * @return the steps run.
     */
    long run(final Consumer<String> out)
    {
        if (injectors.isEmpty())
        {
            for (int k = 0; k < classes.size(); k++)
            {
                out.accept(share(k, 0, 0.0));
            }
            return 0;
        }
        final InjectionConfig config = new InjectionConfig()
            .shape(injectors.size(), classes.size())
            .cellSize(cell)
            .sharedCells(shared)
            .idcThreshold(idcThreshold)
            .idcMarks(idcLow, idcHigh);
        for (int k = 0; k < classes.size(); k++)
        {
            final BufferClass c = classes.get(k);
            config.bufferClass(k, c.reserved, Integer.MAX_VALUE, c.weight,
                c.firstAvailable ? InjectionConfig.Policy.FIRST_AVAILABLE : InjectionConfig.Policy.ROUND_ROBIN);
        }
        for (int i = 0; i < injectors.size(); i++)
        {
            final Injector injector = injectors.get(i);
            config.injectorClass(i, injector.bufferClass)
                .marks(i, injector.low, injector.high)
                .priorityTimerNs(i, injector.timer == 0 ? Long.MAX_VALUE : injector.timer);
        }
        final CellBuffer cells = new CellBuffer(config);
        try
        {
            final InjectorArbiter arbiter = new InjectorArbiter(config, cells);
            return new Run(cells, arbiter, new InjectorWaits(config, arbiter, largestCells(), drain), out).run();
        }
        finally
        {
            cells.close();
        }
    }

    /** @return the largest packet any command makes, in cells (the bounds' P). */
    private int largestCells()
    {
        long largest = 1;
        for (final Injector injector : injectors)
        {
            for (final long[] c : injector.commands)
            {
                largest = Math.max(largest, ((c[0] != 0 ? c[1] : Math.min(c[1], mtu)) + cell - 1) / cell);
            }
        }
        return (int)largest;
    }

    private static String share(final int k, final long cells, final double fraction)
    {
        return "share class=" + k + " cells=" + cells + " fraction=" + String.format(Locale.ROOT, "%.4f", fraction);
    }

    /** One run: the arbiter, the buffer, the injectors' commands, the wire. */
    private final class Run
    {
        private final CellBuffer cells;
        private final InjectorArbiter arbiter;
        private final Consumer<String> out;
        private final StringBuilder line = new StringBuilder(96);
        private final int n;

        // per injector: its current command run (index into its commands), messages left in that run, bytes left in
        // the current command, and the figures
        private final int[] command;
        private final long[] left;
        private final long[] bytesLeft;
        private final long[] injectedCells;
        private final InjectorWaits waits;
        private final long[] changes;
        private final boolean[] high;
        private final boolean[] ready;

        // the wire: a FIFO of packets (first cell, injector, cells); one slot per cell is always enough
        private final int[] wireCell;
        private final int[] wireInjector;
        private final int[] wireCells;
        private int wireHead;
        private int wireSize;
        private long budget;
        private int resetIndex;

        private long step;
        private long changesSeen;
        private long timerDemotionsSeen;

        Run(final CellBuffer cells, final InjectorArbiter arbiter, final InjectorWaits waits, final Consumer<String> out)
        {
            this.cells = cells;
            this.arbiter = arbiter;
            this.waits = waits;
            this.out = out;
            n = injectors.size();
            command = new int[n];
            left = new long[n];
            bytesLeft = new long[n];
            injectedCells = new long[n];
            changes = new long[n];
            high = new boolean[n];
            ready = new boolean[n];
            final int capacity = cells.totalCells();
            wireCell = new int[capacity];
            wireInjector = new int[capacity];
            wireCells = new int[capacity];
        }

        long run()
        {
            for (int i = 0; i < n; i++)
            {
                high[i] = arbiter.isHigh(i);
                final List<long[]> commands = injectors.get(i).commands;
                if (!commands.isEmpty())
                {
                    left[i] = commands.get(0)[2];
                    bytesLeft[i] = commands.get(0)[1];
                    arbiter.command(i, commands.get(0)[0] != 0);
                    announce(i);
                }
            }
            // every injector starts high with occupancy 0: nothing changes before the first step
            check(arbiter.priorityChanges() == 0, "a priority changed before the first step");
            while (stepLimit != 0 ? step < stepLimit : !done())
            {
                step++;
                check(step <= MAX_STEPS, "the run went past " + MAX_STEPS + " steps");
                release();
                resetAndTimers();
                inject();
                check(arbiter.timerDemotions() == timerDemotionsSeen, "a timer expired outside phase 2");
            }
            summary();
            return step;
        }

        private boolean done()
        {
            if (wireSize != 0)
            {
                return false;
            }
            for (int i = 0; i < n; i++)
            {
                if (ready[i])
                {
                    return false;
                }
            }
            return true;
        }

        /** Phase 1: the wire releases whole packets, oldest first, while its budget covers them. */
        private void release()
        {
            if (wireSize == 0)
            {
                return;
            }
            budget += drain;
            while (wireSize != 0 && wireCells[wireHead] <= budget)
            {
                final int injector = wireInjector[wireHead];
                final int released = wireCells[wireHead];
                check(cells.free(wireCell[wireHead]), "a packet was freed twice");
                wireHead = wireHead + 1 == wireCell.length ? 0 : wireHead + 1;
                wireSize--;
                budget -= released;
                cells.reclaim(arbiter);
                check(arbiter.timerDemotions() == timerDemotionsSeen, "a timer expired in a release");
                start("release", injector).append(" cells=").append(released).append(" occ=").append(cells.occ(injector));
                emit();
                // by its marks: the timers of the arbiter's clock (still the previous step's) were applied in that
                // step's phase 2. A release demotes an injector a reset raised above its high mark
                changed(injector, MARKS);
                settle();
            }
            if (wireSize == 0)
            {
                // the budget is not saved while nothing waits
                budget = 0;
            }
        }

        /** Phase 2: a reset at this step, then the priority timers. */
        private void resetAndTimers()
        {
            if (resetIndex < resets.length && resets[resetIndex] == step)
            {
                resetIndex++;
                arbiter.reset(step);
                for (int i = 0; i < n; i++)
                {
                    changed(i, RESET);
                }
                settle();
            }
            final long demotions = arbiter.timerDemotions();
            arbiter.tick(step);
            for (int i = 0; i < n; i++)
            {
                changed(i, TIMER);
            }
            timerDemotionsSeen = arbiter.timerDemotions();
            check(timerDemotionsSeen - demotions == arbiter.priorityChanges() - changesSeen,
                "a tick changed a priority other than by the timer");
            settle();
        }

        /**
         * Phase 3: at most one injection. Within the selection the arbiter may raise injectors it considers (their
         * occupancy at or below the low mark after a timer demotion), then the chosen one injects and may cross its
         * high mark: the raises are printed first, by injector, then the injection, then its demotion.
         */
        private void inject()
        {
            final boolean[] before = Arrays.copyOf(high, n);
            final boolean[] waiting = Arrays.copyOf(ready, n);
            final int chosen = arbiter.select(step);
            int raised = 0;
            for (int i = 0; i < n; i++)
            {
                if (i != chosen && arbiter.isHigh(i) != before[i])
                {
                    check(!before[i], "the selection demoted injector " + i + ", which did not inject");
                    raised++;
                }
            }
            final long chosenChanges = arbiter.priorityChanges() - changesSeen - raised;
            boolean prio = false;
            if (chosen != InjectorArbiter.NONE)
            {
                final boolean after = arbiter.isHigh(chosen);
                // the chosen injector: raised when considered (low before, one change more than a demotion
                // accounts for), chosen high, and demoted by its high mark after the injection (high before or
                // raised, low after)
                final boolean raisedFirst = !before[chosen] && (after ? chosenChanges == 1 : chosenChanges == 2);
                prio = before[chosen] || raisedFirst;
                check(chosenChanges == (raisedFirst ? 1 : 0) + (prio && !after ? 1 : 0),
                    "injector " + chosen + " changed priority " + chosenChanges + " times in one selection");
            }
            else
            {
                check(chosenChanges == 0, "priorities changed without an injection");
            }
            for (int i = 0; i < n; i++)
            {
                if (i != chosen ? arbiter.isHigh(i) != before[i] : prio && !before[i])
                {
                    priority(i, true, "low-mark", cells.occ(i) - (i == chosen ? cells.cellsFor(arbiter.claimedSize()) : 0));
                }
            }
            waits.step(waiting, chosen);
            if (chosen != InjectorArbiter.NONE)
            {
                injected(chosen, prio);
            }
            settle();
        }

        private void injected(final int i, final boolean prio)
        {
            final int size = arbiter.claimedSize();
            final int used = cells.cellsFor(size);
            final int k = injectors.get(i).bufferClass;
            final boolean idc = arbiter.isIdc(i);
            start("inject", i).append(" class=").append(k).append(" cmd=").append(idc ? "idc" : "dma")
                .append(" bytes=").append(size).append(" cells=").append(used)
                .append(" occ=").append(cells.occ(i)).append(" prio=").append(prio ? "high" : "low");
            emit();
            high[i] = prio;
            if (prio && !arbiter.isHigh(i))
            {
                priority(i, false, "high-mark", cells.occ(i));
            }
            settle();

            final int tail = wireHead + wireSize < wireCell.length ? wireHead + wireSize : wireHead + wireSize - wireCell.length;
            wireCell[tail] = arbiter.claimedCell();
            wireInjector[tail] = i;
            wireCells[tail] = used;
            wireSize++;
            injectedCells[i] += used;
            ready[i] = false;

            final List<long[]> commands = injectors.get(i).commands;
            bytesLeft[i] -= size;
            if (bytesLeft[i] > 0)
            {
                announce(i);
                return;
            }
            if (--left[i] == 0)
            {
                command[i]++;
                if (command[i] == commands.size())
                {
                    return;
                }
                left[i] = commands.get(command[i])[2];
            }
            final long[] next = commands.get(command[i]);
            bytesLeft[i] = next[1];
            // its next command: the marks follow its kind, which may change its priority now
            arbiter.command(i, next[0] != 0);
            changed(i, MARKS);
            settle();
            announce(i);
        }

        /** The injector's next packet: one IDC packet, or the next MTU slice of its DMA command. */
        private void announce(final int i)
        {
            final long[] c = injectors.get(i).commands.get(command[i]);
            arbiter.ready(i, (int)(c[0] != 0 ? c[1] : Math.min(mtu, bytesLeft[i])));
            ready[i] = true;
        }

        /**
         * Prints a priority event if the injector's priority differs from the one last printed.
         *
         * @param reasons the reason of a raise and of a demotion in this phase (null: impossible in it).
         */
        private void changed(final int i, final String[] reasons)
        {
            final boolean now = arbiter.isHigh(i);
            if (now != high[i])
            {
                final String reason = reasons[now ? 0 : 1];
                check(reason != null, "injector " + i + " went " + (now ? "high" : "low") + " in a phase of " +
                    Arrays.toString(reasons));
                priority(i, now, reason, cells.occ(i));
            }
        }

        private void priority(final int i, final boolean toHigh, final String reason, final int occ)
        {
            high[i] = toHigh;
            changes[i]++;
            start("priority", i).append(toHigh ? " high" : " low").append(" reason=").append(reason)
                .append(" occ=").append(occ);
            emit();
        }

        /** Every change the arbiter counted so far has been printed. */
        private void settle()
        {
            long printed = 0;
            for (int i = 0; i < n; i++)
            {
                printed += changes[i];
                check(high[i] == arbiter.isHigh(i), "injector " + i + "'s priority changed unseen");
            }
            check(printed == arbiter.priorityChanges(), "priority changes counted " + arbiter.priorityChanges() +
                ", printed " + printed);
            changesSeen = printed;
        }

        private StringBuilder start(final String event, final int injector)
        {
            line.setLength(0);
            return line.append("step ").append(step).append(' ').append(event).append(" injector=").append(injector);
        }

        private void emit()
        {
            out.accept(line.toString());
        }

        private void summary()
        {
            for (int k = 0; k < classes.size(); k++)
            {
                out.accept(share(k, arbiter.classInjectedCells(k), arbiter.classShare(k)));
            }
            for (int i = 0; i < n; i++)
            {
                out.accept("injector " + i + " cells=" + injectedCells[i] + " stalls=" + arbiter.stalls(i) +
                    " max-wait=" + waits.maxWait(i) + " changes=" + changes[i]);
            }
        }
    }

    /** A broken invariant of the simulation: a bug, never a scenario's fault. */
    private static void check(final boolean condition, final String what)
    {
        if (!condition)
        {
            throw new IllegalStateException("inject simulate: " + what);
        }
    }

    /** A buffer class: its weight in cells a round, its reserved cells, its policy among equals. */
    static final class BufferClass
    {
        final int weight;
        final int reserved;
        final boolean firstAvailable;
        final int line;
        final int reservedColumn;

        BufferClass(
            final int weight, final int reserved, final boolean firstAvailable, final int line, final int reservedColumn)
        {
            this.weight = weight;
            this.reserved = reserved;
            this.firstAvailable = firstAvailable;
            this.line = line;
            this.reservedColumn = reservedColumn;
        }
    }

    /** An injector: its class, its own marks, its timer (0 = none) and its commands {idc, bytes, count, line}. */
    static final class Injector
    {
        final int bufferClass;
        final int low;
        final int high;
        final long timer;
        final int line;
        final List<long[]> commands = new ArrayList<>();

        Injector(final int bufferClass, final int low, final int high, final long timer, final int line)
        {
            this.bufferClass = bufferClass;
            this.low = low;
            this.high = high;
            this.timer = timer;
            this.line = line;
        }
    }

    /** A directive given at most once: its value and its line (0 = not given, the default applies). */
    static final class Setting
    {
        final String name;
        int value;
        int line;
        int column;

        Setting(final String name, final int value)
        {
            this.name = name;
            this.value = value;
        }
    }
}
