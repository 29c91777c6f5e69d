package io.vlink.bench;

import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.agent.ArbiterAgent;
import io.vlink.nic.agent.CreditAgent;
import io.vlink.nic.agent.InjectAgent;
import io.vlink.nic.agent.InjectSettings;
import io.vlink.nic.agent.MemoryRegions;
import io.vlink.nic.agent.PortDatapath;
import io.vlink.nic.agent.PortEvents;
import io.vlink.nic.agent.ReceiveAgent;
import io.vlink.nic.agent.SendQueue;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;

/**
 * The stage budget: ns a packet spent in each stage of the engine's path, on one thread, at a burst of 1 and of 32
 * (or the bursts given). It wires the engine's own agents and port datapaths as {@link Engine} does for two loopback
 * ports (OpenSM's default QoS of 8 VLs, four queue pairs on SLs 1..4 of port 0, as {@link PipelineBenchmark}), and
 * runs rounds: BURST packets posted (immediate data), then one duty cycle in invoker mode stage by stage, in
 * {@code DutyCycle}'s order: inject, arbiter, credit, the arbiter's second turn when the credit agent handed it work
 * ({@link CreditAgent#takeArbiterWork()}, {@link ArbiterAgent#doWorkAgain()}), receive; then the application's poll
 * of port 1's receive rings. Each stage is timed with {@link System#nanoTime()}, whose own cost (measured here too)
 * is taken off. The engine's burst setting is
 * BURST, so a round's packets go through each stage in one call.
 * <pre>
 * java $(cat bench/target/classes/jvm.flags) -Dagrona.disable.bounds.checks=true \
 *     -cp bench/target/benchmarks.jar io.vlink.bench.StageBudget [SIZE [BURST,BURST... [SECONDS]]]
 * </pre>
 * SIZE is the packet size S (LRH through ICRC, default 64), the bursts default to 1,32, SECONDS (default 5) is each
 * burst's measured time after as long a warm-up. Prints one row a stage: the median of five measured parts.
 */
public final class StageBudget
{
    private static final String[] STAGES = { "post", "inject", "arbiter", "credit", "arbiter2", "receive", "poll" };
    private static final int PARTS = 5;

    private StageBudget()
    {
    }

    public static void main(final String[] args)
    {
        final int size = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        final int[] bursts = args.length > 1 ?
            Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray() : new int[]{ 1, 32 };
        final double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 5;
        final double clock = clockCost();
        final double[][] budget = new double[bursts.length][];
        for (int b = 0; b < bursts.length; b++)
        {
            try (Rig rig = new Rig(size, bursts[b]))
            {
                rig.run((long)(seconds * 1e9)); // warm-up
                final double[][] parts = new double[PARTS][];
                for (int p = 0; p < PARTS; p++)
                {
                    parts[p] = rig.run((long)(seconds * 1e9 / PARTS));
                }
                budget[b] = median(parts, clock);
            }
        }
        System.out.printf(Locale.ROOT, "stage budget: %d B packets, ns a packet (one thread; a clock read of %.1f ns " +
            "taken off each stage)%n", size, clock);
        final StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-8s", "stage"));
        for (final int burst : bursts)
        {
            header.append(String.format(Locale.ROOT, " %10s", "burst " + burst));
        }
        System.out.println(header);
        for (int s = 0; s <= STAGES.length; s++)
        {
            final StringBuilder row = new StringBuilder(
                String.format(Locale.ROOT, "%-8s", s < STAGES.length ? STAGES[s] : "total"));
            for (int b = 0; b < bursts.length; b++)
            {
                row.append(String.format(Locale.ROOT, " %10.1f", budget[b][s]));
            }
            System.out.println(row);
        }
        final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-8s", "packets a round"));
        for (int b = 0; b < bursts.length; b++)
        {
            row.append(String.format(Locale.ROOT, " %10.1f", budget[b][STAGES.length + 1]));
        }
        System.out.println(row);
    }

