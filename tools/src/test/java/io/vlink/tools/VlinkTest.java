package io.vlink.tools;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class VlinkTest
{
    @Test
    void helpListsTheCommandsOnStdout()
    {
        final Cli cli = Cli.run("--help");
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.contains("Usage: vlink"), cli::toString);
        assertTrue(cli.out.contains("Commands:"), cli::toString);
    }

    @Test
    void noCommandIsAUsageErrorOnStderr()
    {
        final Cli cli = Cli.run();
        assertNotEquals(0, cli.exitCode);
        assertEquals("vlink: missing command\nsee 'vlink --help'\n", cli.err);
        assertEquals("", cli.out);
    }

    @Test
    void unknownCommandIsAUsageError()
    {
        final Cli cli = Cli.run("frobnicate");
        assertEquals(2, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains("frobnicate"), cli::toString);
    }
}
