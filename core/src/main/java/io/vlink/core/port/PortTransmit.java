package io.vlink.core.port;

import io.vlink.core.arb.ArbiterSource;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.Sizes;
import org.agrona.concurrent.AtomicBuffer;

import java.util.Arrays;

/**
 * A port's transmit half: at every packet boundary {@code core}'s {@link VlArbiter} picks VL15, an FCP or a data VL
 * (docs/arbitration.md), asking this class as its {@link ArbiterSource}; the packet is written onto the link
 * ({@link FrameSink}) by its {@link PacketSource}, and counted.
 * <ul>
 *     <li>The credit check: {@link CreditTransmitter} (FCTBS, and the CL the credit half last published in
 *     {@link CreditLimits}, read with acquire at each check), in the link state given; the first time a VL's head
 *     waits for credit is a stall, counted once per episode.</li>
 *     <li>FCPs: each request the credit half made ({@link FcpRequestRing}) is completed with the FCTBS of now, as it
 *     goes on the wire, so that it counts exactly the blocks sent before it.</li>
 *     <li>A new credit epoch ({@link CreditLimits#epoch()}, read first in each duty cycle): the link initialized
 *     again; FCTBS and CL restart from zero and so do the stall episodes.</li>
 *     <li>The burst: at most {@link PortConfig#burst()} packets and {@link PortConfig#burstBytes()} bytes a duty
 *     cycle, shared with a second turn ({@link #transmitRest}); it ends early when the link has no room for the
 *     largest frame (counted: {@code tx_link_full}), when nothing can go, or when the link refuses a claim (counted
 *     by the link).</li>
 * </ul>
 * Single-threaded and allocation-free; every counter it writes ({@link TransmitCounters}) has no other writer.
 */
public final class PortTransmit implements ArbiterSource
{
    private final int dataVls;
    private final int burst;
    private final int burstBytes;
    private final FrameSink link;
    private final PacketSource source;
    private final FcpRequestRing fcpRequests;
    private final CreditLimits limits;
    private final TransmitCounters counters;
    private final FrameTap tap;
    private final CreditTransmitter transmitter;
    private final VlArbiter arbiter;
    private final boolean[] stalled = new boolean[VlArbiter.VL_COUNT];
    private int epoch;
    private int fctbsMoved;
    private LinkState state = LinkState.DOWN;
    private boolean held;
    // what is left of this duty cycle's burst, for a second turn (transmitRest)
    private int grantsLeft;
    private int bytesLeft;

    /**
     * @param config      the port's configuration (QoS, burst).
     * @param link        the link's transmitting side.
     * @param source      the packets to send.
     * @param fcpRequests the hand-off from the credit half (this half is its consumer).
     * @param limits      the credit limits and epoch the credit half publishes (this half reads them).
     * @param counters    what this half counts.
     * @param tap         sees every frame as it enters the wire, or null.
     */
    public PortTransmit(
        final PortConfig config,
        final FrameSink link,
        final PacketSource source,
        final FcpRequestRing fcpRequests,
        final CreditLimits limits,
        final TransmitCounters counters,
        final FrameTap tap)
    {
        this.dataVls = config.dataVls();
        this.burst = config.burst();
        this.burstBytes = config.burstBytes();
        this.link = link;
        this.source = source;
        this.fcpRequests = fcpRequests;
        this.limits = limits;
        this.counters = counters;
        this.tap = tap;
        this.transmitter = new CreditTransmitter(dataVls);
        this.arbiter = new VlArbiter(config.qos(), this);
        this.epoch = limits.epoch();
    }

    /**
     * @param state the link state to send by, until the next call.
     */
    public void linkState(final LinkState state)
    {
        this.state = state;
    }

    /**
     * Hold or release what the packet source queues (VL15 and data; FCPs still go): the engine holds it while a
     * link error's transmit flush drains what was meant for the peer that is gone.
     *
     * @param held whether nothing but FCPs may go.
     */
    public void hold(final boolean held)
    {
        this.held = held;
    }

    /**
     * Replace the VL arbitration tables at this packet boundary (docs/arbitration.md).
     *
     * @param replacement the new tables; same data VLs.
     */
    public void replaceQos(final QosConfig replacement)
    {
        arbiter.replace(replacement);
    }

    /**
     * One duty cycle: a burst of grants.
     *
     * @return work done.
     */
    public int transmit()
    {
        grantsLeft = burst;
        bytesLeft = burstBytes;
        return transmitRest();
    }

