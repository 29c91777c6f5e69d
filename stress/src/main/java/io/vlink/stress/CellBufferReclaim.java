package io.vlink.stress;

import io.vlink.core.inject.CellBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Cells back from the arbiter to the injector: a full three-cell buffer holds packet A (one cell) and B (two
 * cells). The sending thread frees A then B into the return ring; meanwhile the injecting thread reclaims what
 * has come back and claims a new one-cell packet, which succeeds only if it got cells back. A final reclaim (after
 * both) takes the rest. No cell is lost or handed out twice: the packets reclaimed add up to 2 and the free cells
 * to 3 less the new packet's cell. The two frees wrap around the end of the return ring.
 * <p>
 * r1 = packets reclaimed by the injecting thread, r2 = 1 if its claim succeeded, r3 = packets reclaimed at the
 * end, r4 = free cells at the end.
 */
@JCStressTest
@Outcome(id = "0, 0, 2, 3", expect = ACCEPTABLE, desc = "nothing back yet: the claim is refused, all comes back later")
@Outcome(id = "1, 1, 1, 2", expect = ACCEPTABLE_INTERESTING, desc = "A back: its cell reused, B comes back later")
@Outcome(id = "2, 1, 0, 2", expect = ACCEPTABLE, desc = "both back before the claim")
@Outcome(expect = FORBIDDEN, desc = "a cell lost or duplicated")
@State
public class CellBufferReclaim
{
    private final CellBuffer cells = Cells.buffer(3);
    private final int a;
    private final int b;

    public CellBufferReclaim()
    {
        // three packets through the return ring first (4 slots for 3 cells): the frees below wrap around it
        for (int i = 0; i < 3; i++)
        {
            final int cell = cells.claim(0, Cells.CELL_SIZE, false);
            cells.publish(cell, Cells.CELL_SIZE);
            cells.free(cell);
            cells.reclaim(null);
        }
        a = cells.claim(0, Cells.CELL_SIZE, false);
        b = cells.claim(0, Cells.PACKET_SIZE, false);
        cells.publish(a, Cells.CELL_SIZE);
        cells.publish(b, Cells.PACKET_SIZE);
    }

    /** The sending thread: both packets sent, freed in order. */
    @Actor
    public void send()
    {
        cells.free(a);
        cells.free(b);
    }

    /** The injecting thread: reclaim, then claim a one-cell packet. */
    @Actor
    public void inject(final IIII_Result r)
    {
        r.r1 = cells.reclaim(null);
        r.r2 = cells.claim(0, Cells.CELL_SIZE, false) == CellBuffer.NO_CELL ? 0 : 1;
    }

    /** After both: take back the rest and count. */
    @Arbiter
    public void account(final IIII_Result r)
    {
        r.r3 = cells.reclaim(null);
        r.r4 = cells.freeCells();
    }
}
