package io.vlink.tools.soak;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The parsed value of {@code --faults KIND=VALUE[,KIND=VALUE...]} (docs/cli.md). Immutable.
 * A kind not named is off. A kind named twice, an unknown kind, or a value of the wrong form is refused
 * with a message that says what is wrong and what is allowed; nothing is folded into range silently.
 */
public final class FaultSpec
{
    private static final FaultSpec NONE = new FaultSpec(new EnumMap<>(FaultKind.class));

    private final EnumMap<FaultKind, Double> values;

    private FaultSpec(final EnumMap<FaultKind, Double> values)
    {
        this.values = values;
    }

    /**
     * @return no faults.
     */
    public static FaultSpec none()
    {
        return NONE;
    }

    /**
     * @param text {@code KIND=VALUE[,KIND=VALUE...]}; empty or blank for no faults.
     * @return the faults.
     * @throws IllegalArgumentException with a message naming the offending item and the fix.
     */
    public static FaultSpec parse(final String text)
    {
        final EnumMap<FaultKind, Double> values = new EnumMap<>(FaultKind.class);
        if (text == null || text.isBlank())
        {
            return NONE;
        }

        for (final String rawItem : text.split(",", -1))
        {
            final String item = rawItem.trim();
            if (item.isEmpty())
            {
                throw new IllegalArgumentException("--faults '" + text + "': empty item; write KIND=VALUE[,KIND=VALUE...]");
            }
            final int eq = item.indexOf('=');
            if (eq < 0)
            {
                throw new IllegalArgumentException(
                    "--faults: '" + item + "' has no value; write KIND=VALUE, e.g. drop-data=0.001");
            }
            final String label = item.substring(0, eq).trim();
            final String valueText = item.substring(eq + 1).trim();
            final FaultKind kind = FaultKind.ofLabel(label);
            if (kind == null)
            {
                throw new IllegalArgumentException("--faults: unknown kind '" + label + "'; kinds: " + kindList());
            }
            if (values.containsKey(kind))
            {
                throw new IllegalArgumentException("--faults: '" + label + "' is given twice; give each kind once");
            }
            values.put(kind, parseValue(kind, valueText));
        }
        return new FaultSpec(values);
    }

    private static double parseValue(final FaultKind kind, final String text)
    {
        final String expected = kind.label() + "=" + kind.unit().symbol() + " takes " + kind.unit().description();
        try
        {
            switch (kind.unit())
            {
                case PROBABILITY:
                {
                    final double p = Double.parseDouble(text);
                    if (!(p >= 0.0 && p <= 1.0))
                    {
                        throw new IllegalArgumentException("--faults: '" + text + "' is out of range; " + expected);
                    }
                    return p;
                }
                case MILLIS:
                {
                    final long ms = Long.parseLong(text);
                    if (ms < 0 || ms > 999)
                    {
                        throw new IllegalArgumentException("--faults: '" + text + "' is out of range; " + expected);
                    }
                    return ms;
                }
                default:
                {
                    final long n = Long.parseLong(text);
                    if (n < 0 || n > Integer.MAX_VALUE)
                    {
                        throw new IllegalArgumentException("--faults: '" + text + "' is out of range; " + expected);
                    }
                    return n;
                }
            }
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--faults: '" + text + "' is not a number; " + expected, ex);
        }
    }

    private static String kindList()
    {
        final StringJoiner joiner = new StringJoiner(", ");
        for (final FaultKind kind : FaultKind.values())
        {
            joiner.add(kind.label() + "=" + kind.unit().symbol());
        }
        return joiner.toString();
    }

    public boolean isOn(final FaultKind kind)
    {
        final Double value = values.get(kind);
        return value != null && value > 0.0;
    }

    /**
     * @return true if any fault is on.
     */
    public boolean any()
    {
        for (final FaultKind kind : FaultKind.values())
        {
            if (isOn(kind))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * @return the probability of a {@link FaultKind.Unit#PROBABILITY} kind, 0 when off.
     */
    public double probability(final FaultKind kind)
    {
        requireUnit(kind, FaultKind.Unit.PROBABILITY);
        return values.getOrDefault(kind, 0.0);
    }

    /**
     * @return the whole-number value (count or milliseconds) of a kind, 0 when off.
     */
    public long count(final FaultKind kind)
    {
        if (kind.unit() == FaultKind.Unit.PROBABILITY)
        {
            throw new IllegalArgumentException(kind.label() + " is a probability, not a count");
        }
        return values.getOrDefault(kind, 0.0).longValue();
    }

    /**
     * @return the kinds given, with their values, in declaration order.
     */
    public Map<FaultKind, Double> values()
    {
        return Collections.unmodifiableMap(values);
    }

    private static void requireUnit(final FaultKind kind, final FaultKind.Unit unit)
    {
        if (kind.unit() != unit)
        {
            throw new IllegalArgumentException(kind.label() + " is not a " + unit.name().toLowerCase());
        }
    }

    /**
     * @return the canonical {@code KIND=VALUE,...} form, which {@link #parse(String)} reads back.
     */
    @Override
    public String toString()
    {
        final StringJoiner joiner = new StringJoiner(",");
        values.forEach((kind, value) -> joiner.add(kind.label() + "=" +
            (kind.unit() == FaultKind.Unit.PROBABILITY ? Double.toString(value) : Long.toString(value.longValue()))));
        return joiner.toString();
    }
}
