package io.vlink.stress;

import io.vlink.core.port.FcpRequestRing;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
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
 * The credit half asks for an FCP through the port's {@link FcpRequestRing} (Op, VL and FCCL, FCTBS 0); the transmit
 * half, at a packet boundary, asks whether one waits and takes it. A request taken without its word would go on the
 * wire with another VL's or a stale FCCL (the peer would find it stale; three in a row make it re-train).
 * <p>
 * r1 = 1 if a request was seen, r2 = the word taken ({@link FcpRequestRing#NONE}, -1, when none was committed yet).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "no request yet: the next packet boundary sees it")
@Outcome(id = "1, -1", expect = ACCEPTABLE_INTERESTING,
    desc = "the request claimed, not committed yet: none taken, the next packet boundary takes it")
@Outcome(id = "1, 448541782", expect = ACCEPTABLE, desc = "the request, whole (0x1ABC3456)")
@Outcome(expect = FORBIDDEN, desc = "a word taken that was never requested (a stale or torn one)")
@State
public class FcpRequestRingPublication
{
    private static final int REQUEST = 0x1ABC_3456;

    private final FcpRequestRing ring = new FcpRequestRing(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
        FcpRequestRing.MIN_CAPACITY + FcpRequestRing.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH)));

    /** The credit half: an FCP is due. */
    @Actor
    public void credit()
    {
        if (ring.hasRoom())
        {
            ring.offer(REQUEST);
        }
    }

    /** The transmit half: FCPs go ahead of data. */
    @Actor
    public void transmit(final II_Result r)
    {
        if (ring.hasRequest())
        {
            r.r1 = 1;
            r.r2 = ring.take();
        }
    }
}
