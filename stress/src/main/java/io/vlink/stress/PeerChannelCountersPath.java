package io.vlink.stress;

import io.vlink.tools.soak.PeerChannel;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * What the soak's peer process hands the parent once, through the peer file (one buffer stands for the mapped file
 * both processes share): its counters file's path (the bytes, then the length, release), then the ready word
 * (release); the parent reads the ready word (acquire), then the path (its length, acquire, then the bytes). A parent
 * that sees the peer ready reads the whole path. The results at the end (errors, histograms, then the finished word)
 * are handed over the same way, by the same two methods.
 * <p>
 * r1 = the ready word, r2 = the path's length if it is whole (-1 when the bytes are not the path's).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "not ready, no path yet")
@Outcome(id = "0, 40", expect = ACCEPTABLE, desc = "not ready; the path already there")
@Outcome(id = "1, 40", expect = ACCEPTABLE_INTERESTING, desc = "ready, and the whole path")
@Outcome(expect = FORBIDDEN, desc = "ready without the path, or a path torn: its length published before its bytes")
@State
public class PeerChannelCountersPath
{
    private static final String PATH = "/tmp/vlink-soak-peer/soak-peer-01234.dat";

    private final PeerChannel channel = PeerChannel.over(new UnsafeBuffer(new byte[PeerChannel.ERRORS]));

    /** The peer: the path, then ready. */
    @Actor
    public void ready()
    {
        channel.putCountersPath(PATH);
        channel.put(PeerChannel.READY, 1);
    }

    /** The parent: ready, then the path. */
    @Actor
    public void attach(final II_Result r)
    {
        r.r1 = (int)channel.get(PeerChannel.READY);
        final String path = channel.countersPath();
        r.r2 = path.isEmpty() || PATH.equals(path) ? path.length() : -1;
    }
}
