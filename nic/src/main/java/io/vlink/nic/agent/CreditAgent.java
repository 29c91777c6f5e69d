package io.vlink.nic.agent;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.LinkState;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.PortCredit;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

/**
 * The credit agent: for each port, the port's credit half, {@code core}'s {@link PortCredit} ({@link CreditControl}'s
 * rules fed in wire order with what the receive agent reported, its decisions handed on: credit limits and the credit
 * epoch to the arbiter, FCP requests to the arbiter, gauges and counters), plus what only the engine has:
 * <ul>
 *     <li>the application's up and down requests (the port's command word), carried out;</li>
 *     <li>every state entered published in the port's link-state word, and told to the listener ({@link PortEvents});</li>
 *     <li>a link error from Armed or Active ({@link CreditControl#transmitFlushes()}): each queue pair's posted
 *     messages marked and a new flush epoch published before the {@code Down} ({@link FlushControl}).</li>
 * </ul>
 * Every counter it writes has no other writer.
 */
public final class CreditAgent implements Agent
{
    private final PortDuty[] ports;
    private final NanoClock clock;

    /**
     * @param ports  the engine's ports.
     * @param config the ports' datapath settings.
     * @param events told each state a port's link enters.
     * @param clock  the duty cycle's clock.
     */
    public CreditAgent(final PortDatapath[] ports, final PortConfig config, final PortEvents events, final NanoClock clock)
    {
        this.ports = new PortDuty[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortDuty(ports[i], config, events);
        }
        this.clock = clock;
    }

    @Override
    public int doWork()
    {
        // one time for the whole duty cycle
        final long nowNs = clock.nanoTime();
        int work = 0;
        for (final PortDuty port : ports)
        {
            work += port.doWork(nowNs);
        }
        return work;
    }

    /**
     * Whether, since the last call, any port's credit half handed the arbiter something it can send at once (an FCP
     * asked for, credit from an FCP applied, a link state entered: {@link PortCredit#takeTransmitWork()}); the duty
     * cycle then gives the arbiter a second turn ({@link DutyCycle}).
     *
     * @return true if so; cleared.
     */
    public boolean takeArbiterWork()
    {
        boolean any = false;
        for (final PortDuty port : ports)
        {
            any |= port.credit.takeTransmitWork();
        }
        return any;
    }

    @Override
    public String roleName()
    {
        return "credit";
    }

    static final class PortDuty implements PortCredit.Listener
    {
        private final PortDatapath port;
        private final PortCredit credit;
        private final PortEvents listener;

        PortDuty(final PortDatapath port, final PortConfig config, final PortEvents listener)
        {
            this.port = port;
            this.listener = listener;
            port.publishLinkState(LinkState.DOWN);
            this.credit = new PortCredit(config, port.buffers, port.rxEvents, port.fcpRequests, port.creditLimits,
                port.counterSet().credit(), this);
        }

        int doWork(final long nowNs)
        {
            final int command = port.takeCommand();
            int work = 0;
            if (PortDatapath.COMMAND_UP == command)
            {
                // the init FCPs are asked for at once, before anything the peer sent is read (PortCredit.up)
                work += credit.up(nowNs) ? 1 : 0;
            }
            else if (PortDatapath.COMMAND_DOWN == command)
            {
                work += credit.down(nowNs) ? 1 : 0;
            }
            return work + credit.doWork(nowNs);
        }

        @Override
        public void onTransmitFlush(final long flushes)
        {
            // a link error from Armed or Active: mark what each queue pair has posted, then the flush epoch, both
            // before the Down is published (FlushControl)
            port.smpQueue().markFlush();
            for (final SendQueue qp : port.queues())
            {
                qp.markFlush();
            }
            port.flush.publishEpoch((int)flushes);
        }

        @Override
        public void onStateEntered(final LinkState state)
        {
            port.publishLinkState(state);
            listener.onLinkState(port.id(), state);
        }
    }
}
