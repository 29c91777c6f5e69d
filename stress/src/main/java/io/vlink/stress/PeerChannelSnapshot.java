package io.vlink.stress;

import io.vlink.tools.soak.PeerChannel;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.util.Arrays;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The two-process soak's snapshot, from the peer process (its only writer) to the parent, through the peer file's
 * sequence word (a seqlock; one buffer stands for the mapped file both processes share): the peer has published a
 * snapshot of all 1s; it publishes one of all 2s (the word odd, the values, the word even); the parent reads one
 * (the word, the values, the word again: equal and even, or it retries). A snapshot read is whole: every value of
 * one publication.
 * <p>
 * r1 = 1 if the read succeeded, r2 = its values: 1 or 2 when all of them are of one snapshot, -1 when mixed.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the earlier snapshot, whole")
@Outcome(id = "1, 2", expect = ACCEPTABLE_INTERESTING, desc = "the new snapshot, whole")
@Outcome(id = "0, 0", expect = ACCEPTABLE_INTERESTING, desc = "the peer was writing at every try: no snapshot")
@Outcome(expect = FORBIDDEN, desc = "a snapshot mixing two publications: the sequence word does not guard the values")
@State
public class PeerChannelSnapshot
{
    private static final long[] ONES = filled(1);
    private static final long[] TWOS = filled(2);

    private final PeerChannel channel = PeerChannel.over(new UnsafeBuffer(new byte[PeerChannel.ERRORS]));
    private final long[] read = new long[PeerChannel.SNAPSHOT_LONGS];

    public PeerChannelSnapshot()
    {
        channel.publish(ONES);
    }

    /** The peer: the next snapshot. */
    @Actor
    public void publish()
    {
        channel.publish(TWOS);
    }

    /** The parent: one read. */
    @Actor
    public void read(final II_Result r)
    {
        if (!channel.read(read))
        {
            r.r1 = 0;
            r.r2 = 0;
            return;
        }
        r.r1 = 1;
        final long first = read[0];
        for (final long value : read)
        {
            if (value != first)
            {
                r.r2 = -1;
                return;
            }
        }
        r.r2 = (int)first;
    }

    private static long[] filled(final long value)
    {
        final long[] values = new long[PeerChannel.SNAPSHOT_LONGS];
        Arrays.fill(values, value);
        return values;
    }
}
