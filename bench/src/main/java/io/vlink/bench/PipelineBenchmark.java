package io.vlink.bench;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.MemoryRegion;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.PacketHandler;
import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.MessageHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The engine end to end on the loopback peer: packets per second at 64 and 4096 bytes (packet size S,
 * LRH through ICRC), in dedicated, shared and split thread modes, with two baselines measured in the same run:
 * <ul>
 *     <li>{@link #ringBuffer64}: an Agrona {@link OneToOneRingBuffer} moving 64-byte messages between two threads
 *     (goal: the 64-byte pipeline at least a quarter of it);</li>
 *     <li>{@link #copy4096}: a single-core copy of 4096-byte buffers (goal: the 4096-byte pipeline at least half
 *     of its bandwidth).</li>
 * </ul>
 * Each pipeline operation is one packet posted on a queue pair of port 0, injected, arbitrated, framed onto the
 * link, checked, stored in port 1's receive buffer and delivered to the handler. The benchmark thread is the
 * application (it posts and polls); the engine's agents run on their own threads with the back-off idle
 * strategy, so the figures hold on a small machine, or (mode {@code invoker}) on the benchmark thread itself:
 * the cost of the whole pipeline on one core. Run: {@code bench/run PipelineBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dagrona.disable.bounds.checks=true")
public class PipelineBenchmark
{
    static final int BATCH = 1024;

    @State(Scope.Benchmark)
    public static class Pipeline
    {
        @Param({"64", "4096"})
        int size;

        @Param({"dedicated", "shared", "split", "invoker"})
        String threads;

        @Param({"backoff"})
        String idle;

        Engine engine;
        Port receiver;
        QueuePair[] qps;
        MemoryRegion region;
        UnsafeBuffer payload;
        UnsafeBuffer inline;
        int payloadLength;
        long received;
        long posted;
        // messages a link error flushed (a thread starved past the link timeout on a busy machine), and packets that
        // were on the wire when the receiver went down (discarded for its link state): never delivered
        long flushed;
        int idleLoops;
        final PacketHandler handler = packet -> received++;
        IdleStrategy idleStrategy;
        boolean invoker;

        @Setup(Level.Trial)
        public void setUp()
        {
            engine = Engine.builder()
                .name("bench-" + ProcessHandle.current().pid())
                .threading(ThreadingMode.parse(threads))
                .idle(idle)
                .qos(QosConfig.opensmDefaults(8))
                .build();
            final Port sender = engine.port(0);
            receiver = engine.port(1);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            invoker = ThreadingMode.INVOKER == engine.threading();
            while (receiver.linkState() != LinkState.ACTIVE || sender.linkState() != LinkState.ACTIVE)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("link did not come up");
                }
                if (invoker)
                {
                    engine.invoke();
                }
                Thread.onSpinWait();
            }
            // four queue pairs on SLs 1..4: VLs 1..4 share the low table equally (OpenSM's defaults)
            qps = new QueuePair[4];
            for (int i = 0; i < qps.length; i++)
            {
                qps[i] = sender.createQueuePair(1 + i, 1 + i, 1 + i);
            }
            payloadLength = size - 8 - 12 - 4;
            payload = OffHeap.allocate(payloadLength);
            region = engine.registerMemory(payload);
            inline = new UnsafeBuffer(new byte[Math.max(1, payloadLength)]);
            idleStrategy = IdleStrategies.backoff();
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            engine.close();
            OffHeap.free(payload);
        }

        void run(final int packets)
        {
            // every message posted is received or flushed: both counts are cumulative, so the target is too
            final long target = received + flushed + packets;
            final boolean immediate = payloadLength <= qps[0].inlineCapacity();
            int next = 0;
            while (received + flushed < target)
            {
                int work = 0;
                while (posted < target)
                {
                    final QueuePair qp = qps[next];
                    final long result = immediate ?
                        qp.offer(inline, 0, payloadLength) : qp.offer(region, 0, payloadLength);
                    if (QueuePair.BACK_PRESSURED == result)
                    {
                        break;
                    }
                    next = next + 1 == qps.length ? 0 : next + 1;
                    posted++;
                    work++;
                }
                if (invoker)
                {
                    engine.invoke();
                    work += receiver.poll(handler, 256);
                }
                else
                {
                    work += receiver.poll(handler, 256);
                    idleStrategy.idle(work);
                }
                if (0 == work && ++idleLoops == 65_536)
                {
                    idleLoops = 0;
                    flushed = receiver.counters().discards(DiscardReason.DATA_STATE.id()).get();
                    for (final QueuePair qp : qps)
                    {
                        flushed += qp.flushed();
                    }
                }
            }
        }
    }

    @State(Scope.Benchmark)
    public static class Ring
    {
        OneToOneRingBuffer ring;
        UnsafeBuffer message;
        final AtomicLong consumed = new AtomicLong();
        final AtomicBoolean running = new AtomicBoolean(true);
        Thread consumer;
        long sent;
        final IdleStrategy idle = IdleStrategies.backoff();

        @Setup(Level.Trial)
        public void setUp()
        {
            ring = new OneToOneRingBuffer(new UnsafeBuffer(
                java.nio.ByteBuffer.allocateDirect(1024 * 1024 + RingBufferDescriptor.TRAILER_LENGTH)));
            message = new UnsafeBuffer(new byte[64]);
            final MessageHandler handler = (type, buffer, index, length) -> { };
            consumer = new Thread(() ->
            {
                final IdleStrategy idle = IdleStrategies.backoff();
                while (running.get())
                {
                    final int read = ring.read(handler, 256);
                    if (read > 0)
                    {
                        consumed.lazySet(consumed.get() + read);
                    }
                    idle.idle(read);
                }
            }, "ring-consumer");
            consumer.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running.set(false);
            consumer.join();
        }
    }

    @State(Scope.Thread)
    public static class Copy
    {
        UnsafeBuffer source;
        UnsafeBuffer destination;

        @Setup(Level.Trial)
        public void setUp()
        {
            source = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(4096));
            destination = new UnsafeBuffer(java.nio.ByteBuffer.allocateDirect(4096));
            source.setMemory(0, 4096, (byte)1);
        }
    }

    /**
     * @param pipeline the engine.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void pipeline(final Pipeline pipeline)
    {
        pipeline.run(BATCH);
    }

    /**
     * Baseline: 64-byte messages between two threads through an Agrona ring.
     *
     * @param ring the ring and its consumer thread.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void ringBuffer64(final Ring ring)
    {
        final long target = ring.sent + BATCH;
        final IdleStrategy idle = ring.idle;
        while (ring.sent < target)
        {
            if (ring.ring.write(1, ring.message, 0, 64))
            {
                ring.sent++;
                idle.reset();
            }
            else
            {
                idle.idle();
            }
        }
        while (ring.consumed.get() < target)
        {
            idle.idle();
        }
    }

    /**
     * Baseline: a single-core copy of a 4096-byte buffer (bytes/s = ops/s x 4096).
     *
     * @param copy the buffers.
     * @return the destination, so the copy is not dead code.
     */
    @Benchmark
    public UnsafeBuffer copy4096(final Copy copy)
    {
        copy.destination.putBytes(0, copy.source, 0, 4096);
        return copy.destination;
    }
}
