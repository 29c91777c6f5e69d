package io.vlink.tools;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * The checks {@code vlink soak} and {@code vlink fabric soak}/{@code run} share, so that one option means one thing
 * with one message everywhere: how long traffic is offered, and how many packets.
 */
final class SoakOptions
{
    /** The longest run {@code --seconds} takes: a year. */
    private static final double MAX_SECONDS = 366 * 24 * 3600.0;

    private SoakOptions()
    {
    }

    /**
     * @return {@code --seconds}' value.
     * @throws ParameterException unless positive and at most a year.
     */
    static double seconds(final CommandSpec spec, final double seconds)
    {
        if (!(seconds > 0) || seconds > MAX_SECONDS)
        {
            throw new ParameterException(spec.commandLine(), "--seconds " + seconds + ": give a positive number of " +
                "seconds");
        }
        return seconds;
    }

    /**
     * @return {@code --packets}' value.
     * @throws ParameterException unless positive.
     */
    static long packets(final CommandSpec spec, final long packets)
    {
        if (packets <= 0)
        {
            throw new ParameterException(spec.commandLine(), "--packets " + packets + ": give a positive number of " +
                "packets");
        }
        return packets;
    }
}
