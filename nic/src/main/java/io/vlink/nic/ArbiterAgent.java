package io.vlink.nic;

import io.vlink.core.arb.ArbiterSource;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.link.Link;
import io.vlink.nic.ring.VlRings;
import io.vlink.nic.status.PortCounters;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.ControlledMessageHandler;
import org.agrona.concurrent.ringbuffer.OneToOneRingBuffer;

/**
 * The arbiter agent: for each port, at every packet boundary, {@code core}'s {@link VlArbiter} picks VL15, a
 * flow-control packet or a data VL (docs/arbitration.md), using the port's per-VL rings and credit state as its
 * {@link ArbiterSource}; the agent then frames the packet into the link's off-heap buffer in one copy (from the
 * cells: LRH, ICRC and VCRC filled by {@code core}'s {@link PacketFramer}) and frees its cells.
 * <p>
 * It owns each data VL's FCTBS (a {@link CreditTransmitter}); the credit limits come from the credit agent,
 * published with release and read here with acquire. FCPs are built here, when they go on the wire, so the
 * FCTBS they carry counts exactly the blocks sent before them (docs/flow-control.md).
 * <p>
 * At a link error's transmit flush ({@link FlushControl}) it drains the rings of the packets injected before the
 * injection agent's new generation, frees their cells and counts, per queue pair, the messages whose last packet it
 * discarded; until the generation has caught up with the flush epoch it sends nothing from the rings.
 * <p>
 * It counts the packets it takes out of the rings. When that equals the rings' offered count ({@link
 * VlRings#offered()}, read once a duty cycle before any ring) and no FCP is asked for, every ring is empty: it sets
 * the arbiter's idle state ({@link VlArbiter#idle()}) instead of asking for a decision that would look at each ring.
 * That is an idle port's whole duty cycle, and the end of a lone packet's.
 */
final class ArbiterAgent implements Agent
{
    private final PortArbiter[] ports;

    ArbiterAgent(final Port[] ports, final int burst, final CaptureTap capture)
    {
        this.ports = new PortArbiter[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortArbiter(ports[i], burst, capture, ports.length > 1 ? i : 0);
        }
    }

