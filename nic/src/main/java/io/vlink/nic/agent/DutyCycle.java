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
 * The agents one engine thread runs together, called directly: the thread's clock, then credit (with the heartbeat),
 * inject, arbiter and receive, any of which may be absent (split mode gives the receive half and the transmit half a
 * thread each). Receive comes last so that a packet the arbiter put on an in-process link (the loopback peer, a
 * switch port of the same thread) is received in the same duty cycle; what it hands the credit agent is taken first
 * thing in the next one, still before the arbiter's next grant.
 * <p>
 * Agrona's {@code CompositeAgent} calls its parts through the {@link Agent} interface, a call the JIT cannot bind
 * when the parts are of five classes; here each call is to a final class and inlines, which takes about a tenth off
 * an idle duty cycle.
 * <p>
 * As Agrona's composite, a part that throws ends this duty cycle, and the next one resumes with the part after it,
 * so a part that fails every time never starves the others. {@link #onClose()} closes every part, even when one
 * throws, and rethrows the first failure.
 */
public final class DutyCycle extends DutyCyclePad2 implements Agent
{
    private static final int CLOCK = 0;
    private static final int CREDIT = 1;
    private static final int HEARTBEAT = 2;
    private static final int INJECT = 3;
    private static final int ARBITER = 4;
    private static final int RECEIVE = 5;
    private static final int CAPTURE = 6;
    private static final int PARTS = 7;

    private final DutyCycleClock clock;
    private final ReceiveAgent receive;
    private final CreditAgent credit;
    private final HeartbeatAgent heartbeat;
    private final InjectAgent inject;
    private final ArbiterAgent arbiter;
    private final Agent capture;
    private final Agent[] parts;
    private final String roleName;

    /**
     * @param clock     the thread's clock, read first in each duty cycle; null when the parts read the engine's.
     * @param receive   the receive agent, or null.
     * @param credit    the credit agent, or null (then also no heartbeat).
     * @param heartbeat the counters file's heartbeat, or null.
     * @param inject    the injection agent, or null.
     * @param arbiter   the arbiter, or null.
     * @param capture   the capture writer, or null.
     */
    public DutyCycle(
        final DutyCycleClock clock,
        final ReceiveAgent receive,
        final CreditAgent credit,
        final HeartbeatAgent heartbeat,
        final InjectAgent inject,
        final ArbiterAgent arbiter,
        final Agent capture)
    {
        this.clock = clock;
        this.receive = receive;
        this.credit = credit;
        this.heartbeat = heartbeat;
        this.inject = inject;
        this.arbiter = arbiter;
        this.capture = capture;
        final List<Agent> present = new ArrayList<>(PARTS);
        final StringJoiner names = new StringJoiner(",", "[", "]");
        for (final Agent part : new Agent[]{ clock, credit, heartbeat, inject, arbiter, receive, capture })
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
                case CREDIT:
                    if (null != credit)
                    {
                        work += credit.doWork();
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
