package io.vlink.tools;

import io.vlink.core.config.TextLines;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every command that reads a text file bounds it (line length, file size; the small heap's tests:
 * {@link ReadersSmallHeapTest}), quotes at most about 80 characters of
 * what it read, and never prints a control byte raw.
 */
class ReaderLimitsTest
{
    private static final String CHECK = "check that this is the file you meant";

    @TempDir
    Path dir;

    @Test
    void devZeroIsRefusedAtItsFirstByteNotReadToTheEnd()
    {
        final Path zero = Path.of("/dev/zero");
        assumeTrue(Files.isReadable(zero), "no /dev/zero on this system");
        for (final String[] command : new String[][] {
            {"qos", "check", "/dev/zero"}, {"qos", "show", "/dev/zero"}, {"arb", "simulate", "/dev/zero"},
            {"sched", "simulate", "/dev/zero"}, {"inject", "simulate", "/dev/zero"}, {"fabric", "check", "/dev/zero"}})
        {
            final Cli cli = Cli.run(command);
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertEquals("", cli.out, cli::toString);
            assertEquals("/dev/zero:1:1: error: a NUL byte: binary data, not a text file: " + CHECK + "\n", cli.err,
                cli::toString);
        }
    }

    @Test
    void aFileTooLongIsRefusedBeforeItIsRead() throws IOException
    {
        final Path file = dir.resolve("long.conf");
        final String line = "# " + "c".repeat(97) + "\n";
        Files.writeString(file, line.repeat(1024 * 1024 / line.length() + 1));
        for (final String[] command : new String[][] {
            {"qos", "check", file.toString()}, {"arb", "simulate", file.toString()},
            {"sched", "simulate", file.toString()}, {"inject", "simulate", file.toString()}})
        {
            final Cli cli = Cli.run(command);
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertEquals(file + ": error: file of 1048600 bytes, longer than the 1048576 vlink reads (lines up to " +
                "4096 bytes): " + CHECK + "\n", cli.err, cli::toString);
        }
        // a topology or an LFT dump may be 64 MiB: a sparse file one byte longer is refused unread
        final Path topology = dir.resolve("huge.topo");
        try (RandomAccessFile huge = new RandomAccessFile(topology.toFile(), "rw"))
        {
            huge.setLength(TextLines.MAX_TABLE_BYTES + 1L);
        }
        final Cli cli = Cli.run("fabric", "check", topology.toString());
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals(topology + ": error: file of 67108865 bytes, longer than the 67108864 vlink reads (lines up to " +
            "4096 bytes): " + CHECK + "\n", cli.err, cli::toString);
    }

    @Test
    void aHundredFindingsArePrintedAndTheRestCounted() throws IOException
    {
        // 200 MB from a pipe printed 811,898 lines of errors on main: now the first 100, a count, the verdict
        final Path file = Files.writeString(dir.resolve("garbage.topo"), "garbage\n".repeat(5_000));
        final Cli cli = Cli.run("fabric", "check", file.toString());
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        final String[] lines = cli.err.split("\n");
        assertEquals(102, lines.length, cli::toString);
        assertTrue(lines[99].startsWith(file + ":100:1: error: unknown line 'garbage'"), lines[99]);
        assertEquals("... and 4,900 more errors", lines[100]);
        assertEquals(file + ": refused: 5000 errors; nothing runs", lines[101]);
    }

    @Test
    void controlBytesAreEscapedAndLongInputIsCutTo80Characters() throws IOException
    {
        final String hostile = "\u001b[2J\u0007" + "z".repeat(4000);
        final Path qos = Files.writeString(dir.resolve("hostile.conf"), "qos_" + hostile + " 1\n",
            StandardCharsets.ISO_8859_1);
        final Path arb = Files.writeString(dir.resolve("hostile.arb"), hostile + " 1\nport_type " + hostile + "\n",
            StandardCharsets.ISO_8859_1);
        final Path sched = Files.writeString(dir.resolve("hostile.sched"), hostile + " 1\nmtu " + hostile + "\n",
            StandardCharsets.ISO_8859_1);
        for (final String[] command : new String[][] {
            {"qos", "check", qos.toString()}, {"arb", "simulate", arb.toString()},
            {"sched", "simulate", sched.toString()}})
        {
            final Cli cli = Cli.run(command);
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertTrue(cli.err.contains("\\x1b[2J\\x07zzz"), cli::toString);
            for (final String line : cli.err.split("\n"))
            {
                assertTrue(line.length() < 300, () -> line.length() + " characters: " + line);
                assertFalse(line.chars().anyMatch(c -> c < 0x20 || (c >= 0x7F && c <= 0x9F)), line);
            }
        }
    }

    @Test
    void aControlByteInAFileNameIsEscapedToo()
    {
        final Cli cli = Cli.run("qos", "check", dir.resolve("a\u001b]0;x\u0007.conf").toString());
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains("a\\x1b]0;x\\x07.conf: error: cannot read: no such file"), cli::toString);
    }
}
