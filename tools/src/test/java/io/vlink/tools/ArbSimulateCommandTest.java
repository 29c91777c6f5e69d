package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ArbSimulateCommandTest
{
    @TempDir
    Path dir;

    private Path scenario(final String... lines) throws IOException
    {
        final Path file = dir.resolve("scenario.txt");
        Files.write(file, String.join("\n", lines).concat("\n").getBytes(StandardCharsets.UTF_8));
        return file;
    }

    private static String lines(final String... lines)
    {
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    @Test
    void seedWorkedExampleGrantByGrant() throws IOException
    {
        final Path file = scenario(
            "# seed 000, Figure 25-10",
            "qos_ca_high_limit 4",
            "qos_ca_vlarb_high 6:127,1:63,7:254",
            "qos_ca_vlarb_low 3:2,5:64",
            "data_vls 8",
            "packets 6 4096 10",
            "packets 1 4096 10",
            "packets 7 4096 10",
            "packets 3 4096 10",
            "packets 5 4096 10",
            "grants 12");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "grant 1 vl=6 bytes=4096 from=high",
            "grant 2 vl=6 bytes=4096 from=high",
            "grant 3 vl=1 bytes=4096 from=high",
            "grant 4 vl=7 bytes=4096 from=high",
            "grant 5 vl=7 bytes=4096 from=high",
            "grant 6 vl=3 bytes=4096 from=low",
            "grant 7 vl=7 bytes=4096 from=high",
            "grant 8 vl=7 bytes=4096 from=high",
            "grant 9 vl=6 bytes=4096 from=high",
            "grant 10 vl=6 bytes=4096 from=high",
            "grant 11 vl=1 bytes=4096 from=high",
            "grant 12 vl=5 bytes=4096 from=low",
            "share vl=1 packets=2 bytes=8192 fraction=0.1667",
            "share vl=3 packets=1 bytes=4096 fraction=0.0833",
            "share vl=5 packets=1 bytes=4096 fraction=0.0833",
            "share vl=6 packets=4 bytes=16384 fraction=0.3333",
            "share vl=7 packets=4 bytes=16384 fraction=0.3333"), cli.out);
        // VLs 0, 2 and 4 are in neither table: a warning, not an error
        assertTrue(cli.err.contains(file + ":4: warning: data VLs 0, 2, 4 have no entry"), cli::toString);
    }

    @Test
    void trafficForVl15OrMissingVlsIsDroppedBeforeTheRunInFileOrder() throws IOException
    {
        final Path file = scenario(
            "data_vls 4",
            "qos_high_limit 0",
            "qos_vlarb_high 0:4",
            "qos_vlarb_low 1:4,2:4,3:4",
            "qos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,15",
            "packets 5 256 2",
            "sl_packets 15 256 3     # SL15 -> VL15: dropped (a VL the port lacks would be masked, as OpenSM does)",
            "packets 15 256 1",
            "sl_packets 1 256 1",
            "packets 0 256 1");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "drop vl=5 packets=2",
            "drop sl=15 vl=15 packets=3",
            "drop vl=15 packets=1",
            "grant 1 vl=0 bytes=256 from=high",
            "grant 2 vl=1 bytes=256 from=low",
            "share vl=0 packets=1 bytes=256 fraction=0.5000",
            "share vl=1 packets=1 bytes=256 fraction=0.5000"), cli.out);
    }

    @Test
    void smpAndFcpArrivalsPreemptAndIdleSlotsWaitForThem() throws IOException
    {
        final Path file = scenario(
            "data_vls 2",
            "qos_high_limit 0",
            "qos_vlarb_high 0:255",
            "qos_vlarb_low 1:4",
            "packets 0 256 2",
            "smp 256 1 before 2",
            "fcp 2 before 5");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "grant 1 vl=0 bytes=256 from=high",
            "grant 2 vl=15 bytes=256 from=vl15",
            "grant 3 vl=0 bytes=256 from=high",
            "grant 4 idle",
            "grant 5 fcp bytes=8",
            "grant 6 fcp bytes=8",
            "share vl=0 packets=2 bytes=512 fraction=1.0000"), cli.out);
    }

    @Test
    void smpAndFcpDefaultToArrivingBeforeTheFirstSlot() throws IOException
    {
        final Path file = scenario("data_vls 1", "packets 0 64 1", "fcp 1", "smp 64 1");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(lines(
            "grant 1 vl=15 bytes=64 from=vl15",
            "grant 2 fcp bytes=8",
            "grant 3 vl=0 bytes=64 from=single",
            "share vl=0 packets=1 bytes=64 fraction=1.0000"), cli.out, cli::toString);
    }

    @Test
    void creditsLimitAVlForTheWholeRun() throws IOException
    {
        final Path file = scenario(
            "data_vls 2",
            "qos_high_limit 255",
            "qos_vlarb_high 0:8,1:8",
            "qos_vlarb_low 0:0",
            "packets 0 256 4",
            "packets 1 256 4",
            "credits 0 8");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "grant 1 vl=0 bytes=256 from=high",
            "grant 2 vl=0 bytes=256 from=high",
            "grant 3 vl=1 bytes=256 from=high",
            "grant 4 vl=1 bytes=256 from=high",
            "grant 5 vl=1 bytes=256 from=high",
            "grant 6 vl=1 bytes=256 from=high",
            "share vl=0 packets=2 bytes=512 fraction=0.3333",
            "share vl=1 packets=4 bytes=1024 fraction=0.6667"), cli.out);
        assertTrue(cli.err.endsWith(lines(file + ":5: warning: vl=0: 2 packets never sent: its next packet (256 bytes) " +
            "needs 4 blocks of credit and the VL's 8 blocks for the run are spent; give the VL more credits")), cli::toString);
    }

    @Test
    void aScenarioThatCanNeverSendSaysSoAndFails() throws IOException
    {
        final Path file = scenario(
            "data_vls 2",
            "qos_vlarb_high 0:8,1:8",
            "qos_vlarb_low 0:0",
            "credits 1 0",
            "packets 1 4096 10");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(Vlink.EXIT_FAILURE, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        assertTrue(cli.err.endsWith(lines(file + ":5: nothing can be sent: vl=1: 10 packets never sent: its next packet " +
            "(4096 bytes) needs 64 blocks of credit and the VL has none (credits 1 0); give the VL more credits")),
            cli::toString);

        // stopped by grants N first: nothing is stranded, the run was cut
        final Path cut = scenario("data_vls 2", "packets 0 64 10", "grants 3");
        final Cli three = Cli.run("arb", "simulate", cut.toString());
        assertEquals(0, three.exitCode, three::toString);
        assertTrue(three.err.isEmpty() || !three.err.contains("never sent"), three::toString);
    }

    @Test
    void trafficOnAVlNoTableServesIsStrandedToo() throws IOException
    {
        final Path file = scenario(
            "data_vls 2",
            "qos_vlarb_high 0:8",
            "qos_vlarb_low 0:0",
            "packets 0 64 1",
            "packets 1 64 3");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.err.endsWith(lines(file + ":5: warning: vl=1: 3 packets never sent: no entry of VL1 has a " +
            "non-zero weight in either table; give it one")), cli::toString);
    }

    @Test
    void lowBurstPacketAndGrantsLimit() throws IOException
    {
        final Path file = scenario(
            "data_vls 4",
            "low_burst packet",
            "qos_high_limit 0",
            "qos_vlarb_high 0:255",
            "qos_vlarb_low 1:3,2:2",
            "packets 0 64 20",
            "packets 1 64 20",
            "packets 2 64 20",
            "grants 5");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(lines(
            "grant 1 vl=0 bytes=64 from=high",
            "grant 2 vl=1 bytes=64 from=low",
            "grant 3 vl=0 bytes=64 from=high",
            "grant 4 vl=1 bytes=64 from=low",
            "grant 5 vl=0 bytes=64 from=high",
            "share vl=0 packets=3 bytes=192 fraction=0.6000",
            "share vl=1 packets=2 bytes=128 fraction=0.4000"), cli.out, cli::toString);
    }

    @Test
    void malformedScenarioExitsNonZeroWithFileLineMessage() throws IOException
    {
        final Path file = scenario(
            "data_vls 8",
            "packets 1 102 2",
            "qos_ca_vlarb_low 0:300",
            "frobnicate 3",
            "smp 256 1 after 3",
            "data_vls 3");
        final Cli cli = Cli.run("arb", "simulate", file.toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        final String[] err = java.util.Arrays.stream(cli.err.split(System.lineSeparator()))
            .filter(l -> !l.contains(": warning: ")).toArray(String[]::new);
        assertEquals(4, err.length, cli::toString);
        assertEquals(file + ":2: SIZE 102 is not a packet size: a packet size is a multiple of 4 from 8 to 8188 " +
            "bytes (4 * PktLen)", err[0]);
        assertTrue(err[1].startsWith(file + ":4: unknown directive 'frobnicate'"), cli::toString);
        assertEquals(file + ":5: expected 'before G' after the count, got 'after'", err[2]);
        assertEquals(file + ":6: data_vls 3: a port has 1, 2, 4, 8 or 15 data VLs", err[3]);
        // the arbiter runs what OpenSM programs: weight 300 is 44, and a warning says so
        assertTrue(cli.err.contains(file + ":3: warning: qos_ca_vlarb_low: weight 300 in entry '0:300' is out of range"),
            cli::toString);
    }

    @Test
    void missingScenarioFileIsAFailure()
    {
        final Cli cli = Cli.run("arb", "simulate", dir.resolve("none.txt").toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals(dir.resolve("none.txt") + ": error: cannot read: no such file" + System.lineSeparator(), cli.err);
    }
}
