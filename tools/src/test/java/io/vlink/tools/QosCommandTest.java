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
 * {@code vlink qos check|show} on the real OpenSM files (core's test resources, origins in
 * {@code opensm/ORIGINS.md}).
 */
class QosCommandTest
{
    @TempDir
    static Path resources;

    /** Core's test resources may come as a directory or inside its test jar: copy them to a real file. */
    private static String file(final String name)
    {
        try (InputStream in = QosCommandTest.class.getResourceAsStream("/" + name))
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

    private static final String HIGHLIMIT6 = "opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf";

    @Test
    void checkAcceptsWithWarnings()
    {
        final String path = file(HIGHLIMIT6);
        final Cli cli = Cli.run("qos", "check", path);
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(path + ": ok: port type ca, 15 data VLs, VLHighLimit 6, 1 warning"), cli.out);
        assertTrue(cli.err.startsWith(path + ":4:18: warning: data VLs 4, 8, 9, 10, 11, 12, 13, 14 have no entry"),
            cli::toString);
    }

    @Test
    void checkStrictRefusesWarnings()
    {
        final String path = file(HIGHLIMIT6);
        final Cli cli = Cli.run("qos", "check", path, "--port-type", "swe", "--strict");
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        assertTrue(cli.err.startsWith(path + ":10:19: error: data VLs 4, 8"), cli::toString);
        assertTrue(cli.err.contains(path + ": refused: 1 error, 0 warnings; nothing is applied"), cli::toString);
    }

    @Test
    void checkRefusesAPolicyFileSayingWhatItIs()
    {
        final String path = file("opensm/opensm-doc_qos-policy_ulps-example.conf");
        final Cli cli = Cli.run("qos", "check", path);
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.startsWith(path + ":1:1: error: 'qos-ulps' starts a section of an OpenSM QoS policy file"),
            cli::toString);
    }

    @Test
    void checkRefusesDamagedFilesWithEveryError()
    {
        final String path = file("qos/damaged.conf");
        final Cli cli = Cli.run("qos", "check", path);
        assertEquals(1, cli.exitCode, cli::toString);
        assertTrue(cli.err.contains(path + ":9:1: error: unknown QoS option 'qos_ca_vlarb_hihg': did you mean " +
            "'qos_ca_vlarb_high'?"), cli::toString);
        assertTrue(cli.err.contains("refused: 20 errors, 0 warnings"), cli::toString);
    }

    @Test
    void checkEveryPortTypeOfTheNvidiaFile()
    {
        for (final String type : new String[] {"ca", "swe", "sw0", "rtr", "sw2sw"})
        {
            final Cli cli = Cli.run("qos", "check", file("opensm/mlnx-opensm-5.21_opensm_full.conf"), "--port-type", type);
            assertEquals(0, cli.exitCode, cli::toString);
            assertTrue(cli.out.contains("port type " + type + ", 2 data VLs, VLHighLimit 0, 2 warnings"), cli::toString);
        }
    }

    @Test
    void unknownPortTypeIsAUsageError()
    {
        final Cli cli = Cli.run("qos", "check", file(HIGHLIMIT6), "--port-type", "hca");
        assertEquals(2, cli.exitCode, cli::toString);
    }

    @Test
    void showHighLimit6ExampleAsSmpquery()
    {
        final Cli cli = Cli.run("qos", "show", file(HIGHLIMIT6));
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "# VLArbitration tables: ca LowCap 8 HighCap 8",
            "# Low priority VL Arbitration Table:",
            "VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |",
            "WEIGHT: |0x0 |0x40|0x80|0xC0|0x0 |0x40|0x40|0x40|",
            "# High priority VL Arbitration Table:",
            "VL    : |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "WEIGHT: |0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "# SL2VL table: ca",
            "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|",
            "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|",
            "VLHighLimit: 6",
            "DataVLs: 15 (VL0-14)").replace(System.lineSeparator(), "\n"), cli.out);
    }

    @Test
    void showOpenSmDefaults()
    {
        final Cli cli = Cli.run("qos", "show", file("opensm/rhel6-opensm-3.3.9_opensm.conf"), "--port-type", "rtr");
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "# VLArbitration tables: rtr LowCap 16 HighCap 16",
            "# Low priority VL Arbitration Table:",
            "VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |0x8 |0x9 |0xA |0xB |0xC |0xD |0xE |0x0 |",
            "WEIGHT: |0x0 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x0 |",
            "# High priority VL Arbitration Table:",
            "VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |0x8 |0x9 |0xA |0xB |0xC |0xD |0xE |0x0 |",
            "WEIGHT: |0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "# SL2VL table: rtr",
            "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|",
            "ports: in  0, out  0: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14| 7|",
            "VLHighLimit: 0",
            "DataVLs: 15 (VL0-14)").replace(System.lineSeparator(), "\n"), cli.out);
        assertEquals("", cli.err);
    }

    @Test
    void showCapAboveThirtyTwoSplitsAndBelowTheEntryCountIsRefused()
    {
        final Cli wide = Cli.run("qos", "show", file(HIGHLIMIT6), "--cap", "40");
        assertEquals(0, wide.exitCode, wide::toString);
        assertTrue(wide.out.startsWith("# VLArbitration tables: ca LowCap 40 HighCap 40\n"), wide::toString);
        assertTrue(wide.out.contains("|0x0 |\n\nVL    : |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |\n"), wide::toString);

        final Cli narrow = Cli.run("qos", "show", file(HIGHLIMIT6), "--cap", "4");
        assertEquals(2, narrow.exitCode, narrow::toString);
        assertTrue(narrow.err.contains("--cap 4: the effective tables have up to 8 entries"), narrow::toString);
    }

    @Test
    void showRefusesWhatCheckRefuses()
    {
        final Cli cli = Cli.run("qos", "show", file("opensm/opensm-doc_qos-policy_shortest-full.conf"));
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
    }

    @Test
    void aFileWithoutAnyQosOptionSaysSo() throws IOException
    {
        final Path file = resources.resolve("no-qos.conf");
        Files.writeString(file, "# an opensm.conf without QoS\nqos TRUE\nsm_priority 1\nmax_op_vls 5\n");
        final Cli cli = Cli.run("qos", "check", file.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(file + ": warning: no qos_* option in the file: the port gets OpenSM's defaults (vlink " +
            "qos show prints them); set qos_max_vls, qos_high_limit, qos_vlarb_high, qos_vlarb_low and qos_sl2vl (or " +
            "their qos_<type>_ forms), or check that this is the opensm.conf you meant"), cli.err);
        assertTrue(cli.out.endsWith(", 1 warning" + System.lineSeparator()), cli::toString);
        assertEquals(1, Cli.run("qos", "check", "--strict", file.toString()).exitCode);

        Files.writeString(file, "qos_max_vls 15\n");
        final Cli withOne = Cli.run("qos", "check", file.toString());
        assertEquals("", withOne.err, withOne::toString);
    }
}
