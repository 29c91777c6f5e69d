package io.vlink.bench;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.Engine;
import io.vlink.nic.agent.ThreadingMode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One duty cycle of an idle engine: {@code engine.invoke()} on a loopback engine of two ports, links Active, nothing
 * to send or receive (an FCP now and then, as the FCP period asks). Every agent of both ports runs once: what a
 * thread waiting for a message pays per turn, and so the floor under every latency in invoker mode (a message
 * offered needs a turn to be sent and one to be received). The baseline is one read of the clock, which every
 * turn makes.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class DutyCycleBenchmark
{
    private Engine engine;

    @Setup(Level.Trial)
    public void setUp()
    {
        engine = Engine.builder()
            .name("duty-" + ProcessHandle.current().pid())
            .threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8))
            .build();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (engine.port(0).linkState() != LinkState.ACTIVE || engine.port(1).linkState() != LinkState.ACTIVE)
        {
            if (System.nanoTime() > deadline)
            {
                throw new IllegalStateException("link did not come up");
            }
            engine.invoke();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        engine.close();
    }

    /**
     * @return the work the turn did (an FCP now and then).
     */
    @Benchmark
    public int idleTurn()
    {
        return engine.invoke();
    }

    /**
     * @return the clock.
     */
    @Benchmark
    public long baseline()
    {
        return System.nanoTime();
    }
}
