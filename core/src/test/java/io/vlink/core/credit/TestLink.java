package io.vlink.core.credit;

import io.vlink.core.port.DirectPort;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.TestPort;
import io.vlink.core.port.TestSource;
import io.vlink.core.port.TestWire;
import org.agrona.concurrent.CachedNanoClock;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Two ports' shipped datapaths ({@link DirectPort}) back to back on an in-order wire, driven step by step on a fake
 * clock in the engine's duty-cycle order: each step, every port's credit half (what it received in the step before,
 * releases, FCPs due), then its transmit half (VL15, FCPs, data with credit), then every port receives what is on
 * the wire: applied in the next step ({@link DirectPort.Events#QUEUED}, the engine's timing, the default) or at once
 * ({@link DirectPort.Events#IMMEDIATE}, a switch's). The receiving application releases data at once unless told to
 * hold it.
 */
final class TestLink
{
    /** One port and its traffic. */
    static final class Side
    {
        final String name;
        final TestPort port;
        int dataVl;
        int dataBlocks = 4;
        boolean wantsToSend;
        /** With {@link #holdReceived}: the chance per step that the application takes the oldest held packet. */
        double releaseChance;
        boolean holdReceived;
        long dataSent;
        long dataSentWhileNotActive;
        long dataLost;
        /** Every FCP this port sent: {time, word}. */
        final List<int[]> sentFcps = new ArrayList<>();
        private int logged;

        Side(final String name, final TestPort port)
        {
            this.name = name;
            this.port = port;
            port.out.history = new ArrayList<>();
        }

        List<LinkState> states()
        {
            return port.states;
        }

        long dataReceived()
        {
            long packets = 0;
            for (int vl = 0; vl < port.dataVls(); vl++)
            {
                packets += port.counters.rxPackets(vl);
            }
            return packets;
        }
    }

    final CachedNanoClock clock = new CachedNanoClock();
    final long stepNs;
    final Side a;
    final Side b;
    /** When set: each frame on the wire is lost with {@link #lossChance}, and traffic picks random VLs and sizes. */
    Random random;
    double lossChance;

    TestLink(final PortConfig config, final long stepNs)
    {
        this(config, stepNs, DirectPort.Events.QUEUED);
    }

    TestLink(final PortConfig config, final long stepNs, final DirectPort.Events events)
    {
        this.stepNs = stepNs;
        a = new Side("a", new TestPort(config, 1, events));
        b = new Side("b", new TestPort(config, 1, events));
    }

    long now()
    {
        return clock.nanoTime();
    }

    void step()
    {
        clock.advance(stepNs);
        a.port.clock.update(now());
        b.port.clock.update(now());
        credit(a);
        credit(b);
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

    private void credit(final Side side)
    {
        side.port.buffers.releaseAtOnce = !side.holdReceived;
        if (null != random && random.nextDouble() < side.releaseChance)
        {
            side.port.buffers.releaseOldest();
        }
        side.port.credit(now());
    }

    private void send(final Side side)
    {
        final TestPort port = side.port;
        if (side.wantsToSend && 0 == port.source.queued(side.dataVl))
        {
            if (null != random)
            {
                side.dataVl = random.nextInt(port.dataVls());
                side.dataBlocks = 1 + random.nextInt(random.nextBoolean() ? 8 : TestSource.MAX_BLOCKS);
            }
            port.source.offer(side.dataVl, side.dataBlocks);
        }
        if (!side.wantsToSend)
        {
            for (int vl = 0; vl < port.dataVls(); vl++)
            {
                port.source.withdraw(vl);
            }
        }
        final long before = sent(port);
        port.transmit();
        final long sent = sent(port) - before;
        side.dataSent += sent;
        if (port.state() != LinkState.ACTIVE)
        {
            side.dataSentWhileNotActive += sent;
        }
        final List<TestWire.Frame> history = port.out.history;
        for (; side.logged < history.size(); side.logged++)
        {
            final TestWire.Frame frame = history.get(side.logged);
            if (frame.isFcp())
            {
                side.sentFcps.add(new int[]{(int)now(), frame.word()});
            }
        }
    }

    private static long sent(final TestPort port)
    {
        long sent = 0;
        for (int vl = 0; vl < port.dataVls(); vl++)
        {
            sent += port.source.sent[vl];
        }
        return sent;
    }

    private void deliver(final Side from, final Side to)
    {
        if (null != random && lossChance > 0)
        {
            from.dataLost += from.port.out.lose(random, lossChance);
        }
        from.port.out.deliverAll(to.port.port.receiveHalf());
    }
}
