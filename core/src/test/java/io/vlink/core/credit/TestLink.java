package io.vlink.core.credit;

import org.agrona.concurrent.CachedNanoClock;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Two {@link CreditPort}s back to back on an in-order wire, driven step by step on a fake clock. Each step: every
 * port runs its liveness check (the training's wait limit; the ports have no silence limit), puts its due FCPs on its
 * wire, then its data (if the link state and credits allow), then everything in flight arrives; the receiving
 * application releases data at once unless told to hold it.
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
        long dataLost;
        final ArrayDeque<int[]> held = new ArrayDeque<>();
        /** With {@link #holdReceived}: the chance per step that the application takes the oldest held packet. */
        double releaseChance;

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
    /** When set: each frame on the wire is lost with {@link #lossChance}, and traffic picks random VLs and sizes. */
    Random random;
    double lossChance;

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
        a.port.checkLiveness(now());
        b.port.checkLiveness(now());
        a.noteState();
        b.noteState();
        drain(a);
        drain(b);
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

    private void drain(final Side side)
    {
        if (null != random && !side.held.isEmpty() && random.nextDouble() < side.releaseChance)
        {
            final int[] packet = side.held.poll();
            side.port.release(packet[0], packet[1]);
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
            if (null != random)
            {
                side.dataVl = random.nextInt(port.dataVls());
                side.dataBlocks = 1 + random.nextInt(random.nextBoolean() ? 8 : 128);
            }
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
            if (null != random && random.nextDouble() < lossChance)
            {
                if (frame[0] == DATA)
                {
                    from.dataLost++;
                }
                continue;
            }
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
                else
                {
                    to.held.add(new int[]{frame[1], frame[2]});
                }
            }
            to.noteState();
        }
        from.noteState();
    }
}
