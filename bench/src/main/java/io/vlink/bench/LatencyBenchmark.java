package io.vlink.bench;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.Port;
import io.vlink.nic.QueuePair;
import io.vlink.nic.PacketHandler;
import io.vlink.nic.agent.ThreadingMode;
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
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * End-to-end latency in the engine: one 64-byte message, one in flight, from {@code qp.offer} on port 0
 * of a loopback engine to the handler on port 1 ({@link #oneWay}), and back to port 0's handler ({@link #roundTrip});
 * with, as the baseline in the same run, the round trip of a bare Agrona {@link OneToOneRingBuffer} pair between
 * the same threads ({@link #ringRoundTrip}): the benchmark thread alone in {@code invoker} mode (as the engine's agents
 * run there), the benchmark thread and an echo thread in {@code shared} mode (the application's thread and the
 * engine's one thread) and in {@code split} mode (the engine's agents on two threads of their own). The baseline is a
 * state of its own: no engine thread runs while it is measured, and no echo thread while the engine is. Sample time in
 * ns: JMH prints p50, p90, p99, p99.9 of each. {@code idle} says how every waiting thread waits, the engine's and the
 * baseline's alike: {@code yield} (the default: on two cores, spinning threads starve each other once there are more
 * threads than cores, as in split mode) or {@code spin} (two threads on two cores, shared mode's case). Run:
 * {@code bench/run LatencyBenchmark -prof gc}, or e.g. {@code -p threads=shared -p idle=spin}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "-Dagrona.disable.bounds.checks=true")
public class LatencyBenchmark
{
    static final int SIZE = 64;

    @State(Scope.Benchmark)
    public static class Pipeline
    {
        @Param({"invoker", "shared", "split"})
        String threads;

        /** How every waiting thread waits, the engine's and the baseline's alike: {@code yield} or {@code spin}. */
        @Param({"yield"})
        String idle;
        boolean spin;

        Engine engine;
        Port portA;
        Port portB;
        QueuePair qpA;
        QueuePair qpB;
        boolean invoker;
        final UnsafeBuffer message = new UnsafeBuffer(new byte[SIZE]);
        long atB;
        long atA;
        // lost() as last seen; looked at once every LOST_CHECK idle duty cycles of a wait (one message is in flight at a
        // time, so a change is the loss of the one awaited), never on the measured path of a message that arrives
        long lostSeen;
        static final int LOST_CHECK = 4096;
        boolean echo;
        final PacketHandler toB = packet -> atB++;
        final PacketHandler toA = packet -> atA++;

        @Setup(Level.Trial)
        public void setUp()
        {
            engine = Engine.builder()
                .name("latency-" + ProcessHandle.current().pid())
                .threading(ThreadingMode.parse(threads))
                .idle(idle)
                .qos(QosConfig.opensmDefaults(8))
                .build();
            invoker = ThreadingMode.INVOKER == engine.threading();
            spin = "spin".equals(idle);
            portA = engine.port(0);
            portB = engine.port(1);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (portA.linkState() != LinkState.ACTIVE || portB.linkState() != LinkState.ACTIVE)
            {
                if (System.nanoTime() > deadline)
                {
                    throw new IllegalStateException("link did not come up");
                }
                duty();
            }
            qpA = portA.createQueuePair(1, 1, 2);
            qpB = portB.createQueuePair(2, 1, 1);
        }

        @TearDown(Level.Trial)
        public void tearDown()
        {
            engine.close();
        }

        void duty()
        {
            if (invoker)
            {
                engine.invoke();
            }
            else
            {
                pause();
            }
        }

        void pause()
        {
            LatencyBenchmark.pause(spin);
        }

        void send(final QueuePair qp)
        {
            while (QueuePair.BACK_PRESSURED == qp.offer(message, 0, SIZE))
            {
                duty();
            }
        }

        void awaitAtB()
        {
            final long target = atB + 1;
            int idle = 0;
            while (atB < target)
            {
                if (0 == portB.poll(toB, 16))
                {
                    duty();
                    if (++idle == LOST_CHECK && lostSinceSeen())
                    {
                        return;
                    }
                    idle &= LOST_CHECK - 1;
                }
            }
        }

        void awaitAtA()
        {
            final long target = atA + 1;
            int idle = 0;
            while (atA < target)
            {
                if (0 == portA.poll(toA, 16))
                {
                    duty();
                    if (++idle == LOST_CHECK && lostSinceSeen())
                    {
                        return;
                    }
                    idle &= LOST_CHECK - 1;
                }
            }
        }

        /**
         * Messages a link error lost (a thread starved past the link timeout on a busy machine): flushed by the sender
         * or, on the wire when the receiver went down, discarded for its link state. A wait for one of them ends.
         */
        boolean lostSinceSeen()
        {
            final long lost = lost();
            final boolean changed = lost != lostSeen;
            lostSeen = lost;
            return changed;
        }

        long lost()
        {
            return qpA.flushed() + qpB.flushed() + portA.counters().discards(DiscardReason.DATA_STATE.id()).get() +
                portB.counters().discards(DiscardReason.DATA_STATE.id()).get();
        }
    }

    /**
     * The baseline, a state of its own so that no engine thread runs beside it (nor its echo thread beside the
     * engine's benchmarks): two rings, and an echo thread unless {@code invoker}.
     */
    @State(Scope.Benchmark)
    public static class Rings
    {
        @Param({"invoker", "shared", "split"})
        String threads;

        @Param({"yield"})
        String idle;
        boolean spin;
        boolean invoker;
        final UnsafeBuffer message = new UnsafeBuffer(new byte[SIZE]);

        OneToOneRingBuffer out;
        OneToOneRingBuffer back;
        Thread echoThread;
        volatile boolean running;
        long ringReplies;
        final MessageHandler echoHandler = (type, buffer, index, length) ->
        {
            while (!back.write(1, buffer, index, length))
            {
                Thread.onSpinWait();
            }
        };
        final MessageHandler replyHandler = (type, buffer, index, length) -> ringReplies++;

        @Setup(Level.Trial)
        public void setUp()
        {
            invoker = ThreadingMode.INVOKER == ThreadingMode.parse(threads);
            spin = "spin".equals(idle);
            final int length = 64 * 1024 + RingBufferDescriptor.TRAILER_LENGTH;
            out = new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(length)));
            back = new OneToOneRingBuffer(new UnsafeBuffer(ByteBuffer.allocateDirect(length)));
            if (!invoker)
            {
                running = true;
                echoThread = new Thread(() ->
                {
                    while (running)
                    {
                        if (0 == out.read(echoHandler))
                        {
                            pause(spin);
                        }
                    }
                }, "ring-echo");
                echoThread.setDaemon(true);
                echoThread.start();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException
        {
            running = false;
            if (null != echoThread)
            {
                echoThread.join();
            }
        }
    }

    static void pause(final boolean spin)
    {
        if (spin)
        {
            Thread.onSpinWait();
        }
        else
        {
            Thread.yield();
        }
    }

    /**
     * @param p the engine.
     * @return messages delivered (so the work is not dead code).
     */
    @Benchmark
    public long oneWay(final Pipeline p)
    {
        p.send(p.qpA);
        p.awaitAtB();
        return p.atB;
    }

    /**
     * @param p the engine.
     * @return messages delivered.
     */
    @Benchmark
    public long roundTrip(final Pipeline p)
    {
        p.send(p.qpA);
        p.awaitAtB();
        p.send(p.qpB);
        p.awaitAtA();
        return p.atA;
    }

    /**
     * @param p the rings (and the echo thread unless in invoker mode).
     * @return replies received.
     */
    @Benchmark
    public long ringRoundTrip(final Rings p)
    {
        final long target = p.ringReplies + 1;
        while (!p.out.write(1, p.message, 0, SIZE))
        {
            Thread.onSpinWait();
        }
        if (p.invoker)
        {
            // A read that meets the padding record at the ring's end consumes only the padding and returns 0: the
            // message is at index 0, so read again until it is echoed (one read would leave it there for ever).
            while (0 == p.out.read(p.echoHandler))
            {
                Thread.onSpinWait();
            }
        }
        while (p.ringReplies < target)
        {
            if (0 == p.back.read(p.replyHandler) && !p.invoker)
            {
                pause(p.spin);
            }
        }
        return p.ringReplies;
    }
}
