package io.vlink.stress;

import io.vlink.core.inject.CellBuffer;
import io.vlink.nic.ring.VlRings;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The engine's transmit hand-off: the injecting thread writes a packet into its cells with plain stores (no
 * {@link CellBuffer#publish}: the ring alone must order it), fills a preallocated descriptor's plain fields (first
 * cell, size) and offers the descriptor to the engine's per-VL rings ({@link VlRings}: a JCTools
 * {@code SpscAtomicArrayQueue} per VL); the arbiter polls it and reads the descriptor and the cells. JCTools stores the
 * element with release and loads it with acquire, so the descriptor and the body written before the offer are
 * visible.
 * <p>
 * r1 = the descriptor's first cell (-1 = nothing polled), r2 = its size, r3 = ints of the body holding the
 * written value.
 */
@JCStressTest
@Outcome(id = "-1, 0, 0", expect = ACCEPTABLE, desc = "nothing in the ring yet")
@Outcome(id = "0, 96, 24", expect = ACCEPTABLE_INTERESTING, desc = "the descriptor, with the whole body")
@Outcome(expect = FORBIDDEN, desc = "a descriptor with stale fields or a stale body")
@State
public class VlRingCellHandoff
{
    private static final int VL = 2;
    private static final int VALUE = 0x0C0F_FEE0;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);

    /** A preallocated transmit descriptor with plain fields, as the engine's. */
    static final class Descriptor
    {
        int firstCell = -1;
        int size;
    }

    private final CellBuffer cells = Cells.buffer(4);
    private final Descriptor descriptor = new Descriptor();
    private final VlRings<Descriptor> rings = new VlRings<>(4, 4);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Cells.PACKET_SIZE]);

    /** The injecting thread: body, descriptor, offer. */
    @Actor
    public void inject()
    {
        final int first = cells.claim(0, Cells.PACKET_SIZE, false);
        cells.putBytes(first, 0, BODY, 0, Cells.PACKET_SIZE);
        descriptor.firstCell = first;
        descriptor.size = Cells.PACKET_SIZE;
        rings.offer(VL, descriptor);
    }

    /** The arbiter: poll, then read the descriptor and the cells. */
    @Actor
    public void arbiter(final III_Result r)
    {
        final Descriptor polled = rings.poll(VL);
        if (polled == null)
        {
            r.r1 = -1;
            return;
        }
        final int first = polled.firstCell;
        final int size = polled.size;
        r.r1 = first;
        r.r2 = size;
        if (first >= 0 && size == Cells.PACKET_SIZE)
        {
            cells.getBytes(first, 0, copy, 0, size);
            r.r3 = Cells.count(copy, VALUE);
        }
    }
}
