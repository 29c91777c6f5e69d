package io.vlink.tools;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.DiscardReasons;
import io.vlink.nic.status.EngineLiveness;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What {@code vlink stat} prints for one look at a directory of counters files (docs/engine.md, "Counters file and
 * {@code vlink stat}"), and what it keeps between looks to show rates.
 * <p>
 * Each look prints a block: a header line, then per running engine its {@code engine} line, its {@code counter} lines
 * and, if asked, its {@code error} lines. A counter that counts shows {@code per_sec}, its increase per second since
 * the previous look at the same file (from the second look on); a gauge shows only its value, and the link state by
 * its name. A look only reads: engines that are not running (their process gone, {@code state=dead}, or their
 * heartbeat stale, {@code state=silent}) are counted in a comment line, or with {@code all} listed after the running
 * engines under {@code # not running}; with {@code prune} the files of engines whose process is gone are deleted
 * first, and only those. With {@code perfQuery} each running engine's ports are printed as {@code perfquery} prints
 * a port ({@link PerfQueryView}) instead of the counter lines.
 * <p>
 * The clocks are injected: the rates of a test are exact.
 */
final class StatView
{
    /** Which engines and counters to show, and how. */
    static final class Filter
    {
        /** Only the engine of this name (null: every engine). */
        String engine;
        /** Only counters whose name starts with this (null: every counter). */
        String counterPrefix;
        boolean nonZero;
        boolean errors;
        /** List the engines that are not running. */
        boolean all;
        /** Delete the files of engines whose process is gone (never a running or silent engine's). */
        boolean prune;
        /** Each port as perfquery prints it, instead of the counter lines. */
        boolean perfQuery;
        /** With {@link #perfQuery}: PortCountersExtended ({@code perfquery -x}). */
        boolean extended;
        long livenessMs = CountersFileReader.DEFAULT_LIVENESS_TIMEOUT_MS;
    }

    private final Filter filter;
    private final EpochClock epochClock;
    private final NanoClock nanoClock;
    /** Per file: the previous look's time and counter values (by counter id), for the rates. */
    private final Map<String, Sample> previous = new HashMap<>();

    private static final class Sample
    {
        final long nanos;
        final long[] values;
        final long engineStartMs;

        Sample(final long nanos, final long[] values, final long engineStartMs)
        {
            this.nanos = nanos;
            this.values = values;
            this.engineStartMs = engineStartMs;
        }
    }

    StatView(final Filter filter, final EpochClock epochClock, final NanoClock nanoClock)
    {
        this.filter = filter;
        this.epochClock = epochClock;
        this.nanoClock = nanoClock;
    }

    /**
     * One look: every counters file of the directory.
     *
     * @param directory where the counters files are.
     * @param out       the records.
     * @param err       files skipped and files pruned.
     */
    void print(final File directory, final PrintWriter out, final PrintWriter err)
    {
        final long nowMs = epochClock.time();
        final long nowNs = nanoClock.nanoTime();
        out.println("# vlink stat " + Instant.ofEpochMilli(nowMs) + " dir=" + directory);
        final File[] files = directory.listFiles((d, name) -> name.endsWith(CountersFileDescriptor.FILE_SUFFIX));
        Arrays.sort(null == files ? new File[0] : files);
        final List<String> notRunning = new ArrayList<>();
        final Map<String, Sample> seen = new HashMap<>();
        int shown = 0;
        int dead = 0;
        for (final File file : null == files ? new File[0] : files)
        {
            final CountersFileReader reader;
            try
            {
                reader = CountersFileReader.open(file);
            }
            catch (final IllegalStateException ex)
            {
                final long pid = CountersFileDescriptor.pidInName(file);
                if (filter.prune && pid > 0 && !running(pid) && file.delete())
                {
                    // a file its engine never finished making: its process was killed while starting
                    err.println("vlink stat: pruned " + file + " (incomplete; pid " + pid + " is not running)");
                }
                else
                {
                    err.println("vlink stat: skipped " + ex.getMessage());
                }
                continue;
            }
            try (reader)
            {
                if (null != filter.engine && !filter.engine.equals(reader.name()))
                {
                    continue;
                }
                final EngineLiveness liveness = reader.liveness(nowMs, filter.livenessMs);
                if (EngineLiveness.LIVE != liveness)
                {
                    if (filter.prune && EngineLiveness.DEAD == liveness && file.delete())
                    {
                        // the process is gone: nobody else will ever remove its file
                        err.println("vlink stat: pruned " + file + " (pid " + reader.pid() + " is not running)");
                    }
                    else
                    {
                        notRunning.add(engineLine(reader, liveness, nowMs));
                        dead += EngineLiveness.DEAD == liveness ? 1 : 0;
                    }
                    continue;
                }
                if (filter.perfQuery)
                {
                    PerfQueryView.print(reader.name(), reader.pid(), reader.counters(), filter.extended, out);
                }
                else
                {
                    out.println(engineLine(reader, liveness, nowMs));
                    seen.put(file.getPath(), printCounters(reader, file.getPath(), nowNs, out));
                }
                if (filter.errors)
                {
                    printErrors(reader, out);
                }
                shown++;
            }
            catch (final RuntimeException ex)
            {
                // a file that changed under us (an engine closing): report it and go on with the next one
                err.println("vlink stat: skipped " + file + ": " + ex.getMessage());
            }
        }
        previous.clear();
        previous.putAll(seen);
        if (0 == shown)
        {
            out.println(null == filter.engine ? "# no vlink engine" : "# no vlink engine named " + filter.engine);
        }
        if (!notRunning.isEmpty() && filter.all)
        {
            out.println("# not running");
            notRunning.forEach(out::println);
        }
        else if (!notRunning.isEmpty())
        {
            out.println("# " + notRunning.size() + " not running (--all lists them" +
                (dead > 0 ? "; --prune deletes the files of the " + dead + " whose process is gone)" : ")"));
        }
    }

    private static boolean running(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static String engineLine(final CountersFileReader reader, final EngineLiveness liveness, final long nowMs)
    {
        return "engine name=" + reader.name() +
            " pid=" + reader.pid() +
            " state=" + liveness.label() +
            " started=" + Instant.ofEpochMilli(reader.startTimestampMs()) +
            " heartbeat_age_ms=" + Math.max(0, nowMs - reader.heartbeatMs()) +
            " file=" + reader.file();
    }

    private Sample printCounters(final CountersFileReader reader, final String key, final long nowNs, final PrintWriter out)
    {
        final CountersReader counters = reader.counters();
        final long[] values = new long[counters.maxCounterId() + 1];
        final Sample before = previous.get(key);
        // a file of the same name from a new engine (same name and pid again) starts the rates afresh
        final Sample last = null != before && before.engineStartMs == reader.startTimestampMs() ? before : null;
        final double seconds = null == last ? 0 : (nowNs - last.nanos) / 1e9;
        final String engine = reader.name();
        final StringBuilder line = new StringBuilder(128);
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            values[counterId] = value;
            final CounterType type = CounterType.ofTypeId(typeId);
            final String name = null == type ? "type_" + typeId : CounterKey.NONE == CounterKey.reason(keyBuffer) ?
                type.counterName() : type.counterName() + '_' + DiscardReasons.name(CounterKey.reason(keyBuffer));
            if ((filter.nonZero && 0 == value) || (null != filter.counterPrefix && !name.startsWith(filter.counterPrefix)))
            {
                return;
            }
            line.setLength(0);
            line.append("counter engine=").append(engine);
            line.append(" port=");
            appendField(line, CounterKey.port(keyBuffer));
            line.append(" vl=");
            appendField(line, CounterKey.vl(keyBuffer));
            line.append(" name=").append(name).append(" value=");
            if (CounterType.LINK_STATE == type && value >= 0 && value < LinkState.values().length)
            {
                line.append(LinkState.get((int)value).name());
            }
            else
            {
                line.append(value);
            }
            if (null != last && seconds > 0 && null != type && !type.isGauge() && counterId < last.values.length)
            {
                line.append(" per_sec=").append(rate((value - last.values[counterId]) / seconds));
            }
            out.println(line);
        });
        return new Sample(nowNs, values, reader.startTimestampMs());
    }

    private static void printErrors(final CountersFileReader reader, final PrintWriter out)
    {
        final String engine = reader.name();
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

    /** A rate with one decimal below 1000 a second, whole above. */
    static String rate(final double perSecond)
    {
        return Math.abs(perSecond) >= 1000 ? Long.toString(Math.round(perSecond)) :
            String.format(Locale.ROOT, "%.1f", perSecond);
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
