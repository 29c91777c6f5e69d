package io.vlink.bench;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.Credits;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.port.FcpRequestRing;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.PortCredit;
import io.vlink.core.port.ReceiveBuffers;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;
import io.vlink.core.wire.Fcp;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
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
 * Link-level flow control costs, on the classes a port runs: the credit check plus the accounting of one send
 * ({@link CreditTransmitter}, as a port's transmit half does it; goal under 5 ns), and one FCP from request to applied
 * (goal under 15 ns): port a's {@link CreditControl} makes the request and a's transmitter adds its FCTBS (what a
 * port's credit and transmit halves call), port b's credit half ({@link PortCredit#onFcp}) checks and applies it,
 * publishes the new credit limit and counts it; also through the bytes (encode with LPCRC, decode and check, apply).
 * All 0 B/op, with a baseline of the same shape as the credit check (a 12-bit add and compare on a field) for the
 * ratio.
 * <p>
 * Run: {@code bench/run CreditBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class CreditBenchmark
{
    private static final int DATA_VLS = 8;
    /** Sends per invocation of {@link #creditCheckAndSend()}: 8 per VL. */
    private static final int SENDS = 64;
    private static final int BLOCKS = 4;

    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private CreditTransmitter transmitter;
    private CreditControl a;
    private CreditTransmitter aTransmitter;
    private PortCredit b;
    private CountersFile countersFile;
    private File directory;
    private int vl;
    private long nowNs;
    private int counter;
    private int limit;

    @Setup
    public void setup() throws Exception
    {
        transmitter = new CreditTransmitter(DATA_VLS);
        aTransmitter = new CreditTransmitter(DATA_VLS);
        a = port();
        a.up(0);
        a.arm(0);
        a.activate(0);
        // port b is the credit half a port runs (PortCredit): what it does with an FCP is what ships
        directory = Files.createTempDirectory("vlink-credit-bench").toFile();
        countersFile = CountersFile.create(directory, "bench-credit", 1024, 64 * 1024, SystemEpochClock.INSTANCE);
        final PortCounterSet counters = new PortCounterSet(countersFile, 0, DATA_VLS);
        final PortConfig config = PortConfig.builder().qos(QosConfig.opensmDefaults(DATA_VLS))
            .bufferBlocks(2 * Credits.MAX_CREDIT).fcpPeriodNs(1_000_000).automatic(false).build();
        b = new PortCredit(config, new ReceiveBuffers()
        {
            @Override
            public boolean store(final int vl, final DirectBuffer buffer, final int offset, final int size)
            {
                return false;
            }

            @Override
            public long releasedBlocks(final int vl)
            {
                return 0;
            }
        }, null, new FcpRequestRing(new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            FcpRequestRing.MIN_CAPACITY + FcpRequestRing.TRAILER_LENGTH, 64))), new CreditLimits(),
            counters.credit(), state -> { });
        b.up(0);
        b.arm(0);
        b.activate(0);
        limit = Credits.MAX_CREDIT;
    }

    @TearDown
    public void tearDown()
    {
        countersFile.close();
        IoUtil.delete(directory, true);
    }

    private static CreditControl port()
    {
        return new CreditControl(DATA_VLS, 2 * Credits.MAX_CREDIT, Sizes.BLOCK_LENGTH, 1_000_000,
            FcpSchedule.DEFAULT_EARLY_THRESHOLD_BLOCKS, false, CreditControl.NO_SILENCE_LIMIT, (state) -> {});
    }

    /**
     * The shape of the credit check with nothing behind it: a 12-bit add and compare on a field.
     *
     * @return the comparison, for the blackhole.
     */
    @Benchmark
    public boolean baseline()
    {
        counter = (counter + BLOCKS) & Credits.MASK;
        return ((limit - counter) & Credits.MASK) <= Credits.MAX_CREDIT;
    }

    /**
     * 64 sends of 4 blocks over 8 VLs, each a credit check and an FCTBS update, then the CL of every VL is moved
     * on as an FCP would (one CL store per 8 sends): the score is per send.
     *
     * @return how many passed (all of them), for the blackhole.
     */
    @Benchmark
    @OperationsPerInvocation(SENDS)
    public int creditCheckAndSend()
    {
        final CreditTransmitter transmitter = this.transmitter;
        int sent = 0;
        for (int i = 0; i < SENDS; i++)
        {
            if (transmitter.tryTransmit(i & (DATA_VLS - 1), BLOCKS))
            {
                sent++;
            }
        }
        for (int vl = 0; vl < DATA_VLS; vl++)
        {
            transmitter.onCreditLimit(vl, transmitter.blocksSent(vl) + Credits.MAX_CREDIT);
        }
        return sent;
    }

    /**
     * Port a builds the FCP of one VL (Op by state and FCCL, restarting the VL's schedule; then its FCTBS) and port b
     * applies it (validates Op and VL, checks the link state and staleness, sets ABR and CL, hands CL to its
     * transmitter), on a rotating VL.
     *
     * @return whether b applied it, for the blackhole.
     */
    @Benchmark
    public boolean buildAndApplyFcp()
    {
        final int vl = (this.vl + 1) & (DATA_VLS - 1);
        this.vl = vl;
        final long nowNs = this.nowNs += 100;
        return apply(aTransmitter.fcp(a.fcpRequest(vl, nowNs)), nowNs);
    }

    private boolean apply(final int word, final long nowNs)
    {
        b.onFcp(word, nowNs);
        return b.control().creditLimit(Fcp.vl(word)) == Fcp.fccl(word);
    }

    /**
     * As {@link #buildAndApplyFcp()}, through the wire bytes: a builds the FCP and encodes it with its LPCRC into a
     * buffer, b decodes it (length, LPCRC, Op), validates and applies it.
     *
     * @return whether b applied it, for the blackhole.
     */
    @Benchmark
    public boolean encodeDecodeApplyFcp()
    {
        final int vl = (this.vl + 1) & (DATA_VLS - 1);
        this.vl = vl;
        final long nowNs = this.nowNs += 100;
        final int length = Fcp.encode(buffer, 8, aTransmitter.fcp(a.fcpRequest(vl, nowNs)));
        final long result = Fcp.decode(buffer, 8, length);
        return Fcp.OK == Fcp.verdict(result) && apply(Fcp.word(result), nowNs);
    }
}
