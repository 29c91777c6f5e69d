package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
    /** A 4-VL port (max_op_vls 3) with every table and the SL map given, and nothing to warn about (lines 1-5). */
    private static final String FOUR_VLS = "qos TRUE\nmax_op_vls 3\nqos_vlarb_high 0:4,1:4,2:4,3:4\n" +
        "qos_vlarb_low 0:4,1:4,2:4,3:4\nqos_sl2vl 0,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3\n";

    private static List<String> errors(final Result<QosConfig> result)
    {
        return result.diagnostics().stream().filter(Diagnostic::isError).map(Diagnostic::toString).toList();
    }

    private static List<String> warnings(final Result<QosConfig> result)
    {
        return result.diagnostics().stream().filter(d -> !d.isError()).map(Diagnostic::toString).toList();
    }

    private static Result<QosConfig> check(final String text)
    {
        return QosReaderTest.readText(text, QosReader.Mode.CHECK);
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
        assertTrue(check("qos_max_vls 15").ok());
        assertEquals(1, errors(check("qos_max_vls 16")).size());
        assertEquals(1, errors(check("qos_max_vls -1")).size());
        assertTrue(check("qos_max_vls 0").ok(), "0 leaves it unset");
        assertEquals(15, QosReaderTest.readText("qos_max_vls 1").orThrow().dataVls(), "OpenSM does not use max_vls");
        assertEquals(1, errors(check("qos_max_vls 1")).size(), "and check says so");

        assertEquals(0, check("qos_high_limit 0").orThrow().highLimit(), "0 is one packet, not unset");
        assertEquals(255, check("qos_high_limit 255").orThrow().highLimit());
        assertEquals(1, errors(check("qos_high_limit 256")).size());
        assertEquals(0, QosReaderTest.readText("qos_high_limit 256").orThrow().highLimit(), "unset: the default");
        assertTrue(check("qos_high_limit -1").ok(), "a negative number leaves it unset");
        assertEquals(1, errors(check("qos_high_limit x")).size());
        assertEquals(0x10, check("qos_high_limit 0x10").orThrow().highLimit(), "hex reads as hex");

        assertEquals(1, check("max_op_vls 1").orThrow().dataVls());
        assertEquals(15, check("max_op_vls 5").orThrow().dataVls());
        assertEquals(1, errors(check("max_op_vls 6")).size());
        assertEquals(15, QosReaderTest.readText("max_op_vls 6").orThrow().dataVls(), "above 5 it limits nothing");
        assertEquals(List.of("t.conf:1:12: error: max_op_vls '0' is 0 for OpenSM (a uint8): it would give every port " +
            "0 operational VLs; write 1..5 (1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14)"),
            errors(QosReaderTest.readText("max_op_vls 0")), "refused even where OpenSM's changes are applied");
        assertEquals(4, QosReaderTest.readText("max_op_vls 259").orThrow().dataVls(), "a uint8: 259 is 3");
    }

    @Test
    void octalNumbersAndLinesOpenSmReadsInPiecesAreChanges()
    {
        assertEquals(8, QosReaderTest.readText("qos_high_limit 010").orThrow().highLimit());
        assertEquals(List.of("t.conf:1:16: error: qos_high_limit 010: OpenSM reads it as 8 (a number with a leading 0 " +
            "is octal: 010 is 8, and 08 is 0 followed by the text 8); write the number in decimal or 0x hexadecimal"),
            errors(check("qos_high_limit 010")));
        final String longLine = "qos_vlarb_low " + "0:4,".repeat(300);
        final List<String> found = errors(check(longLine));
        assertTrue(found.stream().anyMatch(f -> f.startsWith("t.conf:1:1023: error: line longer than 1022 characters")),
            found::toString);
    }

    @Test
    void aKeyWithoutAValueOrWithALoneQuoteIsAChangeAtItsLine()
    {
        for (final String line : new String[] {"qos_max_vls", "qos_max_vls   ", "qos_max_vls \"", "qos_max_vls \"\"",
            "qos_vlarb_high \"\""})
        {
            final List<String> errors = errors(check("# first\n" + line));
            assertEquals(1, errors.size(), line + ": " + errors);
            assertTrue(errors.get(0).startsWith("t.conf:2:"), errors.get(0));
        }
        assertEquals("0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0", QosReaderTest.readText("qos_vlarb_high \"\"").orThrow().high()
            .toString(), "OpenSM reads an empty table as 0:0 entries");
        assertTrue(check("qos_max_vls '15'").ok(), "single quotes are removed too, as OpenSM does");
    }

    @Test
    void maskedTableEntriesAreReportedFromTheFirstOne()
    {
        assertEquals(List.of(), warnings(check(FOUR_VLS)));
        final List<String> errors = errors(check(FOUR_VLS + "qos_vlarb_high 4:10,0:5,1:4,2:4,3:4"));
        assertEquals(List.of("t.conf:6:16: error: qos_vlarb_high: the port operates 4 data VLs (VL0-3) and OpenSM masks " +
            "every VL to them: it programs 4:10 as 0:10; use VLs below 4 (or allow more with max_op_vls)"), errors);
    }

    @Test
    void aSingleVlPortGetsEveryEntryOnVl0()
    {
        final Result<QosConfig> result = QosReaderTest.readText(
            "max_op_vls 1\nqos_vlarb_high 4:10\nqos_vlarb_low 1:5\nqos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0");
        assertEquals("0:10,0:0,0:0,0:0,0:0,0:0,0:0,0:0", result.orThrow().high().toString());
        assertEquals("0:5,0:0,0:0,0:0,0:0,0:0,0:0,0:0", result.orThrow().low().toString());
        assertEquals(2, warnings(result).size(), warnings(result)::toString);
    }

    @Test
    void slsMappedJustPastThePortsVlsAreMaskedAndReportedFromSl0()
    {
        final List<String> errors = errors(check(FOUR_VLS + "qos_sl2vl 4,1,2,3,0,1,2,3,0,1,2,3,0,1,2,3"));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).startsWith("t.conf:6:11: error: qos_sl2vl: the port operates 4 data VLs (VL0-3) and " +
            "OpenSM masks every VL but 15 to them: it programs SL0->VL4 as VL0;"), errors.get(0));
    }

    @Test
    void aTablePastThePortsCapacityLosesItsLastEntriesAndSixtyFourEntriesLoseTheSecondBlock()
    {
        final String nine = "qos_vlarb_low 0:1,1:1,2:1,3:1,4:1,5:1,6:1,7:1,0:9";
        assertTrue(errors(check(nine)).get(0).contains("qos_vlarb_low has 9 entries but the port's table holds 8 " +
            "(VLArbLowCap): OpenSM does not program 0:9; give at most 8 entries"), errors(check(nine))::toString);
        final StringBuilder forty = new StringBuilder("qos_vlarb_low ");
        for (int i = 0; i < 40; i++)
        {
            forty.append(i == 0 ? "" : ",").append(i % 15).append(":1");
        }
        final QosReader reader = new QosReader("t.conf");
        reader.line(1, forty.toString());
        final Result<QosConfig> result = reader.finish(PortType.CA, QosPort.vlink().caps(64, 64), QosReader.Mode.APPLY,
            LowBurst.WEIGHT, false);
        final VlArbTable low = result.orThrow().low();
        assertEquals(64, low.size());
        assertEquals(1, low.weight(31));
        assertEquals(0, low.weight(32), "OpenSM 3.3.23 sends 64 % 32 = 0 entries of the second block");
        assertTrue(warnings(result).get(0).contains("OpenSM 3.3.23 programs entries 32-63 of a 64-entry table as 0:0"),
            warnings(result)::toString);
        final QosReader reader40 = new QosReader("t.conf");
        reader40.line(1, forty.toString());
        assertEquals(1, reader40.finish(PortType.CA, QosPort.vlink().caps(40, 40), QosReader.Mode.APPLY,
            LowBurst.WEIGHT, false).orThrow().low().weight(39), "a 40-entry port gets 40 % 32 = 8 of the second block");
    }

    @Test
    void anUnboundedHighLimitWarnsOnlyWhileTheLowTableCanSend()
    {
        assertEquals(1, warnings(check(FOUR_VLS + "qos_high_limit 255")).size());
        assertEquals(List.of(), warnings(check(FOUR_VLS + "qos_high_limit 254")));
    }

    @Test
    void qosNotTrueIsNoted(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("opensm.conf");
        Files.writeString(file, "qos true\nqos_vlarb_high 0:4\n");
        assertEquals(file + ":1: warning: qos is 'true', not TRUE: OpenSM programs none of these QoS options " +
            "unless it runs with 'qos TRUE' (or opensm -Q)", warnings(QosReader.read(file, PortType.CA, false)).get(0));
    }

    @Test
    void cStrtoulAsOpenSmUsesIt()
    {
        final OpenSmQos.Read read = new OpenSmQos.Read();
        assertEquals(-1L, OpenSmQos.strtoul("-1", 0, read).value, "a minus sign wraps around");
        assertEquals(2, read.end);
        assertEquals(-1L, OpenSmQos.strtoul("99999999999999999999999", 0, read).value, "saturates");
        assertEquals(0, OpenSmQos.strtoul("0x", 0, read).value);
        assertEquals(1, read.end, "'0x' without a hex digit reads the 0");
        assertEquals(0, OpenSmQos.strtoul(" :8", 0, read).value);
        assertEquals(0, read.end, "no digits: the end is the start");
        assertEquals(255, OpenSmQos.strtoul(" 0377", 0, read).value);
        assertEquals(Long.MAX_VALUE, OpenSmQos.strtol("99999999999999999999999"));
        assertEquals(Long.MIN_VALUE, OpenSmQos.strtol("-99999999999999999999999"));
        assertEquals(-12, OpenSmQos.strtol("-12abc"));
        assertEquals("0:4", OpenSmQos.clean("  \"0:4\"  "));
        assertEquals("", OpenSmQos.clean(" \" "));
    }

    @Test
    void diagnosticsComeInFileOrder()
    {
        // the short SL map (line 6) is checked after the high table (line 7)
        final Result<QosConfig> result = check(FOUR_VLS + "qos_sl2vl 0,1,2,3\nqos_vlarb_high 4:10,0:5,1:4,2:4,3:4");
        final List<Diagnostic> diagnostics = result.diagnostics();
        assertEquals(2, diagnostics.size(), diagnostics.toString());
        assertEquals(6, diagnostics.get(0).line());
        assertEquals(7, diagnostics.get(1).line());
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
