package io.vlink.nic.capture;

import io.vlink.core.capture.Pcap;
import io.vlink.core.capture.PcapReader;
import io.vlink.nic.link.Link;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.SystemEpochNanoClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A capture whose file fails (cannot be created, the file system fills up, a mapped store faults) stops, is counted
 * and reported once, and never throws into the agent that runs it; what it wrote decodes.
 */
class CaptureFailureTest
{
    private static final int FRAME = 1024;

    @TempDir
    Path dir;

    private final AtomicCounter drops = counter(0);
    private final AtomicCounter errors = counter(1);
    private final List<Throwable> reported = new ArrayList<>();
    private final UnsafeBuffer frame = new UnsafeBuffer(new byte[FRAME]);
    private Path mount;

    private static AtomicCounter counter(final int id)
    {
        return new AtomicCounter(new UnsafeBuffer(new byte[4 * CountersReader.COUNTER_LENGTH]), id);
    }

    @AfterEach
    void unmount() throws Exception
    {
        if (null != mount)
        {
            // lazily: the mapping may still be released in the background
            new ProcessBuilder("umount", "-l", mount.toString()).inheritIO().start().waitFor();
            Files.deleteIfExists(mount);
        }
    }

    private CaptureTap tap(final Path file, final CaptureTap.FileOpener opener)
    {
        return new CaptureTap(file, 1 << 20, SystemEpochNanoClock.INSTANCE, drops, errors, reported::add, opener);
    }

    /** Records {@code frames} frames and runs the tap's agent as the engine would; nothing may throw. */
    private static void run(final CaptureTap tap, final Agent agent, final UnsafeBuffer frame, final int frames)
        throws Exception
    {
        for (int i = 0; i < frames; i++)
        {
            frame.putInt(0, i);
            tap.record(i & 1, Link.DATA_FRAME, frame, 0, FRAME);
            if (i % 64 == 63)
            {
                agent.doWork();
            }
        }
        agent.doWork();
    }

    /** A file that takes {@code good} appends (the file header is one), then fails with {@code failure}. */
    private static CaptureTap.FileOpener failingAfter(final int good, final Throwable failure)
    {
        return (path, chunk, max) ->
        {
            final CaptureFile real = new MappedCaptureFile(path, chunk, max);
            return new CaptureFile()
            {
                private int appends;

                @Override
                public void append(final DirectBuffer buffer, final int offset, final int length) throws IOException
                {
                    if (appends++ == good)
                    {
                        if (failure instanceof IOException)
                        {
                            throw (IOException)failure;
                        }
                        throw (Error)failure;
                    }
                    real.append(buffer, offset, length);
                }

                @Override
                public long length()
                {
                    return real.length();
                }

                @Override
                public void close() throws IOException
                {
                    real.close();
                }
            };
        };
    }

    private void assertStoppedOnceAndDecodable(final CaptureTap tap, final Path file, final long records)
        throws IOException
    {
        assertTrue(tap.stopped());
        assertEquals(1, errors.get(), "counted once");
        assertEquals(1, reported.size(), "reported once");
        assertTrue(reported.get(0).getMessage().startsWith("capture " + file + " stopped after " + records +
            " records: "), reported.get(0).getMessage());
        assertEquals(0, drops.get(), "frames after the stop are not drops");
        assertEquals(records, tap.records());
        assertEquals(Pcap.FILE_HEADER_LENGTH + records * (Pcap.RECORD_OVERHEAD + FRAME), Files.size(file),
            "cut to the whole records");
        try (PcapReader reader = PcapReader.open(file))
        {
            int read = 0;
            while (reader.next())
            {
                assertNull(reader.error());
                assertEquals(read, reader.buffer().getInt(reader.packetOffset()), "in order");
                read++;
            }
            assertEquals(records, read);
            assertEquals(-1, reader.truncatedAt());
        }
    }

