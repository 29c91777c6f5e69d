package io.vlink.nic.agent;

import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.inject.InjectorArbiter;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.sched.SlScheduler;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.Icrc;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.ring.VlRings;
import io.vlink.nic.status.InjectCounters;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The injection agent: for each port, queue pairs -> SL arbitration with tenure ({@link SlScheduler}) ->
 * injectors (one per SL, and one for SMPs) -> injector arbitration with water marks ({@link InjectorArbiter}) ->
 * the shared {@link CellBuffer} -> SL2VL -> the per-VL rings, which carry descriptors, never bytes
 * (docs/injection.md).
 * <p>
 * Each injector holds at most one packet that SL arbitration produced and that waits for cells; SL arbitration
 * skips the SLs whose injector is holding one ({@link SlScheduler#next(int)}), so a VL stalled on credits holds
 * up only its own SLs, and packets of one queue pair never overtake each other.
 * <p>
 * It owns the per-queue-pair accounting of a link error's transmit flush ({@link FlushControl}): when the flush epoch
 * moves it drops its pending packets, the scheduler's queues and the messages posted before each queue pair's mark,
 * stamps what it injects from then on with the new generation, and once the arbiter has drained the older packets
 * from the rings it reports each queue pair's flushed messages ({@link SendQueue#flushed()}, the port's
 * {@code tx_flushed_messages}, the engine's flush listener through {@link PortEvents}).
 */
public final class InjectAgent implements Agent
{
    private final PortInjector[] ports;
    private final NanoClock clock;

    /**
     * @param ports    the engine's ports.
     * @param settings SL arbitration's and the burst's settings.
     * @param regions  the memory messages are posted by reference to.
     * @param events   told each queue pair's flushed messages.
     * @param clock    the duty cycle's clock.
     */
    public InjectAgent(
        final PortDatapath[] ports,
        final InjectSettings settings,
        final MemoryRegions regions,
        final PortEvents events,
        final NanoClock clock)
    {
        this.ports = new PortInjector[ports.length];
        for (int i = 0; i < ports.length; i++)
        {
            this.ports[i] = new PortInjector(ports[i], settings, regions, events);
        }
        this.clock = clock;
    }

    @Override
    public void onStart()
    {
        final long nowNs = clock.nanoTime();
        for (final PortInjector port : ports)
        {
            port.injectors.reset(nowNs);
        }
    }

    @Override
    public int doWork()
    {
        final long nowNs = clock.nanoTime();
        int work = 0;
        for (final PortInjector port : ports)
        {
            work += port.doWork(nowNs);
        }
        return work;
    }

    @Override
    public String roleName()
    {
        return "inject";
    }

    static final class PortInjector
    {
        static final int SMP_INJECTOR = InjectionConfig.PORT_SMP_INJECTOR;
        static final int INJECTORS = InjectionConfig.PORT_INJECTORS;
        static final int HEADERS = Icrc.LOCAL_HEADERS_LENGTH;
        static final int ICRC = Sizes.ICRC_LENGTH;

        private final PortDatapath port;
        private final MemoryRegions regions;
        private final QosConfig qos;
        private final int dataVls;
        private final int burst;
        final CellBuffer cells;
        private final int cellSize;
        final InjectorArbiter injectors;
        private final SlScheduler scheduler;
        private final VlRings<TxPacket> rings;
        private final TxPacket[] packets;
        private final InjectCounters counters;
        private final SendQueue[] bySchedulerIndex;
        private int known;
        private final FlushControl flush;
        private final PortEvents flushListener;
        // the flush epoch last flushed for (packets are stamped with it), and whether its report waits for the arbiter
        private int generation;
        private boolean flushReportDue;
        // the SMP queue's tail, read with the data queue pairs' slots (before the flush epoch is checked)
        private long smpPosted;
        // the values of the two gauges as last written (both start at 0 in a new counters file)
        private int publishedOccupancy;
        private long publishedPriorityChanges;
        // cells injected per VL (tx_cells), and a bit per VL injected on since they were last published
        private final long[] injectedCells = new long[PortCounterSet.VL_SLOTS];
        private int injectedVls;

        // one pending packet per injector
        private final SendQueue[] pendingQp = new SendQueue[INJECTORS];
        private final long[] pendingSeq = new long[INJECTORS];
        private final int[] pendingOffset = new int[INJECTORS];
        private final int[] pendingBytes = new int[INJECTORS];
        private final int[] pendingSize = new int[INJECTORS];
        private final boolean[] pendingEnd = new boolean[INJECTORS];

        // a bit per SL whose injector holds a packet waiting for cells: SL arbitration skips it
        private int busySls;

        private final UnsafeBuffer zeros = new UnsafeBuffer(new byte[8]);
        // the LRH's fixed fields as a big-endian word: LNH 2 (local), DLID, SLID
        private final long lrhWord;

        PortInjector(
            final PortDatapath port, final InjectSettings config, final MemoryRegions regions, final PortEvents events)
        {
            this.port = port;
            this.flush = port.flush;
            this.flushListener = events;
            this.regions = regions;
            this.qos = port.qos();
            this.dataVls = qos.dataVls();
            this.burst = 4 * config.burst();
            this.cells = port.cells;
            this.cellSize = cells.cellSize();
            this.rings = port.vlRings;
            this.packets = port.packets;
            this.counters = port.counterSet().inject();
            this.injectors = new InjectorArbiter(port.injectionConfig(), cells);
            scheduler = SlScheduler.forPort(config.slTableSls(), config.slTableWeights(), port.mtu(),
                config.tenureBytes(), config.tenurePackets(), config.maxQueuePairs(), config.queueDepth());
            bySchedulerIndex = new SendQueue[SlScheduler.portQueuePairs(config.maxQueuePairs())];
            lrhWord = LrhFlyweight.word(0, 0, LrhFlyweight.LNH_LOCAL, port.remoteLid(), 0, port.localLid());
        }

        int doWork(final long nowNs)
        {
            adoptQueuePairs();
            if (flushReportDue && flush.drained() == generation)
            {
                reportFlush();
            }
            feed();
            // The epoch after the queue pairs' slots: a message posted after the application saw this error's Down is
            // seen posted above only if this read sees the epoch, so it is never produced under the old generation.
            final int epoch = flush.epoch();
            if (epoch != generation)
            {
                if (flushReportDue)
                {
                    // the previous flush is not reported yet: produce nothing until this one can be made
                    return 1;
                }
                flushTransmitPath(epoch);
            }
            int work = readySmp();
            work += produce();
            for (int i = 0; i < burst; i++)
            {
                final int injector = injectors.select(nowNs);
                if (InjectorArbiter.NONE == injector)
                {
                    break;
                }
                inject(injector, injectors.claimedCell());
                work++;
                produce();
                readySmp();
            }
            publishGauges();
            return work;
        }

        /** The figures this agent owns, written only when they moved (most duty cycles move neither gauge). */
        private void publishGauges()
        {
            for (int vls = injectedVls; vls != 0; vls &= vls - 1)
            {
                final int vl = Integer.numberOfTrailingZeros(vls);
                counters.txCells(vl).setRelease(injectedCells[vl]);
            }
            injectedVls = 0;
            final int occupancy = cells.totalCells() - cells.freeCells();
            if (occupancy != publishedOccupancy)
            {
                publishedOccupancy = occupancy;
                counters.cellOccupancy().setRelease(occupancy);
            }
            final long priorityChanges = injectors.priorityChanges();
            if (priorityChanges != publishedPriorityChanges)
            {
                publishedPriorityChanges = priorityChanges;
                counters.priorityChanges().setRelease(priorityChanges);
            }
        }

        private void adoptQueuePairs()
        {
            final SendQueue[] qps = port.queues();
            while (known < qps.length)
            {
                final SendQueue qp = qps[known++];
                final int index = scheduler.createQp(qp.qpn(), qp.sl());
                qp.schedulerIndex = index;
                bySchedulerIndex[index] = qp;
            }
        }

        private void feed()
        {
            smpPosted = port.smpQueue().posted();
            for (int i = 0; i < known; i++)
            {
                final SendQueue qp = bySchedulerIndex[i];
                while (qp.isPosted(qp.fed) && scheduler.post(qp.schedulerIndex, qp.lengthOf(qp.fed), qp.fed))
                {
                    qp.fed++;
                }
            }
        }

        private int readySmp()
        {
            final SendQueue smp = port.smpQueue();
            if (null == pendingQp[SMP_INJECTOR] && smp.fed < smpPosted)
            {
                final long seq = smp.fed++;
                smp.started = seq + 1;
                final int length = smp.lengthOf(seq);
                final int lnh = smp.ring().getByte(smp.inlineOffsetOf(seq) + 1) & 3;
                pendingQp[SMP_INJECTOR] = smp;
                pendingSeq[SMP_INJECTOR] = seq;
                pendingOffset[SMP_INJECTOR] = 0;
                pendingBytes[SMP_INJECTOR] = length;
                pendingEnd[SMP_INJECTOR] = true;
                pendingSize[SMP_INJECTOR] = length + (LrhFlyweight.isIba(lnh) ? ICRC : 0);
                injectors.command(SMP_INJECTOR, true);
                injectors.ready(SMP_INJECTOR, pendingSize[SMP_INJECTOR]);
                return 1;
            }
            return 0;
        }

        /** SL arbitration: produce packets for the SLs whose injectors are free. */
        private int produce()
        {
            int work = 0;
            while (true)
            {
                final int bytes = scheduler.next(busySls);
                if (SlScheduler.NO_WORK == bytes)
                {
                    break;
                }
                work++;
                final SendQueue qp = bySchedulerIndex[scheduler.packetQp()];
                final long seq = scheduler.packetHandle();
                final int offset = scheduler.packetOffset();
                final boolean end = scheduler.packetEndOfMessage();
                if (0 == offset)
                {
                    qp.started = seq + 1;
                }
                final int vl = qos.sl2vl(qp.sl());
                if (vl >= dataVls)
                {
                    // SL2VL maps the SL to VL15 or a VL the port lacks: its packets are dropped (docs/qos.md)
                    counters.sl2vlUnmapped().incrementRelease();
                    if (end)
                    {
                        qp.complete(seq);
                    }
                    continue;
                }
                stage(injectorOf(qp), qp, seq, offset, bytes, end);
            }
            return work;
        }

        private static int injectorOf(final SendQueue qp)
        {
            return qp.sl();
        }

        private void stage(
            final int injector, final SendQueue qp, final long seq, final int offset, final int bytes, final boolean end)
        {
            pendingQp[injector] = qp;
            busySls |= 1 << injector;
            pendingSeq[injector] = seq;
            pendingOffset[injector] = offset;
            pendingBytes[injector] = bytes;
            pendingEnd[injector] = end;
            final int size;
            if (SendQueue.KIND_RAW == qp.kind())
            {
                final int lnh = qp.ring().getByte(qp.inlineOffsetOf(seq) + 1) & 3;
                size = bytes + (LrhFlyweight.isIba(lnh) ? ICRC : 0);
            }
            else
            {
                size = HEADERS + bytes + ((-bytes) & 3) + ICRC;
            }
            pendingSize[injector] = size;
            if (0 == offset)
            {
                injectors.command(injector, SendQueue.INLINE_REGION == qp.regionOf(seq));
            }
            injectors.ready(injector, size);
        }

        private void inject(final int injector, final int cell)
        {
            final SendQueue qp = pendingQp[injector];
            final long seq = pendingSeq[injector];
            final int offset = pendingOffset[injector];
            final int bytes = pendingBytes[injector];
            final int size = pendingSize[injector];
            final boolean end = pendingEnd[injector];
            pendingQp[injector] = null;
            busySls &= ~(1 << injector);

            final int vl;
            if (SendQueue.KIND_DATA == qp.kind())
            {
                vl = qos.sl2vl(qp.sl());
                writeDataPacket(cell, qp, seq, offset, bytes, size, vl, end);
            }
            else
            {
                vl = SendQueue.KIND_SMP == qp.kind() ? PortDatapath.VL15 : qos.sl2vl(qp.sl());
                writeReadyPacket(cell, qp, seq, bytes, size, vl);
            }
            cells.publish(cell, size);
            injectedCells[vl] += cells.cellsFor(size);
            injectedVls |= 1 << vl;
            final TxPacket packet = packets[cell];
            packet.size = size;
            packet.vl = vl;
            packet.generation = generation;
            packet.end = end;
            packet.queue = SendQueue.KIND_SMP == qp.kind() ? TxPacket.SMP_QUEUE : qp.schedulerIndex;
            if (!rings.offer(vl, packet))
            {
                // each ring holds as many packets as the buffer has cells and each packet takes a cell: a bug
                throw new IllegalStateException("VL" + vl + " ring full with the cell buffer not");
            }
            if (end)
            {
                qp.complete(seq);
            }
        }

        /**
         * A link error from Armed or Active: drop every pending packet and the scheduler's queues, and each queue
         * pair's messages up to its flush mark or the one in progress, whichever is later (they count as completed:
         * their slots and memory are free); later messages are fed again. Then publish the new generation: the arbiter
         * drains the older packets from the rings.
         */
        private void flushTransmitPath(final int epoch)
        {
            for (int injector = 0; injector < INJECTORS; injector++)
            {
                if (null != pendingQp[injector])
                {
                    injectors.idle(injector);
                    pendingQp[injector] = null;
                }
            }
            busySls = 0;
            for (int i = 0; i < known; i++)
            {
                final SendQueue qp = bySchedulerIndex[i];
                if (qos.sl2vl(qp.sl()) < dataVls)
                {
                    scheduler.flush(qp.schedulerIndex);
                    flushQueuePair(qp);
                }
                // an SL that SL2VL drops: its messages are discarded as they are produced, flush or not
            }
            flushQueuePair(port.smpQueue());
            generation = epoch;
            flush.publishGeneration(epoch);
            flushReportDue = true;
        }

        private static void flushQueuePair(final SendQueue qp)
        {
            final long completed = qp.completedByEngine();
            final long end = Math.max(Math.max(qp.flushMark(), qp.started), completed);
            if (end > completed)
            {
                qp.flushPending += end - completed;
                qp.complete(end - 1);
            }
            qp.started = end;
            qp.fed = end;
        }

        /** The arbiter drained the older generation: report each queue pair's flushed messages once. */
        private void reportFlush()
        {
            flushReportDue = false;
            reportFlush(port.smpQueue(), PortDatapath.VL15);
            for (int i = 0; i < known; i++)
            {
                final SendQueue qp = bySchedulerIndex[i];
                reportFlush(qp, qos.sl2vl(qp.sl()));
            }
        }

        private void reportFlush(final SendQueue qp, final int vl)
        {
            final long ringFlushed = qp.ringFlushed;
            final long messages = qp.flushPending + ringFlushed - qp.ringFlushedSeen;
            qp.flushPending = 0;
            qp.ringFlushedSeen = ringFlushed;
            if (messages > 0)
            {
                qp.addFlushed(messages);
                counters.flushedMessages(vl).getAndAddRelease(messages);
                if (SendQueue.KIND_DATA == qp.kind())
                {
                    flushListener.onFlushed(qp, messages);
                }
                else if (SendQueue.KIND_RAW == qp.kind())
                {
                    flushListener.onReadyPacketsFlushed(port.id(), qp.sl(), messages);
                }
            }
        }

        private void writeDataPacket(
            final int cell,
            final SendQueue qp,
            final long seq,
            final int offset,
            final int bytes,
            final int size,
            final int vl,
            final boolean end)
        {
            final int pad = (-bytes) & 3;
            // LRH and BTH written straight into the first cell (at least 64 bytes) as three big-endian words:
            // LRH VL, LVer 0, SL, LNH 2, DLID, PktLen, SLID; BTH RC SEND opcode, SE 0, M 0, PadCnt, TVer 0,
            // P_Key 0xFFFF, resv8a 0, DestQP, AckReq 0, PSN (docs/wire.md)
            final UnsafeBuffer data = cells.data();
            final int at = cells.cellOffset(cell);
            data.putLong(at, lrhWord | LrhFlyweight.word(vl, qp.sl(), 0, 0, Sizes.dwords(size), 0), BIG_ENDIAN);
            BthFlyweight.write(data, at + LrhFlyweight.LENGTH, BthFlyweight.rcSendOpcode(0 == offset, end), pad,
                BthFlyweight.DEFAULT_P_KEY, qp.remoteQpn(), qp.psn);
            qp.psn = (qp.psn + 1) & BthFlyweight.MASK_24;

            final int region = qp.regionOf(seq);
            final DirectBuffer src;
            final int srcIndex;
            if (SendQueue.INLINE_REGION == region)
            {
                src = qp.ring();
                srcIndex = qp.inlineOffsetOf(seq) + offset;
            }
            else
            {
                src = regions.buffer(region);
                srcIndex = qp.offsetOf(seq) + offset;
            }
            if (size <= cellSize)
            {
                // one cell (a small packet): payload, pad and ICRC field written in place
                data.putBytes(at + HEADERS, src, srcIndex, bytes);
                for (int i = 0; i < pad; i++)
                {
                    data.putByte(at + HEADERS + bytes + i, (byte)0);
                }
                data.putInt(at + size - ICRC, 0);
            }
            else
            {
                cells.putBytes(cell, HEADERS, src, srcIndex, bytes);
                cells.putBytes(cell, HEADERS + bytes, zeros, 0, pad + ICRC);
            }
        }

        private void writeReadyPacket(
            final int cell, final SendQueue qp, final long seq, final int bytes, final int size, final int vl)
        {
            final UnsafeBuffer ring = qp.ring();
            final int index = qp.inlineOffsetOf(seq);
            cells.putBytes(cell, 0, ring, index, bytes);
            // VL from SL2VL (or 15), SL of the posting SL (ready data packets); LVer and LNH as given. The LRH is
            // in the first cell (at least 64 bytes), in place.
            final UnsafeBuffer data = cells.data();
            final int at = cells.cellOffset(cell);
            LrhFlyweight.vl(data, at, vl);
            if (SendQueue.KIND_SMP != qp.kind())
            {
                LrhFlyweight.sl(data, at, qp.sl());
            }
            if (size > bytes)
            {
                cells.putBytes(cell, bytes, zeros, 0, size - bytes);
            }
        }
    }
}
