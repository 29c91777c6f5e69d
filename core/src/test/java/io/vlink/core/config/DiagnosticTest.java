package io.vlink.core.config;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DiagnosticTest
{
    @Test
    void printsLikeACompiler()
    {
        final Diagnostic d = new Diagnostic("opensm.conf", 12, 19, Diagnostic.Severity.ERROR,
            "qos_ca_vlarb_low: weight '300' is out of range 0..255");
        assertEquals("opensm.conf:12:19: error: qos_ca_vlarb_low: weight '300' is out of range 0..255", d.toString());
    }

    @Test
    void columnZeroIsLeftOut()
    {
        final Diagnostic d = new Diagnostic("s.txt", 3, 0, Diagnostic.Severity.WARNING, "x");
        assertEquals("s.txt:3: warning: x", d.toString());
    }

    @Test
    void strictModeTurnsWarningsIntoErrors()
    {
        final Diagnostic w = new Diagnostic("f", 1, 1, Diagnostic.Severity.WARNING, "m");
        assertTrue(w.asError().isError());
        assertEquals("f:1:1: error: m", w.asError().toString());
    }

    @Test
    void exceptionCarriesEveryFinding()
    {
        final Diagnostic a = new Diagnostic("f", 1, 1, Diagnostic.Severity.ERROR, "a");
        final Diagnostic b = new Diagnostic("f", 2, 1, Diagnostic.Severity.WARNING, "b");
        final ConfigException e = new ConfigException(List.of(a, b));
        assertEquals(List.of(a, b), e.diagnostics());
        assertTrue(e.getMessage().contains("f:1:1: error: a"));
        assertTrue(e.getMessage().contains("f:2:1: warning: b"));
    }
}
