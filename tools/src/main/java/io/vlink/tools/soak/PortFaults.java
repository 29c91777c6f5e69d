package io.vlink.tools.soak;

import io.vlink.nic.EngineBuilder;
import io.vlink.nic.Port;

import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The fault injector of one port's receiving side (docs/soak.md, "Faults"): without link-level retry one
 * {@link FaultyLink} on the port's link does everything; with retry the wire's faults (losses and bit flips) act below
 * the retry layer, which repairs each with a retransmission, and the link bounce's cut and the link-state accounting
 * act above it, where the port sees them.
 */
final class PortFaults implements WireCounts
{
    private FaultyLink wire;
    private FaultyLink port;

    /**
     * Install an injector on each port an engine builds.
     *
     * @param builder the engine's builder.
     * @param options what runs: its faults, seed, tamper, and whether the link runs retry.
     * @param stream  the fault stream of each port built, in order (the ends of a link differ).
     * @param made    told of each port's injector as the engine builds it.
     * @return the builder.
     */
    static EngineBuilder install(
        final EngineBuilder builder, final SoakSettings options, final IntSupplier stream,
        final Consumer<PortFaults> made)
    {
        final boolean retry = options.retryOn();
        builder.retry(retry);
        if (!retry)
        {
            return builder.linkWrapper(link ->
            {
                final PortFaults faults = new PortFaults();
                faults.wire = new FaultyLink(options.tamper.apply(link), options.faults, options.seed,
                    stream.getAsInt(), FaultyLink.Placement.WHOLE);
                faults.port = faults.wire;
                made.accept(faults);
                return faults.port;
            });
        }
        // the engine wraps each port's wire, then its link with retry over it: one injector per port, in two places
        final PortFaults[] building = new PortFaults[1];
        return builder
            .wireWrapper(link ->
            {
                building[0] = new PortFaults();
                building[0].wire = new FaultyLink(link, options.faults, options.seed, stream.getAsInt(),
                    FaultyLink.Placement.WIRE);
                return building[0].wire;
            })
            .linkWrapper(link ->
            {
                final PortFaults faults = building[0];
                faults.port = new FaultyLink(options.tamper.apply(link), options.faults, options.seed, 0,
                    FaultyLink.Placement.PORT);
                made.accept(faults);
                return faults.port;
            });
    }

    /**
     * @param receiver the port the injector delivers to, whose link state decides whether a data packet is taken.
     */
    void attach(final Port receiver)
    {
        port.attach(receiver);
    }

    /**
     * @param armed whether the wire faults are injected.
     */
    void arm(final boolean armed)
    {
        wire.arm(armed);
    }

    /**
     * @return whether the wire's fault counts are final: disarmed, and no poll that read it armed is still running
     * ({@link FaultyLink#quiet()}).
     */
    boolean quiet()
    {
        return wire.quiet();
    }

    /**
     * @param cut whether the wire loses every data packet (a link bounce).
     */
    void cut(final boolean cut)
    {
        port.cut(cut);
    }

    @Override
    public long droppedData(final int vl)
    {
        return wire.droppedData(vl);
    }

    @Override
    public long corruptedData(final int vl)
    {
        return wire.corruptedData(vl);
    }

    @Override
    public long bounceLost(final int vl)
    {
        return port.bounceLost(vl);
    }

    @Override
    public long stateLost(final int vl)
    {
        return port.stateLost(vl);
    }

    @Override
    public long droppedFcps()
    {
        return wire.droppedFcps();
    }

    @Override
    public long corruptedFcps()
    {
        return wire.corruptedFcps();
    }
}
