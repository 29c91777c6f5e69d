package io.vlink.bench;

import io.vlink.nic.link.SipHash;
import org.agrona.BufferUtil;
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

import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.util.concurrent.TimeUnit;

/**
 * The cost of authenticating one UDP datagram (the 32-byte link header and a frame of {@code size} bytes): the UDP
 * link's SipHash-2-4 against the JDK's HMAC-SHA256 (the obvious alternative), in the same run.
 * <p>
 * Run: {@code bench/run MacBenchmark -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class MacBenchmark
{
    @Param({"64", "256", "1024", "4096"})
    int size;

    private UnsafeBuffer datagram;
    private ByteBuffer view;
    private Mac hmac;
    private final byte[] tag = new byte[32];
    private long k0 = 0x0706050403020100L;

    @Setup
    public void setUp() throws GeneralSecurityException
    {
        datagram = new UnsafeBuffer(BufferUtil.allocateDirectAligned(32 + size + 64, 64));
        for (int i = 0; i < 32 + size; i++)
        {
            datagram.putByte(i, (byte)i);
        }
        view = datagram.byteBuffer().duplicate();
        hmac = Mac.getInstance("HmacSHA256");
        hmac.init(new SecretKeySpec(new byte[16], "HmacSHA256"));
    }

    @Benchmark
    public long sipHash()
    {
        return SipHash.hash(k0++, 0x0f0e0d0c0b0a0908L, datagram, 0, 32 + size);
    }

    @Benchmark
    public byte hmacSha256() throws ShortBufferException
    {
        view.limit(32 + size).position(0);
        hmac.update(view);
        hmac.doFinal(tag, 0);
        return tag[0];
    }
}
