package io.vlink.nic;

import io.vlink.core.credit.DataCheck;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.FcpCheck;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.status.PortCounters;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * The receive agent: for each port, polls the link, checks every frame (length, VCRC, ICRC for data; LPCRC and
 * Op for FCPs, with {@code core}'s checkers), discards and counts what fails (never throws), stores good data
 * packets in their VL's receive buffer (exact block accounting: a packet that would not fit is a protocol
 * violation by the sender, discarded and counted) and tells the credit agent, in wire order, of each FCP and
 * each accepted packet.
 */
final class ReceiveAgent implements Agent
{
    private final PortReceiver[] ports;

    ReceiveAgent(final Port[] ports, final int burst, final CaptureTap capture)
    {
        this.ports = new PortReceiver[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            // With one port (UDP) the capture's interface 1 is the peer, seen where its packets arrive; with two
            // ports the arbiter records both directions where they enter the wire.
            this.ports[i] = new PortReceiver(ports[i], burst, ports.length == 1 ? capture : null);
        }
    }

    @Override
    public int doWork()
    {
        int work = 0;
        for (final PortReceiver port : ports)
        {
            work += port.doWork();
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "receive";
    }

    static final class PortReceiver implements FrameHandler
    {
        private final Port port;
        private final Link link;
        private final int burst;
        private final int dataVls;
        private final PacketChecker checker;
        private final ReceiveRing[] rxRings;
        private final OneToOneRingBuffer events;
        private final PortCounters counters;
        private final CaptureTap capture;
        private LinkState state = LinkState.DOWN;
        private int epochTag;
        private final VlTally tally;
        // blocks accepted per VL since the last ACCEPT event: one event per VL per duty cycle, flushed before an
        // FCP's event so the credit agent still sees both in wire order
        private final int[] acceptedBlocks = new int[LrhFlyweight.VL_COUNT];
        private int acceptedVls;

        PortReceiver(final Port port, final int burst, final CaptureTap capture)
        {
            this.port = port;
            this.link = port.link();
            this.burst = burst;
            this.dataVls = port.dataVls();
            this.checker = new PacketChecker(port.mtu());
            this.rxRings = port.rxRings;
            this.events = port.rxEvents;
            this.counters = port.counters();
            // packets and bytes per VL, added to the counters once per duty cycle
            this.tally = new VlTally(counters::rxPackets, counters::rxBytes);
            this.capture = capture;
        }

        int doWork()
        {
            // the epoch first: the credit agent publishes Down before a new epoch and the state after it, so a state
            // read after the epoch is never one from before it
            epochTag = (port.linkEpoch() & RxEvents.EPOCH_MASK) << RxEvents.EPOCH_SHIFT;
            state = LinkState.get(port.linkStateCode());
            // every frame makes at most one event: never take more frames than the event ring can record
            final long used = events.producerPosition() - events.consumerPosition();
            final int room = (int)((events.capacity() - used) / RxEvents.RECORD_LENGTH) - 1;
            final int limit = Math.min(burst, room);
            if (limit <= 0)
            {
                return 0;
            }
            final int frames = link.poll(this, limit);
            flushAccepted();
            tally.publish();
            return frames;
        }

        @Override
        public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
        {
            if (null != capture)
            {
                capture.record(1, frameType, buffer, offset, length);
            }
            if (Link.LINK_FRAME == frameType)
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
                discard(malformed);
                counters.fcpMalformed.incrementRelease();
                return;
            }
            flushAccepted();
            event(RxEvents.FCP, Fcp.word(result));
        }

        private void onData(final DirectBuffer buffer, final int offset, final int length)
        {
            final int result = checker.check(buffer, offset, length);
            if (PacketChecker.OK != PacketChecker.verdict(result))
            {
                // bad length, VCRC or ICRC: not accepted, ABR and free space do not move (docs/flow-control.md)
                discard(DiscardReason.DATA_BAD_CRC.id());
                return;
            }
            final int vl = LrhFlyweight.vl(buffer, offset);
            final int size = length - Sizes.VCRC_LENGTH;
            final int refused = DataCheck.admit(state, vl, dataVls);
            if (DataCheck.STORE != refused)
            {
                discard(refused);
            }
            else if (rxRings[vl].offer(buffer, offset, size))
            {
                if (Port.VL15 != vl)
                {
                    accepted(vl, Sizes.blocks(size));
                }
                received(vl, size);
            }
            else if (Port.VL15 == vl)
            {
                // the only loss allowed without a fault (docs/flow-control.md, VL15)
                discard(DiscardReason.VL15_FULL.id());
                counters.vl15Drops.incrementRelease();
            }
            else
            {
                discard(DiscardReason.DATA_OVERFLOW.id());
            }
        }

        @Override
        public void onPeerClosed()
        {
            flushAccepted();
            event(RxEvents.PEER_CLOSED, 0);
        }

        private void accepted(final int vl, final int blocks)
        {
            if (acceptedBlocks[vl] + blocks > RxEvents.MAX_BLOCKS)
            {
                flushAccepted();
            }
            acceptedBlocks[vl] += blocks;
            acceptedVls |= 1 << vl;
        }

        /**
         * The blocks accepted on each VL since the last call, one event per VL: the credit agent's receive buffer
         * accounting is per block (one-block chunks), so a sum charges exactly what the packets one by one would.
         * Each event stands for at least one frame: never more events than frames.
         */
        private void flushAccepted()
        {
            int pending = acceptedVls;
            acceptedVls = 0;
            while (0 != pending)
            {
                final int vl = Integer.numberOfTrailingZeros(pending);
                pending &= pending - 1;
                event(RxEvents.ACCEPT, epochTag | (vl << 16) | acceptedBlocks[vl]);
                acceptedBlocks[vl] = 0;
            }
        }

        private void received(final int vl, final int size)
        {
            tally.add(vl, size);
        }

        private void discard(final int reason)
        {
            counters.discards(reason).incrementRelease();
        }

        private void event(final int type, final int value)
        {
            final int index = events.tryClaim(type, RxEvents.LENGTH);
            if (index < 0)
            {
                // doWork takes no more frames than the ring has room for events: losing one would corrupt the credits
                throw new IllegalStateException("receive event ring full: " + events.size() + " bytes used");
            }
            events.buffer().putInt(index, value);
            events.commit(index);
        }
    }
}
