package io.vlink.stress;

import org.jctools.queues.MpscArrayQueue;
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
 * A ring with two producers (JCTools {@link MpscArrayQueue}: several injecting threads feeding one consumer): one
 * thread offers two handles; the other offers its own two around one poll (the consumer may share a thread with
 * a producer); the rest is drained after both. Every handle comes out exactly once, each producer's handles keep
 * their order, and the poll never finds the ring empty (its own first handle is in it).
 * <p>
 * r1 = the handle polled while the other producer ran, r2 = handles polled in all, r3 = 1 if producer A's came
 * out in order, r4 = 1 if producer B's did.
 */
@JCStressTest
@Outcome(id = "11, 4, 1, 1", expect = ACCEPTABLE, desc = "its own first handle came first, all four in order")
@Outcome(id = "1, 4, 1, 1", expect = ACCEPTABLE_INTERESTING, desc = "the other producer's first handle came first")
@Outcome(expect = FORBIDDEN, desc = "empty though not empty, a handle lost or duplicated, or out of order")
@State
public class MpscRingFifo
{
    private static final Integer A1 = 1;
    private static final Integer A2 = 2;
    private static final Integer B1 = 11;
    private static final Integer B2 = 12;

    private final MpscArrayQueue<Integer> ring = new MpscArrayQueue<>(8);
    private final int[] seen = new int[4];
    private int count;

    /** Injecting thread A. */
    @Actor
    public void producerA()
    {
        ring.offer(A1);
        ring.offer(A2);
    }

    /** Injecting thread B, which is also the consumer. */
    @Actor
    public void producerAndConsumer(final IIII_Result r)
    {
        ring.offer(B1);
        final Integer handle = ring.poll();
        ring.offer(B2);
        r.r1 = handle == null ? 0 : handle;
        if (handle != null)
        {
            seen[count++] = handle;
        }
    }

    /** The arbiter's next cycles, after both: drain and check. */
    @Arbiter
    public void drain(final IIII_Result r)
    {
        Integer handle;
        while ((handle = ring.poll()) != null)
        {
            if (count == seen.length)
            {
                count++;
                break;
            }
            seen[count++] = handle;
        }
        r.r2 = count;
        r.r3 = before(A1, A2) ? 1 : 0;
        r.r4 = before(B1, B2) ? 1 : 0;
    }

    private boolean before(final int first, final int second)
    {
        int firstAt = -1;
        int secondAt = -1;
        for (int i = 0; i < Math.min(count, seen.length); i++)
        {
            if (seen[i] == first && firstAt < 0)
            {
                firstAt = i;
            }
            else if (seen[i] == second && secondAt < 0)
            {
                secondAt = i;
            }
        }
        return firstAt >= 0 && firstAt < secondAt;
    }
}
