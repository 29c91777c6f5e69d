package io.vlink.core.qos;

/**
 * How much the low-priority table may send once it gets a turn (docs/arbitration.md,
 * "Low-table burst policy"): the IBA text is ambiguous here and the book chapter on IBA VL arbitration reads it one way.
 */
public enum LowBurst
{
    /**
     * The default (the reading of the book chapter on IBA VL arbitration): the current low entry keeps sending until its weight is
     * used up or its VL cannot send, then the arbiter returns to the high table.
     */
    WEIGHT("weight"),
    /**
     * The literal reading: one low packet, then back to the high table; the entry keeps its remaining
     * weight and the pointer stays for its next turn.
     */
    PACKET("packet");

    private final String label;

    LowBurst(final String label)
    {
        this.label = label;
    }

    /**
     * @return {@code weight} or {@code packet}, as written in scenarios.
     */
    public String label()
    {
        return label;
    }

    /**
     * @param label {@code weight} or {@code packet} (any case).
     * @return the policy, or null when the label names none.
     */
    public static LowBurst ofLabel(final String label)
    {
        for (final LowBurst burst : values())
        {
            if (burst.label.equalsIgnoreCase(label))
            {
                return burst;
            }
        }
        return null;
    }

    @Override
    public String toString()
    {
        return label;
    }
}
