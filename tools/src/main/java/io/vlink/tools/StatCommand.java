package io.vlink.tools;

import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.EngineLiveness;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code vlink stat}: the live counters of every vlink engine on this machine, read from their counters files
 * (docs/cli.md), like AeronStat or {@code perfquery}. The output form is documented in
 * {@code docs/engine.md}: one record a line, {@code key=value} fields in a fixed order.
 */
@Command(
    name = "stat",
    mixinStandardHelpOptions = true,
    description = {
        "Live counters of every running vlink engine on this machine, read from their counters files.",
        "One record a line, key=value fields: '# vlink stat TIME dir=DIR', then per engine an 'engine' line, " +
            "its 'counter' lines and, with --errors, its 'error' lines. A file left by a dead process shows " +
            "state=dead and no counters (docs/engine.md has the full form)."
    })
public final class StatCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @Option(names = "--watch", description = "Refresh every interval until interrupted (or --count times).")
    boolean watch;

    @Option(names = "--interval", paramLabel = "MS", defaultValue = "1000",
        description = "Refresh interval with --watch, in ms (default: ${DEFAULT-VALUE}).")
    long intervalMs;

    @Option(names = "--count", paramLabel = "N", defaultValue = "0",
        description = "With --watch: stop after N refreshes (default: never).")
    int count;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Directory of counters files (default: the vlink.dir property, else ${java.io.tmpdir}/vlink-${user.name}).")
    File dir;

    @Option(names = "--errors", description = "Also print each engine's distinct errors.")
    boolean errors;

    @Option(names = "--nonzero", description = "Print only counters whose value is not zero.")
    boolean nonZero;

    @Option(names = "--liveness", paramLabel = "MS", defaultValue = "5000",
        description = "A running engine whose heartbeat is older than this is shown as silent (default: ${DEFAULT-VALUE}).")
    long livenessMs;

    @Override
    public Integer call()
    {
        if (intervalMs <= 0 || count < 0 || livenessMs <= 0)
        {
            throw new picocli.CommandLine.ParameterException(
                spec.commandLine(), "--interval and --liveness must be positive, --count not negative");
        }
        final File directory = null != dir ? dir : CountersFileDescriptor.defaultDirectory();
        final PrintWriter out = spec.commandLine().getOut();
        int refreshes = 0;
        while (true)
        {
            printOnce(directory, out);
            out.flush();
            refreshes++;
            if (!watch || (count > 0 && refreshes >= count) || Thread.currentThread().isInterrupted())
            {
                return 0;
            }
            out.println();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(intervalMs));
        }
    }

    private void printOnce(final File directory, final PrintWriter out)
    {
        final long nowMs = System.currentTimeMillis();
        out.println("# vlink stat " + Instant.ofEpochMilli(nowMs) + " dir=" + directory);
        final File[] files = directory.listFiles((d, name) -> name.endsWith(CountersFileDescriptor.FILE_SUFFIX));
        if (null == files || 0 == files.length)
        {
            out.println("# no vlink engine");
            return;
        }
        Arrays.sort(files);
        for (final File file : files)
        {
            final CountersFileReader reader;
            try
            {
                reader = CountersFileReader.open(file);
            }
            catch (final IllegalStateException ex)
            {
                spec.commandLine().getErr().println("vlink stat: skipped " + ex.getMessage());
                continue;
            }
            try (reader)
            {
                printEngine(reader, nowMs, out);
            }
            catch (final RuntimeException ex)
            {
                // A file that changed under us (an engine closing): report it and go on with the next one.
                spec.commandLine().getErr().println("vlink stat: skipped " + file + ": " + ex);
            }
        }
    }

    private void printEngine(final CountersFileReader reader, final long nowMs, final PrintWriter out)
    {
        final String engine = reader.name();
        final EngineLiveness liveness = reader.liveness(nowMs, livenessMs);
        out.println("engine name=" + engine +
            " pid=" + reader.pid() +
            " state=" + liveness.label() +
            " started=" + Instant.ofEpochMilli(reader.startTimestampMs()) +
            " heartbeat_age_ms=" + Math.max(0, nowMs - reader.heartbeatMs()) +
            " file=" + reader.file());
        if (EngineLiveness.DEAD == liveness)
        {
            return;
        }

        final CountersReader counters = reader.counters();
        final StringBuilder line = new StringBuilder(128);
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            if (nonZero && 0 == value)
            {
                return;
            }
            final CounterType type = CounterType.ofTypeId(typeId);
            line.setLength(0);
            line.append("counter engine=").append(engine);
            line.append(" port=");
            appendField(line, CounterKey.port(keyBuffer));
            line.append(" vl=");
            appendField(line, CounterKey.vl(keyBuffer));
            line.append(" name=");
            if (null == type)
            {
                line.append("type_").append(typeId);
            }
            else
            {
                line.append(type.counterName());
                final int reason = CounterKey.reason(keyBuffer);
                if (CounterKey.NONE != reason)
                {
                    line.append('_').append(DiscardReasons.name(reason));
                }
            }
            line.append(" value=").append(value);
            out.println(line);
        });

        if (errors)
        {
            ErrorLogReader.read(reader.errorLog(), (observations, first, last, encoded) ->
            {
                final int end = encoded.indexOf('\n');
                final String message = (end < 0 ? encoded : encoded.substring(0, end)).replace("\"", "'");
                out.println("error engine=" + engine +
                    " observations=" + observations +
                    " first=" + Instant.ofEpochMilli(first) +
                    " last=" + Instant.ofEpochMilli(last) +
                    " message=\"" + message.trim() + "\"");
            });
        }
    }

    private static void appendField(final StringBuilder line, final int value)
    {
        if (CounterKey.NONE == value)
        {
            line.append('-');
        }
        else
        {
            line.append(value);
        }
    }
}
