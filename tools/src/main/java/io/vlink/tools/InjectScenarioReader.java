package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.Words;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.wire.Sizes;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Reads an {@code inject simulate} scenario (docs/cli.md): each directive checked where it stands,
 * every finding with its {@code file:line:column}; what it read makes the {@link InjectScenario}.
 */
final class InjectScenarioReader implements LineReader<InjectScenario>
{
    final String file;
    final Findings errors = new Findings();
    final InjectScenario.Setting cell = new InjectScenario.Setting("cell", InjectionConfig.DEFAULT_CELL_SIZE);
    final InjectScenario.Setting shared = new InjectScenario.Setting("shared", InjectionConfig.DEFAULT_SHARED_CELLS);
    final InjectScenario.Setting mtu = new InjectScenario.Setting("mtu", InjectScenario.DEFAULT_MTU);
    final InjectScenario.Setting idcThreshold = new InjectScenario.Setting("idc-threshold", InjectionConfig.DEFAULT_IDC_THRESHOLD);
    final InjectScenario.Setting idcMarks = new InjectScenario.Setting("idc-marks", 0);
    final InjectScenario.Setting drain = new InjectScenario.Setting("drain", InjectScenario.DEFAULT_DRAIN);
    final InjectScenario.Setting steps = new InjectScenario.Setting("steps", 0);
    int idcLow = InjectionConfig.DEFAULT_IDC_LOW_MARK;
    int idcHigh = InjectionConfig.DEFAULT_IDC_HIGH_MARK;
    final List<long[]> resets = new ArrayList<>();           // {step, line}
    final List<InjectScenario.BufferClass> classes = new ArrayList<>();
    final List<InjectScenario.Injector> injectors = new ArrayList<>();
    final List<int[]> commandLines = new ArrayList<>();      // {injector, idc, bytes, count, line, bytes col, count col}
    // a class or injector line whose number was read but whose other fields were not: its users are not checked
    final List<Integer> badClasses = new ArrayList<>();
    long stepBound;
    int lineNumber;
    String[] words;
    int[] columns;

    InjectScenarioReader(final String file)
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

