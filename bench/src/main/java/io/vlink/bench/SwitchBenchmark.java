package io.vlink.bench;

import io.vlink.core.crc.Crc16;
import io.vlink.core.credit.Credits;
import io.vlink.core.fabric.Crossbar;
import io.vlink.core.fabric.SwitchSl2Vl;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.File;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * One packet through a switch, on the class the fabric runs ({@link Switch}): a 64-byte packet arrives at port 1
 * and leaves by port 2 on another VL. {@link #switchHop} is everything the switch does for it in one duty cycle:
 * the receive checks (length, VCRC, ICRC), the input FIFO, the forwarding table, SL2VL, the crossbar, the output
 * port's VL arbitration and credit check, the one copy onto the output link, the VL rewrite with the VCRC
 * recomputed, and the switch's share of the link work (its counters, FCPs it owes). The peers at both ends are the
 * benchmark: it writes 16 packets into port 1's link, runs one duty cycle of the switch, drains port 2's link and
 * returns credit to port 2 with an FCP every 64 packets; the figure is per packet. {@link #forwardStep} is the
 * forwarding step alone (table, SL2VL, crossbar hand-over, copy, VL rewrite and VCRC). {@link #baseline} is the
 * least any hop does with a packet: one 64-byte copy and one CRC-16 over it. Goal for the forwarding step: under
 * 40 ns, 0 B/op.
 * <p>
 * Run: {@code bench/run SwitchBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class SwitchBenchmark
{
    private static final int SIZE = 64;
    private static final int DATA_VLS = 8;
    private static final int OUT_LID = 3;
    private static final int FCP_EVERY = 64;
    /** Packets per duty cycle of the switch: a cycle's fixed costs (clock, counters, ring positions) spread over them. */
    private static final int BURST = 16;

    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[SIZE + Sizes.VCRC_LENGTH]);
    private final UnsafeBuffer copy = new UnsafeBuffer(new byte[SIZE + Sizes.VCRC_LENGTH]);
    private File directory;
    private int[] lft;
    private SwitchSl2Vl sl2vl;
    private Crossbar crossbar;
    private CountersFile peerCounters;
    private Switch sw;
    private Link in;
    private Link out;
    private int received;
    private int sent;
    private int packets;
    private final FrameHandler drain = this::onFrame;
    private final FrameHandler ignore = (type, buffer, offset, length) -> { };

    @Setup(Level.Trial)
    public void setup() throws Exception
    {
        directory = Files.createTempDirectory("vlink-switch-bench").toFile();
        final QosConfig qos = QosConfig.builder().dataVls(DATA_VLS)
            .sl2vl(1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).build();
        lft = new int[OUT_LID + 1];
        lft[OUT_LID] = 2;
        sl2vl = new SwitchSl2Vl(3, qos, qos, new int[]{0, DATA_VLS, DATA_VLS});
        crossbar = new Crossbar(3, 16);
        sw = Switch.builder().name("bench-switch").directory(directory).ports(2, 1, lft).qos(qos, qos)
            .linkTimeoutNs(Long.MAX_VALUE / 4).build();
        peerCounters = CountersFile.create(directory, "bench-peers", 1024, 64 * 1024, SystemEpochClock.INSTANCE);
        final LoopbackLink[] a = LoopbackLink.pair(LoopbackLink.DEFAULT_CAPACITY, sw.linkCounters(1),
            new PortCounterSet(peerCounters, 1, DATA_VLS).link());
        final LoopbackLink[] b = LoopbackLink.pair(LoopbackLink.DEFAULT_CAPACITY, sw.linkCounters(2),
            new PortCounterSet(peerCounters, 2, DATA_VLS).link());
        sw.attach(1, a[0]);
        sw.attach(2, b[0]);
        in = a[1];
        out = b[1];
        sw.start();
        // both peers initialize and arm at once: init FCPs, then normal FCPs with a full window, on every VL
        for (final Link peer : new Link[]{in, out})
        {
            for (final int op : new int[]{Fcp.OP_INIT, Fcp.OP_NORMAL})
            {
                for (int vl = 0; vl < DATA_VLS; vl++)
                {
                    fcp(peer, op, 0, vl, Credits.MAX_CREDIT);
                }
            }
        }
        for (int i = 0; i < 100 && !sw.linkState(2).maySendData(); i++)
        {
            sw.doWork();
            in.poll(ignore, 1024);
            out.poll(ignore, 1024);
        }
        if (!sw.linkState(1).maySendData() || !sw.linkState(2).maySendData())
        {
            throw new IllegalStateException("the switch's ports did not come up: " + sw.linkState(1) + ", " +
                sw.linkState(2));
        }
        new LrhFlyweight().wrap(frame, 0).vl(0).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(OUT_LID).slid(2);
        new BthFlyweight().wrap(frame, LrhFlyweight.LENGTH).destQp(1);
        new PacketFramer().frame(frame, 0, SIZE);
    }

    private static void fcp(final Link peer, final int op, final int fctbs, final int vl, final int fccl)
    {
        final int offset = peer.tryClaim(Link.LINK_FRAME, Fcp.LENGTH);
        if (offset < 0)
        {
            throw new IllegalStateException("peer link full");
        }
        Fcp.encode(peer.buffer(), offset, Fcp.word(op, fctbs & Credits.MASK, vl, fccl & Credits.MASK));
        peer.commit(offset);
    }

    private void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        if (Link.DATA_FRAME == frameType)
        {
            received += Sizes.blocks(length - Sizes.VCRC_LENGTH);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        sw.close();
        in.close();
        out.close();
        peerCounters.close();
        IoUtil.delete(directory, true);
    }

    /**
     * @return the CRC, so the work is not dead.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int baseline()
    {
        int crc = 0;
        for (int i = 0; i < BURST; i++)
        {
            copy.putBytes(0, frame, 0, SIZE);
            crc += Crc16.compute(copy, 0, SIZE);
        }
        return crc;
    }

    /**
     * The forwarding step alone, on {@code core}'s classes as the switch calls them: the forwarding table, SL2VL for
     * the (input, output) pair, the crossbar's hand-over of the input FIFO's head to the output VL, the copy onto
     * the output buffer and the VL rewrite with the VCRC patched from the one the packet arrived with. No receive
     * checks, no link.
     *
     * @return the FIFO picked plus the VCRC's length, so the work is not dead.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int forwardStep()
    {
        int result = 0;
        for (int i = 0; i < BURST; i++)
        {
            final int out = lft[LrhFlyweight.dlid(frame, 0)];
            final int vl = sl2vl.map(1, out, LrhFlyweight.sl(frame, 0));
            crossbar.head(crossbar.fifo(1, 0), out, vl, SIZE, 0);
            final int size = crossbar.headSize(out, vl);
            final int fifo = crossbar.take(out, vl);
            // the VCRC the packet arrived with: the switch keeps it beside its input FIFO
            final int vcrc = frame.getShort(size, Crc16.CRC_BYTE_ORDER) & 0xFFFF;
            copy.putBytes(0, frame, 0, size);
            result += fifo + PacketFramer.relabel(copy, 0, size, vl, vcrc);
        }
        return result;
    }

    /**
     * The same step with the hop's VCRC computed over the packet again instead of patched: what the VL rewrite costs
     * without the VCRC the packet arrived with.
     *
     * @return the FIFO picked plus the VCRC, so the work is not dead.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int forwardStepFullCrc()
    {
        int result = 0;
        for (int i = 0; i < BURST; i++)
        {
            final int out = lft[LrhFlyweight.dlid(frame, 0)];
            final int vl = sl2vl.map(1, out, LrhFlyweight.sl(frame, 0));
            crossbar.head(crossbar.fifo(1, 0), out, vl, SIZE, 0);
            final int size = crossbar.headSize(out, vl);
            final int fifo = crossbar.take(out, vl);
            copy.putBytes(0, frame, 0, size);
            LrhFlyweight.vl(copy, 0, vl);
            result += fifo + Crc16.compute(copy, 0, size);
        }
        return result;
    }

    /**
     * @return the switch's work count, so the work is not dead.
     */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public int switchHop()
    {
        for (int i = 0; i < BURST; i++)
        {
            final int offset = in.tryClaim(Link.DATA_FRAME, SIZE + Sizes.VCRC_LENGTH);
            if (offset >= 0)
            {
                in.buffer().putBytes(offset, frame, 0, SIZE + Sizes.VCRC_LENGTH);
                in.commit(offset);
                sent += Sizes.blocks(SIZE);
            }
        }
        final int work = sw.doWork();
        out.poll(drain, 2 * BURST);
        in.poll(ignore, 2 * BURST);
        packets += BURST;
        if (packets >= FCP_EVERY)
        {
            // the input peer's FCTBS keeps the switch's ABR honest; the output peer returns the credit it freed
            packets = 0;
            fcp(in, Fcp.OP_NORMAL, sent, 0, Credits.creditLimit(sent, Credits.MAX_CREDIT));
            fcp(out, Fcp.OP_NORMAL, 0, 1, Credits.creditLimit(received, Credits.MAX_CREDIT));
        }
        return work;
    }
}
