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
            "Switch1 lid 1: dlid 2 -> port 3 (1 hop)")), cli::toString);
        assertTrue(cli.out.endsWith(lines("routes: 6 destinations, max hops 2, ports balanced within 0")), cli::toString);
        assertEquals("", cli.err);
    }

    @Test
    void routesFromAnLftDump() throws IOException
    {
        final String topo = file("topology/net.2sw2path4hca");
        final Path lft = resources.resolve("lfts.dump");
        Files.writeString(lft, String.join("\n",
            "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):",
            "0x0001 000 # Switch",
            "0x0002 005 # Switch",
            "0x0003 001 # Channel Adapter",
            "0x0004 005 # Channel Adapter",
            "0x0005 002 # Channel Adapter",
            "Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000300000 ('Switch2'):",
            "0x0001 003 # Switch",
            "0x0002 000 # Switch",
            "0x0003 003 # Channel Adapter",
            "0x0004 001 # Channel Adapter",
            "0x0005 003 # Channel Adapter",
            "",
            ""));
        final Cli cli = Cli.run("fabric", "routes", topo, "--lft", lft.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.contains(lines("Switch1 lid 1: dlid 4 -> port 5 (2 hops)")), cli::toString);
        assertTrue(cli.out.contains(lines("Switch1 lid 1: dlid 6 -> no route")), cli::toString);
        assertTrue(cli.out.contains(lines("Switch2 lid 2: dlid 6 -> no route")), cli::toString);
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
            "  [1] -> \"Switch1\"[1] 4x EDR, lid 3, at most 2 hops from any switch")), cli::toString);
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
        assertEquals(lines(resources.resolve("none") + ": error: cannot read: no such file",
            resources.resolve("none") + ": refused: 1 error; nothing runs"), cli.err);
    }
}
