package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LftReaderTest
{
    /** OpenSM's opensm-lfts.dump for net.2sw2path4hca, routed over the second path where min-hop takes the first. */
    static final String OPENSM_DUMP = String.join("\n",
        "Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000200000 ('Switch1'):",
        "0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'",
        "0x0002 005 # Switch portguid 0x0000000000300000: 'Switch2'",
        "0x0003 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'",
        "0x0004 005 # Channel Adapter portguid 0x0000000000100002: 'Hca2'",
        "0x0005 002 # Channel Adapter portguid 0x0000000000100003: 'Hca3'",
        "0x0006 005 # Channel Adapter portguid 0x0000000000100004: 'Hca4'",
        "6 lids dumped",
        "Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000300000 ('Switch2'):",
        "0x0001 003 # Switch portguid 0x0000000000200000: 'Switch1'",
        "0x0002 000 # Switch portguid 0x0000000000300000: 'Switch2'",
        "0x0003 003 # Channel Adapter portguid 0x0000000000100001: 'Hca1'",
        "0x0004 001 # Channel Adapter portguid 0x0000000000100002: 'Hca2'",
        "0x0005 003 # Channel Adapter portguid 0x0000000000100003: 'Hca3'",
        "0x0006 002 # Channel Adapter portguid 0x0000000000100004: 'Hca4'",
        "6 lids dumped",
        "");

    /** The same tables as ibroute prints them. */
    static final String IBROUTE = String.join("\n",
        "Unicast lids [0x1-0x6] of switch Lid 1 guid 0x0000000000200000 (Switch1):",
        "  Lid  Out   Destination",
        "       Port     Info ",
        "0x0001 000 : (Switch portguid 0x0000000000200000: 'Switch1')",
        "0x0002 005 : (Switch portguid 0x0000000000300000: 'Switch2')",
        "0x0003 001 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')",
        "0x0004 005 : (Channel Adapter portguid 0x0000000000100002: 'Hca2')",
        "0x0005 002 : (Channel Adapter portguid 0x0000000000100003: 'Hca3')",
        "0x0006 005 : (Channel Adapter portguid 0x0000000000100004: 'Hca4')",
        "6 valid lids dumped ",
        "Unicast lids [0x1-0x6] of switch Lid 2 guid 0x0000000000300000 (Switch2):",
        "  Lid  Out   Destination",
        "       Port     Info ",
        "0x0001 003 : (Switch portguid 0x0000000000200000: 'Switch1')",
        "0x0002 000 : (Switch portguid 0x0000000000300000: 'Switch2')",
        "0x0003 003 : (Channel Adapter portguid 0x0000000000100001: 'Hca1')",
        "0x0004 001 : (Channel Adapter portguid 0x0000000000100002: 'Hca2')",
        "0x0005 003 : (Channel Adapter portguid 0x0000000000100003: 'Hca3')",
        "0x0006 002 : (Channel Adapter portguid 0x0000000000100004: 'Hca4')",
        "6 valid lids dumped ",
        "");

    @Test
    void readsOpenSmsDumpMatchedByLid()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final LftReader.Result result = LftReader.parse("lfts", OPENSM_DUMP, t);
        assertEquals(List.of(), result.diagnostics());
        assertTables(t, result.orThrow());
    }

    @Test
    void readsIbroutesForm()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final LftReader.Result result = LftReader.parse("ibroute", IBROUTE, t);
        assertEquals(List.of(), result.diagnostics());
        assertTables(t, result.orThrow());
    }

    private static void assertTables(final Topology t, final Routes routes)
    {
        final Topology.Node s1 = t.node("Switch1");
        assertEquals(5, routes.outPort(s1, 4));
        assertEquals(2, routes.hops(s1, 4));
        assertEquals(0, routes.outPort(s1, 1));
        assertEquals(0, routes.hops(s1, 1));
        assertEquals(1, routes.hops(s1, 3));
        assertEquals(3, routes.outPort(t.node("Switch2"), 5));
        assertEquals(2, routes.maxHops());
        // all three CA routes over the parallel pair took port 5: as unbalanced as it gets
        assertEquals(2, routes.balance());
    }

    @Test
    void aRowWhosePortHasNoCableIsAnErrorAtItsLine()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final LftReader.Result result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("0x0004 005 # Channel", "0x0004 007 # Channel"), t);
        assertFalse(result.ok());
        assertEquals("lfts:5:8: error: port 7 of \"Switch1\" has no cable in the topology; the dump and the topology disagree",
            result.diagnostics().get(0).toString());
    }

    @Test
    void aLoopingRouteIsRefused()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        // Switch2 sends Hca2's LID back to Switch1, which sends it to Switch2: a loop
        final LftReader.Result result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("0x0004 001 # Channel", "0x0004 003 # Channel"), t);
        assertFalse(result.ok());
        final List<String> messages = result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
        assertTrue(messages.stream().allMatch(m -> m.contains("to lid 4 does not reach it")), messages.toString());
    }

    @Test
    void aTableOfAnUnknownSwitchIsAnError()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final LftReader.Result result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("switch Lid 2 guid", "switch Lid 9 guid"), t);
        assertFalse(result.ok());
        assertTrue(result.diagnostics().stream().anyMatch(d ->
            d.toString().equals("lfts:9:1: error: no switch of the topology has lid 9; was the dump taken from this fabric?")),
            result.diagnostics().toString());
    }

    @Test
    void matchesByGuidWhenTheTopologyHasGuids()
    {
        final Topology t = TopologyFixtures.parse(TopologyReaderTest.IBNETDISCOVER).orThrow();
        final String dump = String.join("\n",
            "Unicast lids [0x0-0x9] of switch Lid 3 guid 0x0002c902004a5ad8 ('MF0;switch-1:IS5030/U1'):",
            "0x0003 000 # Switch",
            "0x0005 001 # Channel Adapter",
            "0x0008 002 # Channel Adapter",
            "0x0009 002 # Channel Adapter",
            "");
        final Routes routes = LftReader.parse("lfts", dump, t).orThrow();
        assertEquals(2, routes.outPort(t.node("S-0002c902004a5ad8"), 9));
        assertEquals(1, routes.hops(t.node("S-0002c902004a5ad8"), 9));
        assertFalse(LftReader.parse("lfts", dump.replace("0x0002c902004a5ad8", "0x0002c902004a5ad9"), t).ok());
    }

    @Test
    void unknownLinesAreErrors()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        assertEquals("lfts:1:1: error: unknown line; an LFT dump has 'Unicast lids ...' headings and '0xLID PORT' rows",
            LftReader.parse("lfts", "hello\n", t).diagnostics().get(0).toString());
    }
}