    /** Each stage's median over the parts, less the clock read per packet; then their sum and packets a round. */
    private static double[] median(final double[][] parts, final double clock)
    {
        final double[] result = new double[STAGES.length + 2];
        result[STAGES.length + 1] = parts[parts.length / 2][STAGES.length + 1];
        for (int s = 0; s < STAGES.length; s++)
        {
            final double[] values = new double[parts.length];
            for (int p = 0; p < parts.length; p++)
            {
                values[p] = parts[p][s] - clock * parts[p][STAGES.length];
            }
            Arrays.sort(values);
            result[s] = Math.max(0, values[values.length / 2]);
            result[STAGES.length] += result[s];
        }
        return result;
    }

    /** ns between two consecutive reads of the clock, the least of several tries. */
    private static double clockCost()
    {
        double best = Double.MAX_VALUE;
        long sink = 0;
        for (int trial = 0; trial < 20; trial++)
        {
            final int reads = 1_000_000;
            final long start = System.nanoTime();
            for (int i = 0; i < reads; i++)
            {
                sink += System.nanoTime();
            }
            best = Math.min(best, (System.nanoTime() - start) / (double)reads);
        }
        return sink == 42 ? best + 1e-9 : best;
    }

    /** The engine's agents over two loopback ports, run stage by stage. */
    static final class Rig implements AutoCloseable
    {
        private final int burst;
        private final CountersFile countersFile;
        private final PortDatapath[] datapaths = new PortDatapath[2];
        private final SendQueue[] queues = new SendQueue[4];
        private final ReceiveRing[] rxRings;
        private final CreditAgent credit;
        private final InjectAgent inject;
        private final ArbiterAgent arbiter;
        private final ReceiveAgent receive;
        private final UnsafeBuffer payload;
        private final int payloadLength;
        private final long[] stageNs = new long[STAGES.length];
        private long delivered;
        private int next;
        private final ReceiveRing.PacketConsumer consumer = (buffer, offset, length) -> delivered++;

