package io.vlink.tools;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.io.File;
import java.nio.file.Path;

/**
 * The options {@code vlink soak} and {@code vlink fabric soak}/{@code run} share, a picocli mixin of each, so that one
 * option means one thing with one message everywhere: how long traffic is offered and how many packets, the seed,
 * the summary's files and the counters directory; with the checks of their values (and of link-level retry).
 */
final class SoakOptions
{
    /** The longest run {@code --seconds} takes: a year. */
    private static final double MAX_SECONDS = 366 * 24 * 3600.0;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "10",
        description = "How long traffic is offered (default: ${DEFAULT-VALUE}); the drain and checks follow.")
    double seconds;

    @Option(names = "--packets", paramLabel = "N",
        description = "Stop offering after N data packets (over all driven VLs; in a fabric, over this process's CA " +
            "ports), or when --seconds is over if that comes first; scheduled faults then happen at the same packets " +
            "in every run.")
    Long packets;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "Seeds the traffic (sizes, destinations, fill) and the faults (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--json", paramLabel = "FILE",
        description = "Write the JSON summary there ('-': to stdout, after the summary).")
    String json;

    @Option(names = "--report", paramLabel = "FILE.html",
        description = "Write a self-contained HTML page of the run (a soak's: throughput per VL against the " +
            "predicted shares, latency, credit stalls).")
    Path report;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Where the engines' counters files go (default: ${java.io.tmpdir}/vlink-${user.name}), " +
            "for vlink stat.")
    File directory;

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

    /**
     * @return {@code --retry}'s value: true (on), false (off), or null when not given (the link's default: on over
     * UDP, off over loopback and shm).
     * @throws ParameterException unless on or off.
     */
    static Boolean retry(final CommandSpec spec, final String retry)
    {
        try
        {
            return parseRetry(retry);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), ex.getMessage());
        }
    }

    /**
     * @param retry {@code --retry}'s text, or null.
     * @return true (on), false (off), or null when not given.
     * @throws IllegalArgumentException unless on or off.
     */
    static Boolean parseRetry(final String retry)
    {
        if (null == retry)
        {
            return null;
        }
        switch (retry)
        {
            case "on":
                return Boolean.TRUE;
            case "off":
                return Boolean.FALSE;
            default:
                throw new IllegalArgumentException("--retry " + retry + ": use on or off (link-level retry; " +
                    "default: on over udp, off otherwise)");
        }
    }
}
