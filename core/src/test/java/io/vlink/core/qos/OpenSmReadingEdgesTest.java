package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The edges of reading a file as OpenSM does ({@link OpenSmQos}, {@link QosProgram}, the port model {@link QosPort}):
 * each limit taken at both sides, each message as it is printed.
 */
class OpenSmReadingEdgesTest
{
    private static Result<QosConfig> read(final String text, final QosPort port, final QosReader.Mode mode)
    {
        final QosReader reader = new QosReader("t.conf");
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            reader.line(i + 1, lines[i]);
        }
        return reader.finish(PortType.CA, port, mode, LowBurst.WEIGHT, false);
    }

    /**
     * What reading {@code text} on a vlink port finds, but for the notes on OpenSM's defaults as masked and on data
     * VLs that never send, which most inputs here also draw and which have a test of their own below.
     */
    private static List<String> found(final String text)
    {
        return read(text, QosPort.vlink(), QosReader.Mode.APPLY).diagnostics().stream().map(Diagnostic::toString)
            .filter(f -> !isAside(f)).toList();
    }

    private static boolean isAside(final String finding)
    {
        return finding.contains(" warning: the default ") || finding.contains("never send");
    }

    @Test
    void thePortModel()
    {
        final QosPort port = QosPort.vlink().vlCap(8).peerVlCap(4).caps(16, 64);
        assertEquals(8, port.vlCap());
        assertEquals(4, port.peerVlCap());
        assertEquals(16, port.lowCap());
        assertEquals(64, port.highCap());
        assertEquals("QosPort{vlCap=8, peerVlCap=4, lowCap=16, highCap=64}", port.toString());
        assertEquals(4, port.operationalVls(5), "the lower end");
        assertEquals(2, port.operationalVls(2), "max_op_vls below both");
        assertEquals(4, QosPort.vlink().vlCap(4).operationalVls(5), "this end lower");
        assertEquals(1, QosPort.vlink().operationalVls(1));
        assertEquals(15, QosPort.vlink().operationalVls(200), "above 5 limits nothing");
        assertEquals(5, QosPort.code(15));
        assertThrows(IllegalArgumentException.class, () -> QosPort.code(3));
        assertThrows(IllegalArgumentException.class, () -> QosPort.vlink().caps(0, 8));
        assertThrows(IllegalArgumentException.class, () -> QosPort.vlink().caps(8, 65));
        assertThrows(IllegalArgumentException.class, () -> QosPort.vlink().peerVlCap(16));
        assertEquals(1, QosPort.vlink().caps(1, 1).lowCap());
    }

    @Test
    void cConversionsAtTheirLimits()
    {
        final OpenSmQos.Read read = new OpenSmQos.Read();
        assertEquals(-2L, OpenSmQos.strtoul("18446744073709551614", 0, read).value, "the largest but one is no overflow");
        assertEquals(-1L, OpenSmQos.strtoul("18446744073709551615", 0, read).value);
        assertEquals(-1L, OpenSmQos.strtoul("18446744073709551616", 0, read).value, "overflow saturates");
        assertEquals(0, OpenSmQos.strtol("0"));
        assertEquals(Long.MAX_VALUE, OpenSmQos.strtol("9223372036854775807"));
        assertEquals(Long.MAX_VALUE, OpenSmQos.strtol("9223372036854775808"));
        assertEquals(0x1f, OpenSmQos.strtoul("0X1F", 0, read).value);
        assertEquals("0:4", OpenSmQos.clean("'0:4'"));
        assertEquals("'0:4\"", OpenSmQos.clean("'0:4\""), "quotes must match");
        assertEquals("x", OpenSmQos.clean("x"));
    }

    @Test
    void theTwoBlocksOfATable()
    {
        assertTrue(OpenSmQos.programs(33, 32), "a 33-entry port gets 1 entry of the second block");
        assertFalse(OpenSmQos.programs(32, 32));
        assertTrue(OpenSmQos.programs(64, 31));
        assertFalse(OpenSmQos.programs(64, 32), "64 % 32 = 0 entries of the second block");
        assertFalse(OpenSmQos.programs(8, 8));
        assertTrue(OpenSmQos.programs(8, 7));
    }

    @Test
    void messagesOfEachNumericMistake()
    {
        assertTrue(found("qos_high_limit 6x").contains("t.conf:1:16: warning: qos_high_limit: '6x' is not a number: " +
            "write 0..255 (4 KB units; 255 = unbounded, 0 = one packet), or a negative number to leave it unset " +
            "(OpenSM reads 6)"), found("qos_high_limit 6x")::toString);
        assertTrue(found("qos_high_limit -5x").get(0).endsWith("(OpenSM reads -5)"), found("qos_high_limit -5x")::toString);
        assertTrue(found("qos_max_vls -1x").get(0).endsWith("(OpenSM reads 4294967295)"));
        assertTrue(found("max_op_vls 3x").get(0).endsWith("(OpenSM reads 3)"), found("max_op_vls 3x")::toString);
        assertTrue(found("max_op_vls 259x").get(0).endsWith("(OpenSM reads 3)"), "a byte");
        assertTrue(found("qos_high_limit 256").get(0).endsWith("(OpenSM leaves it unset and falls back)"));
        assertTrue(found("qos_max_vls 16").get(0).endsWith("or 0 to leave it unset (OpenSM leaves it unset)"));
        assertTrue(found("max_op_vls 6").get(0).endsWith("5 = VL0-14)"), "no more to say");
        assertEquals(List.of("t.conf:1:13: warning: qos_max_vls 1: OpenSM does not use qos_*max_vls; the port operates " +
            "15 data VLs (VL0-14), the lower of both ends' VL capability and max_op_vls: set max_op_vls to limit the " +
            "VLs"), found("qos_max_vls 1"));
        assertEquals(List.of(), found("qos_max_vls 15"));
    }

    @Test
    void emptyValuesSayWhatOpenSmReads()
    {
        assertTrue(found("qos_vlarb_low \"\"").get(0).endsWith("(OpenSM reads an empty value as a table of 0:0 entries)"),
            found("qos_vlarb_low \"\"")::toString);
        assertTrue(found("qos_sl2vl").get(0).endsWith("(OpenSM reads an empty value as every SL on VL0)"));
        assertTrue(found("qos_high_limit ''").get(0).endsWith("(OpenSM reads an empty value as 0)"),
            found("qos_high_limit ''")::toString);
        assertTrue(found("qos_high_limit \"").get(0).endsWith("'\"' is not a number: write 0..255 (4 KB units; 255 = " +
            "unbounded, 0 = one packet), or a negative number to leave it unset (OpenSM reads 0)"),
            "a lone quote is not stripped: OpenSM reads it as 0");
    }

    @Test
    void fallbacksAtTheirLimits()
    {
        final QosPort port = QosPort.vlink();
        assertEquals(0, read("qos_high_limit 3\nqos_ca_high_limit 0", port, QosReader.Mode.APPLY).orThrow().highLimit(),
            "0 is a limit, not unset");
        assertEquals(255, read("qos_high_limit 3\nqos_ca_high_limit 255", port, QosReader.Mode.APPLY).orThrow()
            .highLimit());
        assertEquals(3, read("qos_high_limit 3\nqos_ca_high_limit -1", port, QosReader.Mode.APPLY).orThrow()
            .highLimit());
        // max_vls: the port type's unless 0 or above 15, then the generic one
        assertTrue(found("qos_max_vls 2\nqos_ca_max_vls 0").get(0).startsWith("t.conf:1:13: warning: qos_max_vls 2:"));
        assertTrue(found("qos_max_vls 2\nqos_ca_max_vls 16").stream().anyMatch(f -> f.startsWith("t.conf:1:13:")));
        assertTrue(found("qos_max_vls 15\nqos_ca_max_vls 1").stream().anyMatch(f ->
            f.startsWith("t.conf:2:16: warning: qos_ca_max_vls 1:")));
        assertEquals(List.of(), found("qos_ca_vlarb_high (null)"), "(null) unsets: nothing to say");
    }

    @Test
    void onlyApplyNotesWhatOpenSmProgramsFromAListItMisreads()
    {
        final String text = "qos TRUE\nqos_ca_vlarb_high 0:4,1-64";
        final List<Diagnostic> apply = read(text, QosPort.vlink(), QosReader.Mode.APPLY).diagnostics();
        final List<Diagnostic> check = read(text, QosPort.vlink(), QosReader.Mode.CHECK).diagnostics();
        assertTrue(apply.stream().anyMatch(d -> d.toString().equals("t.conf:2:19: warning: qos_ca_vlarb_high: OpenSM " +
            "programs 0:4,1:64,0:0,0:0,0:0,0:0,0:0,0:0 on this port")), apply::toString);
        assertTrue(check.stream().noneMatch(d -> d.message().contains("OpenSM programs")), check::toString);
        final List<Diagnostic> sl2vl = read("qos_ca_sl2vl 0,1,x", QosPort.vlink(), QosReader.Mode.APPLY).diagnostics();
        assertTrue(sl2vl.stream().anyMatch(d -> d.toString().equals("t.conf:1:14: warning: qos_ca_sl2vl: OpenSM " +
            "programs 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0 on this port")), sl2vl::toString);
    }

    @Test
    void aMisreadingIsReportedAtTheFirstEntryItChanges()
    {
        assertEquals("t.conf:1:19: warning: qos_vlarb_low: OpenSM does not read this list as written (a space before " +
            "':' or ',' ends the number there, and what follows shifts): it programs 0:4,1:0,8:2,4:0,0:0,0:0,0:0,0:0 " +
            "on this port; separate entries with ',' and VL from weight with ':', without spaces before them",
            found("qos_vlarb_low 0:4,1 :8,2:4").get(0));
        assertEquals("t.conf:1:16: warning: qos_sl2vl: OpenSM does not read this list as written (a space before ':' " +
            "or ',' ends the number there, and what follows shifts): it programs 0,1,0,2,3,0,0,0,0,0,0,0,0,0,0,0 on this " +
            "port; separate the VLs with ',' without spaces before it", found("qos_sl2vl 0,1 ,2,3").get(0));
        assertEquals(List.of(), found("qos_vlarb_low 0:4,1:07"), "07 is 7 read as octal or decimal");
        assertEquals("t.conf:1:19: warning: qos_vlarb_low: OpenSM does not read this list as written (a number with a " +
            "leading 0 is octal: 010 is 8, and 08 is 0 followed by the text 8): it programs 0:4,1:8,0:0,0:0,0:0,0:0," +
            "0:0,0:0 on this port; separate entries with ',' and VL from weight with ':', without spaces before them",
            found("qos_vlarb_low 0:4,1:010").get(0));
    }

    @Test
    void lostAndMaskedEntriesAreListedWithoutTheWeightZeroOnes()
    {
        final QosPort port = QosPort.vlink().vlCap(4).caps(4, 4);
        final List<String> found = read("qos_ca_vlarb_low 0:1,5:0,6:2,1:3,2:0,3:9,7:7", port, QosReader.Mode.APPLY)
            .diagnostics().stream().map(Diagnostic::toString).toList();
        assertTrue(found.contains("t.conf:1:38: warning: qos_ca_vlarb_low has 7 entries but the port's table holds 4 " +
            "(VLArbLowCap): OpenSM does not program 3:9, 7:7; give at most 4 entries"), found::toString);
        assertTrue(found.contains("t.conf:1:26: warning: qos_ca_vlarb_low: the port operates 4 data VLs (VL0-3) and " +
            "OpenSM masks every VL to them: it programs 6:2 as 2:2; use VLs below 4 (or allow more with max_op_vls)"),
            found::toString);
        final List<String> sixtyFour = read("qos_ca_vlarb_low 0:1", QosPort.vlink().caps(17, 8), QosReader.Mode.APPLY)
            .diagnostics().stream().map(Diagnostic::toString).toList();
        assertEquals(List.of(), sixtyFour.stream().filter(f -> f.contains("then 0:0")).toList());
        assertTrue(read("qos_ca_vlarb_low 0:1,1-2", QosPort.vlink().caps(17, 8), QosReader.Mode.APPLY).diagnostics()
            .stream().anyMatch(d -> d.message().equals("qos_ca_vlarb_low: OpenSM programs 0:1,1:2 (then 0:0 up to " +
            "entry 17) on this port")));
        assertTrue(read("qos_ca_vlarb_low 0:1,1-2", QosPort.vlink().caps(16, 8), QosReader.Mode.APPLY).diagnostics()
            .stream().anyMatch(d -> d.message().equals("qos_ca_vlarb_low: OpenSM programs " +
            "0:1,1:2,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0,0:0 on this port")), "16 entries in full");
    }

    @Test
    void defaultsMaskedAreNotedAndTheDataVlNoteNeedsATableFromTheFile()
    {
        final QosPort four = QosPort.vlink().vlCap(4);
        final List<String> defaults = read("qos TRUE", four, QosReader.Mode.CHECK).diagnostics().stream()
            .map(Diagnostic::toString).toList();
        assertEquals(List.of("t.conf: warning: the default vlarb_low (OpenSM's, as neither qos_ca_vlarb_low nor " +
            "qos_vlarb_low is set) is programmed with every VL masked to the port's 4 data VLs (VL0-3): 4:4 as 0:4, " +
            "5:4 as 1:4, 6:4 as 2:4, 7:4 as 3:4", "t.conf: warning: the default sl2vl (OpenSM's, as neither " +
            "qos_ca_sl2vl nor qos_sl2vl is set) is programmed with every VL but 15 masked to the port's 4 data VLs " +
            "(VL0-3): SL4->VL4 as VL0, SL5->VL5 as VL1, SL6->VL6 as VL2, SL7->VL7 as VL3, SL8->VL8 as VL0, SL9->VL9 as " +
            "VL1, SL10->VL10 as VL2, SL11->VL11 as VL3, SL12->VL12 as VL0, SL13->VL13 as VL1, SL14->VL14 as VL2, " +
            "SL15->VL7 as VL3"), defaults);
        final List<String> one = read("qos_ca_vlarb_high 0:4\nqos_ca_vlarb_low 0:0", QosPort.vlink().vlCap(2),
            QosReader.Mode.APPLY).diagnostics().stream().map(Diagnostic::toString).toList();
        assertTrue(one.contains("t.conf:2:18: warning: data VL 1 has no entry with a non-zero weight in either table " +
            "as programmed (qos_ca_vlarb_high, qos_ca_vlarb_low, tables of 8 and 8 entries): it will never send; give " +
            "each data VL a weight in one of the tables, or map no SL to it"), one::toString);
        assertTrue(read("qos_ca_vlarb_high 0:4", QosPort.vlink().vlCap(1), QosReader.Mode.APPLY).diagnostics()
            .stream().noneMatch(d -> d.message().contains("never send")), "one data VL: nothing to arbitrate");
        assertTrue(read("qos_high_limit 255\nqos_ca_vlarb_low 1:4,0:4", QosPort.vlink().vlCap(2), QosReader.Mode.APPLY)
            .diagnostics().stream().anyMatch(d -> d.toString().startsWith("t.conf:1:16: warning: qos_high_limit 255 " +
            "makes the high table unbounded while qos_ca_vlarb_low has entries that can send")));
        assertTrue(read("qos_high_limit 255\nqos_ca_vlarb_low 1:4,0:4", QosPort.vlink().vlCap(1),
            QosReader.Mode.APPLY).diagnostics().stream().noneMatch(d -> d.message().contains("unbounded")),
            "one data VL: no low table to starve");
    }

    @Test
    void slsOnVl15AreNotedAtTheirValue()
    {
        assertEquals(List.of("t.conf:1:15: warning: qos_ca_sl2vl maps SL0->VL15: VL15 is for subnet management, so " +
            "those SLs' packets are dropped; map them to a data VL below 15", "t.conf:1:15: warning: qos_ca_sl2vl " +
            "lists 1 VL: SL1..SL15 map to VL0 (OpenSM reads the missing values as 0); list all 16 SLs to say what you " +
            "mean").stream().sorted().toList(), found("qos_ca_sl2vl  15 ").stream().sorted().toList());
    }

    @Test
    void linesAtTheLengthOpenSmReads()
    {
        final String exactly = "qos_vlarb_low 0:4" + " ".repeat(OpenSmQos.MAX_LINE - 17);
        assertEquals(OpenSmQos.MAX_LINE, exactly.length());
        assertEquals(List.of(), found(exactly));
        assertEquals(List.of("t.conf:1:1023: warning: line longer than 1022 characters: OpenSM reads a line in pieces " +
            "of 1022 and takes the rest as a line of its own; split the option or shorten it"), found(exactly + " "));
    }

    @Test
    void theArbitrationSimulatorsPortAndTheNearestKeyOfATie()
    {
        final QosReader reader = new QosReader("s");
        reader.line(1, "qos_vlarb_high 0:4");
        assertEquals(15, reader.finish(PortType.CA, 0, LowBurst.WEIGHT, false).orThrow().dataVls());
        assertEquals(64, reader.finish(PortType.CA, 0, LowBurst.WEIGHT, false).orThrow().high().size());
        assertEquals(2, reader.finish(PortType.CA, 2, LowBurst.WEIGHT, false).orThrow().dataVls());
        assertEquals("qos_swe_sl2vl", QosReader.nearestKey("qos_sw_sl2vl"), "the first of equally near keys");
    }
}
