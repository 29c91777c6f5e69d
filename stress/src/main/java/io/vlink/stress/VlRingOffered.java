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
 * The rings' offered count, which tells the arbiter that every ring is empty (the count equals the packets it took
 * out) without looking at each: the injecting thread offers a packet handle to VL 2 of the engine's per-VL rings
 * ({@link VlRings}); the arbiter reads {@link VlRings#offered()}, then peeks at VL 2, as its duty cycle does. A count
 * that includes the packet must come with the packet in its ring: otherwise the arbiter, knowing a packet is there,
 * would decide on rings that do not show it yet.
 * <p>
 * r1 = the count read, r2 = the handle peeked (0 = the ring looked empty).
 */
@JCStressTest
@Outcome(id = {"0, 0", "1, 4294967392"}, expect = ACCEPTABLE, desc = "nothing yet, or the count and the packet")
@Outcome(id = "0, 4294967392", expect = ACCEPTABLE_INTERESTING,
    desc = "the packet ahead of the count (the next duty cycle sees the count move and looks again)")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "the count without the packet")
@Outcome(expect = FORBIDDEN, desc = "a count or a handle never offered")
@State
public class VlRingOffered
{
    private static final int VL = 2;
    // cell 1, 96 bytes: (firstCell << 32) | size
    private static final Long PACKET = 1L << 32 | 96;

    private final VlRings<Long> rings = new VlRings<>(4, 4);

    /** The injecting thread. */
    @Actor
    public void inject()
    {
        rings.offer(VL, PACKET);
    }

    /** The arbiter. */
    @Actor
    public void arbiter(final JJ_Result r)
    {
        r.r1 = rings.offered();
        final Long head = rings.peek(VL);
        r.r2 = head == null ? 0 : head;
    }
}
