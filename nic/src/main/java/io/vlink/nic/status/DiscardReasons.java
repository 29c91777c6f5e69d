package io.vlink.nic.status;

import io.vlink.core.credit.DiscardReason;

import java.util.Locale;

/**
 * The discard reasons a port counts, by stable id and stable snake_case name: the one place that maps
 * {@code core}'s {@link DiscardReason} (ids stable, appended never renumbered) to counters and to what
 * {@code vlink stat} prints.
 */
public final class DiscardReasons
{
    private static final String[] NAMES = new String[DiscardReason.count()];

    static
    {
        for (int id = 0; id < NAMES.length; id++)
        {
            NAMES[id] = DiscardReason.get(id).name().toLowerCase(Locale.ROOT);
        }
    }

    private DiscardReasons()
    {
    }

    /**
     * @return how many reasons there are; ids run from 0 to {@code count() - 1}.
     */
    public static int count()
    {
        return NAMES.length;
    }

    /**
     * @param id a reason id.
     * @return its stable name, or {@code reason_<id>} for an id this version does not know (a newer engine).
     */
    public static String name(final int id)
    {
        return id >= 0 && id < NAMES.length ? NAMES[id] : "reason_" + id;
    }
}
