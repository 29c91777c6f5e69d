package io.vlink.core.qos;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
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

    private static QosReader.Result read(final String name, final PortType type)
    {
        return QosConfig.read(resource("opensm/" + name), type, false);
    }

    private static List<String> messages(final QosReader.Result result)
    {
        return result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
    }

    static QosReader.Result readText(final String text)
    {
        final QosReader reader = new QosReader("t.conf");
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            reader.line(i + 1, lines[i]);
        }
        return reader.finish(PortType.CA, 0, LowBurst.WEIGHT, false);
    }

    @Test
    void highLimit6ExampleForCaAndSwe()
    {
        for (final PortType type : new PortType[] {PortType.CA, PortType.SWE})
        {
            final QosReader.Result result = read("opensm-doc_opensm.conf_qos-example-highlimit6.conf", type);
            final QosConfig config = result.config();
            assertEquals(15, config.dataVls());
            assertEquals(6, config.highLimit());
            assertEquals("0:4", config.high().toString());
            assertEquals("0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64", config.low().toString());
            assertEquals(QosConfig.opensmDefaults(15).toBuilder().highLimit(6).vlarbHigh("0:4")
                .vlarbLow("0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64").build(), config);
            // VL4 has weight 0 and VLs 8-14 are in neither table: one warning at the low table's line.
            assertEquals(1, result.diagnostics().size(), () -> messages(result).toString());
            final Diagnostic warning = result.diagnostics().get(0);
            assertFalse(warning.isError());
            assertEquals(type == PortType.CA ? 4 : 10, warning.line());
            assertEquals(type == PortType.CA ? 18 : 19, warning.column(), "the low table's value");
            assertTrue(warning.message().contains("data VLs 4, 8, 9, 10, 11, 12, 13, 14 have no entry"),
                warning::toString);
            assertTrue(warning.message().contains("qos_" + type.label() + "_vlarb_low"), warning::toString);
        }
    }

    @Test
    void highLimit6ExampleHasNothingForSw0SoOpenSmDefaultsApply()
    {
        final QosReader.Result result = read("opensm-doc_opensm.conf_qos-example-highlimit6.conf", PortType.SW0);
        assertEquals(QosConfig.opensmDefaults(15), result.config());
        assertEquals(List.of(), result.diagnostics());
    }

    @Test
    void strictModeRefusesWhatOnlyWarned()
    {
        final QosReader.Result result = QosConfig.read(
            resource("opensm/opensm-doc_opensm.conf_qos-example-highlimit6.conf"), PortType.CA, true);
        assertFalse(result.ok());
        assertNull(result.config());
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
    void defaultsWrittenOutOrLeftUnsetGiveOpenSmsDefaultsWithoutWarnings(final String name)
    {
        for (final PortType type : PortType.values())
        {
            final QosReader.Result result = read(name, type);
            assertEquals(List.of(), messages(result), name + " " + type);
            assertEquals(QosConfig.opensmDefaults(15), result.config(), name + " " + type);
        }
    }

    @Test
    void qosConfigTxtExamplesShortSl2vlWarnsAndMapsTheRestToVl0()
    {
        final QosReader.Result ca = read("opensm-doc_qos-config.txt_examples.conf", PortType.CA);
        assertEquals(List.of(resource("opensm/opensm-doc_qos-config.txt_examples.conf") + ":2:14: warning: " +
            "qos_ca_sl2vl lists 10 VLs: SL10..SL15 map to VL0 (as in OpenSM); list all 16 SLs to say what you mean"),
            messages(ca));
        final int[] expected = {0, 1, 2, 3, 5, 5, 5, 12, 12, 0, 0, 0, 0, 0, 0, 0};
        for (int sl = 0; sl < 16; sl++)
        {
            assertEquals(expected[sl], ca.config().sl2vl(sl), "SL" + sl);
        }

        final QosReader.Result swe = read("opensm-doc_qos-config.txt_examples.conf", PortType.SWE);
        assertEquals(0, swe.config().highLimit());
        assertEquals(List.of(), swe.diagnostics());

        // qos_sw0_max_vls 2: two data VLs, so OpenSM's default tables and SL2VL name VLs the port lacks.
        final QosReader.Result sw0 = read("opensm-doc_qos-config.txt_examples.conf", PortType.SW0);
        assertEquals(2, sw0.config().dataVls());
        final List<String> warnings = messages(sw0);
        assertEquals(2, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).contains(": warning: the default vlarb_low (OpenSM's, as neither " +
            "qos_sw0_vlarb_low nor qos_vlarb_low is set) has entries 2:4, 3:4"), warnings::toString);
        assertTrue(warnings.get(1).contains("SL2->VL2"), warnings::toString);
    }

    @Test
    void ncclExampleWarnsAboutTheUnboundedLimitAndTheShortSl2vl()
    {
        final QosReader.Result result = read("nccl-docs_communicators_qos_example.conf", PortType.CA);
        final QosConfig config = result.config();
        assertEquals(2, config.dataVls());
        assertEquals(255, config.highLimit());
        assertEquals("1:4", config.high().toString());
        assertEquals("0:1,1:4", config.low().toString());
        final List<Diagnostic> d = result.diagnostics();
        assertEquals(2, d.size(), () -> messages(result).toString());
        assertEquals(2, d.get(0).line());
        assertEquals(16, d.get(0).column());
        assertTrue(d.get(0).message().startsWith("qos_high_limit 255 makes the high table unbounded"), d.get(0)::toString);
        assertEquals(5, d.get(1).line());
        assertTrue(d.get(1).message().startsWith("qos_sl2vl lists 2 VLs: SL2..SL15 map to VL0"), d.get(1)::toString);
    }

    @Test
    void hpcAdvisoryCouncilExampleAcceptsSpacesAfterCommas()
    {
        final QosReader.Result result = read("hpcadvisorycouncil-wiki_qos-example.conf", PortType.CA);
        final QosConfig config = result.config();
        assertEquals(4, config.dataVls());
        assertEquals("1:192,2:128,3:64", config.high().toString());
        assertEquals("0:64", config.low().toString());
        final List<String> warnings = messages(result);
        assertEquals(2, warnings.size(), warnings::toString);
        assertTrue(warnings.get(0).contains(":3:16: warning: qos_high_limit 255"), warnings::toString);
        assertTrue(warnings.get(1).contains(":6:11: warning: qos_sl2vl lists 4 VLs"), warnings::toString);
    }

    @Test
    void nvidiaFullConfigIsReadWithItsExtraKeysAndMaxOpVls2()
    {
        for (final PortType type : PortType.values())
        {
            final QosReader.Result result = read("mlnx-opensm-5.21_opensm_full.conf", type);
            assertTrue(result.ok(), () -> messages(result).toString());
            assertEquals(2, result.config().dataVls(), "max_op_vls 2");
            final List<String> warnings = messages(result);
            assertEquals(2, warnings.size(), warnings::toString);
            assertTrue(warnings.get(0).contains("the default vlarb_low"), warnings::toString);
            assertTrue(warnings.get(1).contains("the default sl2vl"), warnings::toString);
            assertTrue(warnings.get(1).contains("SL2->VL2, SL3->VL3"), warnings::toString);
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
        final QosReader.Result result = read(parts[0], PortType.CA);
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
    void everyDamagedLineIsAnErrorAtItsLineAndColumn() throws IOException
    {
        final Path path = resource("qos/damaged.conf");
        final List<String> lines = Files.readAllLines(path, StandardCharsets.ISO_8859_1);
        final QosReader.Result result = QosConfig.read(path, PortType.CA, false);
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
                "write 'qos_ca_sl2vl 0,1,2'"},
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
                "write 'qos_ca_max_vls 8'"},
            {19, "a:4", "qos_swe_vlarb_low: VL 'a' in entry 'a:4' is not a number"},
            {20, "0x1g", "qos_sw2sw_high_limit: '0x1g' is not a number"},
            {21, "256", "qos_ca_vlarb_high: weight 256 in entry '1 : 256' is out of range"},
        };
        assertEquals(expected.length, result.diagnostics().size(), () -> messages(result).toString());
        for (int i = 0; i < expected.length; i++)
        {
            final Diagnostic d = result.diagnostics().get(i);
            final int line = (Integer)expected[i][0];
            final String text = lines.get(line - 1);
            final String offending = (String)expected[i][1];
            final int column = offending.equals(",,") ? text.indexOf(",,") + 2 : text.lastIndexOf(offending) + 1;
            assertTrue(d.isError(), d::toString);
            assertEquals(line, d.line(), d::toString);
            assertEquals(column, d.column(), d::toString);
            assertTrue(d.message().startsWith((String)expected[i][2]), d::toString);
            assertTrue(d.toString().startsWith(path + ":" + line + ":" + column + ": error: "), d::toString);
        }
    }

    @Test
    void laterLineWinsAndUnsetFormsFallBack()
    {
        final QosReader.Result result = readText(String.join("\n",
            "qos_high_limit 3",
            "qos_ca_high_limit 5",
            "qos_ca_high_limit -1      # unset again: falls back to qos_high_limit",
            "qos_vlarb_high 0:4",
            "qos_ca_vlarb_high \"0:8\"  # quotes removed",
            "qos_ca_vlarb_high (null)",
            "qos_max_vls 8",
            "qos_ca_max_vls 0",
            "qos_vlarb_low 0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4",
            "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,7"));
        assertEquals(List.of(), messages(result));
        assertEquals(3, result.config().highLimit());
        assertEquals("0:4", result.config().high().toString());
        assertEquals(8, result.config().dataVls());
    }

    @Test
    void typedOptionOverridesGenericFieldByField()
    {
        final QosReader.Result result = readText(String.join("\n",
            "qos_high_limit 3",
            "qos_ca_vlarb_high 1:4",
            "qos_vlarb_high 0:4",
            "max_op_vls 3"));
        assertEquals(3, result.config().highLimit());
        assertEquals("1:4", result.config().high().toString());
        assertEquals(4, result.config().dataVls());
    }

    @Test
    void entriesForMissingVlsAndDroppedSlsWarnWithColumns()
    {
        final QosReader.Result result = readText(String.join("\n",
            "max_op_vls 2",
            "qos_ca_vlarb_high 0:4,5:8,1:0,7:1",
            "qos_ca_vlarb_low 1:4",
            "qos_ca_sl2vl 0,1,0,1,0,1,0,1,0,1,0,1,0,1,0,15"));
        final List<Diagnostic> d = result.diagnostics();
        assertEquals(2, d.size(), () -> messages(result).toString());
        assertEquals(2, d.get(0).line());
        assertEquals(23, d.get(0).column());
        assertTrue(d.get(0).message().startsWith("qos_ca_vlarb_high has entries 5:8, 7:1 for VLs the port does not " +
            "have (2 data VLs (VL0-1)): the arbiter skips them"), d.get(0)::toString);
        assertEquals(4, d.get(1).line());
        assertEquals(44, d.get(1).column());
        assertTrue(d.get(1).message().startsWith("qos_ca_sl2vl maps SL15->VL15"), d.get(1)::toString);
    }

    @Test
    void nonQosKeysAreIgnoredAndAcceptedQosKeysAreNotUsed()
    {
        final QosReader.Result result = readText(String.join("\n",
            "routing_engine ftree",
            "weird=stuff",
            "qos TRUE",
            "qos_policy_file /etc/opensm/qos-policy.conf",
            "qos_config_vl_enabled FALSE",
            "max_op_vls_ca 3"));
        assertEquals(List.of(), messages(result));
        assertEquals(QosConfig.opensmDefaults(15), result.config());
    }

    @Test
    void missingFileIsAnError()
    {
        final QosReader.Result result = QosConfig.read(Path.of("no/such/opensm.conf"), PortType.CA, false);
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
