package io.vlink.tools;

import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.ErrorLogHandler;
import io.vlink.nic.status.PortCounterSet;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.*;

class StatCommandTest
{
    @TempDir
    File dir;

    @Test
    void printsEveryCounterOfARunningEngineAsParseableLines()
    {
        try (CountersFile file = CountersFile.create(dir, "soak", 512, 64 * 1024, SystemEpochClock.INSTANCE))
        {
            final PortCounters port = new PortCounterSet(file, 1, 2).view();
            file.newCounter(CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE).setRelease(1);
            // written as their owners would, by id
            file.countersManager().setCounterValue(port.txPackets(1).id(), 42);
            file.countersManager().setCounterValue(port.rxBytes(15).id(), 256);
            file.countersManager().setCounterValue(port.discards(DiscardReason.DATA_BAD_CRC.id()).id(), 5);
            file.countersManager().setCounterValue(port.linkRetransmits().id(), 17);
            file.countersManager().setCounterValue(port.linkReplayRequests().id(), 3);
            new ErrorLogHandler(file.errorLog(), System.err).onError(new IllegalStateException("bad \"frame\""));

            final Cli cli = Cli.run("stat", "--dir", dir.getPath(), "--errors");
            assertEquals(0, cli.exitCode, cli.toString());
            final List<String> lines = Arrays.asList(cli.out.split("\n"));
            assertTrue(lines.get(0).startsWith("# vlink stat "), cli.toString());
            assertTrue(lines.get(1).matches("engine name=soak pid=" + ProcessHandle.current().pid() +
                " state=live started=\\S+ heartbeat_age_ms=\\d+ file=" + file.file().getPath().replace(".", "\\.")),
                lines.get(1));
            assertTrue(lines.contains("counter engine=soak port=1 vl=1 name=tx_packets value=42"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=15 name=rx_bytes value=256"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=- name=discards_data_bad_crc value=5"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=- vl=- name=errors value=1"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=0 name=credit_stalls value=0"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=- name=link_retransmits value=17"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=- name=link_replay_requests value=3"), cli.out);
            assertTrue(lines.contains("counter engine=soak port=1 vl=- name=link_retry_failures value=0"), cli.out);
            assertTrue(lines.stream().anyMatch((l) -> l.matches(
                "error engine=soak observations=1 first=\\S+ last=\\S+ " +
                "message=\"java.lang.IllegalStateException: bad 'frame'\"")), cli.out);
            for (final String line : lines.subList(1, lines.size()))
            {
                assertTrue(line.matches("(engine|counter|error) (\\w+=(\"[^\"]*\"|\\S+) ?)+"), line);
            }

            final Cli nonZero = Cli.run("stat", "--dir", dir.getPath(), "--nonzero");
            final List<String> counters = Arrays.stream(nonZero.out.split("\n"))
                .filter((l) -> l.startsWith("counter ")).collect(Collectors.toList());
            assertEquals(6, counters.size(), nonZero.out);
        }
        final Cli after = Cli.run("stat", "--dir", dir.getPath());
        assertEquals(0, after.exitCode);
        assertTrue(after.out.contains("# no vlink engine"), after.out);
    }

