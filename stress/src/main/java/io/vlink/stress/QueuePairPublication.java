package io.vlink.stress;

import io.vlink.nic.agent.SendQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A message from the posting thread (the application) to the injection agent through the queue pair's ring: a
 * two-slot queue pair has carried two 64-byte messages (completed), so the new 96-byte message of immediate data
 * reuses slot 0, whose old descriptor and bytes are still there. The application posts (bytes and descriptor, then
 * the slot's sequence word with release); the injection agent reads the slot's sequence word ({@code isPosted},
 * acquire), then the descriptor and the bytes, as it does before slicing a message. It never sees the new sequence
 * word with the old descriptor or bytes.
 * <p>
 * r1 = messages seen beyond the first two, r2 = the descriptor's region (-1 = immediate data), r3 = its length,
 * r4 = ints of the bytes holding the posted value (-1 = nothing seen).
 */
@JCStressTest
@Outcome(id = "0, 0, 0, -1", expect = ACCEPTABLE, desc = "not posted yet")
@Outcome(id = "1, -1, 96, 24", expect = ACCEPTABLE_INTERESTING, desc = "the message: its descriptor and every byte")
@Outcome(expect = FORBIDDEN, desc = "the new sequence word with a stale descriptor or stale bytes: its release/acquire is broken")
@State
public class QueuePairPublication
{
    private static final int OLD = 0x0B0B_0B0B;
    private static final int VALUE = 0x5A5A_0004;
    private static final UnsafeBuffer BODY = Cells.body(VALUE);

    private final SendQueue qp = QueuePairs.queuePair(2);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Cells.PACKET_SIZE]);

    public QueuePairPublication()
    {
        QueuePairs.postAndComplete(qp, 2, 64, OLD);
    }

    /** The application: post a message of immediate data. */
    @Actor
    public void application()
    {
        qp.offerInline(BODY, 0, Cells.PACKET_SIZE);
    }

    /** The injection agent: slot 0's sequence word, then the descriptor and the bytes of message 2. */
    @Actor
    public void injectionAgent(final IIII_Result r)
    {
        final boolean seen = qp.isPosted(2);
        r.r1 = seen ? 1 : 0;
        if (!seen)
        {
            r.r4 = -1;
            return;
        }
        final int region = qp.regionOf(2);
        final int length = qp.lengthOf(2);
        r.r2 = region;
        r.r3 = length;
        if (SendQueue.INLINE_REGION == region && Cells.PACKET_SIZE == length)
        {
            qp.ring().getBytes(qp.inlineOffsetOf(2), copy, 0, length);
            r.r4 = Cells.count(copy, VALUE);
        }
    }
}
