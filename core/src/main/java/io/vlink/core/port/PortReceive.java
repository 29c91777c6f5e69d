package io.vlink.core.port;

import io.vlink.core.credit.DataCheck;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.FcpCheck;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import org.agrona.DirectBuffer;

/**
 * A port's receive half: every frame off the wire is checked (an FCP's length, LPCRC and Op; a data packet's length,
 * VCRC and ICRC), admitted by the link state ({@link DataCheck}) and stored in its VL's buffer
 * ({@link ReceiveBuffers}), or discarded and counted by reason ({@link ReceiveCounters}), never thrown. What the
 * credit half needs goes to it as {@link CreditEvents}, in wire order: each FCP word, and the blocks
 * stored per data VL, summed over a poll (one event per VL, written before any FCP's event and at the end of the
 * poll: with one-block chunks a sum is charged exactly as its packets one by one; with larger chunks each packet is
 * its own event).
 * <p>
 * A poll is: {@link #frameLimit}, then the link hands each frame to {@link #onFrame} (or the peer's close to
 * {@link #onPeerClosed}), then {@link #endPoll}. The link state it admits by is the one last given to
 * {@link #linkState}: the engine's receive agent reads the state its credit agent published once per duty cycle; a
 * port on one thread gives each state as its credit half enters it. Single-threaded and allocation-free.
 */
public final class PortReceive
{
    private final int dataVls;
    private final boolean sumBlocks;
    private final PacketChecker checker;
    private final ReceiveBuffers buffers;
    private final CreditEvents events;
    private final ReceiveCounters counters;
    private final FrameTap tap;
    private final int[] acceptedBlocks = new int[LrhFlyweight.VL_COUNT];
    private int acceptedVls;
    private LinkState state = LinkState.DOWN;

    /**
     * @param config   the port's configuration (data VLs, MTU, chunk).
     * @param buffers  where admitted packets are stored.
     * @param events   the hand-off to the credit half.
     * @param counters what this half counts.
     * @param tap      sees every frame as it arrives, or null.
     */
    public PortReceive(
        final PortConfig config,
        final ReceiveBuffers buffers,
        final CreditEvents events,
        final ReceiveCounters counters,
        final FrameTap tap)
    {
        this.dataVls = config.dataVls();
        this.sumBlocks = Sizes.BLOCK_LENGTH == config.chunkBytes();
        this.checker = new PacketChecker(config.mtu());
        this.buffers = buffers;
        this.events = events;
        this.counters = counters;
        this.tap = tap;
    }

    /**
     * @param state the link state to admit packets by, until the next call.
     */
    public void linkState(final LinkState state)
    {
        this.state = state;
    }

    /**
     * @return the link state packets are admitted by.
     */
    public LinkState linkState()
    {
        return state;
    }

    /**
     * @param burst the most frames the owner would take.
     * @return the most frames to take in this poll: each makes at most one event, and the event ring must hold them
     * all (0 when it is full: the credit half has not caught up).
     */
    public int frameLimit(final int burst)
    {
        return Math.max(0, Math.min(burst, events.room()));
    }

    /**
     * A frame off the wire.
     *
     * @param frameType {@link FrameSink#DATA_FRAME} or {@link FrameSink#LINK_FRAME}.
     * @param buffer    the frame's buffer, valid during the call.
     * @param offset    where it starts.
     * @param length    its length.
     */
    public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        if (null != tap)
        {
            tap.onFrame(frameType, buffer, offset, length);
        }
        if (FrameSink.LINK_FRAME == frameType)
        {
            onFcp(buffer, offset, length);
        }
        else
        {
            onData(buffer, offset, length);
        }
    }

    private void onFcp(final DirectBuffer buffer, final int offset, final int length)
    {
        final long result = Fcp.decode(buffer, offset, length);
        final int malformed = FcpCheck.malformed(result, length);
        if (FcpCheck.VALID != malformed)
        {
            counters.discard(malformed);
            counters.fcpMalformed.incrementRelease();
            return;
        }
        // the blocks stored before the FCP are reported before it: ABR := FCTBS counts them
        flushAccepted();
        events.onFcp(Fcp.word(result));
    }

    private void onData(final DirectBuffer buffer, final int offset, final int length)
    {
        final int result = checker.check(buffer, offset, length);
        if (PacketChecker.OK != PacketChecker.verdict(result))
        {
            // bad length, VCRC or ICRC: not stored, ABR and free space do not move (docs/flow-control.md)
            counters.discard(DiscardReason.DATA_BAD_CRC.id());
            return;
        }
        final int vl = LrhFlyweight.vl(buffer, offset);
        final int size = length - Sizes.VCRC_LENGTH;
        final int refused = DataCheck.admit(state, vl, dataVls);
        if (DataCheck.STORE != refused)
        {
            counters.discard(refused);
        }
        else if (buffers.store(vl, buffer, offset, size))
        {
            if (DataCheck.VL15 != vl)
            {
                accepted(vl, Sizes.blocks(size));
            }
            counters.tally.add(vl, size);
        }
        else if (DataCheck.VL15 == vl)
        {
            // the only loss allowed without a fault (docs/flow-control.md, VL15)
            counters.discard(DiscardReason.VL15_FULL.id());
            counters.vl15Drops.incrementRelease();
        }
        else
        {
            // the sender ignored its credit
            counters.discard(DiscardReason.DATA_OVERFLOW.id());
        }
    }

    /**
     * The peer said it is closing: what it sent before came first.
     */
    public void onPeerClosed()
    {
        flushAccepted();
        events.onPeerClosed();
    }

    /**
     * The end of a poll: the blocks stored since the last event go to the credit half, the tallies to the counters.
     */
    public void endPoll()
    {
        flushAccepted();
        counters.tally.publish();
    }

    private void accepted(final int vl, final int blocks)
    {
        if (!sumBlocks)
        {
            events.onAccepted(vl, blocks);
            return;
        }
        if (acceptedBlocks[vl] + blocks > CreditEventRing.MAX_BLOCKS)
        {
            flushAccepted();
        }
        acceptedBlocks[vl] += blocks;
        acceptedVls |= 1 << vl;
    }

    /**
     * The blocks stored on each VL since the last call, one event per VL. Each event stands for at least one frame:
     * never more events than frames.
     */
    private void flushAccepted()
    {
        int pending = acceptedVls;
        acceptedVls = 0;
        while (0 != pending)
        {
            final int vl = Integer.numberOfTrailingZeros(pending);
            pending &= pending - 1;
            events.onAccepted(vl, acceptedBlocks[vl]);
            acceptedBlocks[vl] = 0;
        }
    }
}
