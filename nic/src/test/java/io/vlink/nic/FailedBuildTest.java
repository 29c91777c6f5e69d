package io.vlink.nic;

import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import io.vlink.nic.memory.OffHeap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A {@code build()} that fails after it started making things (the counters file, the capture's ring,
 * the ports' buffers) gives every one of them back: no file in the directory, no off-heap memory, and the same name
 * can be built again at once.
 */
class FailedBuildTest
{
    @TempDir
    File dir;

    @TempDir
    File warmDir;

    @Test
    void aUdpPortInUseLeavesNoFileAndNoMemory() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (DatagramChannel taken = DatagramChannel.open())
        {
            taken.bind(new InetSocketAddress(loopback, 0));
            final InetSocketAddress inUse = (InetSocketAddress)taken.getLocalAddress();
            final EngineBuilder builder = Engine.builder().name("late").directory(dir)
                .threading(ThreadingMode.INVOKER).capture(dir.toPath().resolve("wire.pcap"))
                .udp(inUse, new InetSocketAddress(loopback, 9), 1, 2);
            assertLeavesNothing(builder, UncheckedIOException.class, "cannot bind UDP link to " + inUse);
        }
    }

    @Test
    void theDirectoriesBuildCreatedAreRemovedAgain() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (DatagramChannel taken = DatagramChannel.open())
        {
            taken.bind(new InetSocketAddress(loopback, 0));
            final InetSocketAddress inUse = (InetSocketAddress)taken.getLocalAddress();
            final File nested = new File(new File(dir, "made"), "by-build");
            final EngineBuilder builder = Engine.builder().name("nested").directory(nested)
                .threading(ThreadingMode.INVOKER).udp(inUse, new InetSocketAddress(loopback, 9), 1, 2);
            assertThrows(UncheckedIOException.class, builder::build);
            assertArrayEquals(new String[0], dir.list(), "neither directory build() created is left");

            // a directory that was there before stays, with what it holds
            final File existing = new File(dir, "existing");
            assertTrue(new File(existing, "sub").mkdirs());
            final EngineBuilder inExisting = Engine.builder().name("nested").directory(new File(existing, "new"))
                .threading(ThreadingMode.INVOKER).udp(inUse, new InetSocketAddress(loopback, 9), 1, 2);
            assertThrows(UncheckedIOException.class, inExisting::build);
            assertArrayEquals(new String[] {"sub"}, existing.list());
        }
    }

    @Test
    void aFailureAfterTheFirstPortWasBuiltLeavesNoFileAndNoMemory() throws Exception
    {
        final Path capture = dir.toPath().resolve("wire.pcap");
        final int[] calls = {0};
        final UnaryOperator<Link> failOnSecond = (link) ->
        {
            if (1 == calls[0]++)
            {
                throw new IllegalStateException("wrapper refused port 1");
            }
            return link;
        };
        // a capture's file writes take the JDK's per-thread temporary direct buffer the first time this thread writes
        // a file: kept for the thread's life, whichever test runs first, so taken here before anything is measured
        try (Engine warm = Engine.builder().name("warm").directory(warmDir).threading(ThreadingMode.INVOKER)
            .capture(warmDir.toPath().resolve("warm.pcap")).build())
        {
            warm.invoke();
        }
        final EngineBuilder builder = Engine.builder().name("later").directory(dir).threading(ThreadingMode.INVOKER)
            .capture(capture).linkWrapper(failOnSecond);
        assertLeavesNothing(builder, IllegalStateException.class, "wrapper refused port 1");
        assertEquals(2, calls[0], "the first port was built before the failure");
    }

    private void assertLeavesNothing(
        final EngineBuilder builder, final Class<? extends RuntimeException> type, final String message)
    {
        final long offHeapBefore = OffHeap.allocatedBytes();
        final BufferPoolMXBean direct = CleanShutdownTest.directPool();
        final long directBefore = direct.getMemoryUsed();

        final RuntimeException failed = assertThrows(type, builder::build);
        assertTrue(failed.getMessage().startsWith(message), failed.getMessage());

        assertArrayEquals(new String[0], dir.list(), "no counters file, no capture");
        assertEquals(offHeapBefore, OffHeap.allocatedBytes(), "every off-heap buffer freed");
        // no direct memory kept, the cell buffers (512 KiB a port) included; the JDK's per-thread scratch buffers of
        // this thread's file writes may appear or grow by a few KiB whichever test ran before (8 KiB seen)
        final long kept = direct.getMemoryUsed() - directBefore;
        assertTrue(kept < 64 * 1024, "direct memory kept: " + kept + " bytes");
        // and the name is free again: a working configuration builds at once
        try (Engine engine = builder.loopback().linkWrapper(UnaryOperator.identity()).build())
        {
            assertEquals(2, engine.ports().size());
        }
    }
}
