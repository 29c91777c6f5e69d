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
 * A cell is reused only after the sender is done with it: the sending thread copies a published packet out and
 * then frees it; the injecting thread reclaims and, as soon as it got the cells back, claims them for a new
 * packet and overwrites them. The copy the sender made before freeing never holds a byte of the new packet (the
 * free happens-before the reclaim, so the sender's reads come before the injector's writes).
 * <p>
 * r1 = ints of the sender's copy holding the old packet (24 = all), r2 = 1 if the injector overwrote the cells.
 */
@JCStressTest
@Outcome(id = "24, 0", expect = ACCEPTABLE, desc = "copied the old packet; not reused yet")
@Outcome(id = "24, 1", expect = ACCEPTABLE_INTERESTING, desc = "copied the old packet; then reused and overwritten")
@Outcome(expect = FORBIDDEN, desc = "the sender's copy saw the new packet: cells reused before they were freed")
@State
public class CellBufferReuse
{
    private static final int OLD = 0x01D0_01D0;
    private static final int NEW = 0x0E0E_0E0E;
    private static final UnsafeBuffer OLD_BODY = Cells.body(OLD);
    private static final UnsafeBuffer NEW_BODY = Cells.body(NEW);

    private final CellBuffer cells = Cells.buffer(2);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Cells.PACKET_SIZE]);
    private final int first;

    public CellBufferReuse()
    {
        first = cells.claim(0, Cells.PACKET_SIZE, false);
        cells.putBytes(first, 0, OLD_BODY, 0, Cells.PACKET_SIZE);
        cells.publish(first, Cells.PACKET_SIZE);
    }

    /** The sending thread: copy the packet out, then free it. */
    @Actor
    public void send(final II_Result r)
    {
        cells.getBytes(first, 0, copy, 0, cells.publishedLength(first));
        cells.free(first);
        r.r1 = Cells.count(copy, OLD);
    }

    /** The injecting thread: reclaim; if the cells came back, write a new packet into them. */
    @Actor
    public void inject(final II_Result r)
    {
        if (cells.reclaim(null) == 0)
        {
            r.r2 = 0;
            return;
        }
        final int cell = cells.claim(0, Cells.PACKET_SIZE, false);
        cells.putBytes(cell, 0, NEW_BODY, 0, Cells.PACKET_SIZE);
        cells.publish(cell, Cells.PACKET_SIZE);
        r.r2 = 1;
    }
}
