package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edges of the {@code opensm.conf} reader (docs/qos.md): each option's range taken inclusively at both ends,
 * a key with no value or a lone quote, the effective-configuration warnings at their limits (a VL just past the
 * port's, the first SL or entry of a list, one data VL, the unbounded high limit), diagnostics in file order and the
 * nearest-key suggestion; plus the value types' equality, text and labels.
 */
class QosReaderEdgesTest
{
    /** A 4-VL port with every table and the SL map given, and nothing to warn about (lines 1-4). */
    private static final String FOUR_VLS = "qos_max_vls 4\nqos_vlarb_high 0:4,1:4,2:4,3:4\n" +
        "qos_vlarb_low 0:4,1:4,2:4,3:4\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3\n";

    private static List<String> errors(final QosReader.Result result)
    {
        return result.diagnostics().stream().filter(Diagnostic::isError).map(Diagnostic::toString).toList();
    }

    private static List<String> warnings(final QosReader.Result result)
    {
        return result.diagnostics().stream().filter(d -> !d.isError()).map(Diagnostic::toString).toList();
    }

    @Test
    void qosKeysAreRecognisedByTheirFirstWord()
    {
        for (final String key : new String[] {"qos_max_vls", "qos_ca_vlarb_high=0:4", "qos", "max_op_vls",
            "port-groups", "qos-levels", "end-qos-levels"})
        {
            assertTrue(QosReader.isQosKey(key), key);
        }
        for (final String key : new String[] {"sm_priority", "log_file", "q", "max_op_vl", "=qos_max_vls", ""})
        {
            assertFalse(QosReader.isQosKey(key), key);
        }
    }

    @Test
    void everyNumericOptionTakesItsRangeInclusively()
    {
        assertEquals(15, QosReaderTest.readText("qos_max_vls 15").orThrow().dataVls());
        assertEquals(1, QosReaderTest.readText("qos_max_vls 1").orThrow().dataVls());
        assertEquals(1, errors(QosReaderTest.readText("qos_max_vls 16")).size());
        assertEquals(1, errors(QosReaderTest.readText("qos_max_vls -1")).size());
        assertTrue(QosReaderTest.readText("qos_max_vls 0").ok(), "0 leaves it unset");

        assertEquals(0, QosReaderTest.readText("qos_high_limit 0").orThrow().highLimit(), "0 is one packet, not unset");
        assertEquals(255, QosReaderTest.readText("qos_high_limit 255").orThrow().highLimit());
        assertEquals(1, errors(QosReaderTest.readText("qos_high_limit 256")).size());
        assertTrue(QosReaderTest.readText("qos_high_limit -1").ok(), "a negative number leaves it unset");
        assertEquals(1, errors(QosReaderTest.readText("qos_high_limit x")).size());

        assertTrue(QosReaderTest.readText("max_op_vls 1").ok());
        assertTrue(QosReaderTest.readText("max_op_vls 5").ok());
        assertEquals(1, errors(QosReaderTest.readText("max_op_vls 6")).size());
        assertEquals(1, errors(QosReaderTest.readText("max_op_vls 0")).size());
    }

    @Test
    void aKeyWithoutAValueOrWithALoneQuoteIsAnErrorAtItsLine()
    {
        for (final String line : new String[] {"qos_max_vls", "qos_max_vls   ", "qos_max_vls \"", "qos_max_vls \"\"",
            "qos_vlarb_high \"\""})
        {
            final List<String> errors = errors(QosReaderTest.readText("# first\n" + line));
            assertEquals(1, errors.size(), line + ": " + errors);
            assertTrue(errors.get(0).startsWith("t.conf:2:"), errors.get(0));
        }
        assertEquals(4, QosReaderTest.readText("qos_max_vls \"4\"").orThrow().dataVls(), "a quoted value");
    }

    @Test
    void tableEntriesForVlsThePortLacksAreReportedFromTheFirstOne()
    {
        // 4 data VLs: VL4 is the first VL past the port's, and it is the table's first entry
        assertEquals(List.of(), warnings(QosReaderTest.readText(FOUR_VLS)));
        final List<String> warnings = warnings(QosReaderTest.readText(FOUR_VLS + "qos_vlarb_high 4:10,0:5,1:4,2:4,3:4"));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).startsWith("t.conf:5:16: warning:"), warnings.get(0));
        assertTrue(warnings.get(0).contains("4:10"), warnings.get(0));
    }

    @Test
    void aSinglePortVlHasNoArbitrationToWarnAbout()
    {
        final QosReader.Result result = QosReaderTest.readText(
            "qos_max_vls 1\nqos_vlarb_high 4:10\nqos_vlarb_low 1:5\nqos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0");
        assertEquals(List.of(), warnings(result), "one data VL: the tables are not used");
    }

    @Test
    void slsMappedJustPastThePortsVlsAreDroppedAndReportedFromSl0()
    {
        final List<String> warnings =
            warnings(QosReaderTest.readText(FOUR_VLS + "qos_sl2vl 4,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3"));
        assertEquals(1, warnings.size(), warnings.toString());
        assertTrue(warnings.get(0).contains("maps SL0->VL4, but"), warnings.get(0));
        assertTrue(warnings.get(0).startsWith("t.conf:5:11: warning:"), warnings.get(0));
    }

    @Test
    void anUnboundedHighLimitWarnsOnlyWhileTheLowTableCanSend()
    {
        assertEquals(1, warnings(QosReaderTest.readText(FOUR_VLS + "qos_high_limit 255")).size());
        assertEquals(List.of(), warnings(QosReaderTest.readText(FOUR_VLS + "qos_high_limit 254")));
    }

    @Test
    void diagnosticsComeInFileOrder()
    {
        // the short SL map (line 5) is checked after the high table (line 6)
        final QosReader.Result result =
            QosReaderTest.readText(FOUR_VLS + "qos_sl2vl 0,1,2,3\nqos_vlarb_high 4:10,0:5,1:4,2:4,3:4");
        final List<Diagnostic> diagnostics = result.diagnostics();
        assertEquals(2, diagnostics.size(), diagnostics.toString());
        assertEquals(5, diagnostics.get(0).line());
        assertEquals(6, diagnostics.get(1).line());
    }

    @Test
    void anUnknownKeyIsAnsweredWithTheNearestRealOne()
    {
        assertEquals("qos_max_vls", QosReader.nearestKey("qos_max_vl"));
        assertEquals("qos_high_limit", QosReader.nearestKey("qos_hihg_limit"));
        assertEquals(3, QosReader.editDistance("kitten", "sitting"));
        assertEquals(0, QosReader.editDistance("qos", "qos"));
        assertEquals(3, QosReader.editDistance("", "qos"));
    }

    @Test
    void configurationsAreEqualExactlyWhenEveryFieldIs()
    {
        final QosConfig a = QosConfig.seedExample();
        final QosConfig b = QosConfig.seedExample();
        assertEquals(a, b);
        assertEquals(a.hashCode(), b.hashCode());
        assertEquals(a.toString(), b.toString());
        final QosConfig other = a.toBuilder().lowBurst(LowBurst.PACKET).build();
        assertNotEquals(a, other);
        assertNotEquals(a.toString(), other.toString());
        assertNotEquals(a, "QosConfig");
        assertTrue(a.toString().contains("sl2vl=" + a.sl2vl(0) + "," + a.sl2vl(1) + ","), a.toString());
        assertEquals(a.high(), b.high());
        assertEquals(a.high().hashCode(), b.high().hashCode());
        assertNotEquals(a.high(), a.low());
        assertNotEquals(a.high().hashCode(), a.low().hashCode());
    }

    @Test
    void burstPoliciesAreNamedAsInScenarios()
    {
        assertSame(LowBurst.WEIGHT, LowBurst.ofLabel("weight"));
        assertSame(LowBurst.PACKET, LowBurst.ofLabel("PACKET"));
        assertNull(LowBurst.ofLabel("burst"));
        assertEquals("weight", LowBurst.WEIGHT.label());
        assertEquals("packet", LowBurst.PACKET.toString());
    }
}
