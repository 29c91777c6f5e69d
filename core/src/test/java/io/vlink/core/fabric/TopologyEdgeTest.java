package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;
import io.vlink.core.credit.LineRate;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static io.vlink.core.fabric.TopologyFixtures.parse;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The limits of the topology reader and model, each at its boundary.
 */
class TopologyEdgeTest
{
    private static String swWithLid(final String lidAndLmc)
    {
        return "Switch 4 \"S\" # base port 0 lid " + lidAndLmc + "\n";
    }

    private static List<String> findings(final String text)
    {
        return parse(text).diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
    }

    @Test
    void lidAndLmcRanges()
    {
        assertTrue(parse(swWithLid("49151 lmc 0")).ok(), "0xBFFF is the last unicast LID");
        assertTrue(parse(swWithLid("49150 lmc 1")).ok(), "0xBFFE with lmc 1 ends at 0xBFFF");
        assertEquals(List.of("topo:1:32: error: lid 49152 with lmc 1 is out of the unicast range 1..49151"),
            findings(swWithLid("49152 lmc 1")));
        assertEquals(List.of("topo:1:32: error: lid 49151 with lmc 1 is out of the unicast range 1..49151"),
            findings(swWithLid("49151 lmc 1")));
        assertTrue(parse(swWithLid("128 lmc 7")).ok(), "lmc 7 is the largest");
        assertEquals(List.of("topo:1:32: error: lmc 8 is out of range 0..7"), findings(swWithLid("256 lmc 8")));
        assertEquals(List.of("topo:1:32: error: lid 6 is not a multiple of 2^lmc = 4; a port's base LID has its low lmc bits clear"),
            findings(swWithLid("6 lmc 2")));
        final Topology t = parse(swWithLid("8 lmc 2")).orThrow();
        assertEquals(11, t.maxLid());
        assertSame(t.node("S"), t.nodeOfLid(8));
        assertSame(t.node("S"), t.nodeOfLid(11));
        assertNull(t.nodeOfLid(7), "a LID no port answers to");
        assertNull(t.nodeOfLid(12));
        assertNull(t.nodeOfLid(0));
        assertEquals(2, t.node("S").lmc(0));
    }

    @Test
    void anLmcRangeOverlapsAtItsLastLid()
    {
        final String text = swWithLid("8 lmc 2") + "[1] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[1] # lid 11 lmc 0\n";
        assertEquals(List.of("topo:5:18: error: lid 11 of \"H\" port 1 is already \"S\"'s; LIDs must be unique"), findings(text));
        final String after = swWithLid("8 lmc 2") + "[1] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[1] # lid 12 lmc 0\n";
        assertTrue(parse(after).ok());
    }

    @Test
    void freeLidsSkipTheOnesTheFileGives()
    {
        final Topology t = parse("Switch 4 \"S\"\n[1] \"H\"[1]\n[2] \"G\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[1] # lid 1\n\n" +
            "Hca 1 \"G\"\n[1] \"S\"[2]\n").orThrow();
        assertEquals(2, t.node("S").baseLid(0), "1 is H's: the switch gets the lowest free, 2");
        assertEquals(1, t.node("H").baseLid(1));
        assertEquals(3, t.node("G").baseLid(1));
    }

    @Test
    void aFreeRangeTooSmallForAnAlignedRunIsPassedOver()
    {
        // A and B keep LIDs 1 and 3: LID 2 is a free range of one, and 4.. the next
        final String text = "Switch 4 \"A\" # base port 0 lid 1 lmc 0\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n[3] \"B\"[3]\n\n" +
            "Switch 4 \"B\" # base port 0 lid 3 lmc 0\n[3] \"A\"[3]\n\nHca 1 \"H1\"\n[1] \"A\"[1]\n\nHca 1 \"H2\"\n[1] \"A\"[2]\n";
        final Topology one = TopologyReader.parse("topo", text, LineRate.EDR_4X, 1).orThrow();
        assertEquals(4, one.node("H1").baseLid(1), "LMC 1: LID 2 alone holds no pair");
        assertEquals(6, one.node("H2").baseLid(1));
        final Topology none = TopologyReader.parse("topo", text, LineRate.EDR_4X, 0).orThrow();
        assertEquals(2, none.node("H1").baseLid(1), "LMC 0: the hole is taken first");
        assertEquals(4, none.node("H2").baseLid(1), "and 3, B's, is passed over");
    }

