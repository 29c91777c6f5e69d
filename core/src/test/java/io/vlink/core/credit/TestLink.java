package io.vlink.core.credit;

import org.agrona.concurrent.CachedNanoClock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Two {@link CreditPort}s back to back on an in-order wire, driven step by step on a fake clock. Each step: every
 * port puts its due FCPs on its wire, then its data (if the link state and credits allow), then everything in
 * flight arrives; the receiving application releases data at once unless told to hold it.
 */
final class TestLink
{
    static final int DATA = 0;
    static final int FCP = 1;

    /** One direction of the wire. */
    static final class Side
    {
        final String name;
        final CreditPort port;
        final ArrayDeque<int[]> wire = new ArrayDeque<>();
        final List<LinkState> states = new ArrayList<>();
        final List<int[]> sentFcps = new ArrayList<>();
        int dataVl;
        int dataBlocks = 4;
        boolean wantsToSend;
        boolean holdReceived;
        long dataSent;
        long dataReceived;
        long dataSentWhileNotActive;

        Side(final String name, final CreditPort port)
        {
            this.name = name;
            this.port = port;
            states.add(port.state());
        }

        void noteState()
        {
            if (states.get(states.size() - 1) != port.state())
            {
                states.add(port.state());
            }
        }
    }

    final CachedNanoClock clock = new CachedNanoClock();
    final long stepNs;
    final Side a;
    final Side b;

    TestLink(final CreditConfig config, final long stepNs)
    {
        this.stepNs = stepNs;
        a = new Side("a", new CreditPort(config));
        b = new Side("b", new CreditPort(config));
    }

    long now()
    {
        return clock.nanoTime();
    }

    void step()
    {
        clock.advance(stepNs);
        send(a);
        send(b);
        deliver(a, b);
        deliver(b, a);
    }

    void steps(final int count)
    {
        for (int i = 0; i < count; i++)
        {
            step();
        }
    }

    private void send(final Side side)
    {
        final CreditPort port = side.port;
        for (int vl; (vl = port.pollFcp(now())) != FcpSchedule.NONE; )
        {
            final int word = port.buildFcp(vl, now());
            side.wire.add(new int[]{FCP, word});
            side.sentFcps.add(new int[]{(int)now(), word});
        }
        if (side.wantsToSend)
        {
            if (port.tryTransmit(side.dataVl, side.dataBlocks))
            {
                if (port.state() != LinkState.ACTIVE)
                {
                    side.dataSentWhileNotActive++;
                }
                side.wire.add(new int[]{DATA, side.dataVl, side.dataBlocks});
                side.dataSent++;
            }
        }
    }

    private void deliver(final Side from, final Side to)
    {
        for (int[] frame; (frame = from.wire.poll()) != null; )
        {
            if (frame[0] == FCP)
            {
                to.port.onFcp(frame[1], now());
            }
            else if (to.port.onData(frame[1], frame[2]))
            {
                to.dataReceived++;
                if (!to.holdReceived)
                {
                    to.port.release(frame[1], frame[2]);
                }
            }
            to.noteState();
        }
        from.noteState();
    }
}
