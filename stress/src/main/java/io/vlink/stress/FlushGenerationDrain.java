package io.vlink.stress;

import io.vlink.nic.agent.FlushControl;
import io.vlink.nic.agent.TxPacket;
import io.vlink.nic.ring.VlRings;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A flush's generation ({@link FlushControl}), from the injection agent to the arbiter: the injection agent offers a
 * packet of generation 0 to a VL ring (its last before the flush), then publishes generation 1 (release); the arbiter
 * reads the generation (acquire) and, when it is new, drains the ring of older packets. An arbiter that saw the new
 * generation must find the older packet in the ring: one arriving after the drain would be sent to the peer's next
 * incarnation.
 * <p>
 * r1 = the generation seen, r2 = 1 if the ring held a packet, r3 = its generation (-1 = none).
 */
@JCStressTest
@Outcome(id = {"0, 0, -1"}, expect = ACCEPTABLE, desc = "neither the packet nor the generation yet")
@Outcome(id = {"0, 1, 0"}, expect = ACCEPTABLE_INTERESTING, desc = "the packet, the old generation: drained next cycle")
@Outcome(id = {"1, 1, 0"}, expect = ACCEPTABLE, desc = "the new generation and the older packet to drain")
@Outcome(expect = FORBIDDEN, desc = "the new generation without the packet injected before it")
@State
public class FlushGenerationDrain
{
    private static final int VL = 2;

    private final VlRings<TxPacket> rings = new VlRings<>(4, 8);
    private final FlushControl flush = new FlushControl();
    private final TxPacket packet = new TxPacket(0);

    /** The injection agent: its last packet of generation 0, then generation 1. */
    @Actor
    public void injectionAgent()
    {
        packet.size = 96;
        packet.vl = VL;
        packet.generation = 0;
        packet.end = true;
        rings.offer(VL, packet);
        flush.publishGeneration(1);
    }

    /** The arbiter's duty cycle: the generation, then the ring. */
    @Actor
    public void arbiter(final III_Result r)
    {
        r.r1 = flush.generation();
        final TxPacket head = rings.peek(VL);
        r.r2 = null == head ? 0 : 1;
        r.r3 = null == head ? -1 : head.generation;
    }
}