    @Test
    void lidsOnCaLinesAndInsideDescriptions()
    {
        // no quotes: the first lid is the CA port's own, the second its remote's
        final Topology a = parse("Switch 4 \"S\" # base port 0 lid 3 lmc 0\n[1] \"H\"[1]\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 5 lmc 0 lid 3\n").orThrow();
        assertEquals(5, a.node("H").baseLid(1));
        // a lid inside the quoted description is neither
        final Result<Topology> b = parse("Switch 4 \"S\" # base port 0 lid 3 lmc 0\n[1] \"H\"[1]\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 5 lmc 0 \"rack lid 9\" lid 3 4xHDR\n");
        assertEquals(List.of(), b.diagnostics());
        assertEquals(5, b.value().node("H").baseLid(1));
        assertEquals(LineRate.HDR_4X, b.value().node("H").link(1).rate());
        // a CA line whose only lid comes after the description gives the remote's, and the CA gets a free LID
        final Result<Topology> c = parse("Switch 4 \"S\" # base port 0 lid 3 lmc 0\n[1] \"H\"[1]\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # \"s\" lid 7\n");
        assertEquals(List.of("topo:5:22: warning: remote lid 7 contradicts \"S\"'s own record (lid 3); its own is used"),
            c.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertEquals(1, c.value().node("H").baseLid(1));
        // a switch's own LID in a CA header is ignored with a warning
        final Result<Topology> d = parse("Hca 1 \"H\" # \"h\" base port 0 lid 9 lmc 0\n");
        assertEquals(List.of("topo:1:17: warning: 'port 0 lid' is a switch's; ignored on Ca \"H\""),
            d.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList()));
        assertEquals(0, d.value().node("H").baseLid(0));
    }

    @Test
    void speedsAndWidthsFromEitherEnd()
    {
        final Topology t = parse("Switch 4 \"S\"\n[1] \"H\"[1]\n[2] \"G\"[1] # \"g\" lid 1 12xQDR\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 2 lmc 0 \"s\" lid 3 1xNDR\n\nHca 1 \"G\"\n[1] \"S\"[2]\n").orThrow();
        assertEquals(LineRate.NDR_4X, t.node("S").link(1).rate(), "only the far end gives a speed");
        assertEquals(1, t.node("S").link(1).width());
        assertEquals(LineRate.QDR_4X, t.node("G").link(1).rate(), "only the near end gives a speed");
        assertEquals(12, t.node("G").link(1).width());
        assertEquals(0, parse("Switch 4 \"S\"\n[1] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[1]\n").orThrow().node("S").link(1).width());
        final Result<Topology> differ = parse("Switch 4 \"S\"\n[1] \"H\"[1] # lid 2 4xEDR\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 2 lmc 0 \"s\" lid 1 4xHDR\n");
        assertEquals(List.of("topo:5:0: warning: speed differs from line 2's; line 2's is used").get(0).replace(":0:", ":"),
            differ.diagnostics().get(0).toString());
        assertEquals(LineRate.EDR_4X, differ.value().node("H").link(1).rate());
        final Result<Topology> width = parse("Switch 4 \"S\"\n[1] \"H\"[1] # lid 2 4xEDR\n\n" +
            "Hca 1 \"H\"\n[1] \"S\"[1] # lid 2 lmc 0 \"s\" lid 1 12xEDR\n");
        assertEquals(1, width.diagnostics().size(), "same rate, other width: still a difference");
    }

    @Test
    void portCountsAndHugeNumbers()
    {
        assertTrue(parse("Switch 254 \"S\"\n").ok(), "254 ports is the most");
        assertTrue(parse("Switch 1 \"S\"\n").ok());
        assertEquals(List.of("topo:1:8: error: port count 99999999999 is out of range 1..254; write the node's number of " +
            "external ports"), findings("Switch 99999999999 \"S\"\n"));
        assertEquals(List.of("topo:2:2: error: port 99999999999 is out of range 1..4 of Switch \"S\"; use a port number " +
            "its header allows"), findings("Switch 4 \"S\"\n[99999999999] \"S\"[1]\n"));
    }

    @Test
    void numbersTooLargeForAnIntAreReportedAsWritten()
    {
        assertEquals(List.of("topo:2:9: error: port 4294967296 is out of range 1..1 of \"H\""),
            findings("Switch 4 \"S\"\n[1] \"H\"[4294967296]\n\nHca 1 \"H\"\n"));
        assertEquals(List.of("topo:1:32: error: lid 9223372036854775808 is out of the unicast range 1..49151"),
            findings("Switch 4 \"S\" # base port 0 lid 9223372036854775808 lmc 0\n"));
        assertEquals(List.of("topo:1:32: error: lmc 4294967296 is out of range 0..7"),
            findings("Switch 4 \"S\" # base port 0 lid 2 lmc 4294967296\n"));
    }

    @Test
    void lfCrlfAndCrOnlyFilesReadAlike()
    {
        final String lf = TopologyReaderTest.IBNETDISCOVER;
        final String expected = describe(parse(lf).orThrow());
        for (final String ending : new String[] {"\r\n", "\r"})
        {
            final Result<Topology> other = parse(lf.replace("\n", ending));
            assertEquals(List.of(), other.diagnostics(), ending::toString);
            assertEquals(expected, describe(other.orThrow()));
        }
    }

