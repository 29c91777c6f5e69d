package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code vlink fabric check|routes} on ibsim's sample topologies (core's test resources).
 */
class FabricCommandTest
{
    @TempDir
    static Path resources;

    private static String file(final String name)
    {
        try (InputStream in = FabricCommandTest.class.getResourceAsStream("/" + name))
        {
            final Path target = resources.resolve(name);
            Files.createDirectories(target.getParent());
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return target.toString();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String lines(final String... lines)
    {
        return String.join(System.lineSeparator(), lines) + System.lineSeparator();
    }

    @Test
    void routesOfTwoSwitchesTwoPathsFourHcas()
    {
        final Cli cli = Cli.run("fabric", "routes", file("topology/net.2sw2path4hca"));
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.startsWith(lines(
            "Switch1 lid 1: dlid 1 -> port 0 (0 hops)",
            "Switch1 lid 1: dlid 2 -> port 1 (1 hop)",
            "Switch1 lid 1: dlid 3 -> port 3 (1 hop)")), cli::toString);
        assertTrue(cli.out.endsWith(lines("routes: 6 destinations, max hops 2, ports balanced within 0")), cli::toString);
        assertEquals("", cli.err);
    }

    @Test
    void routesFromAnLftDump() throws IOException
    {
        // OpenSM 3.3.23's dump form (decimal range, trailer); the second switch's table lacks Hca4 (LID 6)
        final String topo = file("topology/net.2sw2path4hca");
        final Path lft = resources.resolve("lfts.dump");
        Files.writeString(lft, String.join("\n",
            "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):",
            "0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'",
            "0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'",
            "0x0003 005 # Switch portguid 0x0000000000200001: 'Switch2'",
            "0x0004 005 # Channel Adapter portguid 0x0000000000100004: 'Hca2'",
            "0x0005 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'",
            "5 lids dumped",
            "Unicast lids [0x0-0x6] of switch Lid 3 guid 0x0000000000200001 ('Switch2'):",
            "0x0001 003 # Switch",
            "0x0002 003 # Channel Adapter",
            "0x0003 000 # Switch",
            "0x0004 001 # Channel Adapter",
            "0x0005 003 # Channel Adapter",
            "",
            ""));
        final Cli cli = Cli.run("fabric", "routes", topo, "--lft", lft.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.contains(lines("Switch1 lid 1: dlid 4 -> port 5 (2 hops)")), cli::toString);
        assertTrue(cli.out.contains(lines("Switch1 lid 1: dlid 6 -> no route")), cli::toString);
        assertTrue(cli.out.contains(lines("Switch2 lid 3: dlid 6 -> no route")), cli::toString);
    }

    @Test
    void updnWithAGivenRootAndLmcOne()
    {
        final Cli cli = Cli.run("fabric", "routes", file("topology/fattree-dbl"), "--routing", "updn", "--root",
            "0x200000,0x200001", "--lmc", "1");
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals("", cli.err);
        assertTrue(cli.out.contains(lines("Spine1 lid 1: dlid 4 -> no route")),
            "OpenSM's up/down leaves no route between two roots: " + cli);
        final Cli auto = Cli.run("fabric", "routes", file("topology/fattree-dbl"), "--routing", "updn", "--lmc", "1");
        assertEquals(cli.out, auto.out, "the spines are the roots OpenSM finds");
        final Cli fallBack = Cli.run("fabric", "routes", file("topology/ring6"), "--routing", "updn");
        assertEquals(0, fallBack.exitCode, fallBack::toString);
        assertTrue(fallBack.err.endsWith("ring6: updn: no switch qualifies as a root; OpenSM then routes with minhop, " +
            "and so does vlink" + System.lineSeparator()), fallBack::toString);
        assertEquals(Cli.run("fabric", "routes", file("topology/ring6")).out, fallBack.out);
    }

    @Test
    void routingUsageErrors()
    {
        final String topo = file("topology/net.2sw2path4hca");
        assertEquals(2, Cli.run("fabric", "routes", topo, "--routing", "ftree").exitCode);
        assertEquals(2, Cli.run("fabric", "routes", topo, "--root", "0x200000").exitCode);
        assertEquals(2, Cli.run("fabric", "routes", topo, "--routing", "updn", "--root", "zz").exitCode);
        assertEquals(2, Cli.run("fabric", "routes", topo, "--lmc", "8").exitCode);
    }

    @Test
    void checkPrintsNodesLinksLidsHopsAndQos()
    {
        final Cli cli = Cli.run("fabric", "check", file("topology/net.2sw2path4hca"));
        assertEquals(0, cli.exitCode, cli::toString);
        final String path = resources.resolve("topology/net.2sw2path4hca").toString();
        assertTrue(cli.out.startsWith(lines(
            path + ": 6 nodes (2 switches, 4 CAs), 6 links, LIDs 1..6",
            "Switch \"Switch1\" lid 1, 4 of 8 ports cabled",
            "  [1] -> \"Hca1\"[1] 4x EDR",
            "  [2] -> \"Hca3\"[1] 4x EDR",
            "  [3] -> \"Switch2\"[3] 4x EDR",
            "  [5] -> \"Switch2\"[5] 4x EDR")), cli::toString);
        assertTrue(cli.out.contains(lines(
            "Ca \"Hca1\", 1 of 2 ports cabled",
            "  [1] -> \"Switch1\"[1] 4x EDR, lid 2, at most 2 hops from any switch")), cli::toString);
        assertTrue(cli.out.contains("qos swe: 8 data VLs, VLHighLimit 0, SL2VL "), cli::toString);
        assertTrue(cli.out.endsWith(lines("routes: 6 destinations, max hops 2, ports balanced within 0")), cli::toString);
    }

    @Test
    void aDamagedTopologyIsRefusedWithEveryErrorAndExit1() throws IOException
    {
        final Path topo = resources.resolve("broken");
        Files.writeString(topo, "Switch 4 \"S\"\n[1] \"X\"[1]\n[9] \"S\"[1]\n");
        final Cli cli = Cli.run("fabric", "check", topo.toString());
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        assertEquals(lines(
            topo + ":2:5: error: unknown node \"X\"; every remote must have a record of its own in the file",
            topo + ":3:2: error: port 9 is out of range 1..4 of Switch \"S\"; use a port number its header allows",
            topo + ": refused: 2 errors; nothing runs"), cli.err);
    }

    @Test
    void aMissingFileIsOneLine()
    {
        final Cli cli = Cli.run("fabric", "routes", resources.resolve("none").toString());
        assertEquals(1, cli.exitCode);
        assertEquals(lines(resources.resolve("none") + ": error: cannot read: no such file"), cli.err);
    }
}