    @Test
    void watchRefreshesAndADeadEnginesFileIsKeptCountedListedWithAllAndPrunedOnlyWithPrune() throws Exception
    {
        final Process process = new ProcessBuilder(
            new File(System.getProperty("java.home"), "bin/java").getPath(), "-version")
            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));

        try (CountersFile file = CountersFile.create(dir, "gone", 128, 4096, SystemEpochClock.INSTANCE))
        {
            new PortCounterSet(file, 0, 1);
            final byte[] bytes = Files.readAllBytes(file.file().toPath());
            final org.agrona.concurrent.UnsafeBuffer buffer = new org.agrona.concurrent.UnsafeBuffer(bytes);
            buffer.putLong(CountersFileDescriptor.PID_OFFSET, process.pid());
            Files.write(new File(dir, "gone-" + process.pid() + ".counters").toPath(), bytes);
            Files.write(new File(dir, "broken-1.counters").toPath(), new byte[10]);
            // a file whose engine was killed while making it
            final File halfMade = new File(dir, "half-made-" + process.pid() + ".counters");
            Files.write(halfMade.toPath(), new byte[10]);

            final File deadFile = new File(dir, "gone-" + process.pid() + ".counters");
            final Cli cli = Cli.run("stat", "--dir", dir.getPath(), "--watch", "--count", "2", "--interval", "10",
                "--all");
            assertEquals(0, cli.exitCode, cli.toString());
            assertEquals(2, cli.out.split("# vlink stat ", -1).length - 1, cli.out);
            // with --all the dead engine is listed apart, after the running one, and its file is kept
            assertTrue(cli.out.contains("# not running\nengine name=gone pid=" + process.pid() + " state=dead"), cli.out);
            assertTrue(deadFile.exists());
            assertEquals(2, cli.out.split("engine name=gone pid=" + ProcessHandle.current().pid() + " state=live", -1).length - 1);
            // the dead engine's counters are not printed: only the live one's, once per refresh
            assertEquals(2, cli.out.split("counter engine=gone port=0 vl=0 name=tx_packets", -1).length - 1, cli.out);
            assertTrue(cli.err.contains("skipped") && cli.err.contains("broken-1.counters"), cli.err);

            // a read never deletes: without --all the dead engine is counted in a comment
            final Cli read = Cli.run("stat", "--dir", dir.getPath());
            assertEquals(0, read.exitCode, read.toString());
            assertFalse(read.out.contains("pid=" + process.pid()), read.out);
            assertTrue(read.out.contains("\n# 1 not running (--all lists them; --prune deletes the files of the 1 " +
                "whose process is gone)\n"), read.out);
            assertFalse(read.err.contains("pruned"), read.err);
            assertTrue(deadFile.exists(), "a read-only command deletes nothing");
            assertTrue(halfMade.exists(), "a read-only command deletes nothing");

            // --prune deletes the files of processes that are gone, and only those
            final Cli pruned = Cli.run("stat", "--dir", dir.getPath(), "--prune");
            assertEquals(0, pruned.exitCode, pruned.toString());
            assertFalse(pruned.out.contains("pid=" + process.pid()), pruned.out);
            assertFalse(pruned.out.contains("not running"), pruned.out);
            assertTrue(file.file().exists(), "a running engine's file stays");
            assertTrue(pruned.err.contains("vlink stat: pruned " + halfMade + " (incomplete; pid " + process.pid() +
                " is not running)"), pruned.err);
            assertFalse(halfMade.exists());
            assertTrue(new File(dir, "broken-1.counters").exists(), "pid 1 runs: its file is not ours to judge");
            assertTrue(pruned.err.contains("vlink stat: pruned " + deadFile + " (pid " + process.pid() +
                " is not running)"), pruned.err);
            assertFalse(deadFile.exists(), "a dead engine's file is deleted");
        }
    }

    @Test
    void refusesBadOptions()
    {
        assertEquals(2, Cli.run("stat", "--interval", "0").exitCode);
        assertEquals(2, Cli.run("stat", "--bogus").exitCode);
    }

    @Test
    void aDirectoryThatIsNotThereIsAnErrorNotAnEmptyMachine() throws Exception
    {
        final File missing = new File(dir, "nonexistent");
        final Cli cli = Cli.run("stat", "--dir", missing.getPath());
        assertEquals(1, cli.exitCode, cli.toString());
        assertEquals("", cli.out);
        assertEquals(missing.getPath() + ": error: cannot read: no such directory\n", cli.err);

        final File plain = new File(dir, "plain");
        Files.writeString(plain.toPath(), "x");
        final Cli file = Cli.run("stat", "--dir", plain.getPath(), "--perfquery");
        assertEquals(1, file.exitCode, file.toString());
        assertEquals(plain.getPath() + ": error: cannot read: not a directory\n", file.err);

        // a directory that is there but holds no engine is an empty machine
        final Cli empty = Cli.run("stat", "--dir", dir.getPath());
        assertEquals(0, empty.exitCode, empty.toString());
        assertTrue(empty.out.contains("# no vlink engine"), empty.out);
    }
}
