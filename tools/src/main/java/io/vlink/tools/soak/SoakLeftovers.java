package io.vlink.tools.soak;

import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.EngineLiveness;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a soak killed before its end (SIGKILL, a crash) leaves in its directory, removed by the next soak there: its
 * engines' counters files ({@code soak-PID.counters}, {@code soak-a-PID.counters}, {@code soak-b-PID.counters}, whose
 * process is gone) and, of a two-process soak, the peer's channel, its stderr and the link's file
 * ({@code soak-PID.peer}, {@code soak-PID.peer.err}, {@code soak-PID.shm}, PID the soak's). Only the soak's own files,
 * and only of processes that no longer run: the files of a soak running beside this one, and every other engine's, are
 * left alone.
 */
public final class SoakLeftovers
{
    private static final Pattern COUNTERS = Pattern.compile("soak(?:-a|-b)?-(\\d+)\\.counters");
    private static final Pattern PEER_FILES = Pattern.compile("soak-(\\d+)(" + Pattern.quote(SoakPeer.PEER_SUFFIX) +
        "|" + Pattern.quote(SoakPeer.PEER_SUFFIX + ".err") + "|" + Pattern.quote(SoakPeer.SHM_SUFFIX) + ")");

    private SoakLeftovers()
    {
    }

    /**
     * Remove what soaks that are gone left in the directory.
     *
     * @param directory the soak's counters directory.
     * @return the names of the files removed.
     */
    public static List<String> remove(final File directory)
    {
        final List<String> removed = new ArrayList<>();
        final File[] files = directory.listFiles();
        if (null == files)
        {
            return removed;
        }
        for (final File file : files)
        {
            final String name = file.getName();
            final boolean gone;
            final Matcher counters = COUNTERS.matcher(name);
            if (counters.matches())
            {
                gone = deadEngine(file, Long.parseLong(counters.group(1)));
            }
            else
            {
                final Matcher peer = PEER_FILES.matcher(name);
                gone = peer.matches() && !running(Long.parseLong(peer.group(1)));
            }
            if (gone && file.delete())
            {
                removed.add(name);
            }
        }
        removed.sort(null);
        return removed;
    }

    /**
     * A counters file whose engine's process is gone: its pid not running, or reused by a later process; a file its
     * engine never finished making (killed while starting) by the pid in its name.
     */
    private static boolean deadEngine(final File file, final long pidInName)
    {
        try (CountersFileReader reader = CountersFileReader.open(file))
        {
            return EngineLiveness.DEAD == reader.liveness(System.currentTimeMillis(), Long.MAX_VALUE / 2);
        }
        catch (final IllegalStateException ex)
        {
            return !running(pidInName);
        }
    }

    private static boolean running(final long pid)
    {
        final Optional<ProcessHandle> process = ProcessHandle.of(pid);
        return process.isPresent() && process.get().isAlive();
    }
}
