package io.vlink.tools.fuzz;

import io.vlink.tools.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The inputs {@link CliFuzzTest} found a bug with, each as a regression test (docs/fuzzing.md lists them).
 */
class FoundByFuzzingCliTest
{
    @TempDir
    Path dir;

    /**
     * Bug 3: a finding about OpenSM's defaults has no line; {@code vlink arb simulate} printed it as
     * {@code FILE:0: warning: ...}, a line the file does not have. The spec's own worked example (data_vls 8, the
     * default SL2VL mapping SLs 8-14 to VLs the port lacks) showed it.
     */
    @Test
    void aFindingAboutTheDefaultsNamesNoLine() throws IOException
    {
        final Path file = write("example.txt", String.join("\n",
            "qos_ca_high_limit 4", "qos_ca_vlarb_high 6:127,1:63,7:254", "qos_ca_vlarb_low 3:2,5:64", "data_vls 8",
            "packets 6 4096 1", "grants 1", "").getBytes(StandardCharsets.US_ASCII));
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertFalse(cli.err.contains(file + ":0:"), cli::toString);
        assertTrue(cli.err.contains(file + ": warning: the default sl2vl (OpenSM's"), cli::toString);
    }

    /**
     * Bug 4: {@code vlink sched simulate} decoded the scenario as strict UTF-8: one Latin-1 byte, even in a
     * comment, refused the whole file with {@code cannot read the scenario: java.nio.charset.MalformedInputException:
     * Input length = 1} and no line. It now reads bytes as the other readers do.
     */
    @Test
    void aLatin1CommentIsJustAComment() throws IOException
    {
        final byte[] bytes = "qp 1 0 # caf\u00e9\nmessage 1 100\n".getBytes(StandardCharsets.ISO_8859_1);
        final Cli cli = Cli.run("sched", "simulate", write("latin1.sched", bytes).toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("packet 1 qp=1 sl=0 bytes=100\nshare sl=0 bytes=100 fraction=1.0000\nswitches 0\n",
            cli.out.replace(System.lineSeparator(), "\n"));
    }

    @Test
    void aBadByteInADirectiveIsReportedAtItsLine() throws IOException
    {
        final byte[] bytes = {'q', 'p', ' ', '1', ' ', '0', '\n', 'm', 'e', 's', 's', 'a', 'g', 'e', (byte)0xFF, '\n'};
        final Path file = write("bad.sched", bytes);
        final Cli cli = Cli.run("sched", "simulate", file.toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.startsWith(file + ":2: error: unknown directive"), cli::toString);
    }

    /**
     * Bug 5: {@code message 1 2147483647 2147483647} asked for 2^31 messages of 2^31 bytes, 2^54 packets at MTU 256:
     * the run never ended. A run is now limited to a million packets unless {@code packets N} stops it.
     */
    @Test
    void aRunOfTwoToTheFiftyFourPacketsIsRefusedAtItsMessage() throws IOException
    {
        final Path file = write("huge.sched", "mtu 256\nqp 1 0\nmessage 1 2147483647 2147483647\n"
            .getBytes(StandardCharsets.US_ASCII));
        final Cli cli = Cli.run("sched", "simulate", file.toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.startsWith(file + ":3: error: the messages up to this line make up to " +
            "18014398501093376 packets of MTU 256, more than the simulator's 1000000"), cli::toString);
        assertEquals("", cli.out);

        final Path limited = write("limited.sched", "mtu 256\nqp 1 0\nmessage 1 2147483647 2147483647\npackets 2\n"
            .getBytes(StandardCharsets.US_ASCII));
        final Cli run = Cli.run("sched", "simulate", limited.toString());
        assertEquals(0, run.exitCode, run::toString);
        assertTrue(run.out.startsWith("packet 1 qp=1 sl=0 bytes=256\npacket 2 qp=1 sl=0 bytes=256\n"
            .replace("\n", System.lineSeparator())), run::toString);
    }

    private Path write(final String name, final byte[] bytes) throws IOException
    {
        return Files.write(dir.resolve(name), bytes);
    }
}
