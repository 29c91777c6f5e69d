package io.vlink.core.port;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditReceiver;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.LinkState;
import io.vlink.core.credit.LinkStateMachine;
import io.vlink.core.wire.Fcp;
import org.agrona.concurrent.CachedNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

/**
 * The shipped datapath of one port on one thread ({@link DirectPort}) with the parts a test provides around it: its
 * counters, a modelled receive buffer, a packet source and the wire it sends on. Test support: it adds no rule; every
 * decision is the {@link DirectPort}'s.
 */
public final class TestPort implements PortCredit.Listener
{
    public final PortConfig config;
    public final TestCounters counters = new TestCounters();
    public final ModelBuffers buffers;
    public final TestSource source = new TestSource();
    public final TestWire out = new TestWire();
    public final DirectPort port;
    /** The port's clock: the test sets it before each call. */
    public final CachedNanoClock clock = new CachedNanoClock();
    /** Every state entered, in order, from Down. */
    public final List<LinkState> states = new ArrayList<>(List.of(LinkState.DOWN));
    /** The port's {@code link_transitions} as each state's entry is published to its owner, in order. */
    public final List<Long> transitionsPublished = new ArrayList<>();

    /**
     * @param config      the port's configuration.
     * @param vl15Packets SMPs its VL15 buffer holds.
     * @param events      how the receive half's reports reach the credit half.
     */
    public TestPort(final PortConfig config, final int vl15Packets, final DirectPort.Events events)
    {
        this.config = config;
        buffers = new ModelBuffers(config.dataVls(), config.bufferBlocks(), config.chunkBytes(), vl15Packets);
        port = new DirectPort(config, out, buffers, source, counters.receive(), counters.credit(),
            counters.transmit(), this, clock, events);
    }

    /**
     * @param config the port's configuration; a VL15 buffer of one SMP; reports queued, as in the engine.
     */
    public TestPort(final PortConfig config)
    {
        this(config, 1, DirectPort.Events.QUEUED);
    }

    @Override
    public void onStateEntered(final LinkState state)
    {
        states.add(state);
        transitionsPublished.add(counters.linkTransitions());
    }

    public LinkState state()
    {
        return port.state();
    }

    public int dataVls()
    {
        return config.dataVls();
    }

    public boolean up(final long nowNs)
    {
        clock.update(nowNs);
        return port.up();
    }

    public boolean down(final long nowNs)
    {
        clock.update(nowNs);
        return port.down();
    }

    public boolean arm(final long nowNs)
    {
        clock.update(nowNs);
        return port.arm();
    }

    public boolean activate(final long nowNs)
    {
        clock.update(nowNs);
        return port.activate();
    }

    /**
     * The credit half's duty cycle.
     *
     * @param nowNs the clock.
     * @return work done.
     */
    public int credit(final long nowNs)
    {
        clock.update(nowNs);
        return port.credit();
    }

    /**
     * The transmit half's duty cycle: onto {@link #out}.
     *
     * @return work done.
     */
    public int transmit()
    {
        return port.transmit();
    }

    /**
     * Receive what the peer sent, as one poll, then apply it (the credit half's duty cycle).
     *
     * @param wire  the peer's wire.
     * @param nowNs the clock.
     * @return frames received.
     */
    public int receiveFrom(final TestWire wire, final long nowNs)
    {
        clock.update(nowNs);
        final int frames = wire.deliverAll(port.receiveHalf());
        credit(nowNs);
        return frames;
    }

    /**
     * One frame off the wire, as a poll of its own, then the credit half's duty cycle.
     *
     * @param type   the frame type.
     * @param bytes  the frame.
     * @param offset where it starts.
     * @param length its length.
     * @param nowNs  the clock.
     * @return the receive half's verdict: false when the frame arrived damaged.
     */
    public boolean receive(final int type, final byte[] bytes, final int offset, final int length, final long nowNs)
    {
        clock.update(nowNs);
        final PortReceive receive = port.receiveHalf();
        final boolean sound = receive.onFrame(type, new UnsafeBuffer(bytes), offset, length);
        receive.endPoll();
        credit(nowNs);
        return sound;
    }

    /**
     * An FCP from the peer, its bytes encoded with its LPCRC, received as a poll of its own.
     *
     * @param word  the FCP's first four bytes.
     * @param nowNs the clock.
     */
    public void receiveFcp(final int word, final long nowNs)
    {
        final byte[] bytes = new byte[Fcp.LENGTH];
        Fcp.encode(new UnsafeBuffer(bytes), 0, word);
        receive(FrameSink.LINK_FRAME, bytes, 0, bytes.length, nowNs);
    }

    /**
     * A data packet from the peer, received as a poll of its own.
     *
     * @param vl     its VL.
     * @param blocks its blocks.
     * @param nowNs  the clock.
     */
    public void receiveData(final int vl, final int blocks, final long nowNs)
    {
        final byte[] frame = source.frame(vl, blocks);
        receive(FrameSink.DATA_FRAME, frame, 0, frame.length, nowNs);
    }

    /**
     * Send one data packet now, if the link state and the credits allow: queued, a burst, and taken back when it did
     * not go.
     *
     * @param vl     its VL.
     * @param blocks its blocks.
     * @return whether it went on the wire.
     */
    public boolean trySend(final int vl, final int blocks)
    {
        final long before = source.sent[vl];
        source.offer(vl, blocks);
        transmit();
        source.withdraw(vl);
        return source.sent[vl] != before;
    }

    // ---------------------------------------------------------------- the rules' state, read

    public CreditControl control()
    {
        return port.creditHalf().control();
    }

    public LinkStateMachine link()
    {
        return control().link();
    }

    public CreditReceiver receiver()
    {
        return control().receiver();
    }

    /**
     * @return the transmitter's FCTBS and the CL it last checked against.
     */
    public CreditTransmitter transmitter()
    {
        return port.transmitHalf().transmitter();
    }

    /**
     * @param vl a data VL.
     * @return the credit limit the credit half applied last (what the transmit half checks against next).
     */
    public int creditLimit(final int vl)
    {
        return control().creditLimit(vl);
    }
}