    private static String describe(final Topology t)
    {
        final StringBuilder sb = new StringBuilder();
        for (final Topology.Node node : t.nodes())
        {
            sb.append(node.id()).append(' ').append(node.guid());
            for (int p = 0; p <= node.portCount(); p++)
            {
                sb.append(' ').append(node.baseLid(p)).append(null == node.link(p) ? "" : "+");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    @Test
    void aRemotePortAboveTheRemotesCount()
    {
        assertEquals(List.of("topo:2:9: error: port 5 is out of range 1..1 of \"H\""),
            findings("Switch 4 \"S\"\n[1] \"H\"[5]\n\nHca 1 \"H\"\n"));
    }

    @Test
    void aKeywordAloneIsAnUnknownLineAndALineAtTheLimitIsRead()
    {
        assertEquals(List.of("topo:1:1: error: unknown line 'Switch'; a topology has node headers (Switch, Ca, Hca, Rt), " +
            "port lines '[P] \"REMOTE\"[Q]', GUID lines and '#' comments"), findings("Switch\n"));
        final String comment = "#" + "c".repeat(TextLines.MAX_LINE_BYTES - 1);
        assertTrue(parse("Switch 4 \"S\"\n" + comment + "\n").ok());
        assertEquals(List.of("topo: error: no node records; a topology has at least one 'Switch N \"ID\"' or 'Ca N \"ID\"' record"),
            findings("\n"));
    }

    @Test
    void emptyIdsMalformedGuidsAndRouters()
    {
        assertEquals(List.of("topo:1:10: error: empty node ID; give every node a unique quoted ID"), findings("Switch 4 \"\"\n"));
        assertEquals(List.of("topo:1:12: error: malformed GUID; write it as ibnetdiscover does, e.g. switchguid=0x2c902004a5ad8"),
            findings("switchguid=zz\nSwitch 4 \"S\"\n"));
        final Topology t = parse("sysimgguid=0x1\ncaguid=0x42\nRt 2 \"R\"\n[1] \"S\"[1]\n\nSwitch 4 \"S\"\n[1] \"R\"[1]\n").orThrow();
        assertEquals(Topology.NodeType.ROUTER, t.node("R").type());
        assertEquals(0, t.node("R").guid(), "a caguid= line sets the next CA's GUID, not a router's");
        assertEquals(0x200000, t.node("S").guid(), "ibsim's first switch GUID");
        assertEquals(1, t.node("R").systemGuid(), "sysimgguid= belongs to the next header");
        assertEquals("Rt", t.node("R").type().label());
    }

    @Test
    void aSelfCableIsOneLinkAndConnectedPortsCountsIt()
    {
        final Topology t = parse("Switch 4 \"S\"\n[1] \"S\"[2]\n[2] \"S\"[1]\n[4] \"H\"[1]\n\nHca 1 \"H\"\n[1] \"S\"[4]\n").orThrow();
        assertEquals(2, t.links().size());
        assertEquals(3, t.node("S").connectedPorts());
        final Topology.Link link = t.node("S").link(4);
        assertEquals(4, link.port());
        assertSame(t.node("S"), link.node());
        assertEquals("S[4] - H[1]", link.toString());
        assertEquals("Switch \"S\"", t.node("S").toString());
        assertNull(t.node("S").link(0));
        assertNull(t.node("S").link(5));
        assertNull(t.node("S").link(3));
    }

    @Test
    void quoteKeepsShortTextAndCutsLongText()
    {
        assertEquals("abc", TopologyReader.quote("abc"));
        assertEquals("a\\x07b\\x7fc\\x9fd", TopologyReader.quote("a\u0007b\u007fc\u009fd"));
        assertEquals("\u00a0", TopologyReader.quote("\u00a0"), "no-break space is printable");
        final String eighty = "x".repeat(80);
        assertEquals(eighty, TopologyReader.quote(eighty));
        assertEquals("x".repeat(77) + "...", TopologyReader.quote("x".repeat(81)));
    }

    @Test
    void routesOutsideTheTableAreNoRoute()
    {
        final Topology t = TopologyFixtures.sample("net.1");
        final Routes routes = MinHopRouting.route(t);
        final Topology.Node s = t.node("Switch1");
        assertEquals(Routes.NO_ROUTE, routes.outPort(s, -1));
        assertEquals(Routes.NO_ROUTE, routes.outPort(s, t.maxLid() + 1));
        assertEquals(Routes.NO_ROUTE, routes.hops(s, -1));
        assertEquals(Routes.NO_ROUTE, routes.hops(s, t.maxLid() + 1));
        assertEquals(t.maxLid(), routes.outPort(s, 0) == Routes.NO_ROUTE ? t.maxLid() : -1, "LID 0 is no one's");
        assertEquals(Routes.NO_ROUTE, routes.hops(s, 0));
        assertEquals(Routes.NO_ROUTE, routes.walk(s, t.maxLid() + 1));
        assertEquals(0, routes.walk(s, s.baseLid(0)));
        assertSame(t, routes.topology());
        // from a CA, a walk goes nowhere: only switches forward
        assertEquals(Routes.NO_ROUTE, routes.walk(t.node("Hca1"), s.baseLid(0)));
    }
}
