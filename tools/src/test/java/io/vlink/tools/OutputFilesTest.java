package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every output option of every command, as a user meets it (docs/cli.md, "Output files"): a path that cannot be
 * written is one line with the system's reason, exit 1, before any work; a write that fails after the work (a device
 * that is full) is one line of its own, the verdict on the work left alone, exit 4; no trace, no temporary file left.
 * A file system that fills up for real is {@code FullFileSystemTest}'s.
 */
class OutputFilesTest
{
    @TempDir
    Path dir;

    private String topology() throws IOException
    {
        try (InputStream in = OutputFilesTest.class.getResourceAsStream("/topology/net.2sw2path4hca"))
        {
            final Path target = dir.resolve("net.2sw2path4hca");
            Files.copy(in, target);
            return target.toString();
        }
    }

    /** The commands and their output options, each given PATH where the option's value goes. */
    private List<String[]> everyOutputOption() throws IOException
    {
        final String topology = topology();
        final String shm = dir.resolve("perf.shm").toString();
        final List<String[]> commands = new ArrayList<>();
        commands.add(new String[] {"vlink soak", "--json", "soak", "--seconds", "60", "--json", "PATH"});
        commands.add(new String[] {"vlink soak", "--report", "soak", "--seconds", "60", "--report", "PATH"});
        commands.add(new String[] {"vlink soak", "--capture", "soak", "--seconds", "60", "--capture", "PATH"});
        commands.add(new String[] {"vlink fabric soak", "--json", "fabric", "soak", topology, "--seconds", "60",
            "--json", "PATH"});
        commands.add(new String[] {"vlink fabric soak", "--report", "fabric", "soak", topology, "--seconds", "60",
            "--report", "PATH"});
        commands.add(new String[] {"vlink fabric run", "--json", "fabric", "run", topology, "--seconds", "60",
            "--json", "PATH"});
        // a server that would wait for its client: refused before it listens
        commands.add(new String[] {"vlink perf", "--json", "perf", "send-lat", "--server", "--link", "shm", "--path",
            shm, "--json", "PATH"});
        commands.add(new String[] {"vlink perf", "--json", "perf", "send-bw", "--link", "shm", "--path", shm,
            "--json", "PATH"});
        // the shm link's file, made by the side that starts first
        commands.add(new String[] {"vlink perf", "--path", "perf", "send-lat", "--server", "--link", "shm",
            "--path", "PATH"});
        return commands;
    }

    private static Cli run(final String[] command, final String path)
    {
        final String[] args = new String[command.length - 2];
        for (int i = 2; i < command.length; i++)
        {
            args[i - 2] = "PATH".equals(command[i]) ? path : command[i];
        }
        return Cli.run(args);
    }

    @Test
    void everyOutputThatCannotBeWrittenIsOneLineWithTheSystemsReasonBeforeAnyWork() throws IOException
    {
        final Path missing = dir.resolve("no-such-dir").resolve("out");
        final String[][] cases = {
            {"/proc/vlink-out", "No such file or directory"},
            {missing.toString(), "No such file or directory"},
            {"/etc/passwd/out", "Not a directory"},
            {dir.toString(), "Is a directory"},
        };
        for (final String[] command : everyOutputOption())
        {
            for (final String[] c : cases)
            {
                final Cli cli = run(command, c[0]);
                assertEquals(1, cli.exitCode, cli::toString);
                assertEquals(command[0] + ": " + command[1] + " " + c[0] + ": " + c[1] + "\n", cli.err);
                assertEquals("", cli.out, "nothing ran");
            }
            // sysfs takes no new file, even from root: refused by permission, or read-only in a container
            final Cli cli = run(command, "/sys/vlink-out");
            assertEquals(1, cli.exitCode, cli::toString);
            assertTrue(cli.err.equals(command[0] + ": " + command[1] + " /sys/vlink-out: Permission denied\n") ||
                cli.err.equals(command[0] + ": " + command[1] + " /sys/vlink-out: Read-only file system\n"), cli.err);
        }
        assertEquals(List.of("net.2sw2path4hca"), names(dir), "no temporary file left behind");
    }

