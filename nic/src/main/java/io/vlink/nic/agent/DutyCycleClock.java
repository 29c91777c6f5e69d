package io.vlink.nic.agent;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;

import java.util.Objects;

/**
 * An int for the gap after the object header, then two cache lines: the clocks of an engine's threads are made one
 * after the other, and each is written every duty cycle by its own thread.
 */
abstract class DutyCycleClockPad1
{
    int gap;
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The time read at the start of this duty cycle: written and read by the clock's thread only.
 */
abstract class DutyCycleClockValue extends DutyCycleClockPad1
{
    long nowNs;
}

/**
 * Two cache lines after the value.
 */
abstract class DutyCycleClockPad2 extends DutyCycleClockValue
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * One clock read per duty cycle for the agents one thread runs together: composed first, it reads its source and
 * every agent after it in the same duty cycle reads that value. A clock read is not free on a virtual machine (less
 * so where the clock source is not the TSC), and an idle duty cycle must cost a waiting thread as little as it can:
 * three reads a cycle were a tenth of it (docs/performance.md, "The engine's pipeline").
 * <p>
 * Not thread-safe by design: the value is a plain field, so this clock serves only agents on the thread that runs it
 * (an engine gives each thread of {@link ThreadingMode#SHARED}, {@link ThreadingMode#SPLIT} and
 * {@link ThreadingMode#INVOKER} its own, and {@link ThreadingMode#DEDICATED} agents the source itself).
 */
public final class DutyCycleClock extends DutyCycleClockPad2 implements Agent, NanoClock
{
    private final NanoClock source;

    /**
     * @param source the clock read once per duty cycle (the engine's, which a test may inject).
     */
    public DutyCycleClock(final NanoClock source)
    {
        this.source = Objects.requireNonNull(source, "source");
        this.nowNs = source.nanoTime();
    }

    @Override
    public void onStart()
    {
        nowNs = source.nanoTime();
    }

    @Override
    public int doWork()
    {
        nowNs = source.nanoTime();
        return 0;
    }

    /**
     * @return the source's time as read at the start of this duty cycle.
     */
    @Override
    public long nanoTime()
    {
        return nowNs;
    }

    @Override
    public String roleName()
    {
        return "clock";
    }
}
