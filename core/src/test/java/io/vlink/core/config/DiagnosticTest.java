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

    @Test
    void controlCharactersNeverReachTheTerminalRaw()
    {
        final Diagnostic d = new Diagnostic("a\u001bb", 1, 2, Diagnostic.Severity.ERROR,
            "key '\u001b[31mred\u0007\u009b\u007f\tx\r' is unknown");
        assertEquals("a\\x1bb:1:2: error: key '\\x1b[31mred\\x07\\x9b\\x7f\\tx\\x0d' is unknown", d.toString());
        assertEquals("a\\x1bb", d.file());
        assertEquals("plain \u00e9 text", Diagnostic.escape("plain \u00e9 text"));
        assertEquals("\\x00\\x1f\\x80 \u00a0", Diagnostic.escape("\u0000\u001f\u0080 \u00a0"));
    }

    @Test
    void anExcerptQuotesAtMost80Characters()
    {
        final String eighty = "x".repeat(80);
        assertEquals(eighty, Diagnostic.excerpt(eighty));
        assertEquals(eighty + "...", Diagnostic.excerpt(eighty + "y"));
        assertEquals("", Diagnostic.excerpt(""));
    }

    @Test
    void readErrorsHaveOneForm()
    {
        assertEquals("f: error: cannot read: no such file",
            Diagnostic.cannotRead("f", new java.nio.file.NoSuchFileException("f")).toString());
        assertEquals("f: error: cannot read: permission denied",
            Diagnostic.cannotRead("f", new java.nio.file.AccessDeniedException("f")).toString());
        assertEquals("f: error: cannot read: is a directory",
            Diagnostic.cannotRead("f", new java.nio.file.FileSystemException("f", null, "Is a directory")).toString());
        assertEquals("f: error: cannot read: input/output error",
            Diagnostic.cannotRead("f", new java.nio.file.FileSystemException("f")).toString());
        assertEquals("f: error: cannot read: stream closed",
            Diagnostic.cannotRead("f", new java.io.IOException("Stream closed")).toString());
        assertEquals("f: error: cannot read: input/output error",
            Diagnostic.cannotRead("f", new java.io.IOException()).toString());
    }
}
