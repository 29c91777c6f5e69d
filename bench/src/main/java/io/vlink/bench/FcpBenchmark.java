package io.vlink.bench;

import io.vlink.core.wire.Fcp;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One flow-control packet through the codec: build the word, encode it with its LPCRC, decode it again (LPCRC and
 * Op checked). The goal: under 10 ns, 0 B/op. The fields change at every call so nothing folds to a constant.
 * Baseline: {@code baseline} builds the word and writes it without a CRC.
 * <p>
 * Run: {@code bench/run FcpBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class FcpBenchmark
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
    private int blocks;

    @Benchmark
    public long encodeDecode()
    {
        final int n = blocks++;
        Fcp.encode(buffer, 8, Fcp.word(Fcp.OP_NORMAL, n, n & 7, n + 64));
        return Fcp.decode(buffer, 8, Fcp.LENGTH);
    }

    @Benchmark
    public int baseline()
    {
        final int n = blocks++;
        buffer.putInt(8, Fcp.word(Fcp.OP_NORMAL, n, n & 7, n + 64));
        return buffer.getInt(8);
    }
}
