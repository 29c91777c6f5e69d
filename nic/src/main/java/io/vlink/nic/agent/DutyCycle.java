package io.vlink.nic.agent;

import io.vlink.nic.status.HeartbeatAgent;
import org.agrona.LangUtil;
import org.agrona.concurrent.Agent;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * An int for the gap after the object header, then two cache lines: an engine's duty cycles (one a thread) are made one
 * after the other, and each writes its position on every part it runs.
 */
abstract class DutyCyclePad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The duty cycle's position, written by its thread only.
 */
abstract class DutyCyclePosition extends DutyCyclePad1
{
    // the part this duty cycle goes on with: 0 unless the last one ended on a part that threw
    int next;
}

/**
 * Two cache lines after the position.
 */
abstract class DutyCyclePad2 extends DutyCyclePosition
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The agents one engine thread runs together, called directly: the thread's clock and the counters file's heartbeat,
 * then inject and arbiter, then credit and receive in the order that suits where the application polls, any of which
 * may be absent (split mode gives the receive half and the transmit half a thread each):
 * <ul>
 *     <li><b>Inject and arbiter first.</b> A message the application offered since the last duty cycle goes on the
 *     wire before the credit agent's turn. In a ping-pong the reply is offered right after the poll that handed the
 *     request over, and the next credit turn is the bookkeeping of that request (its acceptance, the application's
 *     release of it, an FCP when one falls due): with credit first, that turn sat between the reply's offer and its
 *     injection, on the application -> inject hand-off of every one way. Now it runs while the reply crosses to the
 *     peer. What is saved is that turn's busy time, not a duty cycle (the reply is on the wire one duty cycle after
 *     its offer either way), and only where the peer runs elsewhere: with both ports on this thread (loopback) the
 *     credit turn still lies between one port's send and the other's receive.</li>
 *     <li><b>Credit before receive when the application polls after the duty cycle on this thread</b> (invoker mode):
 *     what receive stores is polled at once, and its bookkeeping is the next duty cycle's, after that cycle's
 *     send.</li>
 *     <li><b>Receive before credit when the application polls on a thread of its own</b> (shared and split modes):
 *     the application polls what receive stored while the credit agent does its bookkeeping.</li>
 *     <li><b>A second arbiter turn</b> right after the credit agent's, when it handed the arbiter something it can
 *     send at once ({@link CreditAgent#takeArbiterWork()}: an FCP asked for, credit from an FCP applied, a link
 *     state entered), so that goes out in this duty cycle as it did when credit came first: credit a release frees
 *     is on the wire one duty cycle later and used by the peer in the next. The two turns share one burst
 *     ({@link ArbiterAgent#doWorkAgain()}).</li>
 *     <li>Receive after the arbiter in both orders: a packet the arbiter put on an in-process link (the loopback peer)
 *     is received in the same duty cycle.</li>
 * </ul>
 * Agrona's {@code CompositeAgent} calls its parts through the {@link Agent} interface, a call the JIT cannot bind
 * when the parts are of five classes; here each call is to a final class and inlines, which takes about a tenth off
 * an idle duty cycle.
 * <p>
 * As Agrona's composite, a part that throws ends this duty cycle, and the next one resumes with the part after it
 * (after the last part, the next duty cycle is a whole one), so a part that fails every time never starves the
 * others. A whole duty cycle calls the parts in a straight line ({@code cycle}); the resumption goes round them by
 * position ({@code resume}). {@link #onClose()} closes every part, even when one throws, and rethrows the first
 * failure.
 */
public final class DutyCycle extends DutyCyclePad2 implements Agent
{
    private static final int CLOCK = 0;
    private static final int HEARTBEAT = 1;
    private static final int INJECT = 2;
    private static final int ARBITER = 3;
    private static final int CREDIT_BEFORE_RECEIVE = 4;
    private static final int RECEIVE = 5;
    private static final int CREDIT_AFTER_RECEIVE = 6;
    private static final int CAPTURE = 7;
    private static final int PARTS = 8;

    private final DutyCycleClock clock;
    private final ReceiveAgent receive;
    private final CreditAgent credit;
    private final HeartbeatAgent heartbeat;
    private final InjectAgent inject;
    private final ArbiterAgent arbiter;
    private final Agent capture;
    private final Agent[] parts;
    private final String roleName;
    private final boolean creditBeforeReceive;

    /**
     * @param clock     the thread's clock, read first in each duty cycle; null when the parts read the engine's.
     * @param receive   the receive agent, or null.
     * @param credit    the credit agent, or null (then also no heartbeat).
     * @param heartbeat the counters file's heartbeat, or null.
     * @param inject    the injection agent, or null.
     * @param arbiter   the arbiter, or null.
     * @param capture   the capture writer, or null.
     * @param creditBeforeReceive whether the credit agent runs before receive (the application polls after each duty
     *                  cycle, on this thread: invoker mode) or after it (the application polls on a thread of its own).
     */
    public DutyCycle(
        final DutyCycleClock clock,
        final ReceiveAgent receive,
        final CreditAgent credit,
        final HeartbeatAgent heartbeat,
        final InjectAgent inject,
        final ArbiterAgent arbiter,
        final Agent capture,
        final boolean creditBeforeReceive)
    {
        this.creditBeforeReceive = creditBeforeReceive;
        this.clock = clock;
        this.receive = receive;
        this.credit = credit;
        this.heartbeat = heartbeat;
        this.inject = inject;
        this.arbiter = arbiter;
        this.capture = capture;
        final List<Agent> present = new ArrayList<>(PARTS);
        final StringJoiner names = new StringJoiner(",", "[", "]");
        for (final Agent part : creditBeforeReceive ?
            new Agent[]{ clock, heartbeat, inject, arbiter, credit, receive, capture } :
            new Agent[]{ clock, heartbeat, inject, arbiter, receive, credit, capture })
        {
            if (null != part)
            {
                present.add(part);
                names.add(part.roleName());
            }
        }
        if (present.isEmpty())
        {
            throw new IllegalArgumentException("a duty cycle of no agents");
        }
        this.parts = present.toArray(new Agent[0]);
        this.roleName = names.toString();
    }

    @Override
    public void onStart()
    {
        for (final Agent part : parts)
        {
            part.onStart();
        }
    }

    @Override
    public int doWork() throws Exception
    {
        return 0 == next ? cycle() : resume();
    }

    /**
     * A whole duty cycle, the parts called one after the other; the part running is kept in a local, and written to
     * {@code next} only when it throws.
     */
    private int cycle() throws Exception
    {
        int part = CLOCK;
        try
        {
            if (null != clock)
            {
                clock.doWork();
            }
            part = HEARTBEAT;
            if (null != heartbeat)
            {
                heartbeat.doWork();
            }
            int work = 0;
            part = INJECT;
            if (null != inject)
            {
                work += inject.doWork();
            }
            part = ARBITER;
            if (null != arbiter)
            {
                work += arbiter.doWork();
            }
            if (creditBeforeReceive)
            {
                part = CREDIT_BEFORE_RECEIVE;
                work += credit();
            }
            part = RECEIVE;
            if (null != receive)
            {
                work += receive.doWork();
            }
            if (!creditBeforeReceive)
            {
                part = CREDIT_AFTER_RECEIVE;
                work += credit();
            }
            part = CAPTURE;
            if (null != capture)
            {
                work += capture.doWork();
            }
            return work;
        }
        catch (final Throwable ex)
        {
            next = after(part);
            throw ex;
        }
    }

    /** The part the duty cycle after one that ended on {@code part} goes on with: 0, a whole cycle, after the last. */
    private static int after(final int part)
    {
        return part + 1 < PARTS ? part + 1 : 0;
    }

    /**
     * The rest of a duty cycle that a part ended by throwing: the parts after it, in order.
     */
    private int resume() throws Exception
    {
        int work = 0;
        for (int part = next; part < PARTS; part++)
        {
            // advanced before the call: a part that throws is not called again until the next duty cycle's turn
            next = after(part);
            switch (part)
            {
                case CLOCK:
                    if (null != clock)
                    {
                        clock.doWork();
                    }
                    break;
                case HEARTBEAT:
                    if (null != heartbeat)
                    {
                        heartbeat.doWork();
                    }
                    break;
                case INJECT:
                    if (null != inject)
                    {
                        work += inject.doWork();
                    }
                    break;
                case ARBITER:
                    if (null != arbiter)
                    {
                        work += arbiter.doWork();
                    }
                    break;
                case CREDIT_BEFORE_RECEIVE:
                    if (creditBeforeReceive)
                    {
                        work += credit();
                    }
                    break;
                case RECEIVE:
                    if (null != receive)
                    {
                        work += receive.doWork();
                    }
                    break;
                case CREDIT_AFTER_RECEIVE:
                    if (!creditBeforeReceive)
                    {
                        work += credit();
                    }
                    break;
                default:
                    if (null != capture)
                    {
                        work += capture.doWork();
                    }
                    break;
            }
        }
        return work;
    }

    /**
     * The credit agent's turn, then the arbiter's second turn if the credit agent handed it something to send.
     */
    private int credit()
    {
        if (null == credit)
        {
            return 0;
        }
        int work = credit.doWork();
        if (null != arbiter && credit.takeArbiterWork())
        {
            work += arbiter.doWorkAgain();
        }
        return work;
    }

    @Override
    public void onClose()
    {
        Throwable failure = null;
        for (final Agent part : parts)
        {
            try
            {
                part.onClose();
            }
            catch (final Throwable ex)
            {
                if (null == failure)
                {
                    failure = ex;
                }
                else
                {
                    failure.addSuppressed(ex);
                }
            }
        }
        if (null != failure)
        {
            LangUtil.rethrowUnchecked(failure);
        }
    }

    @Override
    public String roleName()
    {
        return roleName;
    }
}
