package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.LinkState;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The receiving end of a two-process soak ({@code vlink soak --link shm}), run by the peer process the soak spawns:
 * engine B with port B on end B of the link's file, its link wrapped by a {@link FaultyLink} (the wire's receive side,
 * as in one process), and the receive-side checks of {@link SoakTraffic} (CRC, VL and size, FIFO by sequence number,
 * latency). It obeys the parent's commands and publishes what the parent's checks read through a
 * {@link PeerChannel}; at the end, its latency histograms and engine errors. It exits when the parent says so, and at
 * once when the parent's process is gone.
 */
public final class SoakReceiver
{
    private static final long PARENT_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    private static final long PUBLISH_NS = TimeUnit.MILLISECONDS.toNanos(1);
    /** How long the results wait for the parent to read them. */
    private static final long RELEASE_DEADLINE_NS = TimeUnit.SECONDS.toNanos(30);

    private SoakReceiver()
    {
    }

    /**
     * Serve as port B until the parent is done.
     *
     * @param options  the soak's options (the parent's command line); the directory becomes the channel's.
     * @param peerFile the parent's {@link PeerChannel}, beside the link's file.
     * @param err      where a reason for stopping goes.
     * @return 0 when the parent read the results, 1 when the parent vanished or the run could not go on.
     */
    public static int serve(final SoakRunner.Options options, final File peerFile, final PrintWriter err)
    {
        options.directory = peerFile.getAbsoluteFile().getParentFile();
        final Path linkFile = SoakPeer.linkFile(peerFile).toPath();
        try (PeerChannel channel = PeerChannel.open(peerFile))
        {
            final long parentPid = channel.get(PeerChannel.PARENT_PID);
            final ProcessHandle parent = ProcessHandle.of(parentPid).orElse(null);
            if (null == parent || !parent.isAlive())
            {
                err.println("vlink soak: the soak (process " + parentPid + ") that started this peer is gone");
                return 1;
            }
            final NanoClock clock = options.clock;
            final LatencyRecorder latency = new LatencyRecorder(SoakRunner.HIGHEST_LATENCY_NS);
            final SoakTraffic traffic =
                new SoakTraffic(options.sizeMin, options.sizeMax, options.seed, 1, 2, latency, clock);
            final FaultyLink[] wire = new FaultyLink[1];
            try (Engine engine = SoakRig.builder(options, "soak-b", false,
                link -> wire[0] = new FaultyLink(link, options.faults, options.seed, 1))
                .linkTimeoutNs(SoakRig.PEER_LINK_TIMEOUT_NS).shm(linkFile, ShmLink.Role.B).build())
            {
                final Port rx = engine.port(0);
                wire[0].attach(rx);
                channel.putCountersPath(engine.countersFile().file().getAbsolutePath());
                channel.put(PeerChannel.PEER_PID, ProcessHandle.current().pid());
                channel.put(PeerChannel.READY, 1);
                return run(options, channel, parent, engine, rx, wire[0], traffic, latency, err);
            }
        }
    }

