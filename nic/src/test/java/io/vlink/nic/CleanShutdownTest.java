package io.vlink.nic;

import io.vlink.core.capture.PcapReader;
import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.PacketChecker;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Clean shutdown. With threads running (dedicated and shared, back-off idle: fine on 2 cores), traffic flowing and a
 * capture on, closing leaves no thread, no file (but the capture) and no off-heap buffer behind: {@link OffHeap}'s
 * exact accounting and the JVM's direct pool, both read without a garbage collection.
 * The capture holds both directions, each packet with good CRCs.
 */
class CleanShutdownTest
{
    @TempDir
    File dir;

    @Test
    void dedicatedThreads() throws Exception
    {
        runAndClose(ThreadingMode.DEDICATED, false, 4, true);
    }

    @Test
    void dedicatedThreadsWithCapture() throws Exception
    {
        // Chronicle Bytes keeps small direct scratch buffers of its own (not the engine's): the engine's off-heap
        // memory is checked exactly through OffHeap, the JVM's direct pool only in the runs without a capture
        runAndClose(ThreadingMode.DEDICATED, true, 5, false);
    }

    @Test
    void sharedThread() throws Exception
    {
        runAndClose(ThreadingMode.SHARED, false, 1, true);
    }

    @Test
    void splitThreadsWithCapture() throws Exception
    {
        // the receive side on one thread, the transmit side and the capture writer on the other
        runAndClose(ThreadingMode.SPLIT, true, 2, false);
    }

    @Test
    void splitThreads() throws Exception
    {
        runAndClose(ThreadingMode.SPLIT, false, 2, true);
    }

    private void runAndClose(
        final ThreadingMode mode, final boolean withCapture, final int expectedThreads, final boolean checkDirect)
        throws Exception
    {
        final long offHeapBefore = OffHeap.allocatedBytes();
        final long offHeapBuffersBefore = OffHeap.allocatedBuffers();
        final BufferPoolMXBean direct = directPool();
        final long directBytesBefore = direct.getMemoryUsed();
        final Path capture = dir.toPath().resolve("wire.pcap");

        final EngineBuilder builder = Engine.builder().name("shut-" + mode.name().toLowerCase())
            .directory(dir).threading(mode).idle("backoff");
        if (withCapture)
        {
            builder.capture(capture, 1024 * 1024);
        }
        final Engine engine = builder.build();
        final List<Thread> threads = new ArrayList<>(engine.threads());
        final File countersFile = engine.countersFile().file();
        assertEquals(expectedThreads, threads.size());
        assertTrue(countersFile.exists());

        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "link active", () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE);
        final QueuePair qp = a.createQueuePair(1, 0, 1);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        final int[] received = new int[1];
        int posted = 0;
        final long deadline = System.nanoTime() + 20_000_000_000L;
        while (received[0] < 100)
        {
            if (posted < 100 && QueuePair.BACK_PRESSURED != qp.offer(message, 0, 64))
            {
                posted++;
            }
            b.poll(packet -> received[0]++, 16);
            assertTrue(System.nanoTime() < deadline, "traffic timed out");
            Thread.onSpinWait();
        }

        EngineErrors.assertNone(engine.countersFile());
        engine.close();
        for (final Thread thread : threads)
        {
            assertFalse(thread.isAlive(), thread.getName());
        }
        assertFalse(countersFile.exists());
        // OffHeap counts every byte and buffer it gives out and takes back: exactly where it was, no collection needed
        assertEquals(offHeapBefore, OffHeap.allocatedBytes());
        assertEquals(offHeapBuffersBefore, OffHeap.allocatedBuffers());
        if (checkDirect)
        {
            // direct memory the engine takes outside OffHeap (each port's cell buffer: 2048 shared cells of 256 bytes
            // and more) is freed explicitly at close, not left to a collection (which could only lower these figures);
            // the JDK's per-thread scratch buffers of the test's thread may appear or grow by a few KiB (one of
            // 8 KiB measured)
            assertTrue(direct.getMemoryUsed() - directBytesBefore < 64 * 1024,
                "direct memory retained: " + direct.getMemoryUsed() + ", before " + directBytesBefore);
        }

        if (withCapture)
        {
            int data = 0;
            int fcps = 0;
            final boolean[] ifaces = new boolean[2];
            final PacketChecker checker = new PacketChecker(4096);
            try (PcapReader reader = PcapReader.open(capture))
            {
                while (reader.next())
                {
                    assertNull(reader.error());
                    ifaces[reader.iface()] = true;
                    if (reader.isData())
                    {
                        data++;
                        assertEquals(PacketChecker.OK, PacketChecker.verdict(
                            checker.check(reader.buffer(), reader.packetOffset(), reader.packetLength())));
                    }
                    else
                    {
                        fcps++;
                    }
                }
            }
            assertEquals(100, data);
            assertTrue(fcps > 0 && ifaces[0] && ifaces[1], "both directions: FCPs from both ports");
        }
    }

    static BufferPoolMXBean directPool()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if ("direct".equals(pool.getName()))
            {
                return pool;
            }
        }
        throw new IllegalStateException("no direct buffer pool");
    }
}
