package io.vlink.tools.soak;

import io.vlink.nic.EngineBuilder;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.Port;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A {@link Link} that damages the wire on its receive side, for {@code vlink soak --faults} (docs/cli.md):
 * installed on each port with {@code EngineBuilder.linkWrapper}, it loses or flips a bit of data packets and
 * flow-control packets with the configured probabilities, each fault kind from its own seeded
 * {@link SplittableRandom} (in the style of Aeron's {@code RandomLossGenerator}), so a run is reproducible with
 * {@code --seed}.
 * <p>
 * The link tells data packets from FCPs by frame type ({@link Link#LINK_FRAME} is an 8-byte FCP, as on the wire,
 * where the delimiters tell them apart). Only data VLs are damaged; VL15 is left alone so that its own accounting
 * (buffer-full drops) stays exact. Every fault is counted per VL (read by another thread: release stores).
 * <p>
 * For a link bounce the soak cuts the wire ({@link #cut(boolean)}) from the moment it asks both ports to go down
 * until both are Active again: the data packets on the wire then are lost, as when a physical link goes down, and
 * counted per VL. FCPs (and SMPs) pass, so the link can come back through Initialize. It also counts the data
 * packets it hands to a port whose link state does not take data (which the port discards), so that every data
 * packet the wire carried is either delivered or accounted for.
 * <p>
 * With link-level retry the injector is two instances (docs/soak.md, "Faults"): the wire's faults (losses and bit
 * flips) act below the retry layer ({@link Placement#WIRE}, installed with {@code EngineBuilder.wireWrapper}), where
 * each is repaired by a retransmission, and the link bounce's cut and the link-state accounting act above it, where
 * the port sees them ({@link Placement#PORT}). Without retry one instance does both ({@link Placement#WHOLE}).
 * <p>
 * Transmit calls go straight to the wrapped link. Threading: {@link #poll} on the receive thread only.
 */
public final class FaultyLink extends ForwardingLink implements WireCounts
{
    /** Where an instance sits, and so what it does. */
    public enum Placement
    {
        /** On the link the port uses, no retry under it: every fault. */
        WHOLE,
        /** Below link-level retry: losses and bit flips of the packets the retry frames carry (acknowledgements pass). */
        WIRE,
        /** Above link-level retry: the link bounce's cut and the link-state accounting. */
        PORT
    }

    /** The FCP's word and LPCRC: the bytes the LPCRC check covers (bytes 6-7 are reserved and ignored). */
    private static final int FCP_CHECKED_BYTES = 6;

    private final int packetOffset;
    private final boolean retryFramed;
    private final boolean cuttable;
    private final double dropData;
    private final double corruptData;
    private final double dropFcp;
    private final double corruptFcp;
    private final SplittableRandom dropDataRandom;
    private final SplittableRandom corruptDataRandom;
    private final SplittableRandom dropFcpRandom;
    private final SplittableRandom corruptFcpRandom;
    private final SplittableRandom bitRandom;
    private final UnsafeBuffer scratch = new UnsafeBuffer(new byte[MAX_DATA_FRAME_LENGTH + RetryLink.HEADER_LENGTH]);
    private final FrameHandler faulty = this::onFrame;
    private final AtomicLongArray droppedData = new AtomicLongArray(VlArbiter.VL_COUNT);
    private final AtomicLongArray corruptedData = new AtomicLongArray(VlArbiter.VL_COUNT);
    private final AtomicLongArray bounceLost = new AtomicLongArray(VlArbiter.VL_COUNT);
    private final AtomicLongArray stateLost = new AtomicLongArray(VlArbiter.VL_COUNT);
    private final AtomicLongArray fcpFaults = new AtomicLongArray(2);
    private volatile boolean armed;
    /** Whether the poll in progress injects: {@link #armed} read once as it begins (the receive thread's). */
    private boolean pollArmed;
    /** The count of polls begun disarmed when {@link #arm} last disarmed (the arming thread's). */
    private long disarmedMark;
    private volatile boolean cut;
    private volatile Port receiver;
    private FrameHandler handler;
    // polls that found the wire empty, and polls that began disarmed and ended (the receive thread's counts, release
    // stores as the fault counts)
    private final AtomicLongArray emptyPolls = new AtomicLongArray(1);
    private final AtomicLongArray disarmedPolls = new AtomicLongArray(1);

    /**
     * @param delegate the link the engine made.
     * @param faults   the probabilities of the wire faults (other kinds are ignored here).
     * @param seed     the run's seed; each fault stream derives its own from it and {@code stream}.
     * @param stream   distinguishes the ends of a link (0, 1), so that they do not lose the same packets.
     */
    public FaultyLink(final Link delegate, final FaultSpec faults, final long seed, final int stream)
    {
        this(delegate, faults, seed, stream, Placement.WHOLE);
    }

    /**
     * @param delegate  the link below.
     * @param faults    the probabilities of the wire faults (other kinds are ignored here).
     * @param seed      the run's seed; each fault stream derives its own from it and {@code stream}.
     * @param stream    distinguishes the ends of a link (0, 1), so that they do not lose the same packets.
     * @param placement where it sits: {@link Placement#PORT} injects no wire fault.
     */
    public FaultyLink(
        final Link delegate, final FaultSpec faults, final long seed, final int stream, final Placement placement)
    {
        super(delegate);
        final boolean wire = Placement.PORT != placement;
        this.packetOffset = Placement.WIRE == placement ? RetryLink.HEADER_LENGTH : 0;
        this.retryFramed = Placement.WIRE == placement;
        this.cuttable = Placement.WIRE != placement;
        this.dropData = wire ? faults.probability(FaultKind.DROP_DATA) : 0;
        this.corruptData = wire ? faults.probability(FaultKind.CORRUPT_DATA) : 0;
        this.dropFcp = wire ? faults.probability(FaultKind.DROP_FCP) : 0;
        this.corruptFcp = wire ? faults.probability(FaultKind.CORRUPT_FCP) : 0;
        final SplittableRandom root = new SplittableRandom(seed * 31 + stream);
        dropDataRandom = root.split();
        corruptDataRandom = root.split();
        dropFcpRandom = root.split();
        corruptFcpRandom = root.split();
        bitRandom = root.split();
    }

    /**
     * @param receiver the port this link delivers to, whose link state decides whether a data packet is taken.
     */
    public void attach(final Port receiver)
    {
        this.receiver = receiver;
    }

    /**
     * @param armed whether the wire faults are injected (off while the soak drains and checks credits).
     */
    public void arm(final boolean armed)
    {
        if (!armed)
        {
            disarmedMark = disarmedPolls.getAcquire(0);
        }
        this.armed = armed;
    }

    /**
     * Whether the faults counted so far are all there will be: disarmed, and a poll that began disarmed has ended
     * since ({@link #arm}), so that no poll that read the wire armed is still injecting. Read by the thread that
     * disarms, before it compares what was injected with what was detected.
     *
     * @return whether no fault can be injected any more until armed again.
     */
    public boolean quiet()
    {
        return !armed && disarmedPolls.getAcquire(0) > disarmedMark;
    }

    /**
     * @param cut whether the wire loses every data packet (a link bounce; FCPs and SMPs still pass); ignored below
     *            retry ({@link Placement#WIRE}).
     */
    public void cut(final boolean cut)
    {
        // a link that goes down loses what is on it above any retry (below it, retry would deliver it later)
        this.cut = cut && cuttable;
    }

    /**
     * @param vl a data VL.
     * @return data packets this end of the wire lost on the VL.
     */
    public long droppedData(final int vl)
    {
        return droppedData.get(vl);
    }

    /**
     * @param vl a data VL.
     * @return data packets on the VL that had a bit flipped.
     */
    public long corruptedData(final int vl)
    {
        return corruptedData.get(vl);
    }

    /**
     * @param vl a data VL.
     * @return data packets on the VL lost while the wire was cut for a link bounce.
     */
    public long bounceLost(final int vl)
    {
        return bounceLost.get(vl);
    }

    /**
     * @param vl a data VL.
     * @return data packets on the VL handed to the receiving port while its link state did not take data.
     */
    public long stateLost(final int vl)
    {
        return stateLost.get(vl);
    }

    /**
     * @return FCPs lost.
     */
    public long droppedFcps()
    {
        return fcpFaults.get(0);
    }

    /**
     * @return FCPs with a bit flipped.
     */
    public long corruptedFcps()
    {
        return fcpFaults.get(1);
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        this.handler = handler;
        pollArmed = armed;
        final int frames = delegate.poll(faulty, frameLimit);
        if (0 == frames)
        {
            increment(emptyPolls, 0);
        }
        if (!pollArmed)
        {
            increment(disarmedPolls, 0);
        }
        return frames;
    }

    /**
     * @return how many polls found nothing on the wire: one after both ends went down means that what they sent
     * before is gone (a port that is down sends nothing).
     */
    public long emptyPolls()
    {
        return emptyPolls.getAcquire(0);
    }

    private void onFrame(final int wireType, final DirectBuffer buffer, final int offset, final int wireLength)
    {
        // below retry: the packet a retry frame carries, after its header; an acknowledgement passes untouched
        final int frameType = retryFramed ? RetryLink.carried(buffer, offset, wireLength) : wireType;
        if (0 == frameType)
        {
            handler.onFrame(wireType, buffer, offset, wireLength);
            return;
        }
        final int length = wireLength - packetOffset;
        final int packet = offset + packetOffset;
        final boolean armed = pollArmed;
        if (LINK_FRAME == frameType)
        {
            if (armed && dropFcp > 0 && dropFcpRandom.nextDouble() < dropFcp)
            {
                increment(fcpFaults, 0);
                return;
            }
            if (armed && corruptFcp > 0 && corruptFcpRandom.nextDouble() < corruptFcp)
            {
                increment(fcpFaults, 1);
                // bytes 6-7 of an FCP are reserved and ignored (docs/wire.md): flip a bit the LPCRC covers
                handler.onFrame(wireType, flipped(buffer, offset, wireLength, Math.min(length, FCP_CHECKED_BYTES)), 0,
                    wireLength);
                return;
            }
            handler.onFrame(wireType, buffer, offset, wireLength);
            return;
        }

        final int vl = length >= LrhFlyweight.LENGTH ? LrhFlyweight.vl(buffer, packet) : LrhFlyweight.VL15;
        if (LrhFlyweight.VL15 != vl)
        {
            if (cut)
            {
                increment(bounceLost, vl);
                return;
            }
            if (armed && dropData > 0 && dropDataRandom.nextDouble() < dropData)
            {
                increment(droppedData, vl);
                return;
            }
            if (armed && corruptData > 0 && corruptDataRandom.nextDouble() < corruptData)
            {
                increment(corruptedData, vl);
                // the VCRC covers every byte of a data packet (docs/wire.md)
                handler.onFrame(wireType, flipped(buffer, offset, wireLength, length), 0, wireLength);
                return;
            }
            final Port receiver = this.receiver;
            if (null != receiver && !receiver.linkState().mayReceiveData())
            {
                increment(stateLost, vl);
            }
        }
        handler.onFrame(wireType, buffer, offset, wireLength);
    }

    /** A copy of the frame with one bit of its packet's first {@code covered} bytes flipped (never the retry header). */
    private DirectBuffer flipped(final DirectBuffer buffer, final int offset, final int length, final int covered)
    {
        buffer.getBytes(offset, scratch, 0, length);
        final int bit = bitRandom.nextInt(covered * 8);
        final int at = packetOffset + (bit >>> 3);
        scratch.putByte(at, (byte)(scratch.getByte(at) ^ (1 << (bit & 7))));
        return scratch;
    }

    private static void increment(final AtomicLongArray counts, final int index)
    {
        counts.setRelease(index, counts.getPlain(index) + 1);
    }
}
