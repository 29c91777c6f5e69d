package io.vlink.stress;

import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.CountersFileReader;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.nio.ByteBuffer;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A counters file's header, from the engine that makes it to {@code vlink stat} in another process (one region of
 * memory stands for the mapped file): the engine writes the section lengths, its PID, times and name, then the
 * version (release); the reader reads the version (acquire), then the lengths it checks the file against, then the
 * name. A reader that sees the version sees the whole header: it never refuses a file being made as damaged.
 * <p>
 * r1 = 1 if the reader opened it, 0 if it was told the engine is starting, -1 if it refused the header as damaged;
 * r2 = 1 if the name read was the engine's.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "no version yet: the engine is starting")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "the version and the whole header")
@Outcome(expect = FORBIDDEN, desc = "the version without the header written before it (lengths or name stale)")
@State
public class CountersFileHeader
{
    private static final String NAME = "stress-engine";
    private static final int MAX_COUNTERS = 4;
    private static final int ERROR_LOG_LENGTH = 1024;

    private final UnsafeBuffer region = new UnsafeBuffer(ByteBuffer.allocateDirect((int)CountersFileDescriptor.fileLength(
        MAX_COUNTERS * CountersReader.METADATA_LENGTH, MAX_COUNTERS * CountersReader.COUNTER_LENGTH, ERROR_LOG_LENGTH)));

    /** The engine: makes its counters file. */
    @Actor
    public void create()
    {
        CountersFile.over(region, NAME, MAX_COUNTERS, ERROR_LOG_LENGTH, SystemEpochClock.INSTANCE);
    }

    /** {@code vlink stat}: opens it. */
    @Actor
    public void read(final II_Result r)
    {
        try
        {
            final CountersFileReader reader = CountersFileReader.over(region);
            r.r1 = 1;
            r.r2 = NAME.equals(reader.name()) ? 1 : 0;
        }
        catch (final IllegalStateException ex)
        {
            r.r1 = ex.getMessage().contains("starting") ? 0 : -1;
        }
    }
}
