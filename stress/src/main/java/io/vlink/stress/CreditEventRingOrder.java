package io.vlink.stress;

import io.vlink.core.port.CreditEventRing;
import io.vlink.core.port.CreditEvents;
import org.agrona.BitUtil;
import org.agrona.BufferUtil;
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
 * The receive half hands the credit half, through the port's {@link CreditEventRing}, 7 blocks stored on VL3 and then
 * an FCP that arrived after them; the credit half reads what is there. {@code ABR := FCTBS} relies on the order: an
 * FCP applied before the blocks that came ahead of it on the wire would count them twice.
 * <p>
 * r1 = events read, r2 = the first one's blocks (-1 if it was the FCP), r3 = 1 if the second was the FCP, whole.
 */
@JCStressTest
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "nothing reported yet")
@Outcome(id = "1, 7, 0", expect = ACCEPTABLE_INTERESTING, desc = "the blocks, the FCP not yet")
@Outcome(id = "2, 7, 1", expect = ACCEPTABLE, desc = "the blocks, then the FCP, both whole")
@Outcome(expect = FORBIDDEN, desc = "the FCP ahead of the blocks reported before it, or a torn event")
@State
public class CreditEventRingOrder
{
    private static final int WORD = 0x1234_5678;

    private final CreditEventRing ring = new CreditEventRing(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
        1024 + CreditEventRing.TRAILER_LENGTH, BitUtil.CACHE_LINE_LENGTH)));
    private final Recorder recorder = new Recorder();

    /** What the credit half's side records, in the order the ring hands it over. */
    static final class Recorder implements CreditEvents
    {
        int events;
        int firstBlocks;
        int secondIsFcp;

        @Override
        public int room()
        {
            return 2;
        }

        @Override
        public void onFcp(final int word)
        {
            if (0 == events++)
            {
                firstBlocks = -1;
            }
            else
            {
                secondIsFcp = WORD == word ? 1 : -1;
            }
        }

        @Override
        public void onAccepted(final int vl, final int blocks)
        {
            if (0 == events++)
            {
                firstBlocks = 3 == vl ? blocks : -2;
            }
            else
            {
                secondIsFcp = -3;
            }
        }

        @Override
        public void onPeerClosed()
        {
            events++;
            secondIsFcp = -4;
        }
    }

    /** The receive half: a data packet stored, then an FCP, in wire order. */
    @Actor
    public void receive()
    {
        ring.onAccepted(3, 7);
        ring.onFcp(WORD);
    }

    /** The credit half's duty cycle. */
    @Actor
    public void credit(final III_Result r)
    {
        ring.read(recorder, 2);
        r.r1 = recorder.events;
        r.r2 = recorder.firstBlocks;
        r.r3 = recorder.secondIsFcp;
    }
}
