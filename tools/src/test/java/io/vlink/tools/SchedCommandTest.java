package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Expected outputs worked out by hand from the three steps of injection.md. */
class SchedCommandTest
{
    @TempDir
    Path dir;

    private Cli simulate(final String scenario) throws IOException
    {
        final Path file = dir.resolve("s.sched");
        Files.writeString(file, scenario, StandardCharsets.UTF_8);
        return Cli.run("sched", "simulate", file.toString());
    }

    private String name()
    {
        return dir.resolve("s.sched").toString();
    }

    @Test
    void theSlKeepsItsTurnUntilItsWeightIsUsed() throws IOException
    {
        final Cli cli = simulate(String.join("\n",
            "# SL 0 twice the weight of SL 1",
            "mtu 256",
            "tenure 100000",
            "slat 0:512,1:256",
            "qp 10 0",
            "qp 20 1",
            "message 10 1024",
            "message 20 512",
            ""));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(String.join("\n",
            "packet 1 qp=10 sl=0 bytes=256",
            "packet 2 qp=10 sl=0 bytes=256",
            "packet 3 qp=20 sl=1 bytes=256",
            "packet 4 qp=10 sl=0 bytes=256",
            "packet 5 qp=10 sl=0 bytes=256",
            "packet 6 qp=20 sl=1 bytes=256",
            "share sl=0 bytes=1024 fraction=0.6667",
            "share sl=1 bytes=512 fraction=0.3333",
            "switches 3",
            ""), cli.out.replace("\r\n", "\n"));
        assertEquals("", cli.err);
    }

