package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What OpenSM 3.3.23 programmed on ibsim's ports (net.2sw2path4hca: every port VLCap 8, VLArbitration tables of 8
 * entries), read back with smpquery, for nine opensm.conf files (resources/opensm-3.3.23/qos, captured by capture.sh
 * there): the channel adapter port Lid 2 port 1 and the switch port Lid 1 port 3 (to the other switch). The reader
 * gives the same tables entry for entry, printed the same way, and CHECK refuses every file OpenSM changes.
 */
class OpenSmQosTest
{
    private static final QosPort IBSIM_PORT = QosPort.vlink().vlCap(8).peerVlCap(8).caps(8, 8);

    private static String resource(final String path)
    {
        try (InputStream in = OpenSmQosTest.class.getResourceAsStream("/opensm-3.3.23/qos/" + path))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static Result<QosConfig> read(final String name, final PortType type, final QosReader.Mode mode)
    {
        final QosReader reader = new QosReader(name + ".conf");
        final String[] lines = resource(name + ".conf").split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            reader.line(i + 1, lines[i]);
        }
        return reader.finish(type, IBSIM_PORT, mode, LowBurst.WEIGHT, false);
    }

    @ParameterizedTest
    @CsvSource({
        "defaults, true", "explicit, false", "maxop2, true", "maxop3, false", "long, false", "spacing, false",
        "range, false", "short, false", "hex, false"})
    void showEqualsSmpqueryOnACaPortAndASwitchPortAndCheckRefusesWhatOpenSmChanged(
        final String name, final boolean programmedAsWritten)
    {
        final QosConfig ca = read(name, PortType.CA, QosReader.Mode.APPLY).orThrow();
        assertEquals(resource(name + "/smpquery-vlarb-2-1.out"),
            SmpqueryFormat.vlarb(new StringBuilder(), ca, "Lid 2 port 1").toString(), name + " CA vlarb");
        assertEquals(resource(name + "/smpquery-sl2vl-2-1.out"),
            SmpqueryFormat.sl2vl(new StringBuilder(), ca, "Lid 2").toString(), name + " CA sl2vl");

        final QosConfig swe = read(name, PortType.SWE, QosReader.Mode.APPLY).orThrow();
        assertEquals(resource(name + "/smpquery-vlarb-1-3.out"),
            SmpqueryFormat.vlarb(new StringBuilder(), swe, "Lid 1 port 3").toString(), name + " switch vlarb");
        assertEquals(resource(name + "/smpquery-sl2vl-1-3.out"),
            SmpqueryFormat.sl2vl(new StringBuilder(), swe, "Lid 1", 8, 3).toString(), name + " switch sl2vl");

        final boolean accepted = read(name, PortType.CA, QosReader.Mode.CHECK).ok() &&
            read(name, PortType.SWE, QosReader.Mode.CHECK).ok();
        assertEquals(programmedAsWritten, accepted, name + ": " + read(name, PortType.CA, QosReader.Mode.CHECK)
            .diagnostics() + read(name, PortType.SWE, QosReader.Mode.CHECK).diagnostics());
    }

    @Test
    void everyChangeIsAWarningInApplyAndTheSameFindingAnErrorInCheck()
    {
        for (final String name : new String[]{"explicit", "maxop3", "long", "spacing", "range", "short", "hex"})
        {
            final List<Diagnostic> apply = read(name, PortType.CA, QosReader.Mode.APPLY).diagnostics();
            final List<Diagnostic> check = read(name, PortType.CA, QosReader.Mode.CHECK).diagnostics();
            assertTrue(apply.stream().noneMatch(Diagnostic::isError), apply::toString);
            assertTrue(check.stream().anyMatch(Diagnostic::isError), name);
            for (final Diagnostic error : check.stream().filter(Diagnostic::isError).toList())
            {
                assertTrue(apply.contains(new Diagnostic(error.file(), error.line(), error.column(),
                    Diagnostic.Severity.WARNING, error.message())), name + ": " + error);
            }
        }
    }

    @Test
    void aSpaceBeforeAColonShiftsTheTableAsOpenSmReadsIt()
    {
        final Result<QosConfig> result = read("spacing", PortType.CA, QosReader.Mode.APPLY);
        assertEquals("0:0,0:1,1:2,2:3,4:0,0:0,0:0,0:0", result.orThrow().low().toString());
        final Diagnostic d = result.diagnostics().get(0);
        assertEquals("spacing.conf:2:18: warning: qos_ca_vlarb_low: OpenSM does not read this list as written (a " +
            "space before ':' or ',' ends the number there, and what follows shifts): it programs " +
            "0:0,0:1,1:2,2:3,4:0,0:0,0:0,0:0 on this port; separate entries with ',' and VL from weight with ':', " +
            "without spaces before them", d.toString());
    }

    @Test
    void vl15AndWeight300AreFoldedAndMasked()
    {
        final QosConfig config = read("range", PortType.CA, QosReader.Mode.APPLY).orThrow();
        // 15:8 -> 0:8, 1:300 -> 1:44, 14:4 -> 14 & 7 = 6:4, 3:-1 -> 3:255
        assertEquals("0:8,1:44,6:4,3:255,0:0,0:0,0:0,0:0", config.low().toString());
        assertEquals("1:1,0:2,0:0,0:0,0:0,0:0,0:0,0:0", config.high().toString());
        assertEquals(15, config.sl2vl(0));
        assertEquals(0, config.sl2vl(1), "16 is 0 modulo 16");
        assertFalse(read("range", PortType.CA, QosReader.Mode.CHECK).ok());
    }
}
