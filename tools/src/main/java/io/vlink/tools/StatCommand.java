package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.nic.status.CountersFileDescriptor;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.Console;
import java.io.File;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * {@code vlink stat}: the live counters of every vlink engine on this machine, read from their counters files
 * (docs/cli.md), like AeronStat or {@code perfquery}. The output form is documented in
 * {@code docs/engine.md}: one record a line, {@code key=value} fields in a fixed order; {@link StatView} prints it.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    description = {
        "Live counters of every running vlink engine on this machine, read from their counters files.",
        "One record a line, key=value fields: '# vlink stat TIME dir=DIR', then per engine an 'engine' line, " +
            "its 'counter' lines (with --watch, from the second refresh, per_sec beside each count) and, with " +
            "--errors, its 'error' lines. With --perfquery, each port as perfquery prints one instead: IB's port " +
            "counters by their names, PortXmitData and PortRcvData in 4-byte words (--extended: perfquery -x). " +
            "It only reads: engines that are not running (process gone, or heartbeat stale) are counted in a " +
            "comment, listed with --all; --prune deletes the files of those whose process is gone (docs/engine.md " +
            "has the full form)."
    })
public final class StatCommand implements Callable<Integer>
{
    /** ANSI: cursor home, clear the screen. */
    static final String CLEAR_SCREEN = "\033[H\033[2J";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "FILTER",
        description = "Only counters whose name starts with FILTER (as --counter).")
    String positionalFilter;

    @Option(names = "--watch", description = "Refresh every interval until interrupted (or --count times); on a " +
        "terminal each refresh redraws the screen.")
    boolean watch;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000",
        description = "Refresh interval with --watch, in ms (default: ${DEFAULT-VALUE}).")
    long intervalMs;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
        description = "With --watch: stop after N refreshes (default: never).")
    int count;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Directory of counters files, which must exist (default: the vlink.dir property, else " +
            "/dev/shm/vlink-USER on Linux, else TMPDIR/vlink-USER).")
    File dir;

    @Option(names = "--perfquery", description = "Each port as infiniband-diags' perfquery prints one: " +
        "PortCounters by IB's names and widths (saturating), PortXmitData and PortRcvData in 4-byte words.")
    boolean perfQuery;

    @Option(names = {"-x", "--extended"}, description = "With --perfquery: the 64-bit PortCountersExtended " +
        "(perfquery -x).")
    boolean extended;

    @Option(names = "--prune", description = "Delete the counters files of engines whose process is gone (and " +
        "only those), each named on stderr; without it nothing is ever deleted.")
    boolean prune;

    @Option(names = "--engine", paramLabel = "NAME", description = "Only the engine of this name.")
    String engine;

    @Option(names = "--counter", paramLabel = "PREFIX",
        description = "Only counters whose name starts with PREFIX (e.g. tx_, discards, link_state).")
    String counterPrefix;

    @Option(names = "--errors", description = "Also print each engine's distinct errors.")
    boolean errors;

    @Option(names = "--nonzero", description = "Print only counters whose value is not zero.")
    boolean nonZero;

    @Option(names = "--all", description = "Also list engines that are not running (process gone: dead; heartbeat " +
        "stale: silent) under '# not running', without counters.")
    boolean all;

    @Option(names = "--liveness", paramLabel = "MS", defaultValue = "5000",
        description = "A running engine whose heartbeat is older than this is silent, listed only with --all " +
            "(default: ${DEFAULT-VALUE}).")
    long livenessMs;

    /** Whether stdout is a terminal (the redraw); tests replace it. */
    BooleanSupplier terminal = StatCommand::stdoutIsTerminal;

    @Override
    public Integer call()
    {
        if (intervalMs <= 0 || count < 0 || livenessMs <= 0)
        {
            throw new ParameterException(
                spec.commandLine(), "--interval and --liveness must be positive, --count not negative");
        }
        if (null != positionalFilter && null != counterPrefix && !positionalFilter.equals(counterPrefix))
        {
            throw new ParameterException(spec.commandLine(), "give FILTER or --counter, not both");
        }
        if (extended && !perfQuery)
        {
            throw new ParameterException(spec.commandLine(), "--extended goes with --perfquery");
        }
        if (perfQuery && (null != positionalFilter || null != counterPrefix || nonZero))
        {
            throw new ParameterException(spec.commandLine(),
                "--perfquery prints every IB counter of a port: give it without FILTER, --counter or --nonzero");
        }
        if (null != dir && (!dir.isDirectory() || !dir.canRead()))
        {
            // a directory named that is not there is a mistake (a typo, an engine's other directory), not "no engine"
            spec.commandLine().getErr().println(Diagnostic.cannotRead(dir.getPath(),
                !dir.exists() ? "no such directory" : !dir.isDirectory() ? "not a directory" : "permission denied"));
            return Vlink.EXIT_FAILURE;
        }
        final StatView.Filter filter = new StatView.Filter();
        filter.engine = engine;
        filter.counterPrefix = null != counterPrefix ? counterPrefix : positionalFilter;
        filter.nonZero = nonZero;
        filter.errors = errors;
        filter.all = all;
        filter.prune = prune;
        filter.perfQuery = perfQuery;
        filter.extended = extended;
        filter.livenessMs = livenessMs;
        final StatView view = new StatView(filter, SystemEpochClock.INSTANCE, SystemNanoClock.INSTANCE);
        final File directory = null != dir ? dir : CountersFileDescriptor.defaultDirectory();
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final boolean redraw = watch && terminal.getAsBoolean();
        int refreshes = 0;
        while (true)
        {
            if (redraw)
            {
                out.print(CLEAR_SCREEN);
            }
            view.print(directory, out, err);
            out.flush();
            err.flush();
            refreshes++;
            if (!watch || (count > 0 && refreshes >= count) || Thread.currentThread().isInterrupted())
            {
                return 0;
            }
            if (!redraw)
            {
                out.println();
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(intervalMs));
        }
    }

    /**
     * @return whether stdout goes to a terminal: a console exists (JDK 17 has one only then) and, from JDK 22, says
     * it is a terminal.
     */
    static boolean stdoutIsTerminal()
    {
        final Console console = System.console();
        if (null == console)
        {
            return false;
        }
        try
        {
            return (Boolean)Console.class.getMethod("isTerminal").invoke(console);
        }
        catch (final NoSuchMethodException ex)
        {
            return true;
        }
        catch (final ReflectiveOperationException ex)
        {
            return false;
        }
    }
}
