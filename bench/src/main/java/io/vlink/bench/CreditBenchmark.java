package io.vlink.bench;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.credit.Credits;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.wire.Sizes;
import io.vlink.core.wire.Fcp;
import org.agrona.BufferUtil;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Link-level flow control costs, on the classes the engine runs: the credit check plus the accounting of one send
 * ({@link CreditTransmitter}, as the arbiter agent does it; goal under 5 ns), and one FCP from request to applied
 * (goal under 15 ns): port a's {@link CreditControl} makes the request, a's transmitter adds its FCTBS, port b's
 * {@link CreditControl} checks and applies it and b's transmitter takes the new credit limit, as the credit and
 * arbiter agents do; also through the bytes (encode with LPCRC, decode and check, apply). All 0 B/op, with a baseline
 * of the same shape as the credit check (a 12-bit add and compare on a field) for the ratio.
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
    private CreditControl b;
    private CreditTransmitter bTransmitter;
    private int vl;
    private long nowNs;
    private int counter;
    private int limit;

    @Setup
    public void setup()
    {
        transmitter = new CreditTransmitter(DATA_VLS);
        aTransmitter = new CreditTransmitter(DATA_VLS);
        bTransmitter = new CreditTransmitter(DATA_VLS);
        a = port();
        b = port();
        for (final CreditControl port : new CreditControl[]{a, b})
        {
            port.up(0);
            port.arm(0);
            port.activate(0);
        }
        limit = Credits.MAX_CREDIT;
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
        if (CreditControl.APPLIED == b.onFcp(word, nowNs))
        {
            final int vl = Fcp.vl(word);
            bTransmitter.onCreditLimit(vl, b.creditLimit(vl));
            return true;
        }
        return false;
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