    @Test
    void aFileThatFailsToGrowStopsTheCapture() throws Exception
    {
        final Path file = dir.resolve("fails.pcap");
        final CaptureTap tap = tap(file, failingAfter(1 + 100, new IOException("No space left on device")));
        final Agent agent = tap.agent();
        agent.onStart();
        run(tap, agent, frame, 1000);
        agent.onClose();
        tap.close();
        assertStoppedOnceAndDecodable(tap, file, 100);
        assertTrue(reported.get(0).getMessage().endsWith("cannot write record 101: No space left on device; the " +
            "engine goes on without it"), reported.get(0).getMessage());
    }

    @Test
    void aFaultingMappedStoreStopsTheCaptureToo() throws Exception
    {
        // what the JVM raises when a store into a mapped page cannot be backed
        final Path file = dir.resolve("faults.pcap");
        final CaptureTap tap = tap(file, failingAfter(1 + 7,
            new InternalError("a fault occurred in an unsafe memory access operation")));
        final Agent agent = tap.agent();
        agent.onStart();
        run(tap, agent, frame, 300);
        agent.onClose();
        tap.close();
        assertStoppedOnceAndDecodable(tap, file, 7);
    }

    @Test
    void aFileThatCannotBeCreatedStopsTheCapture() throws Exception
    {
        final Path file = dir.resolve("missing").resolve("x.pcap");
        final CaptureTap tap = tap(file, MappedCaptureFile::new);
        final Agent agent = tap.agent();
        agent.onStart();
        run(tap, agent, frame, 10);
        agent.onClose();
        tap.close();
        assertTrue(tap.stopped());
        assertEquals(1, errors.get());
        assertEquals(1, reported.size());
        assertEquals(0, drops.get());
        assertFalse(Files.exists(file));
    }

    @Test
    void theFileGrowsInStepsOnlyWhileTheFileSystemHasSpace() throws Exception
    {
        final Path file = dir.resolve("steps.pcap");
        final long[] free = {MappedCaptureFile.EXTEND_STEP};
        final MappedCaptureFile capture = new MappedCaptureFile(file, 1 << 20, 2048, () -> free[0]);
        final UnsafeBuffer header = new UnsafeBuffer(new byte[Pcap.FILE_HEADER_LENGTH]);
        Pcap.writeFileHeader(header, 0);
        capture.append(header, 0, header.capacity());
        // records of FRAME bytes, as many as the first step holds
        Pcap.writeRecordHeader(frame, 0, 0, Pcap.ERF_TYPE_INFINIBAND, 0, false, FRAME - Pcap.RECORD_OVERHEAD);
        final long fit = (MappedCaptureFile.EXTEND_STEP - Pcap.FILE_HEADER_LENGTH) / FRAME;
        for (int i = 0; i < fit; i++)
        {
            capture.append(frame, 0, FRAME);
        }
        free[0] = MappedCaptureFile.EXTEND_STEP - 1;
        final long before = capture.length();
        final IOException full = assertThrows(IOException.class, () -> capture.append(frame, 0, FRAME));
        assertEquals("No space left on device (1048575 bytes free, the capture grows by 1048576 at a time)",
            full.getMessage());
        assertEquals(before, capture.length(), "nothing of the record is written");
        capture.close();
        assertEquals(before, Files.size(file));
    }

    @Test
    void aRealFileSystemThatFillsUp() throws Exception
    {
        mount = Files.createTempDirectory("vlink-full-fs");
        boolean mounted;
        try
        {
            mounted = "root".equals(System.getProperty("user.name")) && new ProcessBuilder(
                "mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mount.toString()).start().waitFor() == 0;
        }
        catch (final IOException ex)
        {
            mounted = false;
        }
        if (!mounted)
        {
            Files.delete(mount);
            mount = null;
        }
        assumeTrue(mounted, "a full file system needs a small tmpfs, which needs root and mount: skipped");
        final Path file = mount.resolve("full.pcap");
        final CaptureTap tap = tap(file, MappedCaptureFile::new);
        final Agent agent = tap.agent();
        agent.onStart();
        run(tap, agent, frame, 8000); // 8 MB of records into 3 MB
        agent.onClose();
        tap.close();
        assertTrue(tap.records() > 1000, tap.records() + " records");
        assertStoppedOnceAndDecodable(tap, file, tap.records());
    }
}
