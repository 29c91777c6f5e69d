package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A file that cannot be read is reported the same way by every command, {@code FILE: error: cannot read: reason},
 * on one line, without a Java class name.
 */
class ReadErrorsTest
{
    @TempDir
    Path dir;

    private static final String[][] COMMANDS = {
        {"qos", "check"}, {"qos", "show"}, {"arb", "simulate"}, {"sched", "simulate"}, {"decode"},
        {"inject", "simulate"}, {"fabric", "check"}, {"fabric", "routes"}, {"soak", "--qos"},
        {"soak", "--link", "udp", "--key"}};

    private static String[] with(final String[] command, final Path file)
    {
        final String[] args = java.util.Arrays.copyOf(command, command.length + 1);
        args[command.length] = file.toString();
        return args;
    }

    private void assertReadError(final Path file, final String reason)
    {
        for (final String[] command : COMMANDS)
        {
            final Cli cli = Cli.run(with(command, file));
            assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
            assertEquals("", cli.out, cli::toString);
            final String first = cli.err.split("\\R")[0];
            assertEquals(file + ": error: cannot read: " + reason, first, cli::toString);
            assertTrue(!cli.err.contains("Exception") && !cli.err.contains("java."), cli::toString);
        }
    }

    @Test
    void aMissingFile()
    {
        assertReadError(dir.resolve("absent"), "no such file");
    }

    @Test
    void aDirectory()
    {
        assertReadError(dir, "is a directory");
    }

    @Test
    void aPathThroughAFile() throws IOException
    {
        assertReadError(Files.writeString(dir.resolve("plain"), "x\n").resolve("below"), "not a directory");
    }
}
