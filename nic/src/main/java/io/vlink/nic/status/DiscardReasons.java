package io.vlink.nic.status;

/**
 * The discard reasons a port counts, by stable id and stable snake_case name: the one place that says which
 * reasons exist, so that the counters, {@code vlink stat} and the receive path agree.
 * <p>
 * Ids are dense from 0 and never change meaning; a reason that is no longer produced keeps its id.
 */
public final class DiscardReasons
{
    private static final String[] NAMES =
    {
        "malformed_length",
        "bad_lrh",
        "bad_icrc",
        "bad_vcrc",
        "bad_lpcrc",
        "fcp_reserved_op",
        "fcp_bad_vl",
        "no_such_vl",
        "buffer_overflow",
        "vl15_full",
        "link_not_active",
    };

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
     * @return its stable name, or {@code reason_<id>} for an id this version does not know.
     */
    public static String name(final int id)
    {
        return id >= 0 && id < NAMES.length ? NAMES[id] : "reason_" + id;
    }
}
