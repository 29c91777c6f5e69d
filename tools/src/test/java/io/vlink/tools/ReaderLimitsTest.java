package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every command that reads a text file bounds it (line length, file size), quotes at most about 80 characters of
 * what it read, and never prints a control byte raw.
 */
class ReaderLimitsTest
{
    private static final String LIMITS = "vlink reads text files of at most 1048576 bytes with lines of at most 4096 " +
        "bytes: check that this is the file you meant";

    @TempDir
    Path dir;

    @Test
    void devZeroIsRefusedAtItsFirstLineNotReadToTheEnd()
    {
        final Path zero = Path.of("/dev/zero");
        assumeTrue(Files.isReadable(zero), "no /dev/zero on this system");
        for (final String[] command : new String[][] {
            {"qos", "check", "/dev/zero"}, {"qos", "show", "/dev/zero"}, {"arb", "simulate", "/dev/zero"},
            {"sched", "simulate", "/dev/zero"}})
        {
            final Cli cli = Cli.run(command);
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertEquals("", cli.out, cli::toString);
            assertTrue(cli.err.startsWith("/dev/zero:1:4097: error: line longer than 4096 bytes; " + LIMITS),
                cli::toString);
        }
    }

    @Test
    void aFileTooLongIsRefusedAtTheLineThatCrossesTheLimit() throws IOException
    {
        final Path file = dir.resolve("long.conf");
        final String line = "# " + "c".repeat(97) + "\n";
        Files.writeString(file, line.repeat(1024 * 1024 / line.length() + 1));
        for (final String[] command : new String[][] {
            {"qos", "check", file.toString()}, {"arb", "simulate", file.toString()},
            {"sched", "simulate", file.toString()}})
        {
            final Cli cli = Cli.run(command);
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertTrue(cli.err.startsWith(file + ":10486:77: error: file longer than 1048576 bytes; " + LIMITS),
                cli::toString);
        }
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
