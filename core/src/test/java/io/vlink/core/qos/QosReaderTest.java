package io.vlink.core.qos;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Reads every real OpenSM file in {@code src/test/resources/opensm/} (origins in its {@code ORIGINS.md}) and a file
 * of damaged configurations.
 */
class QosReaderTest
{
    static Path resource(final String name)
    {
        try
        {
            return Path.of(QosReaderTest.class.getResource("/" + name).toURI());
        }
        catch (final URISyntaxException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static Result<QosConfig> read(final String name, final PortType type)
    {
        return QosReader.read(resource("opensm/" + name), type, false);
    }

    private static List<String> messages(final Result<QosConfig> result)
    {
        return result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
    }

    static Result<QosConfig> readText(final String text)
    {
        return readText(text, QosReader.Mode.APPLY);
    }

    static Result<QosConfig> readText(final String text, final QosReader.Mode mode)
    {
        final QosReader reader = new QosReader("t.conf");
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            reader.line(i + 1, lines[i]);
        }
        return reader.finish(PortType.CA, QosPort.vlink(), mode, LowBurst.WEIGHT, false);
    }

    /** OpenSM's reading of a table, as programmed on a vlink port (15 VLs, 8 entries). */
    static String programmed(final String text)
    {
        return readText("qos_vlarb_low " + text).orThrow().low().toString();
    }

    private static List<String> errors(final Result<QosConfig> result)
    {
        return result.diagnostics().stream().filter(Diagnostic::isError).map(Diagnostic::toString).toList();
    }

    @Test
    void highLimit6ExampleForCaAndSweIsProgrammedAsWritten()
    {
        for (final PortType type : new PortType[] {PortType.CA, PortType.SWE})
        {
            final Result<QosConfig> result = read("opensm-doc_opensm.conf_qos-example-highlimit6.conf", type);
            final QosConfig config = result.value();
            assertEquals(15, config.dataVls());
            assertEquals(6, config.highLimit());
            assertEquals("0:4,0:0,0:0,0:0,0:0,0:0,0:0,0:0", config.high().toString(), "a table of 8 entries");
            assertEquals("0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64", config.low().toString());
            assertEquals(7, config.sl2vl(15));
            assertEquals(14, config.sl2vl(14), "15 operational VLs: nothing masked");
            // VL4 has weight 0 and VLs 8-14 are in neither table; the file has no 'qos TRUE'
            final List<String> warnings = messages(result);
            assertEquals(2, warnings.size(), warnings::toString);
            assertTrue(warnings.get(0).contains(": warning: no 'qos TRUE' in the file: OpenSM programs none of these"),
                warnings::toString);
            assertTrue(warnings.get(1).contains(":" + (type == PortType.CA ? "4:18" : "10:19") + ": warning: data " +
                "VLs 4, 8, 9, 10, 11, 12, 13, 14 have no entry"), warnings::toString);
            assertTrue(QosReader.read(resource("opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf"), type,
                QosPort.vlink(), QosReader.Mode.CHECK, false).ok(), "nothing OpenSM changes");
        }
    }

    @Test
    void onAnEightVlPortTheSameFileIsMaskedAndCheckRefusesIt()
    {
        final Path file = resource("opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf");
        final QosPort eight = QosPort.vlink().vlCap(8);
        final Result<QosConfig> apply = QosReader.read(file, PortType.CA, eight, QosReader.Mode.APPLY, false);
        assertEquals(8, apply.orThrow().dataVls());
        assertEquals(0, apply.orThrow().sl2vl(8), "SL8 -> VL8 is programmed VL 8 & 7 = 0");
        final Result<QosConfig> check = QosReader.read(file, PortType.CA, eight, QosReader.Mode.CHECK, false);
        assertEquals(List.of(file + ":5:30: error: qos_ca_sl2vl: the port operates 8 data VLs (VL0-7) and OpenSM " +
            "masks every VL but 15 to them: it programs SL8->VL8 as VL0, SL9->VL9 as VL1, SL10->VL10 as VL2, " +
            "SL11->VL11 as VL3, SL12->VL12 as VL4, SL13->VL13 as VL5, SL14->VL14 as VL6; map the SLs to VLs below 8 " +
            "(or allow more with max_op_vls)"), errors(check));
    }

    @Test
    void highLimit6ExampleHasNothingForSw0SoOpenSmDefaultsApply()
    {
        final Result<QosConfig> result = read("opensm-doc_opensm.conf_qos-example-highlimit6.conf", PortType.SW0);
        assertEquals("0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0", result.value().high().toString());
        assertEquals("0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4", result.value().low().toString());
        assertEquals(1, messages(result).size(), "OpenSM's defaults, on a file's silence, are not the file's: only " +
            "the missing 'qos TRUE' is noted: " + messages(result));
    }

    @Test
    void strictModeRefusesWhatOnlyWarned()
    {
        final Result<QosConfig> result = QosReader.read(
            resource("opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf"), PortType.CA, true);
        assertFalse(result.ok());
        assertNull(result.value());
        assertTrue(result.diagnostics().get(0).isError());
        final ConfigException ex = assertThrows(ConfigException.class, result::orThrow);
        assertTrue(ex.getMessage().contains(":4:18: error: data VLs 4, 8"), ex.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "opensm-doc_qos-config.txt_defaults.conf",
        "opensm-doc_opensm.conf_qos-defaults-ca-swe.conf",
        "rhel6-opensm-3.3.5_opensm.conf",
        "rhel6-opensm-3.3.9_opensm.conf"})
    void defaultsWrittenOutOrLeftUnsetAreProgrammedAsOpenSmsDefaults(final String name)
    {
        final QosConfig defaults = readText("qos TRUE").orThrow();
        for (final PortType type : new PortType[] {PortType.CA, PortType.SWE, PortType.SW0, PortType.RTR})
        {
            final Result<QosConfig> result = read(name, type);
            assertEquals(defaults, result.value(), name + " " + type);
            assertTrue(result.diagnostics().stream().noneMatch(Diagnostic::isError), name + " " + type);
        }
    }

    @Test
    void openSmsDefaultsWrittenOutHaveFifteenEntriesAnEightEntryPortCannotHold()
    {
        final Path file = resource("opensm/opensm-doc_qos-config.txt_defaults.conf");
        final List<String> refused = errors(QosReader.read(file, PortType.CA, QosPort.vlink(), QosReader.Mode.CHECK,
            false));
        assertEquals(1, refused.size(), refused::toString);
        assertTrue(refused.get(0).contains("qos_vlarb_low has 15 entries but the port's table holds 8 (VLArbLowCap): " +
            "OpenSM does not program 8:4, 9:4, 10:4, 11:4, 12:4, 13:4, 14:4; give at most 8 entries"), refused::toString);
        assertTrue(QosReader.read(file, PortType.CA, QosPort.vlink().caps(16, 16), QosReader.Mode.CHECK, false).ok(),
            "a port that holds 16 entries");
    }

    @Test
    void qosConfigTxtExamples()
    {
        final Path file = resource("opensm/opensm-doc_qos-config.txt_examples.conf");
        final Result<QosConfig> ca = read("opensm-doc_qos-config.txt_examples.conf", PortType.CA);
        assertTrue(messages(ca).contains(file + ":2:14: warning: qos_ca_sl2vl lists 10 VLs: SL10..SL15 map to VL0 " +
            "(OpenSM reads the missing values as 0); list all 16 SLs to say what you mean"), messages(ca)::toString);
        final int[] expected = {0, 1, 2, 3, 5, 5, 5, 12, 12, 0, 0, 0, 0, 0, 0, 0};
        for (int sl = 0; sl < 16; sl++)
        {
            assertEquals(expected[sl], ca.value().sl2vl(sl), "SL" + sl);
        }
        assertFalse(QosReader.read(file, PortType.CA, QosPort.vlink(), QosReader.Mode.CHECK, false).ok());

        // qos_sw0_max_vls 2: OpenSM does not use it; the port operates 15 VLs
        final Result<QosConfig> sw0 = read("opensm-doc_qos-config.txt_examples.conf", PortType.SW0);
        assertEquals(15, sw0.value().dataVls());
        assertTrue(messages(sw0).stream().anyMatch(m -> m.contains(":1:17: warning: qos_sw0_max_vls 2: OpenSM does " +
            "not use qos_*max_vls; the port operates 15 data VLs (VL0-14)")), messages(sw0)::toString);
    }

    @Test
    void ncclExampleWarnsAboutTheUnboundedLimitAndTheShortSl2vl()
    {
        final Result<QosConfig> result = read("nccl-docs_communicators_qos_example.conf", PortType.CA);
        final QosConfig config = result.value();
        assertEquals(2, config.dataVls(), "max_op_vls 2");
        assertEquals(255, config.highLimit());
        assertEquals("1:4,0:0,0:0,0:0,0:0,0:0,0:0,0:0", config.high().toString());
        assertEquals("0:1,1:4,0:0,0:0,0:0,0:0,0:0,0:0", config.low().toString());
        final List<String> m = messages(result);
        assertTrue(m.stream().anyMatch(d -> d.contains(":2:16: warning: qos_high_limit 255 makes the high table " +
            "unbounded")), m::toString);
        assertTrue(m.stream().anyMatch(d -> d.contains(":5:11: warning: qos_sl2vl lists 2 VLs: SL2..SL15 map to VL0")),
            m::toString);
    }

    @Test
    void hpcAdvisoryCouncilExampleAcceptsSpacesAfterCommasAsOpenSmDoes()
    {
        final Result<QosConfig> result = read("hpcadvisorycouncil-wiki_qos-example.conf", PortType.CA);
        final QosConfig config = result.value();
        assertEquals(15, config.dataVls(), "OpenSM does not use qos_max_vls 4");
        assertEquals("1:192,2:128,3:64,0:0,0:0,0:0,0:0,0:0", config.high().toString(), "strtoul skips the spaces");
        assertEquals("0:64,0:0,0:0,0:0,0:0,0:0,0:0,0:0", config.low().toString());
        assertTrue(messages(result).stream().anyMatch(d -> d.contains(":2:13: warning: qos_max_vls 4: OpenSM does not " +
            "use")), messages(result)::toString);
    }

    @Test
    void nvidiaFullConfigIsReadWithItsExtraKeysAndMaxOpVls2()
    {
        for (final PortType type : PortType.values())
        {
            final Result<QosConfig> result = read("mlnx-opensm-5.21_opensm_full.conf", type);
            assertTrue(result.ok(), () -> messages(result).toString());
            assertEquals(2, result.value().dataVls(), "max_op_vls 2");
            assertEquals("0:0,1:4,0:4,1:4,0:4,1:4,0:4,1:4", result.value().low().toString(), "masked as OpenSM does");
            final List<String> warnings = messages(result);
            assertEquals(2, warnings.size(), warnings::toString);
            assertTrue(warnings.get(0).contains("the default vlarb_low"), warnings::toString);
            assertTrue(warnings.get(1).contains("the default sl2vl"), warnings::toString);
            assertTrue(warnings.get(1).contains("SL2->VL2 as VL0, SL3->VL3 as VL1"), warnings::toString);
            assertTrue(QosReader.read(resource("opensm/mlnx-opensm-5.21_opensm_full.conf"), type, QosPort.vlink(),
                QosReader.Mode.CHECK, false).ok(), "OpenSM's defaults masked: worth a warning, not a refusal");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "opensm-doc_qos-policy_full-example.conf:5:port-groups",
        "opensm-doc_qos-policy_shortest-full.conf:1:qos-levels",
        "opensm-doc_qos-policy_shortest-ulps.conf:1:qos-ulps",
        "opensm-doc_qos-policy_ulps-example.conf:1:qos-ulps"})
    void qosPolicyFilesAreRefusedAsWhatTheyAre(final String expectation)
    {
        final String[] parts = expectation.split(":");
        final Result<QosConfig> result = read(parts[0], PortType.CA);
        assertFalse(result.ok());
        assertEquals(1, result.diagnostics().size(), () -> messages(result).toString());
        final Diagnostic error = result.diagnostics().get(0);
        assertEquals(Integer.parseInt(parts[1]), error.line());
        assertEquals(1, error.column());
        assertTrue(error.message().startsWith("'" + parts[2] + "' starts a section of an OpenSM QoS policy file"),
            error::toString);
        assertTrue(error.message().contains("not opensm.conf options"), error::toString);
        assertTrue(error.message().contains("qos_policy_file"), error::toString);
    }

    @Test
    void everyDamagedLineIsAnErrorAtItsLineAndColumnInCheck() throws IOException
    {
        final Path path = resource("qos/damaged.conf");
        final List<String> lines = Files.readAllLines(path, StandardCharsets.ISO_8859_1);
        final Result<QosConfig> result = QosReader.read(path, PortType.CA, QosPort.vlink(), QosReader.Mode.CHECK, false);
        assertFalse(result.ok());
        // line -> the offending text the column must point at (its last occurrence on the line) and the message
        final Object[][] expected = {
            {2, "6x", "qos_ca_high_limit: '6x' is not a number: write 0..255"},
            {3, "300", "qos_ca_high_limit: 300 is out of range"},
            {4, "15:64", "qos_ca_vlarb_low: VL 15 in entry '15:64' is out of range: table VLs are 0..14"},
            {5, "300", "qos_ca_vlarb_low: weight 300 in entry '1:300' is out of range: weights are 0..255"},
            {6, "1-64", "qos_ca_vlarb_high: entry '1-64' has no ':': write each entry as VL:weight"},
            {7, "0", "qos_ca_sl2vl: more than 16 values (value 17 is '0'): SL2VL maps the 16 SLs"},
            {8, "=", "'qos_ca_sl2vl=0,1,2' uses '=': opensm.conf separates key and value with a space: " +
                "write 'qos_ca_sl2vl 0,1,2' (OpenSM ignores the line"},
            {9, "qos_ca_vlarb_hihg", "unknown QoS option 'qos_ca_vlarb_hihg': did you mean 'qos_ca_vlarb_high'?"},
            {10, "16", "qos_swe_max_vls: 16 is out of range: write 1..15, or 0 to leave it unset"},
            {11, "6", "max_op_vls: 6 is out of range: write 1..5"},
            {12, "x", "qos_rtr_sl2vl: VL 'x' for SL2 is not a number"},
            {13, ",,", "qos_vlarb_low: empty entry"},
            {14, "qos_sw0_high_limit", "qos_sw0_high_limit has no value"},
            {15, "64 2:64", "qos_ca_vlarb_low: weight '64 2:64' in entry '1:64 2:64' is not a number"},
            {16, "16", "qos_sl2vl: VL 16 for SL15 is out of range: VLs are 0..15"},
            {17, "4:1", "qos_vlarb_high: more than 64 entries (entry 65 is '4:1')"},
            {18, "=", "'qos_ca_max_vls = 8' uses '=': opensm.conf separates key and value with a space: " +
                "write 'qos_ca_max_vls 8' (OpenSM reads '= 8' as the value)"},
            {19, "a:4", "qos_swe_vlarb_low: VL 'a' in entry 'a:4' is not a number"},
            {20, "0x1g", "qos_sw2sw_high_limit: '0x1g' is not a number"},
            {21, "256", "qos_ca_vlarb_high: weight 256 in entry '1 : 256' is out of range"},
        };
        final List<Diagnostic> errors = result.diagnostics().stream().filter(Diagnostic::isError).toList();
        assertEquals(expected.length, errors.size(), () -> messages(result).toString());
        for (int i = 0; i < expected.length; i++)
        {
            final Diagnostic d = errors.get(i);
            final int line = (Integer)expected[i][0];
            final String text = lines.get(line - 1);
            final String offending = (String)expected[i][1];
            final int column = offending.equals(",,") ? text.indexOf(",,") + 2 : text.lastIndexOf(offending) + 1;
            assertEquals(line, d.line(), d::toString);
            assertEquals(column, d.column(), d::toString);
            assertTrue(d.message().startsWith((String)expected[i][2]), d::toString);
            assertTrue(d.toString().startsWith(path + ":" + line + ":" + column + ": error: "), d::toString);
        }
        final Result<QosConfig> applied = QosReader.read(path, PortType.CA, false);
        assertTrue(applied.ok(), "OpenSM programs even this file: every mistake is a warning");
        for (final Diagnostic error : errors)
        {
            assertTrue(applied.diagnostics().contains(new Diagnostic(error.file(), error.line(), error.column(),
                Diagnostic.Severity.WARNING, error.message())), error::toString);
        }
    }

    @Test
    void laterLineWinsAndUnsetFormsFallBack()
    {
        final Result<QosConfig> result = readText(String.join("\n",
            "qos_high_limit 3",
            "qos_ca_high_limit 5",
            "qos_ca_high_limit -1      # unset again: falls back to qos_high_limit",
            "qos_vlarb_high 0:4",
            "qos_ca_vlarb_high \"0:8\"  # quotes removed",
            "qos_ca_vlarb_high (null)",
            "max_op_vls 4",
            "qos_vlarb_low 0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4",
            "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"));
        assertEquals(List.of(), messages(result));
        assertEquals(3, result.value().highLimit());
        assertEquals(programmed("0:4"), result.value().high().toString());
        assertEquals(8, result.value().dataVls());
    }

    @Test
    void typedOptionOverridesGenericFieldByFieldAndAnOutOfRangeLimitFallsBackAsInOpenSm()
    {
        final Result<QosConfig> result = readText(String.join("\n",
            "qos_high_limit 3",
            "qos_ca_vlarb_high 1:4",
            "qos_vlarb_high 0:4",
            "max_op_vls 3"));
        assertEquals(3, result.value().highLimit());
        assertEquals(programmed("1:4"), result.value().high().toString());
        assertEquals(4, result.value().dataVls());
        final Result<QosConfig> fallBack = readText("qos_high_limit 3\nqos_ca_high_limit 300");
        assertEquals(3, fallBack.orThrow().highLimit(), "OpenSM unsets 300 and takes qos_high_limit");
        assertEquals(List.of("t.conf:2:19: warning: qos_ca_high_limit: 300 is out of range: write 0..255 (4 KB " +
            "units; 255 = unbounded, 0 = one packet), or a negative number to leave it unset (OpenSM leaves it unset " +
            "and falls back)"), messages(fallBack));
    }

    @Test
    void maskedEntriesAndDroppedSlsAreReportedWithColumns()
    {
        final Result<QosConfig> result = readText(String.join("\n",
            "max_op_vls 2",
            "qos_ca_vlarb_high 0:4,5:8,1:0,7:1",
            "qos_ca_vlarb_low 1:4",
            "qos_ca_sl2vl 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,15"));
        final List<Diagnostic> d = result.diagnostics();
        assertEquals(2, d.size(), () -> messages(result).toString());
        assertEquals("t.conf:2:23: warning: qos_ca_vlarb_high: the port operates 2 data VLs (VL0-1) and OpenSM masks " +
            "every VL to them: it programs 5:8 as 1:8, 7:1 as 1:1; use VLs below 2 (or allow more with max_op_vls)",
            d.get(0).toString());
        assertEquals("0:4,1:8,1:0,1:1,0:0,0:0,0:0,0:0", result.value().high().toString());
        assertEquals(4, d.get(1).line());
        assertEquals(44, d.get(1).column());
        assertTrue(d.get(1).message().startsWith("qos_ca_sl2vl maps SL15->VL15"), d.get(1)::toString);
        assertFalse(readText("max_op_vls 2\nqos_ca_vlarb_high 0:4,5:8", QosReader.Mode.CHECK).ok());
    }

    @Test
    void nonQosKeysAreIgnoredAndAcceptedQosKeysAreNotUsed()
    {
        final Result<QosConfig> result = readText(String.join("\n",
            "routing_engine ftree",
            "weird=stuff",
            "qos TRUE",
            "qos_policy_file /etc/opensm/qos-policy.conf",
            "qos_config_vl_enabled FALSE",
            "max_op_vls_ca 3"));
        assertEquals(List.of(), messages(result));
        assertEquals(readText("").value(), result.value());
    }

    @Test
    void missingFileIsAnError()
    {
        final Result<QosConfig> result = QosReader.read(Path.of("no/such/opensm.conf"), PortType.CA, false);
        assertFalse(result.ok());
        assertEquals(List.of("no/such/opensm.conf: error: cannot read: no such file"),
            result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
    }

    @Test
    void nearestKeyByEditDistance()
    {
        assertEquals("qos_swe_sl2vl", QosReader.nearestKey("qos_swe_sl2v1"));
        assertEquals("qos_high_limit", QosReader.nearestKey("qos_highlimit"));
        assertEquals(3, QosReader.editDistance("kitten", "sitting"));
    }
}
