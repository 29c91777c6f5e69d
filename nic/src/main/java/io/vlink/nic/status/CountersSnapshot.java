package io.vlink.nic.status;

import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;

/**
 * The value of every counter of an engine at one moment, on the heap: what stays readable once the engine has
 * closed and its counters file is gone ({@code Engine.countersSnapshot()}). Counters are found by their key, as
 * {@code vlink stat} finds them: type, port, VL and discard reason ({@link CounterKey#NONE} where one does not
 * apply).
 */
public final class CountersSnapshot
{
    private final int[] typeIds;
    private final int[] ports;
    private final int[] vls;
    private final int[] reasons;
    private final long[] values;
    private final String[] labels;

    private CountersSnapshot(final List<long[]> keys, final List<String> labels)
    {
        final int n = keys.size();
        typeIds = new int[n];
        ports = new int[n];
        vls = new int[n];
        reasons = new int[n];
        values = new long[n];
        this.labels = labels.toArray(new String[0]);
        for (int i = 0; i < n; i++)
        {
            final long[] key = keys.get(i);
            typeIds[i] = (int)key[0];
            ports[i] = (int)key[1];
            vls[i] = (int)key[2];
            reasons[i] = (int)key[3];
            values[i] = key[4];
        }
    }

    /**
     * Read every allocated counter. Exact when no writer runs (after an engine's agents stopped); otherwise each
     * value is as fresh as a live read.
     *
     * @param counters the counters to read.
     * @return the snapshot.
     */
    public static CountersSnapshot of(final CountersReader counters)
    {
        final List<long[]> keys = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            keys.add(new long[] {typeId, CounterKey.port(keyBuffer), CounterKey.vl(keyBuffer),
                CounterKey.reason(keyBuffer), counters.getCounterValue(counterId)});
            labels.add(label);
        });
        return new CountersSnapshot(keys, labels);
    }

    /**
     * @param type   an engine-wide counter type ({@link CounterScope#ENGINE}).
     * @return its value.
     * @throws IllegalArgumentException when the engine has no such counter.
     */
    public long engine(final CounterType type)
    {
        return value(type, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE);
    }

    /**
     * @param port a port of the engine.
     * @param type a per-port counter type ({@link CounterScope#PORT}).
     * @return its value.
     * @throws IllegalArgumentException when the engine has no such counter.
     */
    public long port(final int port, final CounterType type)
    {
        return value(type, port, CounterKey.NONE, CounterKey.NONE);
    }

    /**
     * @param port a port of the engine.
     * @param type a per-VL counter type ({@link CounterScope#VL}).
     * @param vl   a VL the port has.
     * @return its value.
     * @throws IllegalArgumentException when the engine has no such counter.
     */
    public long vl(final int port, final CounterType type, final int vl)
    {
        return value(type, port, vl, CounterKey.NONE);
    }

    /**
     * @param port   a port of the engine.
     * @param reason a discard reason id ({@link DiscardReasons}).
     * @return packets the port discarded for that reason.
     * @throws IllegalArgumentException when the engine has no such counter.
     */
    public long discards(final int port, final int reason)
    {
        return value(CounterType.DISCARDS, port, CounterKey.NONE, reason);
    }

    /**
     * @param type   the counter's type.
     * @param port   its port, or {@link CounterKey#NONE}.
     * @param vl     its VL, or {@link CounterKey#NONE}.
     * @param reason its discard reason id, or {@link CounterKey#NONE}.
     * @return its value.
     * @throws IllegalArgumentException when the engine has no such counter.
     */
    public long value(final CounterType type, final int port, final int vl, final int reason)
    {
        for (int i = 0; i < values.length; i++)
        {
            if (typeIds[i] == type.typeId() && ports[i] == port && vls[i] == vl && reasons[i] == reason)
            {
                return values[i];
            }
        }
        throw new IllegalArgumentException("no counter " + type.counterName() + describe(port, vl, reason) +
            " in this engine: check the port, VL and reason against the engine's ports and data VLs");
    }

    /**
     * @return how many counters the snapshot holds.
     */
    public int size()
    {
        return values.length;
    }

    private static String describe(final int port, final int vl, final int reason)
    {
        return (CounterKey.NONE == port ? "" : " port " + port) + (CounterKey.NONE == vl ? "" : " vl " + vl) +
            (CounterKey.NONE == reason ? "" : " reason " + reason);
    }

    /**
     * @return one {@code label = value} line per counter, in allocation order.
     */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < values.length; i++)
        {
            text.append(labels[i]).append(" = ").append(values[i]).append('\n');
        }
        return text.toString();
    }
}
