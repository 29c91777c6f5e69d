package io.vlink.core.fabric;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.credit.LineRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The forwarding tables OpenSM 3.3.23 computed on ibsim, as its dump, ibroute and dump_fts print them (captured in
 * resources/opensm-3.3.23, see capture.sh there), read against the net file and against every ibnetdiscover form.
 */
class LftReaderTest
{
    /** OpenSM's opensm-lfts.dump for net.2sw2path4hca (minhop): decimal ranges, "N lids dumped" trailers. */
    static final String OPENSM_DUMP = TopologyFixtures.opensm("net.2sw2path4hca/minhop/opensm-lfts.dump");

    /**
     * ibroute reads a switch's table by LID; under updn the subnet manager's switch (Core1) has no route to the other
     * root (Core2), so ibroute could not read that one table ("iberror: ... valid addr?"); dump_fts, which reaches
     * every switch by directed route, read them all.
     */
    @ParameterizedTest
    @CsvSource({
        "net.2sw2path4hca, net.2sw2path4hca/minhop, 0, ibroute.out dump_fts.out",
        "fattree-dbl,      fattree-dbl/minhop-lmc1, 1, ibroute.out dump_fts.out",
        "fattree-3,        fattree-3/updn,          0, dump_fts.out",
        "ring6,            ring6/minhop,            0, ibroute.out dump_fts.out"})
    void everyFormOfEveryCapturedTableLoadsWithTheNetFileAndWithEveryIbnetdiscoverForm(
        final String net, final String run, final int lmc, final String forms)
    {
        final Topology fromNet = TopologyFixtures.sample(net, lmc);
        final Routes dump = load(run + "/opensm-lfts.dump", fromNet);
        for (final String form : forms.split(" "))
        {
            assertSameTables(fromNet, dump, load(run + "/" + form, fromNet), form);
        }
        for (final String form : new String[]{"", "-g", "-s", "-f", "-m"})
        {
            final String name = run + "/ibnetdiscover" + form + ".out";
            final Topology discovered = TopologyReader.parse(name, TopologyFixtures.opensm(name), LineRate.EDR_4X)
                .orThrow();
            final Routes routes = load(run + "/opensm-lfts.dump", discovered);
            for (final Topology.Node sw : fromNet.switches())
            {
                final Topology.Node twin = byGuid(discovered, sw.guid());
                for (int lid = 1; lid <= fromNet.maxLid(); lid++)
                {
                    assertEquals(dump.outPort(sw, lid), routes.outPort(twin, lid), name + " " + sw + " lid " + lid);
                    assertEquals(dump.hops(sw, lid), routes.hops(twin, lid), name + " " + sw + " lid " + lid);
                }
            }
        }
    }

    private static Routes load(final String path, final Topology topology)
    {
        final Result<Routes> result = LftReader.parse(path, TopologyFixtures.opensm(path), topology);
        assertEquals(List.of(), result.diagnostics(), path);
        return result.orThrow();
    }

    private static Topology.Node byGuid(final Topology t, final long guid)
    {
        return t.nodes().stream().filter(n -> n.guid() == guid).findFirst().orElseThrow();
    }

    private static void assertSameTables(final Topology t, final Routes expected, final Routes actual, final String what)
    {
        for (final Topology.Node sw : t.switches())
        {
            for (int lid = 1; lid <= t.maxLid(); lid++)
            {
                assertEquals(expected.outPort(sw, lid), actual.outPort(sw, lid), what + " " + sw + " lid " + lid);
                assertEquals(expected.hops(sw, lid), actual.hops(sw, lid), what + " " + sw + " lid " + lid);
            }
        }
    }

