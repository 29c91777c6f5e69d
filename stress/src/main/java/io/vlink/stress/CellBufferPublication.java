package io.vlink.stress;

import io.vlink.core.inject.CellBuffer;
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
 * Cells from an injector to the arbiter: the injecting thread claims a two-cell packet, writes its body and
 * publishes its length (release); the sending thread reads the length (acquire) and, when it is non-zero, copies
 * the body out through the cell chain. Once the length is visible the whole body is: never torn, never stale.
 * <p>
 * r1 = the length seen (0 = not published yet), r2 = ints of the body holding the written value (-1 = not read).
 */
@JCStressTest
@Outcome(id = "0, -1", expect = ACCEPTABLE, desc = "not published yet: the sender does not read the body")
@Outcome(id = "96, 24", expect = ACCEPTABLE_INTERESTING, desc = "published: the whole body is visible")
@Outcome(expect = FORBIDDEN, desc = "length visible but the body torn or stale: the release/acquire pair is broken")
@State
public class CellBufferPublication
{
    private static final int VALUE = 0x5A5A_0001;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);

    private final CellBuffer cells = Cells.buffer(4);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Cells.PACKET_SIZE]);

    /** The injecting thread: claim (cell 0 and 1 of a fresh buffer), write, publish. */
    @Actor
    public void inject()
    {
        final int first = cells.claim(0, Cells.PACKET_SIZE, false);
        cells.putBytes(first, 0, BODY, 0, Cells.PACKET_SIZE);
        cells.publish(first, Cells.PACKET_SIZE);
    }

    /** The sending thread: the length with acquire, then the body. */
    @Actor
    public void send(final II_Result r)
    {
        final int length = cells.publishedLength(0);
        r.r1 = length;
        if (length == 0)
        {
            r.r2 = -1;
            return;
        }
        cells.getBytes(0, 0, copy, 0, length);
        r.r2 = Cells.count(copy, VALUE);
    }
}
