package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.credit.LineRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static io.vlink.core.fabric.TopologyFixtures.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TopologyReaderTest
{
    /** ibnetdiscover's own output shape: GUID lines, LIDs and speeds in comments, port GUIDs. */
    static final String IBNETDISCOVER = String.join("\n",
        "#",
        "# Topology file: generated on Mon Nov 23 2026",
        "#",
        "vendid=0x2c9",
        "devid=0xbd36",
        "sysimgguid=0x2c902004a5adb",
        "switchguid=0x2c902004a5ad8(2c902004a5ad8)",
        "Switch\t36 \"S-0002c902004a5ad8\"\t\t# \"MF0;switch-1:IS5030/U1\" base port 0 lid 3 lmc 0",
        "[1]\t\"H-0002c903000e8f4c\"[1](2c903000e8f4d) \t\t# \"node1 HCA-1\" lid 5 4xQDR",
        "[2]\t\"H-0002c903000e8f50\"[1](2c903000e8f51) \t\t# \"node2 HCA-1\" lid 8 4xQDR",
        "",
        "vendid=0x2c9",
        "devid=0x673c",
        "sysimgguid=0x2c903000e8f4f",
        "caguid=0x2c903000e8f4c",
        "Ca\t2 \"H-0002c903000e8f4c\"\t\t# \"node1 HCA-1\"",
        "[1](2c903000e8f4d) \t\"S-0002c902004a5ad8\"[1]\t\t# lid 5 lmc 0 \"MF0;switch-1:IS5030/U1\" lid 3 4xQDR",
        "",
        "caguid=0x2c903000e8f50",
        "Ca\t2 \"H-0002c903000e8f50\"\t\t# \"node2 HCA-1\"",
        "[1](2c903000e8f51) \t\"S-0002c902004a5ad8\"[2]\t\t# lid 8 lmc 1 \"MF0;switch-1:IS5030/U1\" lid 3 4xQDR",
        "");

    @ParameterizedTest
    @ValueSource(strings = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port"})
    void everySampleIsReadWithoutFindings(final String name)
    {
        final TopologyReader.Result result = TopologyReader.parse(name, TopologyFixtures.text(name), LineRate.EDR_4X);
        assertEquals(List.of(), result.diagnostics());
        assertTrue(result.ok());
    }

    @Test
    void twoSwitchesTwoPathsFourHcas()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        assertEquals(6, t.nodes().size());
        assertEquals(List.of("Switch1", "Switch2"), t.switches().stream().map(Topology.Node::id).collect(Collectors.toList()));
        final Topology.Node s1 = t.node("Switch1");
        assertEquals(8, s1.portCount());
        assertEquals(4, s1.connectedPorts());
        assertSame(t.node("Switch2"), s1.link(5).remote());
        assertEquals(5, s1.link(5).remotePort());
        assertNull(s1.link(4));
        // the 'Hca \t2' header (a space, then a tab) is read
        assertEquals(Topology.NodeType.CA, t.node("Hca4").type());
        // LIDs: lowest free from 1, in file order: switches' port 0, then each CA's connected port
        assertEquals(1, s1.baseLid(0));
        assertEquals(2, t.node("Switch2").baseLid(0));
        assertEquals(3, t.node("Hca1").baseLid(1));
        assertEquals(4, t.node("Hca2").baseLid(1));
        assertEquals(5, t.node("Hca3").baseLid(1));
        assertEquals(6, t.node("Hca4").baseLid(1));
        assertEquals(0, t.node("Hca4").baseLid(2), "an unconnected port gets no LID");
        assertSame(t.node("Hca3"), t.nodeOfLid(5));
        assertEquals(1, t.portOfLid(5));
        assertEquals(6, t.maxLid());
        assertEquals(6, t.links().size(), "four CA cables and two switch-to-switch cables, each once");
        assertEquals(LineRate.EDR_4X, s1.link(1).rate(), "no speed in the file: the fabric's default");
    }

    @Test
    void ibnetdiscoverOutputWithLidsGuidsAndSpeeds()
    {
        final TopologyReader.Result result = parse(IBNETDISCOVER);
        assertEquals(List.of(), result.diagnostics());
        final Topology t = result.orThrow();
        final Topology.Node sw = t.node("S-0002c902004a5ad8");
        assertEquals(0x2c902004a5ad8L, sw.guid());
        assertEquals("MF0;switch-1:IS5030/U1", sw.description());
        assertEquals(3, sw.baseLid(0));
        final Topology.Node node2 = t.node("H-0002c903000e8f50");
        assertEquals(0x2c903000e8f50L, node2.guid());
        assertEquals(8, node2.baseLid(1));
        assertEquals(1, node2.lmc(1));
        assertSame(node2, t.nodeOfLid(9), "lmc 1: the port answers to 8 and 9");
        assertEquals(LineRate.QDR_4X, sw.link(1).rate());
        assertEquals(4, sw.link(1).width());
        assertEquals(9, t.maxLid());
    }

    @Test
    void ibsimWidthSuffix()
    {
        final Topology t = parse("Switch 4 \"S\"\n[1] \"H\"[1]\tw=12\n\nHca 1 \"H\"\n[1] \"S\"[1]\n").orThrow();
        assertEquals(12, t.node("S").link(1).width());
        assertEquals(12, t.node("H").link(1).width());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        asymmetric pair            | Switch 4 "S"\\n[1] "H"[1]\\n\\nHca 1 "H"\\n[1] "S"[2]\\n                     | topo:2:5: error: "S"[1] names "H"[1], but that port's line (line 5) names "S"[2]
        missing back link          | Switch 4 "S"\\n[1] "H"[1]\\n\\nHca 1 "H"\\n                                  | topo:2:5: error: "S"[1] names "H"[1], but "H" has no line for port 1
        unknown remote             | Switch 4 "S"\\n[1] "X"[1]\\n                                                 | topo:2:5: error: unknown node "X"
        port above N               | Switch 4 "S"\\n[5] "H"[1]\\n\\nHca 1 "H"\\n[1] "S"[5]\\n                     | topo:2:2: error: port 5 is out of range 1..4 of Switch "S"
        port named twice           | Switch 4 "S"\\n[1] "H"[1]\\n[1] "H"[1]\\n\\nHca 1 "H"\\n[1] "S"[1]\\n           | topo:3:2: error: port 1 of "S" is already cabled at line 2
        duplicate ID               | Switch 4 "S"\\n\\nHca 1 "S"\\n                                               | topo:3:7: error: node ID "S" is already used at line 1
        port count zero            | Switch 0 "S"\\n                                                              | topo:1:8: error: port count 0 is out of range 1..254
        port count 255             | Hca 255 "S"\\n                                                               | topo:1:5: error: port count 255 is out of range 1..254
        unknown line               | Switch 4 "S"\\nfoo bar\\n                                                    | topo:2:1: error: unknown line 'foo bar'
        malformed header           | Switch four "S"\\n                                                           | topo:1:1: error: malformed Switch header
        malformed port line        | Switch 4 "S"\\n[1 "H"[1]\\n                                                  | topo:2:1: error: malformed port line
        port line outside a record | [1] "H"[1]\\n                                                                | topo:1:1: error: port line outside a node record
        duplicate LID              | Switch 4 "S" # base port 0 lid 3 lmc 0\\n[1] "H"[1]\\n\\nHca 1 "H"\\n[1] "S"[1] # lid 3\\n | topo:5:18: error: lid 3 of "H" port 1 is already "S"'s
        overlapping LMC range      | Switch 4 "S" # base port 0 lid 5 lmc 0\\n[1] "H"[1]\\n\\nHca 1 "H"\\n[1] "S"[1] # lid 4 lmc 1\\n | topo:5:18: error: lid 5 of "H" port 1 is already "S"'s
        LID out of range           | Switch 4 "S" # base port 0 lid 49152 lmc 0\\n                               | topo:1:32: error: lid 49152 is out of the unicast range 1..49151
        bad width                  | Switch 4 "S"\\n[1] "H"[1] w=3\\n\\nHca 1 "H"\\n[1] "S"[1]\\n                  | topo:2:14: error: link width w=3 is not 1, 4 or 12
        """)
    void damagedFilesGiveTheRightErrorAtTheRightPlace(final String what, final String text, final String expected)
    {
        final TopologyReader.Result result = parse(text.strip().replace("\\n", "\n"));
        assertFalse(result.ok(), what);
        final String first = result.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow().toString();
        assertTrue(first.startsWith(expected.strip()), what + ": " + first);
    }

    @Test
    void everyErrorInOnePass()
    {
        final TopologyReader.Result result = parse(
            "Switch 4 \"S\"\n[1] \"X\"[1]\n[9] \"H\"[1]\nbogus\n\nHca 1 \"H\"\n[1] \"S\"[2]\n");
        final List<Integer> lines = result.diagnostics().stream().map(Diagnostic::line).collect(Collectors.toList());
        assertEquals(List.of(2, 3, 4, 7), lines, result.diagnostics().toString());
        assertNull(result.topology(), "nothing of a refused topology is returned");
    }

    @Test
    void aRemoteLidThatContradictsTheRemotesOwnRecordIsAWarning()
    {
        final TopologyReader.Result result = parse(
            "Switch 4 \"S\" # \"s\" base port 0 lid 3 lmc 0\n[1] \"H\"[1] # \"h\" lid 7 4xEDR\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 5 lmc 0 \"s\" lid 3 4xEDR\n");
        assertTrue(result.ok());
        assertEquals(List.of("topo:2:22: warning: remote lid 7 contradicts \"H\"'s own record (lid 5); its own is used"),
            result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertEquals(5, result.topology().node("H").baseLid(1));
    }

    @Test
    void controlBytesAndLongLinesAreQuotedSafely()
    {
        final TopologyReader.Result result = parse("\u001b[31m" + "x".repeat(200) + "\u0007\n");
        final String message = result.diagnostics().get(0).message();
        assertFalse(message.contains("\u001b"), message);
        assertTrue(message.contains("\\x1b"), message);
        assertTrue(message.length() < 260, message);
        final TopologyReader.Result longLine = parse("#" + "y".repeat(TopologyReader.MAX_LINE_LENGTH + 1) + "\n");
        assertEquals("topo:1:4097: error: line longer than 4096 characters", longLine.diagnostics().get(0).toString()
            .substring(0, "topo:1:4097: error: line longer than 4096 characters".length()));
    }

    @Test
    void readsFilesAndRefusesDirectoriesAndMissingFiles(@TempDir final Path dir) throws IOException
    {
        final Path file = dir.resolve("net");
        Files.writeString(file, TopologyFixtures.text("net"));
        assertTrue(TopologyReader.read(file, LineRate.EDR_4X).ok());
        assertEquals(dir + ": error: cannot read: is a directory",
            TopologyReader.read(dir, LineRate.EDR_4X).diagnostics().get(0).toString());
        assertEquals(dir.resolve("nope") + ": error: cannot read: no such file",
            TopologyReader.read(dir.resolve("nope"), LineRate.EDR_4X).diagnostics().get(0).toString());
    }

    @Test
    void anEmptyFileIsRefused()
    {
        assertFalse(parse("# nothing\n").ok());
    }
}
