package io.vlink.bench;

import io.vlink.core.crc.Crc16;
import io.vlink.core.wire.Icrc;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.PacketFramer;
import org.agrona.concurrent.UnsafeBuffer;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * The link CRCs against the JDK's intrinsified CRC-32 over the same bytes, in the same run (the goal: VCRC at least a
 * quarter of CRC32's bytes per second at 4096 bytes). Also the ICRC of a local packet (masked headers from a
 * scratch array, the rest straight from the buffer), framing (ICRC + VCRC) and checking a packet.
 * <p>
 * Bytes per second = size / (ns/op) GB/s. Run: {@code bench/run CrcBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class CrcBenchmark
{
    @Param({"64", "256", "4096"})
    int size;

    private byte[] bytes;
    private UnsafeBuffer buffer;
    private UnsafeBuffer packet;
    private final CRC32 crc32 = new CRC32();
    private final Icrc icrc = new Icrc();
    private final PacketFramer framer = new PacketFramer();
    private final PacketChecker checker = new PacketChecker(4096);

    @Setup
    public void setup()
    {
        bytes = new byte[size];
        new SplittableRandom(42).nextBytes(bytes);
        buffer = new UnsafeBuffer(bytes);

        // a local packet of `size` bytes LRH through ICRC, plus the VCRC
        packet = new UnsafeBuffer(new byte[size + 2]);
        packet.putBytes(0, bytes, 0, size);
        new LrhFlyweight().wrap(packet, 0).vl(1).lnh(LrhFlyweight.LNH_LOCAL);
        framer.frame(packet, 0, size);
    }

    @Benchmark
    public int vcrc()
    {
        return Crc16.compute(buffer, 0, size);
    }

    /** The previous {@code Crc16} (slicing-by-16 at every length), in the same run: the before of the after. */
    @Benchmark
    public int vcrcSlicing16()
    {
        return Crc16Slicing16.compute(buffer, 0, size);
    }

    @Benchmark
    public long crc32()
    {
        final CRC32 crc32 = this.crc32;
        crc32.reset();
        crc32.update(bytes, 0, size);
        return crc32.getValue();
    }

    @Benchmark
    public int icrc()
    {
        return icrc.compute(packet, 0, size);
    }

    @Benchmark
    public int frame()
    {
        return framer.frame(packet, 0, size);
    }

    @Benchmark
    public int check()
    {
        return checker.check(packet, 0, size + 2);
    }
}
