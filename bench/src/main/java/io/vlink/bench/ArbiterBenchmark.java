package io.vlink.bench;

import io.vlink.core.arb.ArbiterSource;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.credit.CreditTransmitter;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Arbitration decisions with 8 backlogged data VLs: the {@link VlArbiter} under the OpenSM manual's QoS example
 * tables ({@code seed}: limit 6, high {@code 0:4}, low {@code 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64}) and
 * under full 64-entry tables ({@code full64}), against a plain round-robin over the same 8 ready flags
 * ({@code roundRobin}) and a round-robin asking the same source ({@code roundRobinSource}).
 * Each decision of the arbiter includes the source's VL15/FCP checks, the head size and the credit check of the chosen
 * VL ({@link CreditTransmitter#mayTransmit}: {@code (CL - CR) mod 4096 <= 2048}, the class a port's transmit half
 * runs), and the charge of the packet.
 * <p>
 * Run: {@code bench/run ArbiterBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ArbiterBenchmark
{
    private static final int VLS = 8;

    @Param({"seed", "full64"})
    public String tables;

    private VlArbiter arbiter;
    private Backlog backlog;
    private final boolean[] ready = new boolean[VLS];
    private int roundRobinPtr;

    /**
     * Every VL backlogged with credits to spare: what the engine's agent does over its rings and credit state.
     */
    static final class Backlog implements ArbiterSource
    {
        private final int[] headSize = new int[VlArbiter.VL_COUNT];
        // the check the transmit half makes (PortTransmit.canSend): CL 2000, FCTBS 100, never charged here
        private final CreditTransmitter transmitter = new CreditTransmitter(VLS);
        boolean vl15;
        boolean fcp;

        Backlog()
        {
            for (int vl = 0; vl < VLS; vl++)
            {
                headSize[vl] = 256 << (vl & 3);
                transmitter.onTransmit(vl, 100);
                transmitter.onCreditLimit(vl, 2000);
            }
        }

        @Override
        public boolean hasVl15()
        {
            return vl15;
        }

        @Override
        public boolean hasFcp()
        {
            return fcp;
        }

        @Override
        public int headSize(final int vl)
        {
            return headSize[vl];
        }

        @Override
        public boolean canSend(final int vl, final int size)
        {
            return transmitter.mayTransmit(vl, Sizes.blocks(size));
        }
    }

    @Setup
    public void setup()
    {
        final QosConfig config;
        if ("seed".equals(tables))
        {
            config = QosConfig.seedExample();
        }
        else
        {
            final StringBuilder high = new StringBuilder();
            final StringBuilder low = new StringBuilder();
            for (int i = 0; i < 64; i++)
            {
                high.append(i == 0 ? "" : ",").append(i % VLS).append(':').append(8 + (i * 37) % 120);
                low.append(i == 0 ? "" : ",").append((i * 3) % VLS).append(':').append(16 + (i * 53) % 200);
            }
            config = QosConfig.builder().dataVls(8).highLimit(6).vlarbHigh(high.toString()).vlarbLow(low.toString())
                .build();
        }
        backlog = new Backlog();
        arbiter = new VlArbiter(config, backlog);
        for (int vl = 0; vl < VLS; vl++)
        {
            ready[vl] = true;
        }
    }

    @Benchmark
    public int arbiter()
    {
        return arbiter.next();
    }

    /**
     * The baseline: the next ready flag after the last one served.
     */
    @Benchmark
    public int roundRobin()
    {
        final boolean[] ready = this.ready;
        int index = roundRobinPtr;
        for (int k = 0; k < VLS; k++)
        {
            index = (index + 1) & (VLS - 1);
            if (ready[index])
            {
                roundRobinPtr = index;
                return index;
            }
        }
        return -1;
    }

    /**
     * A second baseline: round-robin over the same source the arbiter asks (VL15 and FCP checks, head size and
     * credit check of each candidate), i.e. the cheapest arbiter the engine could run; the difference to
     * {@link #arbiter()} is the cost of the tables, the counter and the charge.
     */
    @Benchmark
    public int roundRobinSource()
    {
        final Backlog source = backlog;
        if (source.hasVl15())
        {
            return VlArbiter.GRANT_VL15;
        }
        if (source.hasFcp())
        {
            return VlArbiter.GRANT_FCP;
        }
        int index = roundRobinPtr;
        for (int k = 0; k < VLS; k++)
        {
            index = (index + 1) & (VLS - 1);
            final int size = source.headSize(index);
            if (size > 0 && source.canSend(index, size))
            {
                roundRobinPtr = index;
                return index;
            }
        }
        return VlArbiter.GRANT_NONE;
    }
}