        Rig(final int size, final int burst)
        {
            this.burst = burst;
            final EngineConfiguration config = Engine.builder()
                .name("stages-" + ProcessHandle.current().pid())
                .threading(ThreadingMode.INVOKER)
                .qos(QosConfig.opensmDefaults(8))
                .burst(burst)
                .conclude();
            final int maxCounters = config.maxCounters();
            final int errorLog = config.errorLogLength();
            countersFile = CountersFile.over(new UnsafeBuffer(ByteBuffer.allocateDirect((int)CountersFileDescriptor
                .fileLength(maxCounters * CountersReader.METADATA_LENGTH, maxCounters * CountersReader.COUNTER_LENGTH,
                errorLog))), "stages", maxCounters, errorLog, SystemEpochClock.INSTANCE);
            final PortCounterSet[] counters = new PortCounterSet[2];
            for (int i = 0; i < 2; i++)
            {
                counters[i] = new PortCounterSet(countersFile, i, config.qos().dataVls());
            }
            final LoopbackLink[] ends = LoopbackLink.pair(config.loopbackCapacity(), counters[0].link(),
                counters[1].link());
            final InjectionConfig injection = null != config.injection() ? config.injection() :
                InjectionConfig.forPort(config.qos(), config.mtu(), config.sharedCells(), config.idcThreshold());
            for (int i = 0; i < 2; i++)
            {
                datapaths[i] = new PortDatapath(i, config.qos(), config.mtu(), injection, config.rxEventRingLength(),
                    config.vlBufferBlocks(), config.vl15Packets(), config.queueDepth(), ends[i], counters[i],
                    0 == i ? config.localLid() : config.remoteLid(), 0 == i ? config.remoteLid() : config.localLid());
            }
            for (int i = 0; i < queues.length; i++)
            {
                queues[i] = new SendQueue(null, datapaths[0].applicationCounters(), 1 + i, 1 + i, 1 + i,
                    SendQueue.KIND_DATA, config.queueDepth(), injection.idcThreshold());
                datapaths[0].add(queues[i]);
            }
            rxRings = datapaths[1].receiveRings().rings();
            final PortEvents events = new PortEvents()
            {
                @Override
                public void onLinkState(final int port, final LinkState state)
                {
                }

                @Override
                public void onFlushed(final SendQueue queue, final long messages)
                {
                }

                @Override
                public void onReadyPacketsFlushed(final int port, final int sl, final long packets)
                {
                }
            };
            final NanoClock clock = SystemNanoClock.INSTANCE;
            receive = new ReceiveAgent(datapaths, config.portConfig(), 2 * config.burst(), null);
            credit = new CreditAgent(datapaths, config.portConfig(), events, clock);
            inject = new InjectAgent(datapaths, new InjectSettings(config.burst(), config.slTableSls(),
                config.slTableWeights(), config.tenureBytes(), config.tenurePackets(), config.maxQueuePairs(),
                config.queueDepth()), new MemoryRegions(), events, clock);
            arbiter = new ArbiterAgent(datapaths, config.portConfig(), null);
            inject.onStart();
            payloadLength = size - 8 - 12 - 4;
            payload = new UnsafeBuffer(new byte[Math.max(1, payloadLength)]);

            datapaths[0].command(PortDatapath.COMMAND_UP);
            datapaths[1].command(PortDatapath.COMMAND_UP);
            final long deadline = System.nanoTime() + 10_000_000_000L;
            while (LinkState.ACTIVE.code() != datapaths[0].linkStateCode() ||
                LinkState.ACTIVE.code() != datapaths[1].linkStateCode())
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("link did not come up");
                }
                inject.doWork();
                arbiter.doWork();
                credit.doWork();
                if (credit.takeArbiterWork())
                {
                    arbiter.doWorkAgain();
                }
                receive.doWork();
            }
        }

        /**
         * Rounds for about {@code durationNs}.
         *
         * @return ns a packet by stage, then clock reads a packet (per stage), then packets a round.
         */
        double[] run(final long durationNs)
        {
            Arrays.fill(stageNs, 0);
            // a round the scheduler preempted (the machine is shared) is left out: its time is not the stages'
            final long preempted = 20_000 + 2_000L * burst;
            final long end = System.nanoTime() + durationNs;
            long rounds = 0;
            long packets = 0;
            long t7 = System.nanoTime();
            while (t7 < end)
            {
                final long before = delivered;
                final long t0 = System.nanoTime();
                for (int i = 0; i < burst; i++)
                {
                    if (queues[next].offerInline(payload, 0, payloadLength) < 0)
                    {
                        break;
                    }
                    next = next + 1 == queues.length ? 0 : next + 1;
                }
                final long t1 = System.nanoTime();
                inject.doWork();
                final long t2 = System.nanoTime();
                arbiter.doWork();
                final long t3 = System.nanoTime();
                credit.doWork();
                final long t4 = System.nanoTime();
                if (credit.takeArbiterWork())
                {
                    arbiter.doWorkAgain();
                }
                final long t5 = System.nanoTime();
                receive.doWork();
                final long t6 = System.nanoTime();
                for (final ReceiveRing ring : rxRings)
                {
                    if (null != ring)
                    {
                        ring.poll(consumer, Integer.MAX_VALUE);
                    }
                }
                t7 = System.nanoTime();
                if (t7 - t0 < preempted)
                {
                    stageNs[0] += t1 - t0;
                    stageNs[1] += t2 - t1;
                    stageNs[2] += t3 - t2;
                    stageNs[3] += t4 - t3;
                    stageNs[4] += t5 - t4;
                    stageNs[5] += t6 - t5;
                    stageNs[6] += t7 - t6;
                    rounds++;
                    packets += delivered - before;
                }
            }
            final double[] result = new double[STAGES.length + 2];
            for (int s = 0; s < STAGES.length; s++)
            {
                result[s] = stageNs[s] / (double)packets;
            }
            result[STAGES.length] = rounds / (double)packets;
            result[STAGES.length + 1] = packets / (double)rounds;
            return result;
        }

        @Override
        public void close()
        {
            for (final PortDatapath datapath : datapaths)
            {
                datapath.free();
            }
            countersFile.close();
        }
    }
}