    @Test
    void ibroutesErrorLineAndTheMissingTableAreReported()
    {
        final Topology t = TopologyFixtures.sample("fattree-3");
        final List<String> found = LftReader.parse("ibroute", TopologyFixtures.opensm("fattree-3/updn/ibroute.out"), t)
            .diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
        assertTrue(found.contains("ibroute:89:1: error: unknown line; an LFT dump has 'Unicast lids ...' headings and " +
            "'0xLID PORT' rows"), found.toString());
        assertTrue(found.stream().anyMatch(f -> f.contains("does not reach it")), found.toString());
    }

    @Test
    void theDumpOfTwoSwitchesTwoPathsFourHcas()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final Routes routes = LftReader.parse("lfts", OPENSM_DUMP, t).orThrow();
        final Topology.Node s1 = t.node("Switch1");
        // LIDs as OpenSM gave them: Switch1 1, Hca1 2, Switch2 3, Hca2 4, Hca3 5, Hca4 6
        assertEquals(0, routes.outPort(s1, 1));
        assertEquals(0, routes.hops(s1, 1));
        assertEquals(1, routes.outPort(s1, 2));
        assertEquals(1, routes.hops(s1, 2));
        assertEquals(3, routes.outPort(s1, 4));
        assertEquals(2, routes.hops(s1, 4));
        assertEquals(5, routes.outPort(s1, 6));
        assertEquals(5, routes.outPort(t.node("Switch2"), 5));
        assertEquals(2, routes.maxHops());
        assertEquals(0, routes.balance());
    }

    @Test
    void aRowWhosePortHasNoCableIsAnErrorAtItsLine()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final Result<Routes> result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("0x0006 005 # Channel", "0x0006 007 # Channel"), t);
        assertFalse(result.ok());
        assertEquals("lfts:7:8: error: port 7 of \"Switch1\" has no cable in the topology; the dump and the topology disagree",
            result.diagnostics().get(0).toString());
    }

    @Test
    void aLoopingRouteIsRefused()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        // Switch2 sends Hca2's LID back to Switch1, which sends it to Switch2: a loop
        final Result<Routes> result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("0x0004 001 # Channel", "0x0004 003 # Channel"), t);
        assertFalse(result.ok());
        final List<String> messages = result.diagnostics().stream().map(Diagnostic::toString).collect(Collectors.toList());
        assertTrue(messages.stream().allMatch(m -> m.contains("to lid 4 does not reach it")), messages.toString());
    }

    @Test
    void aTableOfAnUnknownSwitchIsAnError()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final Result<Routes> result = LftReader.parse("lfts",
            OPENSM_DUMP.replace("switch Lid 3 guid 0x0000000000200001", "switch Lid 9 guid 0x0000000000300000"), t);
        assertFalse(result.ok());
        assertTrue(result.diagnostics().stream().anyMatch(d -> d.toString().equals(
            "lfts:9:1: error: no switch of the topology has guid 0x0000000000300000 or lid 9; was the dump taken from this " +
            "fabric?")), result.diagnostics().toString());
    }

    @Test
    void aTopologyWithoutGuidsOfItsOwnMatchesAForeignDumpByLid()
    {
        // a hand-written file whose switches' GUIDs the real fabric does not share: the heading's LID finds the switch
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        final Routes routes = LftReader.parse("lfts", OPENSM_DUMP.replace("guid 0x00000000002", "guid 0x00000000009"), t)
            .orThrow();
        assertEquals(5, routes.outPort(t.node("Switch1"), 6));
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
        assertFalse(LftReader.parse("lfts", dump.replace("0x0002c902004a5ad8", "0x0002c902004a5ad9"), t).ok(),
            "the file gave the GUIDs: a heading with another GUID is not matched by its LID");
    }

    @Test
    void unknownLinesAreErrors()
    {
        final Topology t = TopologyFixtures.sample("net.2sw2path4hca");
        assertEquals("lfts:1:1: error: unknown line; an LFT dump has 'Unicast lids ...' headings and '0xLID PORT' rows",
            LftReader.parse("lfts", "hello\n", t).diagnostics().get(0).toString());
    }
}
