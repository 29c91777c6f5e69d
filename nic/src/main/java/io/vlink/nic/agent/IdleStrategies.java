package io.vlink.nic.agent;

import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.util.function.Supplier;

/**
 * Idle strategies by name, so that how an idle agent waits is configuration, not code.
 * <p>
 * Names: {@code spin} (busy spin: lowest latency, burns a core per thread), {@code backoff} (spin, then yield,
 * then park from {@value #BACKOFF_MIN_PARK_NS} ns doubling up to {@value #BACKOFF_MAX_PARK_NS} ns: for small
 * machines and CI), {@code yield}, {@code sleep} (park {@value #SLEEP_NS} ns each idle cycle), {@code noop}.
 * Idle strategies keep state, so each thread gets a fresh instance from the {@link Supplier}.
 */
public final class IdleStrategies
{
    /** Spins before backing off to yields: short, so that a shared 2-core machine is not starved. */
    public static final long BACKOFF_MAX_SPINS = 20;
    /** Yields before parking. */
    public static final long BACKOFF_MAX_YIELDS = 50;
    /** First park period of the back-off strategy. */
    public static final long BACKOFF_MIN_PARK_NS = 1_000;
    /** Longest park of the back-off strategy: bounds the wake-up latency of an idle engine to ~100 us. */
    public static final long BACKOFF_MAX_PARK_NS = 100_000;
    /** Park period of the {@code sleep} strategy. */
    public static final long SLEEP_NS = 100_000;

    private IdleStrategies()
    {
    }

    /**
     * @param name {@code spin}, {@code backoff}, {@code yield}, {@code sleep} or {@code noop}, any case.
     * @return a supplier of fresh idle strategies of that kind.
     * @throws IllegalArgumentException naming the accepted values when the name is not one of them.
     */
    public static Supplier<IdleStrategy> supplier(final String name)
    {
        switch (name.trim().toLowerCase(java.util.Locale.ROOT))
        {
            case "spin":
                return BusySpinIdleStrategy::new;
            case "backoff":
                return IdleStrategies::backoff;
            case "yield":
                return YieldingIdleStrategy::new;
            case "sleep":
                return () -> new SleepingIdleStrategy(SLEEP_NS);
            case "noop":
                return NoOpIdleStrategy::new;
            default:
                throw new IllegalArgumentException(
                    "unknown idle strategy '" + name + "': use spin, backoff, yield, sleep or noop");
        }
    }

    /**
     * @return the back-off strategy with vlink's parameters (see the class comment).
     */
    public static IdleStrategy backoff()
    {
        return new BackoffIdleStrategy(BACKOFF_MAX_SPINS, BACKOFF_MAX_YIELDS, BACKOFF_MIN_PARK_NS, BACKOFF_MAX_PARK_NS);
    }
}
