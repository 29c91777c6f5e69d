package io.vlink.nic.agent;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.CellBuffer;
import io.vlink.core.port.FrameTap;
import io.vlink.core.port.PacketSource;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.PortTransmit;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.PacketFramer;
import io.vlink.nic.capture.CaptureTap;
import io.vlink.nic.ring.VlRings;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.Agent;

/**
 * The arbiter agent: for each port, the port's transmit half, {@code core}'s {@link PortTransmit} (at every packet
 * boundary {@link VlArbiter} picks VL15, a flow-control packet or a data VL; the credit check; FCPs completed with the
 * FCTBS of now; the burst), over the port's per-VL rings as its {@link PacketSource}: a packet is framed into the
 * link's off-heap buffer in one copy from its cells (LRH PktLen, ICRC and VCRC filled by {@code core}'s
 * {@link PacketFramer}) and its cells are freed.
 * <p>
 * At a link error's transmit flush ({@link FlushControl}) it drains the rings of the packets injected before the
 * injection agent's new generation, frees their cells and counts, per queue pair, the messages whose last packet it
 * discarded; until the generation has caught up with the flush epoch it sends nothing from the rings (the transmit
 * half is held: FCPs still go).
 * <p>
 * It counts the packets it takes out of the rings. When that equals the rings' offered count ({@link
 * VlRings#offered()}, read once a duty cycle before any ring) every ring is empty ({@link PacketSource#isEmpty()}):
 * with no FCP asked for, the transmit half sets the arbiter's idle state instead of asking for a decision that would
 * look at each ring. That is an idle port's whole duty cycle, and the end of a lone packet's.
 */
public final class ArbiterAgent implements Agent
{
    private final PortArbiter[] ports;

    /**
     * The most bytes sent per port per duty cycle besides the burst's packet count: what a duty cycle moves should
     * stay in the caches between the agents that handle it next (twice this of 4 KiB packets spilled out of them:
     * docs/performance.md), while small packets still spread each cycle's fixed costs over the whole burst.
     */
    public static final int BURST_BYTES = 128 * 1024;

    /**
     * @param ports   the engine's ports.
     * @param config  the ports' datapath settings.
     * @param capture the capture tap, or null.
     */
    public ArbiterAgent(final PortDatapath[] ports, final PortConfig config, final CaptureTap capture)
    {
        this.ports = new PortArbiter[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortArbiter(ports[i], config, capture, ports.length > 1 ? i : 0);
        }
    }

    @Override
    public int doWork()
    {
        int work = 0;
        for (final PortArbiter port : ports)
        {
            work += port.doWork(false);
        }
        return work;
    }

    /**
     * A second turn in the same duty cycle, right after the credit agent's when it handed this agent something it can
     * send at once (FCPs asked for, credit from the FCPs it applied, a new link state: {@link DutyCycle}). The two
     * turns share one burst ({@link PortTransmit#transmitRest}).
     *
     * @return work done.
     */
    public int doWorkAgain()
    {
        int work = 0;
        for (final PortArbiter port : ports)
        {
            work += port.doWork(true);
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "arbiter";
    }

    static final class PortArbiter implements PacketSource
    {
        private final PortDatapath port;
        private final VlRings<TxPacket> rings;
        private final CellBuffer cells;
        private final int cellSize;
        private final PacketFramer framer = new PacketFramer();
        private final PortTransmit transmit;
        private final FlushControl flush;
        private int flushGeneration;
        // packets this agent took out of the rings (sent, or drained at a flush): when it equals the rings' offered
        // count, every ring is empty
        private long taken;
        private long offered;

        PortArbiter(final PortDatapath port, final PortConfig config, final CaptureTap capture, final int iface)
        {
            this.port = port;
            this.rings = port.vlRings;
            this.cells = port.cells;
            this.cellSize = cells.cellSize();
            this.flush = port.flush;
            final FrameTap tap = null == capture ? null :
                (frameType, buffer, offset, length) -> capture.record(iface, frameType, buffer, offset, length);
            this.transmit = new PortTransmit(config, port.link(), this, port.fcpRequests, port.creditLimits,
                port.counterSet().transmit(), tap);
        }

        /**
         * @param again a second turn in the duty cycle: it sends with what the first left of the burst.
         */
        int doWork(final boolean again)
        {
            transmit.linkState(LinkState.get(port.linkStateCode()));
            final int generation = flush.generation();
            if (generation != flushGeneration)
            {
                drainFlushed(generation);
            }
            // a flush epoch the injection agent has not flushed for yet: the rings may hold packets it will discard
            transmit.hold(flush.epoch() != generation);
            final QosConfig replacement = port.takeQosReplacement();
            if (null != replacement)
            {
                transmit.replaceQos(replacement);
            }
            // Read before any ring is looked at. Every packet this count includes is in its ring or was taken out of
            // it; a packet offered after this read waits for the next duty cycle's read.
            offered = rings.offered();
            return again ? transmit.transmitRest() : transmit.transmit();
        }

        /**
         * The injection agent flushed for a link error and stamps its packets with a new generation: take every older
         * packet off the rings (a prefix of each, in FIFO order), free its cells and count its message when it is the
         * last packet; then tell the injection agent, which reports the counts.
         */
        private void drainFlushed(final int generation)
        {
            // the injection agent adopts the queue pairs in this order: a packet's queue index is its position here
            final SendQueue[] queuePairs = port.queues();
            for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
            {
                if (rings.hasVl(vl))
                {
                    TxPacket packet;
                    while (null != (packet = rings.peek(vl)) && packet.generation != generation)
                    {
                        rings.poll(vl);
                        taken++;
                        // read before the cell is freed: the injection agent reuses the packet with its first cell,
                        // at once when it runs on another thread
                        final boolean end = packet.end;
                        final int queue = packet.queue;
                        free(packet.firstCell);
                        if (end)
                        {
                            final SendQueue qp = TxPacket.SMP_QUEUE == queue ? port.smpQueue() : queuePairs[queue];
                            qp.ringFlushed++;
                        }
                    }
                }
            }
            flushGeneration = generation;
            flush.publishDrained(generation);
        }

        @Override
        public boolean hasVl15()
        {
            return null != rings.peek(PortDatapath.VL15);
        }

        @Override
        public int headSize(final int vl)
        {
            final TxPacket packet = rings.peek(vl);
            return null == packet ? 0 : packet.size;
        }

        @Override
        public boolean isEmpty()
        {
            return offered == taken;
        }

        @Override
        public int write(final int vl, final MutableDirectBuffer buffer, final int offset, final int size)
        {
            final TxPacket packet = rings.poll(vl);
            taken++;
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
            free(packet.firstCell);
            return framer.frame(buffer, offset, size);
        }

        /** A packet's cells back to the injection agent; the return ring holds every cell, so it is never full. */
        private void free(final int firstCell)
        {
            if (!cells.free(firstCell))
            {
                throw new IllegalStateException("cell return ring full freeing cell " + firstCell);
            }
        }
    }
}