    @Override
    public int doWork()
    {
        int work = 0;
        for (final PortArbiter port : ports)
        {
            work += port.doWork();
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "arbiter";
    }

    static final class PortArbiter implements ArbiterSource
    {
        /**
         * The most bytes sent per port per duty cycle besides the burst's packet count: what a duty cycle moves
         * should stay in the caches between the agents that handle it next (twice this of 4 KiB packets spilled out
         * of them: docs/performance.md), while small packets still spread each cycle's fixed costs over the whole
         * burst.
         */
        static final int BURST_BYTES = 128 * 1024;

        private final Port port;
        private final Link link;
        private final int burst;
        private final VlRings<TxPacket> rings;
        private final CellBuffer cells;
        private final int cellSize;
        private final CreditTransmitter transmitter;
        private final VlArbiter arbiter;
        private final PacketFramer framer = new PacketFramer();
        private final OneToOneRingBuffer fcpRequests;
        private final PortCounters counters;
        private final CaptureTap capture;
        private final int iface;
        private final boolean[] stalled = new boolean[VlArbiter.VL_COUNT];
        private final int dataVls;
        private int epoch;
        private LinkState linkState = LinkState.DOWN;
        private final FlushControl flush;
        private int flushGeneration;
        // a flush epoch the injection agent has not flushed for yet: the rings may hold packets it will discard
        private boolean flushing;
        private int fcpWord;
        private final VlTally tally;
        private final ControlledMessageHandler fcpReader = this::onFcpRequest;
        // packets this agent took out of the rings (sent, or drained at a flush): when it equals the rings' offered
        // count, every ring is empty
        private long taken;

        PortArbiter(final Port port, final int burst, final CaptureTap capture, final int iface)
        {
            this.port = port;
            this.link = port.link();
            this.burst = burst;
            this.rings = port.vlRings;
            this.cells = port.cells;
            this.cellSize = cells.cellSize();
            this.dataVls = port.dataVls();
            this.transmitter = new CreditTransmitter(dataVls);
            this.arbiter = new VlArbiter(port.qos(), this);
            this.fcpRequests = port.fcpRequests;
            this.counters = port.counters();
            // packets and bytes per VL, added to the counters once per duty cycle
            this.tally = new VlTally(counters::txPackets, counters::txBytes);
            this.capture = capture;
            this.iface = iface;
            this.epoch = port.linkEpoch();
            this.flush = port.flush;
        }

        int doWork()
        {
            final int currentEpoch = port.linkEpoch();
            if (currentEpoch != epoch)
            {
                // link (re)initialisation: every counter from zero (docs/flow-control.md, Link states)
                epoch = currentEpoch;
                transmitter.reset();
                for (int vl = 0; vl < dataVls; vl++)
                {
                    counters.txFctbs(vl).setRelease(0);
                }
            }
            linkState = LinkState.get(port.linkStateCode());
            final int generation = flush.generation();
            if (generation != flushGeneration)
            {
                drainFlushed(generation);
            }
            flushing = flush.epoch() != generation;
            final QosConfig replacement = port.takeQosReplacement();
            if (null != replacement)
            {
                arbiter.replace(replacement);
            }
            int work = link.flush();
            // Read before any ring is looked at. Every packet this count includes is in its ring or was taken out of
            // it; a packet offered after this read waits for the next duty cycle's read.
            final long offered = rings.offered();
            int bytes = 0;
            for (int i = 0; i < burst && bytes < BURST_BYTES; i++)
            {
                if (!link.hasRoomFor(Link.MAX_DATA_FRAME_LENGTH))
                {
                    counters.linkBackPressure.incrementRelease();
                    break;
                }
                if (offered == taken && !hasFcp())
                {
                    // every ring empty and no FCP asked for: what a decision would find, without asking each ring
                    arbiter.idle();
                    break;
                }
                final int grant = arbiter.next();
                if (VlArbiter.GRANT_NONE == grant)
                {
                    break;
                }
                final int sent = VlArbiter.GRANT_FCP == grant ? sendFcp() : sendPacket(VlArbiter.vl(grant));
                if (sent < 0)
                {
                    break;
                }
                bytes += sent;
                work++;
            }
            tally.publish();
            return work;
        }

        /**
         * The injection agent flushed for a link error and stamps its packets with a new generation: take every older
         * packet off the rings (a prefix of each, in FIFO order), free its cells and count its message when it is the
         * last packet; then tell the injection agent, which reports the counts.
         */
        private void drainFlushed(final int generation)
        {
            // the injection agent adopts the queue pairs in this order: a packet's queue index is its position here
            final QueuePair[] queuePairs = port.queuePairs();
            for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
            {
                if (rings.hasVl(vl))
                {
                    TxPacket packet;
                    while (null != (packet = rings.peek(vl)) && packet.generation != generation)
                    {
                        rings.poll(vl);
                        taken++;
                        if (!cells.free(packet.firstCell))
                        {
                            throw new IllegalStateException("cell return ring full freeing cell " + packet.firstCell);
                        }
                        if (packet.end)
                        {
                            final QueuePair qp = TxPacket.SMP_QUEUE == packet.queue ?
                                port.smpQueuePair() : queuePairs[packet.queue];
                            qp.ringFlushed++;
                        }
                    }
                }
            }
            flushGeneration = generation;
            flush.publishDrained(generation);
        }

        /** @return the packet's bytes, or -1 if the link refused it (it stays at the head of its VL). */
        private int sendPacket(final int vl)
        {
            final TxPacket head = rings.peek(vl);
            final int size = head.size;
            final int offset = link.tryClaim(Link.DATA_FRAME, size + Sizes.VCRC_LENGTH);
            if (offset < 0)
            {
                // hasRoomFor said yes, so the link refused for another reason (a session not yet trained): the packet
                // stays at the head of its VL and goes at the next grant
                counters.linkBackPressure.incrementRelease();
                return -1;
            }
            final TxPacket packet = rings.poll(vl);
            taken++;
            final AtomicBuffer buffer = link.buffer();
            // the one copy: cells -> the link's buffer; then LRH.PktLen, ICRC and VCRC in place
            if (size <= cellSize)
            {
                buffer.putBytes(offset, cells.data(), cells.cellOffset(packet.firstCell), size);
            }
            else
            {
                cells.getBytes(packet.firstCell, 0, buffer, offset, size);
            }
            // the cells are free once copied: whatever the link does with the frame, they never leak
            cells.free(packet.firstCell);
            final int length = framer.frame(buffer, offset, size);
            if (Port.VL15 != vl)
            {
                transmitter.onTransmit(vl, Sizes.blocks(size));
                counters.txFctbs(vl).setRelease(transmitter.blocksSent(vl));
                stalled[vl] = false;
            }
            if (null != capture)
            {
                capture.record(iface, Link.DATA_FRAME, buffer, offset, length);
            }
            link.commit(offset);
            tally.add(vl, size);
            return size;
        }

        /** @return the bytes sent (FCPs count none toward the burst's bytes), or -1 if the link refused. */
        private int sendFcp()
        {
            final int offset = link.tryClaim(Link.LINK_FRAME, Fcp.LENGTH);
            if (offset < 0)
            {
                // the request stays in its ring and goes at the next grant
                counters.linkBackPressure.incrementRelease();
                return -1;
            }
            fcpRequests.controlledRead(fcpReader, 1);
            // the FCTBS of now: it counts exactly the blocks sent before this FCP
            final int word = transmitter.fcp(fcpWord);
            final AtomicBuffer buffer = link.buffer();
            Fcp.encode(buffer, offset, word);
            if (null != capture)
            {
                capture.record(iface, Link.LINK_FRAME, buffer, offset, Fcp.LENGTH);
            }
            link.commit(offset);
            counters.fcpSent.incrementRelease();
            return 0;
        }

        private ControlledMessageHandler.Action onFcpRequest(
            final int msgTypeId, final DirectBuffer buffer, final int index, final int length)
        {
            fcpWord = buffer.getInt(index);
            return ControlledMessageHandler.Action.COMMIT;
        }

        @Override
        public boolean hasVl15()
        {
            // VL15 needs no credit, only a link that is up (docs/flow-control.md)
            return !flushing && linkState.isUp() && null != rings.peek(Port.VL15);
        }

        @Override
        public boolean hasFcp()
        {
            // the consumer's own position and one acquire of the producer's (size() reads both positions, in a loop)
            return fcpRequests.producerPosition() != fcpRequests.consumerPosition();
        }

        @Override
        public int headSize(final int vl)
        {
            final TxPacket packet = rings.peek(vl);
            return null == packet ? 0 : packet.size;
        }

        @Override
        public boolean canSend(final int vl, final int size)
        {
            if (flushing || !linkState.maySendData())
            {
                return false;
            }
            transmitter.onCreditLimit(vl, port.creditLimit(vl));
            if (transmitter.mayTransmit(vl, Sizes.blocks(size)))
            {
                return true;
            }
            if (!stalled[vl])
            {
                stalled[vl] = true;
                counters.creditStalls(vl).incrementRelease();
            }
            return false;
        }
    }
}