    private static int run(
        final SoakRunner.Options options, final PeerChannel channel, final ProcessHandle parent, final Engine engine,
        final Port rx, final FaultyLink wire, final SoakTraffic traffic, final LatencyRecorder latency,
        final PrintWriter err)
    {
        final NanoClock clock = options.clock;
        final boolean invoker = ThreadingMode.INVOKER == options.threading;
        final IdleStrategy idle = new BackoffIdleStrategy();
        final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
        boolean armed = false;
        boolean cut = false;
        boolean up = true;
        boolean steady = false;
        long nextParentCheckNs = clock.nanoTime();
        long nextSampleNs = clock.nanoTime() + SECOND_NS;
        long publishedNs = clock.nanoTime();
        long lastTurnNs = publishedNs;
        long longestPauseNs = 0;
        while (0 == channel.get(PeerChannel.DONE))
        {
            final long nowNs = clock.nanoTime();
            if (nowNs - lastTurnNs > longestPauseNs)
            {
                // a SIGSTOP, or a machine that gave this process no time: the link may have gone down meanwhile
                longestPauseNs = nowNs - lastTurnNs;
                channel.put(PeerChannel.LONGEST_PAUSE_NS, longestPauseNs);
            }
            lastTurnNs = nowNs;
            if (nowNs - nextParentCheckNs >= 0)
            {
                if (!parent.isAlive())
                {
                    err.println("vlink soak: the soak (process " + parent.pid() + ") that started this peer is gone");
                    return 1;
                }
                nextParentCheckNs = nowNs + PARENT_CHECK_NS;
            }
            if (armed != (0 != channel.get(PeerChannel.ARMED)))
            {
                armed = !armed;
                wire.arm(armed);
            }
            if (cut != (0 != channel.get(PeerChannel.CUT)))
            {
                cut = !cut;
                wire.cut(cut);
            }
            if (up != (0 != channel.get(PeerChannel.LINK_UP)))
            {
                up = !up;
                if (up)
                {
                    rx.up();
                }
                else
                {
                    rx.down();
                }
            }
            if (!steady && 0 != channel.get(PeerChannel.STEADY_FROM_NS))
            {
                steady = true;
                latency.steadyFrom(channel.get(PeerChannel.STEADY_FROM_NS));
            }
            int work = invoker ? engine.invoke() : 0;
            final long hold = channel.get(PeerChannel.HOLD);
            channel.put(PeerChannel.HELD, hold);
            if (0 == hold)
            {
                work += rx.poll(traffic, SoakRig.POLL_LIMIT);
            }
            channel.put(PeerChannel.LINK_STATE, rx.linkState().ordinal());
            if (nowNs - nextSampleNs >= 0)
            {
                final Histogram interval = latency.sampleInterval();
                channel.put(PeerChannel.INTERVAL_P99_NS,
                    0 == interval.getTotalCount() ? 0 : interval.getValueAtPercentile(99));
                nextSampleNs += SECOND_NS;
            }
            // after what this thread received, and at least each millisecond for what the engine's threads counted
            if (work > 0 || nowNs - publishedNs >= PUBLISH_NS)
            {
                publish(channel, snapshot, traffic, wire, latency);
                publishedNs = nowNs;
            }
            idle.idle(work);
        }

        latency.sampleInterval();
        publish(channel, snapshot, traffic, wire, latency);
        final StringBuilder errors = new StringBuilder();
        SoakRig.appendErrors(engine, errors);
        channel.putErrors(errors.toString());
        channel.putHistograms(latency.total(), latency.steady());
        channel.put(PeerChannel.FINISHED, 1);
        // the parent reads this engine's counters until it has summarized: stay until it says so (or is gone)
        final long deadlineNs = clock.nanoTime() + RELEASE_DEADLINE_NS;
        while (channel.get(PeerChannel.DONE) < 2 && parent.isAlive() && clock.nanoTime() - deadlineNs < 0)
        {
            idle.idle(invoker ? engine.invoke() : 0);
        }
        return 0;
    }

    private static void publish(
        final PeerChannel channel, final long[] snapshot, final SoakTraffic traffic, final FaultyLink wire,
        final LatencyRecorder latency)
    {
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            snapshot[PeerChannel.at(PeerChannel.DELIVERED, vl)] = traffic.delivered[vl];
            snapshot[PeerChannel.at(PeerChannel.RECEIVED_BYTES, vl)] = traffic.receivedBytes[vl];
            snapshot[PeerChannel.at(PeerChannel.OUT_OF_ORDER, vl)] = traffic.outOfOrder[vl];
            snapshot[PeerChannel.at(PeerChannel.DUPLICATED, vl)] = traffic.duplicated[vl];
            snapshot[PeerChannel.at(PeerChannel.DAMAGED, vl)] = traffic.damaged[vl];
            snapshot[PeerChannel.at(PeerChannel.GAPS, vl)] = traffic.gaps[vl];
            snapshot[PeerChannel.at(PeerChannel.EXPECTED, vl)] = traffic.expected[vl];
            snapshot[PeerChannel.at(PeerChannel.DROPPED_DATA, vl)] = wire.droppedData(vl);
            snapshot[PeerChannel.at(PeerChannel.CORRUPTED_DATA, vl)] = wire.corruptedData(vl);
            snapshot[PeerChannel.at(PeerChannel.BOUNCE_LOST, vl)] = wire.bounceLost(vl);
            snapshot[PeerChannel.at(PeerChannel.STATE_LOST, vl)] = wire.stateLost(vl);
        }
        snapshot[PeerChannel.scalar(PeerChannel.VL15_DELIVERED)] = traffic.vl15Delivered;
        snapshot[PeerChannel.scalar(PeerChannel.DROPPED_FCPS)] = wire.droppedFcps();
        snapshot[PeerChannel.scalar(PeerChannel.CORRUPTED_FCPS)] = wire.corruptedFcps();
        snapshot[PeerChannel.scalar(PeerChannel.CLAMPED)] = latency.clamped();
        channel.publish(snapshot);
    }

    /**
     * @param ordinal a {@link LinkState} ordinal the peer published.
     * @return the state.
     */
    static LinkState linkState(final long ordinal)
    {
        return LinkState.values()[(int)ordinal];
    }
}
