package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
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
        final Result<Topology> result = TopologyReader.parse(name, TopologyFixtures.text(name), LineRate.EDR_4X);
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
        // ibsim's GUIDs: switches 0x200000 up, CAs 0x100000 up taking ports + 1 each, a CA port node GUID + port
        assertEquals(0x200000L, s1.guid());
        assertEquals(0x200001L, t.node("Switch2").portGuid(0));
        assertEquals(0x100003L, t.node("Hca2").guid());
        assertEquals(0x10000aL, t.node("Hca4").portGuid(1));
        assertFalse(s1.guidGiven());
        // OpenSM's LIDs: the SM's port (ibsim puts it on the first node) first, then by byte-swapped port GUID:
        // 0x100001 (Hca1), 0x200001 (Switch2), 0x100004 (Hca2), 0x100007 (Hca3), 0x10000a (Hca4)
        assertEquals(1, s1.baseLid(0));
        assertEquals(2, t.node("Hca1").baseLid(1));
        assertEquals(3, t.node("Switch2").baseLid(0));
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

    @ParameterizedTest
    @ValueSource(strings = {"", "-g", "-s", "-f", "-m"})
    void everyIbnetdiscoverFormIsTheSameFabricWithOpenSmsLids(final String form)
    {
        for (final String run : new String[]{"net.2sw2path4hca/minhop", "fattree-dbl/minhop-lmc1", "ring6/minhop"})
        {
            final String name = run + "/ibnetdiscover" + form + ".out";
            final Result<Topology> result = TopologyReader.parse(name, TopologyFixtures.opensm(name), LineRate.EDR_4X);
            assertEquals(List.of(), result.diagnostics(), name);
            final Topology discovered = result.orThrow();
            final int lmc = run.contains("lmc1") ? 1 : 0;
            final Topology net = TopologyFixtures.sample(run.substring(0, run.indexOf('/')), lmc);
            assertEquals(net.nodes().size(), discovered.nodes().size(), name);
            assertEquals(net.links().size(), discovered.links().size(), name);
            for (final Topology.Node node : net.nodes())
            {
                final Topology.Node twin = discovered.nodes().stream().filter(n -> n.guid() == node.guid()).findFirst()
                    .orElseThrow(() -> new AssertionError(name + ": no node with " + node + "'s GUID"));
                assertTrue(twin.guidGiven());
                assertEquals(node.type(), twin.type());
                assertEquals(node.id(), twin.description(), "ibsim's node ID is the node description");
                for (int p = 0; p <= node.portCount(); p++)
                {
                    assertEquals(node.baseLid(p), twin.baseLid(p), name + " " + node + " port " + p);
                    assertEquals(node.lmc(p), twin.lmc(p), name + " " + node + " port " + p);
                    if (p > 0 && null != node.link(p))
                    {
                        assertEquals(node.link(p).remote().guid(), twin.link(p).remote().guid());
                        assertEquals(node.link(p).remotePort(), twin.link(p).remotePort());
                        assertEquals(node.portGuid(p), twin.portGuid(p));
                    }
                }
            }
        }
    }

    @Test
    void lmcOneGivesCaPortsAlignedPairsAndLosesTheLidsPassedOver()
    {
        final Topology t = TopologyFixtures.sample("fattree-dbl", 1);
        // Spine1 (the SM's switch) 1; then by byte-swapped port GUID: Host1 (0x100001) needs an aligned pair: 2-3;
        // Spine2 (0x200001) 4; Leaf1.. and the other hosts follow, each host's pair aligned, an odd LID skipped lost
        assertEquals(1, t.node("Spine1").baseLid(0));
        assertEquals(2, t.node("Host1").baseLid(1));
        assertEquals(1, t.node("Host1").lmc(1));
        assertEquals(4, t.node("Spine2").baseLid(0));
        assertEquals(0, t.node("Spine2").lmc(0), "a switch's port 0 takes one LID");
        assertEquals(6, t.node("Host2").baseLid(1), "LID 5 is passed over for alignment, and lost");
        for (final Topology.Node node : t.nodes())
        {
            if (!node.isSwitch())
            {
                assertEquals(0, node.baseLid(1) & 1, node + " has an aligned pair");
            }
        }
    }

    @Test
    void guidLinesSetTheNextGuidOfTheirKindAsIbsimDoes()
    {
        final Topology t = parse("switchguid=0x500\nSwitch 4 \"A\"\n[1] \"B\"[1]\n\nSwitch 4 \"B\"\n[1] \"A\"[1]\n[2] \"H\"[1]\n\n" +
            "caguid=0x900\nsysimgguid=0x77\nCa 2 \"H\"\n[1](abc) \"B\"[2]\n")
            .orThrow();
        assertEquals(0x500, t.node("A").guid());
        assertTrue(t.node("A").guidGiven());
        assertEquals(0x501, t.node("B").guid(), "the next switch counts on from the line's GUID, as ibsim does");
        assertFalse(t.node("B").guidGiven());
        assertEquals(0x900, t.node("H").guid());
        assertEquals(0xabc, t.node("H").portGuid(1), "a CA port line's own GUID");
        assertEquals(0x902, t.node("H").portGuid(2), "else the node GUID + the port");
        assertEquals(0x77, t.node("H").systemGuid());
        assertEquals(0x500, t.node("A").systemGuid(), "without sysimgguid the node GUID, as ibsim reports it");
    }

    @Test
    void ibnetdiscoverGroupedFormsWithChassisAndExternalPortNumbers()
    {
        final Result<Topology> result = parse(String.join("\n",
            "#",
            "# Topology file: generated on Fri Nov 27 16:37:08 2026",
            "",
            "Chassis 1 (guid 0x8f10400411f56)",
            "",
            "# Spine Nodes",
            "vendid=0x8f1",
            "devid=0x5a31",
            "sysimgguid=0x8f10400411f56\t\t# Chassis 1 (ISR9288)",
            "switchguid=0x8f10400411f5c(8f10400411f5c)\t# ISR9288 Voltaire sLB-24D Line 3 Chip 1",
            "Switch\t24 \"S-0008f10400411f5c\"\t\t# \"ISR9288 Voltaire sLB-24D\" base port 0 lid 6 lmc 0",
            "[1][ext 5]\t\"H-0002c903000e8f4c\"[1](2c903000e8f4d) \t\t# \"node1\" lid 5 4xQDR",
            "",
            "Non-Chassis Nodes",
            "",
            "DR path slid 0; dlid 0; 0 -> new Switch {0008f10400411f5c} portnum 0 lid 0-0 \"\"",
            "caguid=0x2c903000e8f4c",
            "Ca\t2 \"H-0002c903000e8f4c\"\t\t# \"node1\" (scp)",
            "[1](2c903000e8f4d) \t\"S-0008f10400411f5c\"[1][ext 5]\t\t# lid 5 lmc 0 \"ISR9288\" lid 6 4xQDR s=4 w=2 v=4",
            "",
            "rtguid=0x2c903000e8f70",
            "Rt\t1 \"R-0002c903000e8f70\"\t\t# \"router\"",
            "[1](2c903000e8f71) \t\"H-0002c903000e8f4c\"[2] (2c903000e8f4e) \t\t# lid 9 lmc 0 \"node1\" lid 5 4xQDR",
            ""));
        assertEquals(List.of("topo:23:21: error: \"R-0002c903000e8f70\"[1] names \"H-0002c903000e8f4c\"[2], but " +
            "\"H-0002c903000e8f4c\" has no line for port 2; a link must be written from both ends"),
            result.diagnostics().stream().map(Object::toString).collect(Collectors.toList()),
            "every line is read; the router's cable is one-sided");
    }

    @Test
    void ibnetdiscoverOutputWithLidsGuidsAndSpeeds()
    {
        final Result<Topology> result = parse(IBNETDISCOVER);
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
        final Result<Topology> result = parse(text.strip().replace("\\n", "\n"));
        assertFalse(result.ok(), what);
        final String first = result.diagnostics().stream().filter(Diagnostic::isError).findFirst().orElseThrow().toString();
        assertTrue(first.startsWith(expected.strip()), what + ": " + first);
    }

    @Test
    void everyErrorInOnePass()
    {
        final Result<Topology> result = parse(
            "Switch 4 \"S\"\n[1] \"X\"[1]\n[9] \"H\"[1]\nbogus\n\nHca 1 \"H\"\n[1] \"S\"[2]\n");
        final List<Integer> lines = result.diagnostics().stream().map(Diagnostic::line).collect(Collectors.toList());
        assertEquals(List.of(2, 3, 4, 7), lines, result.diagnostics().toString());
        assertNull(result.value(), "nothing of a refused topology is returned");
    }

    @Test
    void aRemoteLidThatContradictsTheRemotesOwnRecordIsAWarning()
    {
        final Result<Topology> result = parse(
            "Switch 4 \"S\" # \"s\" base port 0 lid 3 lmc 0\n[1] \"H\"[1] # \"h\" lid 7 4xEDR\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 5 lmc 0 \"s\" lid 3 4xEDR\n");
        assertTrue(result.ok());
        assertEquals(List.of("topo:2:22: warning: remote lid 7 contradicts \"H\"'s own record (lid 5); its own is used"),
            result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertEquals(5, result.value().node("H").baseLid(1));
    }

    @Test
    void controlBytesAndLongLinesAreQuotedSafely()
    {
        final Result<Topology> result = parse("\u001b[31m" + "x".repeat(200) + "\u0007\n");
        final String message = result.diagnostics().get(0).message();
        assertFalse(message.contains("\u001b"), message);
        assertTrue(message.contains("\\x1b"), message);
        assertTrue(message.length() < 260, message);
        final Result<Topology> longLine = parse("#" + "y".repeat(TextLines.MAX_LINE_BYTES + 1) + "\n");
        assertTrue(longLine.stopped());
        assertEquals(List.of("topo:1:4097: error: line longer than 4096 bytes, the most vlink reads (files up to " +
            "67108864 bytes): check that this is the file you meant"), longLine.diagnostics().stream()
            .map(Object::toString).collect(Collectors.toList()));
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