    @Test
    void tenureCarriesTheQueuePairAcrossSlTurnsAndTheLastPacketIsShorter() throws IOException
    {
        final Cli cli = simulate(String.join("\n",
            "mtu 256",
            "slat 0:300,1:256   # SL 0 overdraws on its second packet",
            "tenure 600",
            "qp 1 0",
            "qp 2 0",
            "qp 3 1",
            "message 1 700",
            "message 2 256",
            "message 3 512"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(String.join("\n",
            "packet 1 qp=1 sl=0 bytes=256",
            "packet 2 qp=1 sl=0 bytes=256",
            "packet 3 qp=3 sl=1 bytes=256",
            "packet 4 qp=1 sl=0 bytes=188",
            "packet 5 qp=2 sl=0 bytes=256",
            "packet 6 qp=3 sl=1 bytes=256",
            "share sl=0 bytes=956 fraction=0.6512",
            "share sl=1 bytes=512 fraction=0.3488",
            "switches 4",
            ""), cli.out.replace("\r\n", "\n"));
    }

    @Test
    void anSlListedTwiceGetsTwiceTheTurnsAndPacketsStopsTheRun() throws IOException
    {
        final Cli cli = simulate(String.join("\n",
            "mtu 256",
            "slat 0:256, 1:256, 0:256",
            "qp 1 0",
            "qp 2 1",
            "message 1 256 10",
            "message 2 256 10",
            "packets 6"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(String.join("\n",
            "packet 1 qp=1 sl=0 bytes=256",
            "packet 2 qp=2 sl=1 bytes=256",
            "packet 3 qp=1 sl=0 bytes=256",
            "packet 4 qp=1 sl=0 bytes=256",
            "packet 5 qp=2 sl=1 bytes=256",
            "packet 6 qp=1 sl=0 bytes=256",
            "share sl=0 bytes=1024 fraction=0.6667",
            "share sl=1 bytes=512 fraction=0.3333",
            "switches 4",
            ""), cli.out.replace("\r\n", "\n"));
    }

    @Test
    void defaultsAreMtu2048TenureOneMtuAndEverySlWithQueuePairsOnceAtOneMtu() throws IOException
    {
        final Cli cli = simulate(String.join("\n",
            "qp 7 2",
            "qp 8 2",
            "message 7 3000",
            "message 8 100"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(String.join("\n",
            "packet 1 qp=7 sl=2 bytes=2048",
            "packet 2 qp=8 sl=2 bytes=100",
            "packet 3 qp=7 sl=2 bytes=952",
            "share sl=2 bytes=3100 fraction=1.0000",
            "switches 2",
            ""), cli.out.replace("\r\n", "\n"));
    }

    @Test
    void anSlAbsentFromTheTableIsNeverServedAndWarned() throws IOException
    {
        final Cli cli = simulate(String.join("\n",
            "slat 0:2048",
            "qp 1 0",
            "qp 2 5",
            "message 1 100",
            "message 2 100"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(String.join("\n",
            "packet 1 qp=1 sl=0 bytes=100",
            "share sl=0 bytes=100 fraction=1.0000",
            "switches 0",
            ""), cli.out.replace("\r\n", "\n"));
        assertEquals(name() + ":3: warning: SL 5 has queue pairs but is absent from the SL arbitration table, " +
            "so it is never served; add an entry such as 5:2048\n", cli.err.replace("\r\n", "\n"));
    }

    @Test
    void manyMessagesAreFedThroughTheRingsWithoutChangingTheSchedule() throws IOException
    {
        // tenure 2048 bytes = 21 packets of 100 bytes (the 21st overdraws): runs of 21, 21, ..., then 16 and 16
        final Cli cli = simulate("qp 1 0\nqp 2 0\nmessage 1 100 100\nmessage 2 100 100\n");
        assertEquals(0, cli.exitCode, cli::toString);
        final String[] lines = cli.out.replace("\r\n", "\n").split("\n");
        assertEquals(202, lines.length);
        assertEquals("packet 21 qp=1 sl=0 bytes=100", lines[20]);
        assertEquals("packet 22 qp=2 sl=0 bytes=100", lines[21]);
        assertEquals("packet 169 qp=1 sl=0 bytes=100", lines[168]);
        assertEquals("packet 185 qp=2 sl=0 bytes=100", lines[184]);
        assertEquals("share sl=0 bytes=20000 fraction=1.0000", lines[200]);
        assertEquals("switches 9", lines[201]);

        final Cli big = simulate("qp 1 3\nmessage 1 4096 2000000000\npackets 2\n");
        assertEquals(0, big.exitCode, big::toString);
        assertEquals("packet 1 qp=1 sl=3 bytes=2048\npacket 2 qp=1 sl=3 bytes=2048\n" +
            "share sl=3 bytes=4096 fraction=1.0000\nswitches 0\n", big.out.replace("\r\n", "\n"));
    }

    @Test
    void anEmptyScenarioPrintsOnlyTheSwitches() throws IOException
    {
        final Cli cli = simulate("# nothing\n\n");
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("switches 0\n", cli.out.replace("\r\n", "\n"));
    }

    @Test
    void malformedScenariosExitNonZeroWithFileAndLine() throws IOException
    {
        assertMalformed("qp 1 0\nmtu 300\n", 2, "mtu 300 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096");
        assertMalformed("message 4 100\n", 1, "qp 4 is not created: declare 'qp 4 SL' before its messages");
        assertMalformed("slat 0:100,16:5\n", 1, "slat SL must be 0..15, not 16");
        assertMalformed("slat 0=100\n", 1, "slat entry 1 '0=100' is not SL:WEIGHT (e.g. 3:4096)");
        assertMalformed("qp 1 0\nqp 1 2\n", 2, "qp 1 is already created on line 1");
        assertMalformed("\n\nfrobnicate 3\n", 3,
            "unknown directive 'frobnicate' (expected slat, tenure, mtu, qp, message or packets)");
        assertMalformed("tenure 0\n", 1, "tenure bytes must be 1..2147483647, not 0");
        assertMalformed("tenure 100 2 3\n", 1, "expected 'tenure BYTES [PACKETS]', got 3 arguments");
        assertMalformed("packets x\n", 1, "packets 'x' is not a number");
        assertMalformed("mtu 256\nmtu 512\n", 2, "mtu is already given on line 1; give it once");
    }

    @Test
    void everyMalformedLineIsReportedInOnePass() throws IOException
    {
        final Cli cli = simulate("mtu 1\nqp 1 0\nqp 2 99\n");
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals(name() + ":1: error: mtu 1 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096\n" +
            name() + ":3: error: SL must be 0..15, not 99\n", cli.err.replace("\r\n", "\n"));
        assertEquals("", cli.out);
    }

    @Test
    void aMissingScenarioFileIsAFailure()
    {
        final Cli cli = Cli.run("sched", "simulate", dir.resolve("absent.sched").toString());
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals(dir.resolve("absent.sched") + ": error: cannot read: no such file" + System.lineSeparator(), cli.err);
    }

    private void assertMalformed(final String scenario, final int line, final String message) throws IOException
    {
        final Cli cli = simulate(scenario);
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals(name() + ":" + line + ": error: " + message + "\n", cli.err.replace("\r\n", "\n"));
        assertEquals("", cli.out);
    }
}
