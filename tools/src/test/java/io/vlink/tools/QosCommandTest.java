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
        assertEquals(lines(path + ": ok: port type ca, 15 data VLs, VLHighLimit 6, 2 warnings"), cli.out);
        assertTrue(cli.err.startsWith(path + ": warning: no 'qos TRUE' in the file"), cli::toString);
        assertTrue(cli.err.contains(path + ":4:18: warning: data VLs 4, 8, 9, 10, 11, 12, 13, 14 have no entry"),
            cli::toString);
    }

    @Test
    void checkStrictRefusesWarnings()
    {
        final String path = file(HIGHLIMIT6);
        final Cli cli = Cli.run("qos", "check", path, "--port-type", "swe", "--strict");
        assertEquals(1, cli.exitCode, cli::toString);
        assertEquals("", cli.out);
        assertTrue(cli.err.contains(path + ":10:19: error: data VLs 4, 8"), cli::toString);
        assertTrue(cli.err.contains(path + ": refused: 2 errors; nothing is applied"), cli::toString);
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
        assertTrue(cli.err.contains("refused: 20 errors, "), cli::toString);
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
    void showOpenSmDefaultsOnARouterPortOfSixteenEntries()
    {
        final Cli cli = Cli.run("qos", "show", file("opensm/rhel6-opensm-3.3.9_opensm.conf"), "--port-type", "rtr",
            "--cap", "16");
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
    }

    @Test
    void showAsSmpqueryPrintsAnIbsimSwitchPortWithEightVls() throws IOException
    {
        final Path file = resources.resolve("qos-true.conf");
        Files.writeString(file, "qos TRUE\n");
        final Cli cli = Cli.run("qos", "show", file.toString(), "--port-type", "swe", "--vl-cap", "8", "--lid", "1",
            "--port", "3", "--ports", "3");
        assertEquals(0, cli.exitCode, cli::toString);
        assertEquals(lines(
            "# VLArbitration tables: Lid 1 port 3 LowCap 8 HighCap 8",
            "# Low priority VL Arbitration Table:",
            "VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |",
            "WEIGHT: |0x0 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |0x4 |",
            "# High priority VL Arbitration Table:",
            "VL    : |0x0 |0x1 |0x2 |0x3 |0x4 |0x5 |0x6 |0x7 |",
            "WEIGHT: |0x4 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |",
            "# SL2VL table: Lid 1",
            "#                 SL: | 0| 1| 2| 3| 4| 5| 6| 7| 8| 9|10|11|12|13|14|15|",
            "ports: in  0, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|",
            "ports: in  1, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|",
            "ports: in  2, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|",
            "ports: in  3, out  3: | 0| 1| 2| 3| 4| 5| 6| 7| 0| 1| 2| 3| 4| 5| 6| 7|",
            "VLHighLimit: 0",
            "DataVLs: 8 (VL0-7)").replace(System.lineSeparator(), "\n"), cli.out);
        assertTrue(cli.err.contains("warning: the default sl2vl (OpenSM's, as neither qos_swe_sl2vl nor qos_sl2vl is " +
            "set) is programmed with every VL but 15 masked to the port's 8 data VLs (VL0-7)"), cli::toString);
    }

    @Test
    void showAppliesWhatOpenSmProgramsAndCheckRefusesIt() throws IOException
    {
        final Path file = resources.resolve("spacing.conf");
        Files.writeString(file, "qos TRUE\nqos_ca_vlarb_low 0 :8,1:16,2:32,3:64\n");
        final Cli show = Cli.run("qos", "show", file.toString(), "--vl-cap", "8");
        assertEquals(0, show.exitCode, show::toString);
        assertTrue(show.out.startsWith(lines(
            "# VLArbitration tables: ca LowCap 8 HighCap 8",
            "# Low priority VL Arbitration Table:",
            "VL    : |0x0 |0x0 |0x1 |0x2 |0x4 |0x0 |0x0 |0x0 |",
            "WEIGHT: |0x0 |0x1 |0x2 |0x3 |0x0 |0x0 |0x0 |0x0 |").replace(System.lineSeparator(), "\n")), show::toString);
        assertTrue(show.err.contains(file + ":2:18: warning: qos_ca_vlarb_low: OpenSM does not read this list as " +
            "written"), show::toString);
        final Cli check = Cli.run("qos", "check", file.toString(), "--vl-cap", "8");
        assertEquals(1, check.exitCode, check::toString);
        assertTrue(check.err.contains(file + ":2:18: error: qos_ca_vlarb_low: OpenSM does not read this list as " +
            "written"), check::toString);
    }

    @Test
    void portOptionUsageErrors()
    {
        final String path = file(HIGHLIMIT6);
        assertEquals(2, Cli.run("qos", "show", path, "--cap", "65").exitCode);
        assertEquals(2, Cli.run("qos", "show", path, "--cap", "0").exitCode);
        assertEquals(2, Cli.run("qos", "show", path, "--vl-cap", "3").exitCode);
        assertEquals(2, Cli.run("qos", "check", path, "--peer-vl-cap", "16").exitCode);
        assertEquals(2, Cli.run("qos", "show", path, "--port-type", "swe", "--port", "0").exitCode);
        assertEquals(2, Cli.run("qos", "show", path, "--port-type", "swe", "--ports", "4", "--port", "5").exitCode);
    }

    @Test
    void showCapAboveThirtyTwoSplits()
    {
        final Cli wide = Cli.run("qos", "show", file(HIGHLIMIT6), "--cap", "40");
        assertEquals(0, wide.exitCode, wide::toString);
        assertTrue(wide.out.startsWith("# VLArbitration tables: ca LowCap 40 HighCap 40\n"), wide::toString);
        assertTrue(wide.out.contains("|0x0 |\n\nVL    : |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |0x0 |\n"), wide::toString);
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

        Files.writeString(file, "qos TRUE\nqos_max_vls 15\n");
        final Cli withOne = Cli.run("qos", "check", file.toString());
        assertEquals("", withOne.err, withOne::toString);
    }
}
