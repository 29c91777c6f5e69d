package io.vlink.bench;

import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.LinkCounters;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemEpochClock;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.Locale;

/**
 * CPU time per packet of one thread, for before/after comparisons on a machine others use too: a thread's CPU time
 * leaves out the time the scheduler gives the neighbours, which JMH's wall-clock figures include. {@code pipe} is
 * {@link PipelineBenchmark}'s workload in invoker mode (one thread offers, runs every agent of both ports and polls:
 * {@code qp.offer} to the receive handler); {@code lone} is {@link LatencyBenchmark}'s {@code oneWay} in invoker
 * mode (one 64-byte message in flight, offered and taken by the same thread: the CPU time of its latency, SIZE
 * ignored); {@code link} is a {@link LoopbackLink} alone, 16 frames claimed, committed and polled at a time. Run each build alternately, several times, in one sitting; compare medians.
 * <pre>
 * java --add-exports java.base/jdk.internal.misc=ALL-UNNAMED -Dagrona.disable.bounds.checks=true \
 *     -cp bench/target/benchmarks.jar io.vlink.bench.CpuPerPacket pipe|lone|link SIZE [ROUNDS]
 * </pre>
 * Prints the least and the median of ROUNDS (default 9) rounds after four not counted, in ns a packet (a frame).
 */
public final class CpuPerPacket
{
    private static final int WARM_UP_ROUNDS = 4;
    private static final int BATCH = 16;

    private CpuPerPacket()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length < 2 || !("pipe".equals(args[0]) || "lone".equals(args[0]) || "link".equals(args[0])))
        {
            System.err.println("usage: CpuPerPacket pipe|lone|link SIZE [ROUNDS]");
            System.exit(2);
        }
        final int size = Integer.parseInt(args[1]);
        final int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 9;
        final double[] ns = "pipe".equals(args[0]) ? pipe(size, rounds) :
            "lone".equals(args[0]) ? lone(rounds) : link(size, rounds);
        Arrays.sort(ns);
        System.out.printf(Locale.ROOT, "%s %d B: min %.1f median %.1f ns a packet (CPU time, %d rounds)%n",
            args[0], size, ns[0], ns[rounds / 2], rounds);
    }

    /** CPU time of {@code work} a round, per item of the {@code items} it does, after the warm-up rounds. */
    private static double[] measure(final int rounds, final int items, final Runnable work)
    {
        final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        final double[] ns = new double[rounds];
        for (int round = -WARM_UP_ROUNDS; round < rounds; round++)
        {
            final long start = threads.getCurrentThreadCpuTime();
            work.run();
            if (round >= 0)
            {
                ns[round] = (threads.getCurrentThreadCpuTime() - start) / (double)items;
            }
        }
        return ns;
    }

    private static double[] pipe(final int size, final int rounds)
    {
        final PipelineBenchmark.Pipeline pipeline = new PipelineBenchmark.Pipeline();
        pipeline.size = size;
        pipeline.threads = "invoker";
        pipeline.idle = "backoff";
        pipeline.setUp();
        try
        {
            final int packets = size <= 256 ? 1_000_000 : 200_000;
            return measure(rounds, packets, () -> pipeline.run(packets));
        }
        finally
        {
            pipeline.tearDown();
        }
    }

    private static double[] lone(final int rounds)
    {
        final LatencyBenchmark benchmark = new LatencyBenchmark();
        final LatencyBenchmark.Pipeline pipeline = new LatencyBenchmark.Pipeline();
        pipeline.threads = "invoker";
        pipeline.idle = "yield";
        pipeline.setUp();
        try
        {
            final int messages = 200_000;
            return measure(rounds, messages, () ->
            {
                for (int i = 0; i < messages; i++)
                {
                    benchmark.oneWay(pipeline);
                }
            });
        }
        finally
        {
            pipeline.tearDown();
        }
    }

    private static double[] link(final int size, final int rounds) throws Exception
    {
        final File directory = Files.createTempDirectory("vlink-cpu").toFile();
        final CountersFile file = CountersFile.create(directory, "cpu", 256, 4096, SystemEpochClock.INSTANCE);
        final LinkCounters counters = new PortCounterSet(file, 0, 1).link();
        final LoopbackLink[] ends = LoopbackLink.pair(LoopbackLink.DEFAULT_CAPACITY, counters, counters);
        final long[] sum = new long[1];
        final FrameHandler handler = (type, buffer, offset, length) -> sum[0] += buffer.getByte(offset);
        try
        {
            final int frames = 20_000_000;
            final double[] ns = measure(rounds, frames, () ->
            {
                for (int i = 0; i < frames; i += BATCH)
                {
                    for (int k = 0; k < BATCH; k++)
                    {
                        final int at = ends[0].tryClaim(Link.DATA_FRAME, size);
                        ends[0].buffer().putByte(at, (byte)1);
                        ends[0].commit(at);
                    }
                    ends[1].poll(handler, BATCH);
                }
            });
            if (sum[0] != (long)frames * (rounds + WARM_UP_ROUNDS))
            {
                throw new IllegalStateException("frames lost: " + sum[0]);
            }
            return ns;
        }
        finally
        {
            ends[0].close();
            ends[1].close();
            file.close();
            IoUtil.delete(directory, true);
        }
    }
}
