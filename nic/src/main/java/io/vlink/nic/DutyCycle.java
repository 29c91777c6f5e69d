package io.vlink.nic;

import io.vlink.nic.agent.DutyCycleClock;
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
 * The agents one engine thread runs together, called directly: the thread's clock and the heartbeat, then inject and
 * arbiter, then receive and credit in an order that depends on where the application polls, any of which may be
 * absent (split mode gives the receive half and the transmit half a thread each). The credit agent's bookkeeping of
 * what arrived (an acceptance, a release, the FCPs that came with them) is kept off a message's path:
 * <ul>
 *     <li>Inject and arbiter first: a message the application offered before the duty cycle is on the wire before
 *     the credit agent's turn (in a ping-pong that turn would otherwise sit between the handler's reply and its
 *     send).</li>
 *     <li>When the application polls on this thread after the duty cycle (invoker mode), credit comes before receive:
 *     what receive stores is polled at once, and its acceptance is the next duty cycle's bookkeeping, after that
 *     duty cycle's send.</li>
 *     <li>When the application polls on a thread of its own, receive comes first: it polls while the credit agent
 *     works. Receive after the arbiter either way: a packet the arbiter put on an in-process link (the loopback
 *     peer, a switch port of the same thread) is received in the same duty cycle.</li>
 *     <li>After the credit agent, the arbiter takes a second turn if the credit agent gave it something to send (an
 *     FCP it asked for, credit from an FCP it applied, a new link state), so that goes out in the same duty cycle;
 *     the two turns share one burst.</li>
 * </ul>
 * <p>
 * Agrona's {@code CompositeAgent} calls its parts through the {@link Agent} interface, a call the JIT cannot bind
 * when the parts are of five classes; here each call is to a final class and inlines, which takes about a tenth off
 * an idle duty cycle.
 * <p>
 * As Agrona's composite, a part that throws ends this duty cycle, and the next one resumes with the part after it,
 * so a part that fails every time never starves the others. {@link #onClose()} closes every part, even when one
 * throws, and rethrows the first failure.
 */
final class DutyCycle extends DutyCyclePad2 implements Agent
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
     * @param creditBeforeReceive the credit agent runs between the arbiter and receive (the application polls after
     *                  the duty cycle, on the same thread: invoker mode), else after receive.
     */
    DutyCycle(
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
        int work = 0;
        while (next < PARTS)
        {
            // advanced before the call: a part that throws is not called again until the next duty cycle's turn
            switch (next++)
            {
                case CLOCK:
                    if (null != clock)
                    {
                        clock.doWork();
                    }
                    break;
                case CREDIT_BEFORE_RECEIVE:
                    if (creditBeforeReceive)
                    {
                        work += credit();
                    }
                    break;
                case CREDIT_AFTER_RECEIVE:
                    if (!creditBeforeReceive)
                    {
                        work += credit();
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
                case RECEIVE:
                    if (null != receive)
                    {
                        work += receive.doWork();
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
        next = 0;
        return work;
    }

    /**
     * The credit agent's turn, then the arbiter's second turn if the credit agent gave it something to send.
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
            work += arbiter.doWorkContinued();
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
