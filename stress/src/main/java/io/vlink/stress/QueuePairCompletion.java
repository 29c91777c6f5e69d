package io.vlink.stress;

import io.vlink.nic.agent.SendQueue;
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
 * The completion word: a message's slot and memory are reused only after the injection agent completed it. A
 * one-slot queue pair holds a posted message; the injection agent copies its bytes out (into the cell buffer, in the
 * engine) and then completes it (release); the application reads {@code completed()} (acquire) and, once the
 * message is complete, posts the next one, into the same slot. The agent's copy never holds a byte of the next
 * message, and a post after a completion seen is never refused.
 * <p>
 * r1 = ints of the agent's copy holding the first message's value (24 = all), r2 = 1 if the application posted
 * the next message (0 = not complete yet, -1 = refused although complete).
 */
@JCStressTest
@Outcome(id = "24, 0", expect = ACCEPTABLE, desc = "copied the message; not complete yet when the application looked")
@Outcome(id = "24, 1", expect = ACCEPTABLE_INTERESTING, desc = "copied the message; then the slot was reused")
@Outcome(expect = FORBIDDEN, desc = "the agent copied bytes of the next message (slot reused before the completion), or the post was refused")
@State
public class QueuePairCompletion
{
    private static final int OLD = 0x01D0_01D0;
    private static final int NEW = 0x0E0E_0E0E;
    private static final UnsafeBuffer NEW_BODY = Cells.body(NEW);

    private final SendQueue qp = QueuePairs.queuePair(1);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[Cells.PACKET_SIZE]);

    public QueuePairCompletion()
    {
        qp.offerInline(Cells.body(OLD), 0, Cells.PACKET_SIZE);
    }

    /** The injection agent: copy message 0 out, then complete it. */
    @Actor
    public void injectionAgent(final II_Result r)
    {
        final int length = qp.lengthOf(qp.posted() - 1);
        qp.ring().getBytes(qp.inlineOffsetOf(0), copy, 0, length);
        qp.complete(0);
        r.r1 = Cells.count(copy, OLD);
    }

    /** The application: once message 0 is complete, the next message. */
    @Actor
    public void application(final II_Result r)
    {
        if (qp.completed() == 0)
        {
            r.r2 = 0;
            return;
        }
        r.r2 = SendQueue.BACK_PRESSURED == qp.offerInline(NEW_BODY, 0, Cells.PACKET_SIZE) ? -1 : 1;
    }
}
