package io.vlink.nic.agent;

import io.vlink.core.credit.LinkState;
import io.vlink.core.port.FrameTap;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.PortReceive;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.LinkReceiver;
import org.agrona.concurrent.Agent;

/**
 * The receive agent: for each port, polls the link and hands every frame to the port's receive half, {@code core}'s
 * {@link PortReceive} (the checks, admission by the link state the credit agent last published, the store into the
 * VL's receive ring, discards counted by reason), which reports to the credit agent through the port's event ring, in
 * wire order. A poll takes no more frames than that ring has room for events.
 */
public final class ReceiveAgent implements Agent
{
    private final PortReceiver[] ports;

    /**
     * @param ports   the engine's ports.
     * @param config  the ports' datapath settings.
     * @param burst   the most frames a poll takes.
     * @param capture the capture tap, or null.
     */
    public ReceiveAgent(final PortDatapath[] ports, final PortConfig config, final int burst, final CaptureTap capture)
    {
        this.ports = new PortReceiver[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            // With one port (UDP) the capture's interface 1 is the peer, seen where its packets arrive; with two
            // ports the arbiter records both directions where they enter the wire.
            this.ports[i] = new PortReceiver(ports[i], config, burst, ports.length == 1 ? capture : null);
        }
    }

    @Override
    public int doWork()
    {
        int work = 0;
        for (final PortReceiver port : ports)
        {
            work += port.doWork();
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "receive";
    }

    static final class PortReceiver
    {
        private final PortDatapath port;
        private final LinkReceiver input;
        private final int burst;
        private final PortReceive receive;

        PortReceiver(final PortDatapath port, final PortConfig config, final int burst, final CaptureTap capture)
        {
            this.port = port;
            this.burst = burst;
            final FrameTap tap = null == capture ? null :
                (frameType, buffer, offset, length) -> capture.record(1, frameType, buffer, offset, length);
            this.receive = new PortReceive(config, port.buffers, port.rxEvents, port.counterSet().receive(), tap);
            this.input = new LinkReceiver(port.link(), receive);
        }

        int doWork()
        {
            // the epoch first: the credit agent publishes a new epoch before the state it enters
            final int epoch = port.creditLimits.epoch();
            receive.linkState(LinkState.get(port.linkStateCode()), epoch);
            final int limit = receive.frameLimit(burst);
            if (limit <= 0)
            {
                return 0;
            }
            return input.poll(limit);
        }
    }
}
