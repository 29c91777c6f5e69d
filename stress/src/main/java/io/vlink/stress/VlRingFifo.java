package io.vlink.stress;

import io.vlink.nic.ring.VlRings;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.JJ_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * Packets through a per-VL ring: the injecting thread offers two packet handles (first cell and size in a
 * {@code long}) to the engine's per-VL rings ({@link VlRings}: a JCTools {@code SpscAtomicArrayQueue} per VL); the
 * arbiter polls twice. Handles come out in FIFO order, each once, never skipped.
 * <p>
 * r1, r2 = the handles polled (0 = the ring was empty).
 */
@JCStressTest
@Outcome(id = {"0, 0", "4294967392, 0", "4294967392, 12884901952"}, expect = ACCEPTABLE,
    desc = "none yet, the first, or both in order")
@Outcome(id = "0, 4294967392", expect = ACCEPTABLE_INTERESTING, desc = "empty at first, then the first")
@Outcome(expect = FORBIDDEN, desc = "out of order, duplicated or skipped")
@State
public class VlRingFifo
{
    private static final int VL = 2;
    // cell 1, 96 bytes and cell 3, 64 bytes: (firstCell << 32) | size
    private static final Long FIRST = 1L << 32 | 96;
    private static final Long SECOND = 3L << 32 | 64;

    private final VlRings<Long> rings = new VlRings<>(4, 4);

    /** The injecting thread. */
    @Actor
    public void inject()
    {
        rings.offer(VL, FIRST);
        rings.offer(VL, SECOND);
    }

    /** The arbiter. */
    @Actor
    public void arbiter(final JJ_Result r)
    {
        final Long first = rings.poll(VL);
        final Long second = rings.poll(VL);
        r.r1 = first == null ? 0 : first;
        r.r2 = second == null ? 0 : second;
    }
}
