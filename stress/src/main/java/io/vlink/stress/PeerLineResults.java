package io.vlink.stress;

import io.vlink.tools.soak.PeerChannel;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.nio.charset.StandardCharsets;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A peer on another host hands the soak its results through the soak's copy of the channel: the line's reader thread
 * copies a result in (its bytes, then its length, release: {@code PeerChannel.putResult}), then the finished word
 * (release), as they came; the soak reads the finished word (acquire), then the result (its length, acquire, then the
 * bytes: {@code PeerChannel.errors}). A soak that sees the peer finished reads the whole result.
 * <p>
 * r1 = the finished word, r2 = the result's length if it is whole (-1 when the bytes are not the result's).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "not finished, no result yet")
@Outcome(id = "0, 40", expect = ACCEPTABLE, desc = "not finished; the result already there")
@Outcome(id = "1, 40", expect = ACCEPTABLE_INTERESTING, desc = "finished, and the whole result")
@Outcome(expect = FORBIDDEN, desc = "finished without the result, or a result torn: its length before its bytes")
@State
public class PeerLineResults
{
    private static final String ERRORS = "1 x java.lang.IllegalStateException: x; ";
    private static final byte[] BYTES = ERRORS.getBytes(StandardCharsets.UTF_8);

    private final PeerChannel channel =
        PeerChannel.over(new UnsafeBuffer(new byte[PeerChannel.ERRORS + Integer.BYTES + 64]));

    /** The line's reader thread: the result, then the finished word, as the peer sent them. */
    @Actor
    public void copy()
    {
        channel.putResult(PeerChannel.ERRORS, BYTES);
        channel.put(PeerChannel.FINISHED, 1);
    }

    /** The soak: finished, then the result. */
    @Actor
    public void finish(final II_Result r)
    {
        r.r1 = (int)channel.get(PeerChannel.FINISHED);
        final String errors = channel.errors();
        r.r2 = errors.isEmpty() || ERRORS.equals(errors) ? errors.length() : -1;
    }
}