    /**
     * A second turn in the same duty cycle, after the credit half's (nic's {@code DutyCycle}): what the credit half
     * has just handed over (FCPs asked for, credit from the FCPs it applied, a new state) goes out now, with what the
     * first turn left of the burst, so that a duty cycle sends no more than one burst.
     *
     * @return work done.
     */
    public int transmitRest()
    {
        final int currentEpoch = limits.epoch();
        if (currentEpoch != epoch)
        {
            newEpoch(currentEpoch);
        }
        int work = link.flush();
        int grants = grantsLeft;
        int bytes = bytesLeft;
        while (grants > 0 && bytes > 0)
        {
            if (!link.hasRoomFor(FrameSink.MAX_DATA_FRAME_LENGTH))
            {
                counters.linkFull.incrementRelease();
                break;
            }
            if (source.isEmpty() && !fcpRequests.hasRequest())
            {
                // nothing queued and no FCP asked for: what a decision would find, without asking each VL
                arbiter.idle();
                break;
            }
            // something is queued or an FCP waits (above): the decision need not first ask whether any VL has a packet
            final int grant = arbiter.nextQueued();
            if (VlArbiter.GRANT_NONE == grant)
            {
                break;
            }
            final int sent = VlArbiter.GRANT_FCP == grant ? sendFcp() : sendPacket(VlArbiter.vl(grant));
            if (sent < 0)
            {
                break;
            }
            grants--;
            bytes -= sent;
            work++;
        }
        grantsLeft = grants;
        bytesLeft = bytes;
        publish();
        return work;
    }

    /** The link (re)initialized: every counter from zero (docs/flow-control.md, "Who resets what"). */
    private void newEpoch(final int currentEpoch)
    {
        epoch = currentEpoch;
        transmitter.reset();
        Arrays.fill(stalled, false);
        fctbsMoved = (1 << dataVls) - 1;
    }

    private void publish()
    {
        counters.tally.publish();
        int moved = fctbsMoved;
        fctbsMoved = 0;
        while (0 != moved)
        {
            final int vl = Integer.numberOfTrailingZeros(moved);
            moved &= moved - 1;
            counters.txFctbs[vl].setRelease(transmitter.blocksSent(vl));
        }
    }

    /** @return the packet's bytes, or -1 if the link refused it (it stays at the head of its VL). */
    private int sendPacket(final int vl)
    {
        // a data grant's size is the head the arbiter charged; VL15 is granted without asking a size
        final int size = VlArbiter.VL_COUNT - 1 == vl ? source.headSize(vl) : arbiter.lastSize();
        final int offset = link.tryClaim(FrameSink.DATA_FRAME, size + Sizes.VCRC_LENGTH);
        if (offset < 0)
        {
            // hasRoomFor said yes, so the link refused for another reason (a session not yet trained); it counted
            return -1;
        }
        final AtomicBuffer buffer = link.buffer();
        final int length = source.write(vl, buffer, offset, size);
        if (null != tap)
        {
            tap.onFrame(FrameSink.DATA_FRAME, buffer, offset, length);
        }
        link.commit(offset);
        if (vl < dataVls)
        {
            transmitter.onTransmit(vl, Sizes.blocks(size));
            fctbsMoved |= 1 << vl;
            stalled[vl] = false;
        }
        counters.tally.add(vl, size);
        return size;
    }

    /** @return the bytes sent (FCPs count none toward the burst's bytes), or -1 if the link refused or no request was
     * committed after all. */
    private int sendFcp()
    {
        final int offset = link.tryClaim(FrameSink.LINK_FRAME, Fcp.LENGTH);
        if (offset < 0)
        {
            // the request stays in its ring and goes at the next grant
            return -1;
        }
        final int request = fcpRequests.take();
        if (FcpRequestRing.NONE == request)
        {
            // seen claimed, not yet committed by the credit half: nothing goes now, the next grant takes it
            link.abort(offset);
            return -1;
        }
        // the FCTBS of now: it counts exactly the blocks sent before this FCP
        final int word = transmitter.fcp(request);
        final AtomicBuffer buffer = link.buffer();
        Fcp.encode(buffer, offset, word);
        if (null != tap)
        {
            tap.onFrame(FrameSink.LINK_FRAME, buffer, offset, Fcp.LENGTH);
        }
        link.commit(offset);
        counters.fcpSent.incrementRelease();
        return 0;
    }

    @Override
    public boolean hasVl15()
    {
        // VL15 needs no credit, only a link that is up (docs/flow-control.md)
        return !held && state.isUp() && source.hasVl15();
    }

    @Override
    public boolean hasFcp()
    {
        return fcpRequests.hasRequest();
    }

    @Override
    public int headSize(final int vl)
    {
        return source.headSize(vl);
    }

    @Override
    public boolean canSend(final int vl, final int size)
    {
        if (held || !state.maySendData())
        {
            return false;
        }
        transmitter.onCreditLimit(vl, limits.limit(vl));
        if (transmitter.mayTransmit(vl, Sizes.blocks(size)))
        {
            return true;
        }
        if (!stalled[vl])
        {
            stalled[vl] = true;
            counters.creditStalls[vl].incrementRelease();
        }
        return false;
    }

    /**
     * @param vl a data VL.
     * @return whether its head packet waits for credit (this thread).
     */
    public boolean stalled(final int vl)
    {
        return stalled[vl];
    }

    /**
     * @return the transmitter's FCTBS and CL (read them; this half makes every change).
     */
    public CreditTransmitter transmitter()
    {
        return transmitter;
    }

    /**
     * @return the link state the transmit half sends by.
     */
    public LinkState linkState()
    {
        return state;
    }
}
