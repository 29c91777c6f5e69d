package io.vlink.stress;

import io.vlink.core.credit.ReleaseCounter;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Released space is reused only after the application is done with it: the application reads a packet in place
 * and then releases its block; the credit side, once it polled the release, lets a new packet overwrite that
 * block (here: writes it). The application's read never sees the new packet.
 * <p>
 * r1 = what the application read (1 = its packet), r2 = blocks the credit side polled (and overwrote).
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "read its packet; the release not seen yet")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "read its packet; then the space was reused")
@Outcome(expect = FORBIDDEN, desc = "the application read a packet written into space it had not released yet")
@State
public class ReleaseCounterReuse
{
    private static final int VL = 1;

    private final ReleaseCounter released = new ReleaseCounter();
    private int block = 1;

    /** The application: read the packet in place, then release its block. */
    @Actor
    public void application(final II_Result r)
    {
        r.r1 = block;
        released.release(VL, 1);
    }

    /** The credit side: when the block is free again, the next packet lands in it. */
    @Actor
    public void creditAgent(final II_Result r)
    {
        final int blocks = released.poll(VL);
        if (blocks > 0)
        {
            block = 2;
        }
        r.r2 = blocks;
    }
}
