package io.vlink.nic.status;

import org.agrona.concurrent.CachedEpochClock;
import org.agrona.concurrent.errors.ErrorLogReader;
import org.agrona.concurrent.status.CountersReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class CountersFileTest
{
    @TempDir
    File dir;

    private final CachedEpochClock clock = new CachedEpochClock();

    @Test
    void aPortAttachedFromAnotherReaderSeesTheSameCountersLive()
    {
        clock.update(System.currentTimeMillis());
        try (CountersFile counters = CountersFile.create(dir, "attach", 512, 64 * 1024, clock))
        {
            new PortCounterSet(counters, 0, 2);
            // the writers' side: this test is in the counters' package and writes the allocated counters directly
            final PortCounterSet port = new PortCounterSet(counters, 1, 4);
            try (CountersFileReader reader = CountersFileReader.open(counters.file()))
            {
                final PortCounters view = PortCounters.attach(reader.counters(), 1, 4);
                port.rxAbr[3].setRelease(1234);
                port.rxPackets[PortCounters.VL15].incrementRelease();
                port.discards[2].getAndAddRelease(7);
                port.linkTransitions.setRelease(3);
                assertEquals(1234, view.rxAbr(3).get(), "the writer's value, not port 0's");
                assertEquals(1, view.rxPackets(PortCounters.VL15).get());
                assertEquals(7, view.discards(2).get());
                assertEquals(3, view.linkTransitions().get());
                assertEquals(0, view.rxAbr(0).get());
                port.rxAbr[3].setRelease(1235);
                assertEquals(1235, view.rxAbr(3).get(), "live");

                final IllegalStateException missing =
                    assertThrows(IllegalStateException.class, () -> PortCounters.attach(reader.counters(), 0, 4));
                assertTrue(missing.getMessage().contains("of port 0 vl 2"), missing.getMessage());
            }
        }
    }

    @Test
    void anotherReaderSeesEveryCounterWithItsKeyAndValueThenTheFileIsGoneOnClose()
    {
        // The PID-reuse check compares the file's start time with the process's: use the real time.
        final long start = System.currentTimeMillis();
        clock.update(start);
        final File file;
        try (CountersFile counters = CountersFile.create(dir, "e1", 512, 64 * 1024, clock))
        {
            file = counters.file();
            assertEquals(new File(dir, "e1-" + ProcessHandle.current().pid() + ".counters"), file);
            final PortCounterSet port = new PortCounterSet(counters, 1, 8);
            port.txPackets[3].incrementRelease();
            port.txBytes[3].getAndAddRelease(4096);
            port.txPackets[15].incrementRelease();
            port.discards[2].getAndAddRelease(7);
            port.fcpSent.getAndAddRelease(11);
            assertNull(port.view().creditStalls(15), "VL15 is never credited");
            assertNull(port.view().txPackets(8), "a VL the port lacks");

            try (CountersFileReader reader = CountersFileReader.open(file))
            {
                assertEquals("e1", reader.name());
                assertEquals(ProcessHandle.current().pid(), reader.pid());
                assertEquals(start, reader.startTimestampMs());
                assertEquals(EngineLiveness.LIVE, reader.liveness(start + 1_000, 5_000));
                assertEquals(EngineLiveness.SILENT, reader.liveness(start + 6_000, 5_000));
                counters.heartbeat(start + 6_000);
                assertEquals(EngineLiveness.LIVE, reader.liveness(start + 6_000, 5_000));

                final Map<String, Long> values = new HashMap<>();
                final CountersReader countersReader = reader.counters();
                countersReader.forEach((counterId, typeId, keyBuffer, label) ->
                {
                    final CounterType type = CounterType.ofTypeId(typeId);
                    assertNotNull(type, label);
                    assertEquals(1, CounterKey.port(keyBuffer));
                    final String key = type.counterName() + "/" + CounterKey.vl(keyBuffer) + "/" +
                        CounterKey.reason(keyBuffer);
                    assertNull(values.put(key, countersReader.getCounterValue(counterId)), key);
                });
                assertEquals(1L, values.get("tx_packets/3/-1"));
                assertEquals(4096L, values.get("tx_bytes/3/-1"));
                assertEquals(1L, values.get("tx_packets/15/-1"));
                assertEquals(0L, values.get("rx_packets/7/-1"));
                assertEquals(7L, values.get("discards/-1/2"));
                assertEquals(11L, values.get("fcp_sent/-1/-1"));
                assertFalse(values.containsKey("credit_stalls/15/-1"));
                assertEquals(DiscardReasons.count(), values.keySet().stream().filter((k) -> k.startsWith("discards/")).count());
                assertEquals(0L, values.get("tx_flushed_messages/15/-1"));
                assertEquals(0L, values.get("tx_cells/15/-1"));
                // 8 data VLs + VL15 have tx/rx packets/bytes, deliveries, flushed messages and cells; 8 have stalls,
                // free blocks and the credit gauges FCTBS, CL and ABR.
                assertEquals(9 * 7 + 8 * 5 + DiscardReasons.count() + 24, values.size());
            }
        }
        assertFalse(file.exists());
    }

    @Test
    void distinctErrorsAreStoredOnceAndCounted()
    {
        try (CountersFile counters = CountersFile.create(dir, "errs", 16, 64 * 1024, clock))
        {
            final ErrorLogHandler handler = new ErrorLogHandler(counters.errorLog(), System.err);
            for (int i = 0; i < 1000; i++)
            {
                handler.onError(sameSite());
            }
            handler.onError(new IllegalArgumentException("other"));
            try (CountersFileReader reader = CountersFileReader.open(counters.file()))
            {
                final List<Integer> observations = new ArrayList<>();
                final int distinct = ErrorLogReader.read(
                    reader.errorLog(), (count, first, last, encoded) -> observations.add(count));
                assertEquals(2, distinct);
                assertEquals(List.of(1000, 1), observations);
            }
        }
    }

    private static IllegalStateException sameSite()
    {
        return new IllegalStateException("bad packet");
    }

    @Test
    void aFileLeftByADeadProcessIsRecognised() throws Exception
    {
        final Process process = new ProcessBuilder(
            new File(System.getProperty("java.home"), "bin/java").getPath(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        final long deadPid = process.pid();

        try (CountersFile counters = CountersFile.create(dir, "stale", 16, 4096, clock))
        {
            final File copy = new File(dir, "stale-" + deadPid + ".counters");
            Files.copy(counters.file().toPath(), copy.toPath());
            putLong(copy, CountersFileDescriptor.PID_OFFSET, deadPid);
            try (CountersFileReader reader = CountersFileReader.open(copy))
            {
                assertEquals(deadPid, reader.pid());
                assertEquals(EngineLiveness.DEAD, reader.liveness(System.currentTimeMillis(), 5_000));
            }
        }
    }

    @Test
    void refusesFilesThatAreNotCompleteCountersFilesOfThisVersion() throws IOException
    {
        final File junk = new File(dir, "junk-1.counters");
        Files.write(junk.toPath(), new byte[100]);
        assertTrue(assertThrows(IllegalStateException.class, () -> CountersFileReader.open(junk))
            .getMessage().contains("too short"));

        try (CountersFile counters = CountersFile.create(dir, "v", 16, 4096, clock))
        {
            final File copy = new File(dir, "v-2.counters");
            Files.copy(counters.file().toPath(), copy.toPath());
            putInt(copy, CountersFileDescriptor.VERSION_OFFSET, 99);
            assertTrue(assertThrows(IllegalStateException.class, () -> CountersFileReader.open(copy))
                .getMessage().contains("version 99"));
            putInt(copy, CountersFileDescriptor.VERSION_OFFSET, CountersFileDescriptor.VERSION);
            putInt(copy, CountersFileDescriptor.ERROR_LOG_LENGTH_OFFSET, Integer.MAX_VALUE);
            assertTrue(assertThrows(IllegalStateException.class, () -> CountersFileReader.open(copy))
                .getMessage().contains("do not fit"));
            putInt(copy, CountersFileDescriptor.VERSION_OFFSET, 0);
            assertTrue(assertThrows(IllegalStateException.class, () -> CountersFileReader.open(copy))
                .getMessage().contains("starting or closing"));
        }
    }

    @Test
    void refusesASecondEngineOfTheSameNameInOneProcess()
    {
        clock.update(System.currentTimeMillis());
        try (CountersFile first = CountersFile.create(dir, "twice", 16, 4096, clock))
        {
            final IllegalStateException ex = assertThrows(
                IllegalStateException.class, () -> CountersFile.create(dir, "twice", 16, 4096, clock));
            assertTrue(ex.getMessage().contains("already running"), ex.getMessage());
            assertTrue(first.file().exists());
        }
    }

    @Test
    void refusesBadNames()
    {
        assertThrows(IllegalArgumentException.class, () -> CountersFile.create(dir, "../x", 16, 4096, clock));
        assertThrows(IllegalArgumentException.class, () -> CountersFile.create(dir, "", 16, 4096, clock));
    }

    static void putLong(final File file, final int offset, final long value) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.seek(offset);
            raf.writeLong(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(value) : value);
        }
    }

    static void putInt(final File file, final int offset, final int value) throws IOException
    {
        try (RandomAccessFile raf = new RandomAccessFile(file, "rw"))
        {
            raf.seek(offset);
            raf.writeInt(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(value) : value);
        }
    }
}
