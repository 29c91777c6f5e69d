package io.vlink.tools.soak;

/**
 * The faults {@code vlink soak --faults} can inject (docs/cli.md), with the form of each value.
 * The names are the spec's and are stable: they are the keys of {@code faults.injected} and
 * {@code faults.detected} in the JSON summary.
 */
public enum FaultKind
{
    DROP_DATA("drop-data", Unit.PROBABILITY, "the wire loses each data packet with probability P"),
    CORRUPT_DATA("corrupt-data", Unit.PROBABILITY, "a bit of a data packet flips on the wire with probability P"),
    DROP_FCP("drop-fcp", Unit.PROBABILITY, "the wire loses each flow-control packet with probability P"),
    CORRUPT_FCP("corrupt-fcp", Unit.PROBABILITY, "a bit of a flow-control packet flips with probability P"),
    STALL_RECEIVER("stall-receiver", Unit.MILLIS, "the receiving application stops draining for MS ms once a second"),
    VL15_FLOOD("vl15-flood", Unit.COUNT, "N VL15 packets a second beyond what the VL15 buffer holds"),
    RETABLE("retable", Unit.COUNT, "the arbitration tables are replaced N times during the run"),
    LINK_BOUNCE("link-bounce", Unit.COUNT, "the link goes down and comes back through Initialize N times");

    /** The form a fault's value takes. */
    public enum Unit
    {
        /** A probability in [0, 1]. */
        PROBABILITY("P", "a probability from 0 to 1, e.g. 0.001"),
        /** Milliseconds, 0 to 999 (a stall happens once a second). */
        MILLIS("MS", "milliseconds from 0 to 999"),
        /** A whole number, 0 or more. */
        COUNT("N", "a whole number, 0 or more");

        private final String symbol;
        private final String description;

        Unit(final String symbol, final String description)
        {
            this.symbol = symbol;
            this.description = description;
        }

        public String symbol()
        {
            return symbol;
        }

        public String description()
        {
            return description;
        }
    }

    private final String label;
    private final Unit unit;
    private final String description;

    FaultKind(final String label, final Unit unit, final String description)
    {
        this.label = label;
        this.unit = unit;
        this.description = description;
    }

    /**
     * @return the kind's name on the command line and in the JSON summary, e.g. {@code drop-data}.
     */
    public String label()
    {
        return label;
    }

    public Unit unit()
    {
        return unit;
    }

    public String description()
    {
        return description;
    }

    /**
     * @param label a kind's name as written on the command line.
     * @return the kind, or null if no kind has that name.
     */
    public static FaultKind ofLabel(final String label)
    {
        for (final FaultKind kind : values())
        {
            if (kind.label.equals(label))
            {
                return kind;
            }
        }
        return null;
    }
}
