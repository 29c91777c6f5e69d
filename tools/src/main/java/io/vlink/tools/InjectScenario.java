package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.Words;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.inject.InjectorArbiter;
import io.vlink.core.wire.Sizes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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

    private static final String DIRECTIVES = "cell, shared, mtu, idc-threshold, idc-marks, class, injector, command, " +
        "drain, reset or steps";
    private static final String CLASS_USAGE = "class K weight W reserved R [policy rr|first]";
    private static final String INJECTOR_USAGE = "injector I class K marks LOW HIGH [timer STEPS]";
    private static final String COMMAND_USAGE = "command I idc|dma BYTES [COUNT]";

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
    private final List<BufferClass> classes;
    private final List<Injector> injectors;

    private InjectScenario(final Parser p)
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
        return new Parser(file);
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
    private static final class BufferClass
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
    private static final class Injector
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
    private static final class Setting
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

    private static final class Parser implements LineReader<InjectScenario>
    {
        private final String file;
        private final Findings errors = new Findings();
        private final Setting cell = new Setting("cell", InjectionConfig.DEFAULT_CELL_SIZE);
        private final Setting shared = new Setting("shared", InjectionConfig.DEFAULT_SHARED_CELLS);
        private final Setting mtu = new Setting("mtu", DEFAULT_MTU);
        private final Setting idcThreshold = new Setting("idc-threshold", InjectionConfig.DEFAULT_IDC_THRESHOLD);
        private final Setting idcMarks = new Setting("idc-marks", 0);
        private final Setting drain = new Setting("drain", DEFAULT_DRAIN);
        private final Setting steps = new Setting("steps", 0);
        private int idcLow = InjectionConfig.DEFAULT_IDC_LOW_MARK;
        private int idcHigh = InjectionConfig.DEFAULT_IDC_HIGH_MARK;
        private final List<long[]> resets = new ArrayList<>();           // {step, line}
        private final List<BufferClass> classes = new ArrayList<>();
        private final List<Injector> injectors = new ArrayList<>();
        private final List<int[]> commandLines = new ArrayList<>();      // {injector, idc, bytes, count, line, bytes col, count col}
        // a class or injector line whose number was read but whose other fields were not: its users are not checked
        private final List<Integer> badClasses = new ArrayList<>();
        private long stepBound;
        private int lineNumber;
        private String[] words;
        private int[] columns;

        Parser(final String file)
        {
            this.file = file;
        }

        @Override
        public void line(final int number, final String text)
        {
            lineNumber = number;
            split(text);
            if (words.length > 0)
            {
                directive();
            }
        }

        @Override
        public Result<InjectScenario> finish()
        {
            checkWhole();
            errors.sort();
            return Result.of(errors.hasErrors() ? null : new InjectScenario(this), errors);
        }

        private void directive()
        {
            switch (words[0])
            {
                case "cell":
                    if (once(cell) && arguments(1, 1, "cell BYTES"))
                    {
                        final long bytes = number(1, MIN_CELL, MAX_CELL, "cell size (bytes)");
                        if (bytes > 0 && Long.bitCount(bytes) != 1)
                        {
                            error(1, "cell size " + bytes + " is not a power of two; give 64, 128, 256, ... 4096");
                        }
                        else
                        {
                            set(cell, bytes);
                        }
                    }
                    break;
                case "shared":
                    if (once(shared) && arguments(1, 1, "shared CELLS"))
                    {
                        set(shared, number(1, 0, MAX_POOL, "shared pool (cells)"));
                    }
                    break;
                case "mtu":
                    if (once(mtu) && arguments(1, 1, "mtu BYTES"))
                    {
                        final long bytes = number(1, 1, Integer.MAX_VALUE, "mtu (bytes)");
                        final String problem = Sizes.mtuProblem("mtu", (int)Math.min(bytes, Integer.MAX_VALUE));
                        if (bytes > 0 && null != problem)
                        {
                            error(1, problem);
                        }
                        else
                        {
                            set(mtu, bytes);
                        }
                    }
                    break;
                case "idc-threshold":
                    if (once(idcThreshold) && arguments(1, 1, "idc-threshold BYTES"))
                    {
                        set(idcThreshold, number(1, 0, 4096, "IDC threshold (bytes)"));
                    }
                    break;
                case "idc-marks":
                    if (once(idcMarks) && arguments(2, 2, "idc-marks LOW HIGH"))
                    {
                        final long[] marks = marks(1);
                        if (marks != null)
                        {
                            idcLow = (int)marks[0];
                            idcHigh = (int)marks[1];
                            idcMarks.line = lineNumber;
                        }
                    }
                    break;
                case "drain":
                    if (once(drain) && arguments(1, 1, "drain CELLS"))
                    {
                        set(drain, number(1, 1, Integer.MAX_VALUE, "drain (cells a step)"));
                    }
                    break;
                case "steps":
                    if (once(steps) && arguments(1, 1, "steps N"))
                    {
                        set(steps, number(1, 1, MAX_STEPS, "steps"));
                    }
                    break;
                case "reset":
                    if (arguments(1, 1, "reset STEP"))
                    {
                        final long at = number(1, 1, MAX_STEPS, "reset step");
                        for (final long[] r : resets)
                        {
                            if (r[0] == at)
                            {
                                error(1, "a reset at step " + at + " is already given on line " + r[1] +
                                    "; give each step once");
                                return;
                            }
                        }
                        if (at > 0)
                        {
                            resets.add(new long[] {at, lineNumber});
                        }
                    }
                    break;
                case "class":
                    bufferClass();
                    break;
                case "injector":
                    injector();
                    break;
                case "command":
                    command();
                    break;
                default:
                    error(0, "unknown directive '" + Diagnostic.excerpt(words[0]) + "'; expected " + DIRECTIVES);
            }
        }

        private void bufferClass()
        {
            if (!arguments(5, 7, CLASS_USAGE) || !keywords(CLASS_USAGE, 2, "weight", 4, "reserved", 6, "policy"))
            {
                return;
            }
            final long k = number(1, 0, MAX_CLASSES - 1, "class number");
            if (!next(k, "class", classes.size(), k >= 0 && k < classes.size() ? classes.get((int)k).line : 0))
            {
                return;
            }
            final long weight = number(3, 1, MAX_WEIGHT, "class weight (cells a round)");
            final long reserved = number(5, 0, MAX_POOL, "reserved cells");
            boolean first = false;
            boolean policyOk = true;
            if (words.length == 8)
            {
                first = words[7].equals("first");
                if (!first && !words[7].equals("rr"))
                {
                    error(7, "policy '" + Diagnostic.excerpt(words[7]) + "' is not rr or first; write 'policy rr' (round robin, the " +
                        "default) or 'policy first' (first available)");
                    policyOk = false;
                }
            }
            else if (words.length == 7)
            {
                error(6, "'policy' needs a value; write 'policy rr' or 'policy first'");
                policyOk = false;
            }
            classes.add(new BufferClass(
                (int)Math.max(1, weight), (int)Math.max(0, reserved), first, lineNumber, columns[5]));
            if (weight < 0 || reserved < 0 || !policyOk)
            {
                badClasses.add((int)k);
            }
        }

        private void injector()
        {
            if (!arguments(6, 8, INJECTOR_USAGE) || !keywords(INJECTOR_USAGE, 2, "class", 4, "marks", 7, "timer"))
            {
                return;
            }
            final long i = number(1, 0, MAX_INJECTORS - 1, "injector number");
            if (!next(i, "injector", injectors.size(), i >= 0 && i < injectors.size() ? injectors.get((int)i).line : 0))
            {
                return;
            }
            long k = number(3, 0, MAX_CLASSES - 1, "class");
            if (k >= classes.size())
            {
                error(3, "class " + k + " is not declared; declare 'class " + k + " weight W reserved R' before " +
                    "its injectors");
                k = -1;
            }
            final long[] marks = marks(5);
            long timer = 0;
            if (words.length == 9)
            {
                timer = number(8, 1, Integer.MAX_VALUE, "timer (steps)");
            }
            else if (words.length == 8)
            {
                error(7, "'timer' needs a value; write 'timer STEPS', or leave it out (never demoted by time)");
                timer = -1;
            }
            final boolean ok = k >= 0 && marks != null && timer >= 0;
            // a broken line still declares its number, so that its commands are read; they are not checked further
            injectors.add(ok ? new Injector((int)k, (int)marks[0], (int)marks[1], timer, lineNumber) :
                new Injector(-1, 0, 1, 0, lineNumber));
        }

        private void command()
        {
            if (!arguments(3, 4, COMMAND_USAGE))
            {
                return;
            }
            final long i = number(1, 0, MAX_INJECTORS - 1, "injector");
            if (i >= injectors.size())
            {
                error(1, "injector " + i + " is not declared; declare 'injector " + i + " class K marks LOW HIGH' " +
                    "before its commands");
            }
            final boolean idc = words[2].equals("idc");
            if (!idc && !words[2].equals("dma"))
            {
                error(2, "command kind '" + Diagnostic.excerpt(words[2]) + "' is not idc or dma; write '" + COMMAND_USAGE + "'");
                return;
            }
            final long bytes = number(3, 1, Integer.MAX_VALUE, "command bytes");
            final long count = words.length > 4 ? number(4, 1, Integer.MAX_VALUE, "command count") : 1;
            if (i >= 0 && i < injectors.size() && bytes > 0 && count > 0)
            {
                commandLines.add(new int[] {
                    (int)i, idc ? 1 : 0, (int)bytes, (int)count, lineNumber, columns[3],
                    columns[words.length > 4 ? 4 : 3]});
            }
        }

        /** The checks that need the whole file: the settings may come in any order. */
        private void checkWhole()
        {
            if (idcThreshold.value > mtu.value && idcThreshold.line != 0)
            {
                at(idcThreshold.line, idcThreshold.column, "the IDC threshold " + idcThreshold.value + " is more " +
                    "than the MTU " + mtu.value + "; an IDC is one packet, so give a threshold up to the MTU");
            }
            checkBufferSize();
            for (final int[] c : commandLines)
            {
                final Injector injector = injectors.get(c[0]);
                final boolean idc = c[1] != 0;
                final int bytes = c[2];
                if (idc && bytes > idcThreshold.value)
                {
                    at(c[4], c[5], "an IDC carries at most the IDC threshold of " + idcThreshold.value + " bytes, not " +
                        bytes + "; write 'command " + c[0] + " dma " + bytes + "' or raise 'idc-threshold'");
                    continue;
                }
                if (!idc && bytes <= idcThreshold.value)
                {
                    at(c[4], c[5], "a DMA command carries more than the IDC threshold of " + idcThreshold.value +
                        " bytes, not " + bytes + "; write 'command " + c[0] + " idc " + bytes + "'");
                    continue;
                }
                if (injector.bufferClass < 0 || badClasses.contains(injector.bufferClass))
                {
                    continue;
                }
                final BufferClass k = classes.get(injector.bufferClass);
                final int largest = idc ? bytes : Math.min(bytes, mtu.value);
                final long needed = (largest + cell.value - 1) / cell.value;
                if (needed > (long)k.reserved + shared.value)
                {
                    at(c[4], c[5], "its " + (idc ? "packet" : "largest packet") + " of " + largest + " bytes takes " +
                        needed + " cells of " + cell.value + " bytes, more than class " + injector.bufferClass +
                        " can ever hold (" + k.reserved + " reserved + " + shared.value + " shared); raise the " +
                        "class's reserved cells or 'shared'" + (idc ? "" : ", or lower the mtu"));
                    continue;
                }
                injector.commands.add(new long[] {c[1], bytes, c[3], c[4]});
            }
            if (!errors.hasErrors())
            {
                checkRunLength();
            }
        }

        /** Refuses a buffer of more than {@link #MAX_BUFFER_BYTES}, at the line where the cells summed cross it. */
        private void checkBufferSize()
        {
            final List<int[]> sizing = new ArrayList<>();   // {line, column, cells}
            sizing.add(new int[] {shared.line, shared.column, shared.value});
            for (final BufferClass k : classes)
            {
                sizing.add(new int[] {k.line, k.reservedColumn, k.reserved});
            }
            sizing.sort(Comparator.comparingInt(s -> s[0]));
            long total = 0;
            for (final int[] s : sizing)
            {
                total += s[2];
                if (total == 0 && s == sizing.get(sizing.size() - 1) && shared.line != 0)
                {
                    at(shared.line, shared.column, "the buffer has no cells; give 'shared' or a class's reserved " +
                        "cells more than 0");
                    return;
                }
                if (total * cell.value > MAX_BUFFER_BYTES)
                {
                    at(Math.max(s[0], cell.line), s[0] >= cell.line ? s[1] : cell.column, "the buffer would be " +
                        total + " cells of " + cell.value + " bytes by this line, more than the simulator's " +
                        (MAX_BUFFER_BYTES >> 20) + " MiB; lower the reserved cells, 'shared' or 'cell'");
                    return;
                }
            }
        }

        /**
         * Refuses a run that could take more than {@link #MAX_STEPS} steps, at the command line where the bound,
         * summed in file order, crosses it. A step injects a packet or the wire holds one (a packet that can never
         * fit is refused above, so with the buffer empty some packet is injected); each step the wire holds
         * packets adds {@code drain} cells to its budget, spent on the cells it releases, and at most
         * {@code drain - 1} cells are dropped each time it empties. So P packets of K cells in all take at most
         * {@code 2P + ceil(K / drain) + 2} steps.
         */
        private void checkRunLength()
        {
            final List<int[]> ordered = new ArrayList<>(commandLines);
            ordered.sort(Comparator.comparingInt(c -> c[4]));
            final long perMtu = (mtu.value + cell.value - 1) / cell.value;
            stepBound = 2;
            long packets = 0;
            long cells = 0;
            for (final int[] c : ordered)
            {
                final long bytes = c[2];
                final long count = c[3];
                if (c[1] != 0)
                {
                    packets += count;
                    cells += count * ((bytes + cell.value - 1) / cell.value);
                }
                else
                {
                    final long rest = bytes % mtu.value;
                    packets += count * ((bytes + mtu.value - 1) / mtu.value);
                    cells += count * (bytes / mtu.value * perMtu + (rest + cell.value - 1) / cell.value);
                }
                final long bound = 2 * packets + (cells + drain.value - 1) / drain.value + 2;
                stepBound = bound;
                if (bound > MAX_STEPS)
                {
                    if (steps.line != 0)
                    {
                        // 'steps N' stops the run: the bound no longer matters (and summing on could overflow)
                        return;
                    }
                    at(c[4], c[6], "the commands up to this line make " + packets + " packets of " + cells +
                        " cells, up to " + bound + " steps at drain " + drain.value + ", more than the simulator's " +
                        MAX_STEPS + ": it prints a line an event, so lower the counts, or stop the run with " +
                        "'steps N' (N up to " + MAX_STEPS + ")");
                    return;
                }
            }
        }

        /**
         * Classes and injectors are numbered 0, 1, 2, ... in file order.
         *
         * @return true when {@code number} (-1: already reported) is the next one of its kind, else reports why not.
         */
        private boolean next(final long number, final String kind, final int declared, final int declaredLine)
        {
            if (number >= 0 && number != declared)
            {
                error(1, number < declared ?
                    kind + " " + number + " is already declared on line " + declaredLine + "; declare it once" :
                    kind + " " + number + " comes before " + kind + " " + declared + "; number the " + kind +
                        (kind.endsWith("s") ? "es" : "s") + " 0, 1, 2, ... in file order");
            }
            return number == declared;
        }

        private long[] marks(final int index)
        {
            final long low = number(index, 0, Integer.MAX_VALUE - 1, "low mark (cells)");
            final long high = number(index + 1, 1, Integer.MAX_VALUE, "high mark (cells)");
            if (low < 0 || high < 0)
            {
                return null;
            }
            if (high <= low)
            {
                error(index + 1, "the high mark " + high + " is not above the low mark " + low + "; give LOW < HIGH " +
                    "(hysteresis: high priority at or below LOW, low at or above HIGH)");
                return null;
            }
            return new long[] {low, high};
        }

        private boolean keywords(
            final String usage, final int at1, final String word1, final int at2, final String word2, final int at3,
            final String word3)
        {
            final int[] at = {at1, at2, at3};
            final String[] expected = {word1, word2, word3};
            for (int k = 0; k < at.length; k++)
            {
                if (at[k] < words.length && !words[at[k]].equals(expected[k]))
                {
                    error(at[k], "expected '" + expected[k] + "', got '" + Diagnostic.excerpt(words[at[k]]) + "'; write '" + usage + "'");
                    return false;
                }
            }
            return true;
        }

        private boolean once(final Setting setting)
        {
            if (setting.line != 0)
            {
                error(0, setting.name + " is already given on line " + setting.line + "; give it once");
                return false;
            }
            return true;
        }

        private void set(final Setting setting, final long value)
        {
            if (value >= 0)
            {
                setting.value = (int)value;
                setting.line = lineNumber;
                setting.column = columns[1];
            }
        }

        private boolean arguments(final int min, final int max, final String usage)
        {
            final int given = words.length - 1;
            if (given < min || given > max)
            {
                error(0, words[0] + " takes " + (min == max ? Integer.toString(min) : min + " to " + max) +
                    " words after it, got " + given + "; write '" + usage + "'");
                return false;
            }
            return true;
        }

        /** @return the number, or -1 after reporting it. */
        private long number(final int index, final long min, final long max, final String what)
        {
            final String word = words[index];
            long value = word.isEmpty() || word.length() > 18 ? -1 : 0;
            for (int i = 0; i < word.length() && value >= 0; i++)
            {
                final char c = word.charAt(i);
                value = c >= '0' && c <= '9' ? value * 10 + (c - '0') : -1;
            }
            if (value < 0 && word.chars().allMatch(c -> c >= '0' && c <= '9'))
            {
                error(index, what + " " + Diagnostic.excerpt(word) + " is out of range; give " + min + ".." + max);
                return -1;
            }
            if (value < 0)
            {
                error(index, what + " '" + Diagnostic.excerpt(word) + "' is not a number; give digits, " + min + ".." +
                    max);
                return -1;
            }
            if (value < min || value > max)
            {
                error(index, what + " " + Diagnostic.excerpt(word) + " is out of range; give " + min + ".." + max);
                return -1;
            }
            return value;
        }

        private void split(final String text)
        {
            final Words line = Words.of(text);
            words = line.words();
            columns = line.columns();
        }

        private void error(final int wordIndex, final String message)
        {
            at(lineNumber, columns[Math.min(wordIndex, columns.length - 1)], message);
        }

        private void at(final int line, final int column, final String message)
        {
            errors.error(file, line, column, message);
        }
    }
}