    void directive()
    {
        switch (words[0])
        {
            case "cell":
                if (once(cell) && arguments(1, 1, "cell BYTES"))
                {
                    final long bytes = number(1, InjectScenario.MIN_CELL, InjectScenario.MAX_CELL, "cell size (bytes)");
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
                    set(shared, number(1, 0, InjectScenario.MAX_POOL, "shared pool (cells)"));
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
                    set(steps, number(1, 1, InjectScenario.MAX_STEPS, "steps"));
                }
                break;
            case "reset":
                if (arguments(1, 1, "reset STEP"))
                {
                    final long at = number(1, 1, InjectScenario.MAX_STEPS, "reset step");
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
                error(0, "unknown directive '" + Diagnostic.excerpt(words[0]) + "'; expected " + InjectScenario.DIRECTIVES);
        }
    }

    void bufferClass()
    {
        if (!arguments(5, 7, InjectScenario.CLASS_USAGE) || !keywords(InjectScenario.CLASS_USAGE, 2, "weight", 4, "reserved", 6, "policy"))
        {
            return;
        }
        final long k = number(1, 0, InjectScenario.MAX_CLASSES - 1, "class number");
        if (!next(k, "class", classes.size(), k >= 0 && k < classes.size() ? classes.get((int)k).line : 0))
        {
            return;
        }
        final long weight = number(3, 1, InjectScenario.MAX_WEIGHT, "class weight (cells a round)");
        final long reserved = number(5, 0, InjectScenario.MAX_POOL, "reserved cells");
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
        classes.add(new InjectScenario.BufferClass(
            (int)Math.max(1, weight), (int)Math.max(0, reserved), first, lineNumber, columns[5]));
        if (weight < 0 || reserved < 0 || !policyOk)
        {
            badClasses.add((int)k);
        }
    }

    void injector()
    {
        if (!arguments(6, 8, InjectScenario.INJECTOR_USAGE) || !keywords(InjectScenario.INJECTOR_USAGE, 2, "class", 4, "marks", 7, "timer"))
        {
            return;
        }
        final long i = number(1, 0, InjectScenario.MAX_INJECTORS - 1, "injector number");
        if (!next(i, "injector", injectors.size(), i >= 0 && i < injectors.size() ? injectors.get((int)i).line : 0))
        {
            return;
        }
        long k = number(3, 0, InjectScenario.MAX_CLASSES - 1, "class");
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
        injectors.add(ok ? new InjectScenario.Injector((int)k, (int)marks[0], (int)marks[1], timer, lineNumber) :
            new InjectScenario.Injector(-1, 0, 1, 0, lineNumber));
    }

    void command()
    {
        if (!arguments(3, 4, InjectScenario.COMMAND_USAGE))
        {
            return;
        }
        final long i = number(1, 0, InjectScenario.MAX_INJECTORS - 1, "injector");
        if (i >= injectors.size())
        {
            error(1, "injector " + i + " is not declared; declare 'injector " + i + " class K marks LOW HIGH' " +
                "before its commands");
        }
        final boolean idc = words[2].equals("idc");
        if (!idc && !words[2].equals("dma"))
        {
            error(2, "command kind '" + Diagnostic.excerpt(words[2]) + "' is not idc or dma; write '" + InjectScenario.COMMAND_USAGE + "'");
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
    void checkWhole()
    {
        if (idcThreshold.value > mtu.value && idcThreshold.line != 0)
        {
            at(idcThreshold.line, idcThreshold.column, "the IDC threshold " + idcThreshold.value + " is more " +
                "than the MTU " + mtu.value + "; an IDC is one packet, so give a threshold up to the MTU");
        }
        checkBufferSize();
        for (final int[] c : commandLines)
        {
            final InjectScenario.Injector injector = injectors.get(c[0]);
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
            final InjectScenario.BufferClass k = classes.get(injector.bufferClass);
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
    void checkBufferSize()
    {
        final List<int[]> sizing = new ArrayList<>();   // {line, column, cells}
        sizing.add(new int[] {shared.line, shared.column, shared.value});
        for (final InjectScenario.BufferClass k : classes)
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
            if (total * cell.value > InjectScenario.MAX_BUFFER_BYTES)
            {
                at(Math.max(s[0], cell.line), s[0] >= cell.line ? s[1] : cell.column, "the buffer would be " +
                    total + " cells of " + cell.value + " bytes by this line, more than the simulator's " +
                    (InjectScenario.MAX_BUFFER_BYTES >> 20) + " MiB; lower the reserved cells, 'shared' or 'cell'");
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
    void checkRunLength()
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
            if (bound > InjectScenario.MAX_STEPS)
            {
                if (steps.line != 0)
                {
                    // 'steps N' stops the run: the bound no longer matters (and summing on could overflow)
                    return;
                }
                at(c[4], c[6], "the commands up to this line make " + packets + " packets of " + cells +
                    " cells, up to " + bound + " steps at drain " + drain.value + ", more than the simulator's " +
                    InjectScenario.MAX_STEPS + ": it prints a line an event, so lower the counts, or stop the run with " +
                    "'steps N' (N up to " + InjectScenario.MAX_STEPS + ")");
                return;
            }
        }
    }

    /**
     * Classes and injectors are numbered 0, 1, 2, ... in file order.
     *
     * @return true when {@code number} (-1: already reported) is the next one of its kind, else reports why not.
     */
    boolean next(final long number, final String kind, final int declared, final int declaredLine)
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

    long[] marks(final int index)
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

    boolean keywords(
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

    boolean once(final InjectScenario.Setting setting)
    {
        if (setting.line != 0)
        {
            error(0, setting.name + " is already given on line " + setting.line + "; give it once");
            return false;
        }
        return true;
    }

    void set(final InjectScenario.Setting setting, final long value)
    {
        if (value >= 0)
        {
            setting.value = (int)value;
            setting.line = lineNumber;
            setting.column = columns[1];
        }
    }

    boolean arguments(final int min, final int max, final String usage)
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
    long number(final int index, final long min, final long max, final String what)
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

    void split(final String text)
    {
        final Words line = Words.of(text);
        words = line.words();
        columns = line.columns();
    }

    void error(final int wordIndex, final String message)
    {
        at(lineNumber, columns[Math.min(wordIndex, columns.length - 1)], message);
    }

    void at(final int line, final int column, final String message)
    {
        errors.error(file, line, column, message);
    }
}