    @Test
    void aCaptureIsARegularFileAndTheCountersDirectoryMustTakeFiles() throws IOException
    {
        Cli cli = Cli.run("soak", "--seconds", "60", "--capture", "/dev/null");
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("vlink soak: --capture /dev/null: not a regular file; this output is a file that is mapped and " +
            "replaced: give a file name\n", cli.err);
        final String missing = dir.resolve("missing").toString();
        cli = Cli.run("soak", "--seconds", "60", "--dir", missing);
        assertEquals("vlink soak: --dir " + missing + ": No such file or directory\n", cli.err);
        cli = Cli.run("soak", "--seconds", "60", "--dir", "/etc/passwd");
        assertEquals("vlink soak: --dir /etc/passwd: Not a directory\n", cli.err);
        cli = Cli.run("soak", "--seconds", "60", "--dir", "/proc");
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.startsWith("vlink soak: --dir /proc: ") && 1 == cli.err.lines().count(), cli.err);
        cli = Cli.run("fabric", "soak", topology(), "--dir", missing);
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("vlink fabric soak: --dir " + missing + ": No such file or directory\n", cli.err);
    }

    @Test
    void aWriteThatFailsAfterTheRunIsItsOwnLineAndLeavesTheVerdictAlone() throws IOException
    {
        // /dev/full: every write fails as on a full file system
        final Cli soak = Cli.run("soak", "--packets", "2000", "--size", "512", "--dir", dir.toString(),
            "--json", "/dev/full", "--report", "/dev/full");
        assertEquals(Outputs.EXIT_OUTPUT_FAILED, soak.exitCode, soak::toString);
        assertTrue(soak.out.endsWith("\nsoak: ok\n"), soak.out);
        assertEquals("vlink soak: --json /dev/full: No space left on device\n" +
            "vlink soak: --report /dev/full: No space left on device\n", soak.err);

        final Cli fabric = Cli.run("fabric", "soak", topology(), "--packets", "2000", "--threads", "1", "--dir",
            dir.toString(), "--json", "/dev/full");
        assertEquals(Outputs.EXIT_OUTPUT_FAILED, fabric.exitCode, fabric::toString);
        assertTrue(fabric.out.contains("invariant no_loss: held"), fabric.out);
        assertEquals("vlink fabric soak: --json /dev/full: No space left on device\n", fabric.err);
    }

    @Test
    void aFileIsReplacedWholeAndTemporaryFilesOfKilledRunsAreRemoved() throws IOException
    {
        final Path json = dir.resolve("soak.json");
        Files.writeString(json, "an old summary\n");
        // what a run killed before its end leaves (no process has this number: above the kernel's pid_max)
        final Path stale = dir.resolve(".soak.json.4194305-1.tmp");
        Files.writeString(stale, "{\"ok\": tr");
        // another command's temporary file, of a process that runs (this one): not touched
        final Path live = dir.resolve(".soak.json." + ProcessHandle.current().pid() + "-999999.tmp");
        Files.writeString(live, "");
        final Cli cli = Cli.run("soak", "--packets", "2000", "--size", "512", "--dir", dir.toString(),
            "--json", json.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(true, Json.object(Files.readString(json)).get("ok"));
        assertFalse(Files.exists(stale), "a killed run's temporary file is removed");
        assertTrue(Files.exists(live), "a running process's is not");
        Files.delete(live);
        assertEquals(List.of("soak.json"), names(dir), "the summary and nothing else: " + names(dir));

        // an output refused after another was opened: the first one's temporary file goes too
        final Cli refused = Cli.run("soak", "--packets", "2000", "--json", json.toString(), "--report",
            "/proc/vlink.html");
        assertEquals(1, refused.exitCode, refused::toString);
        assertEquals(List.of("soak.json"), names(dir));
    }

    private static List<String> names(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.map(file -> file.getFileName().toString()).sorted().toList();
        }
    }
}
