package io.vlink.core.fabric;

import io.vlink.core.credit.LineRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MinHopRoutingTest
{
    @Test
    void twoSwitchesTwoPathsFourHcasAsPrinted()
    {
        final Routes routes = MinHopRouting.route(TopologyFixtures.sample("net.2sw2path4hca"));
        final StringBuilder out = new StringBuilder();
        routes.print(out);
        // OpenSM's LIDs (Switch1 1, Hca1 2, Switch2 3, Hca2 4, Hca3 5, Hca4 6) and its minhop tables
        assertEquals(String.join("\n",
            "Switch1 lid 1: dlid 1 -> port 0 (0 hops)",
            "Switch1 lid 1: dlid 2 -> port 1 (1 hop)",
            "Switch1 lid 1: dlid 3 -> port 3 (1 hop)",
            "Switch1 lid 1: dlid 4 -> port 3 (2 hops)",
            "Switch1 lid 1: dlid 5 -> port 2 (1 hop)",
            "Switch1 lid 1: dlid 6 -> port 5 (2 hops)",
            "Switch2 lid 3: dlid 1 -> port 3 (1 hop)",
            "Switch2 lid 3: dlid 2 -> port 3 (2 hops)",
            "Switch2 lid 3: dlid 3 -> port 0 (0 hops)",
            "Switch2 lid 3: dlid 4 -> port 1 (1 hop)",
            "Switch2 lid 3: dlid 5 -> port 5 (2 hops)",
            "Switch2 lid 3: dlid 6 -> port 2 (1 hop)",
            "routes: 6 destinations, max hops 2, ports balanced within 0",
            ""), out.toString());
    }

    @Test
    void theSmallestCaseOfTheOldOrderDifferingFromOpenSm()
    {
        // net.2sw2path: OpenSM routes Switch1's CA route (Hca2, LID 4) first, over port 3, so the route to Switch2's
        // own LID 3 (not counted) takes the less used port 5
        final Topology t = TopologyFixtures.sample("net.2sw2path");
        final Routes routes = MinHopRouting.route(t);
        assertEquals(5, routes.outPort(t.node("Switch1"), 3));
        assertEquals(3, routes.outPort(t.node("Switch1"), 4));
    }

    @ParameterizedTest
    @CsvSource({
        "net.2sw2path4hca, net.2sw2path4hca/minhop, 0, minhop",
        "fattree-dbl,      fattree-dbl/minhop-lmc1, 1, minhop",
        "ring6,            ring6/minhop,            0, minhop",
        "fattree-3,        fattree-3/updn,          0, updn",
        "mesh3x3,          mesh3x3/minhop-lmc1,     1, minhop",
        "mesh3x3,          mesh3x3/updn,            0, updn",
        "mesh3x3,          mesh3x3/updn-lmc1-root,  1, updn",
        "ring6,            ring6/updn-root,         0, updn",
        "fattree-dbl,      fattree-dbl/updn-lmc1,   1, updn",
        "net,              net/updn-lmc1,           1, updn",
        "fattree-3,        fattree-3/updn-lmc1-root, 1, updn",
        "chassis3,         chassis3/minhop-lmc1,    1, minhop",
        "chassis3,         chassis3/minhop-lmc2,    2, minhop",
        "irregular-1,      irregular-1/minhop, 0, minhop",
        "irregular-1,      irregular-1/minhop-lmc1, 1, minhop",
        "irregular-1,      irregular-1/minhop-lmc2, 2, minhop",
        "irregular-1,      irregular-1/updn-lmc1-root, 1, updn",
        "irregular-2,      irregular-2/minhop, 0, minhop",
        "irregular-2,      irregular-2/minhop-lmc1, 1, minhop",
        "irregular-2,      irregular-2/minhop-lmc2, 2, minhop",
        "irregular-2,      irregular-2/updn-lmc1-root, 1, updn",
        "irregular-3,      irregular-3/minhop, 0, minhop",
        "irregular-3,      irregular-3/minhop-lmc1, 1, minhop",
        "irregular-3,      irregular-3/minhop-lmc2, 2, minhop",
        "irregular-3,      irregular-3/updn-lmc1-root, 1, updn",
        "irregular-4,      irregular-4/minhop, 0, minhop",
        "irregular-4,      irregular-4/minhop-lmc1, 1, minhop",
        "irregular-4,      irregular-4/minhop-lmc2, 2, minhop",
        "irregular-4,      irregular-4/updn-lmc1-root, 1, updn"})
    void equalsOpenSmsDumpEntryForEntry(final String net, final String run, final int lmc, final String engine)
    {
        final Topology t = TopologyFixtures.sample(net, lmc);
        final Routes opensm = LftReader.parse(run, TopologyFixtures.opensm(run + "/opensm-lfts.dump"), t).orThrow();
        // a run given its up/down roots (OpenSM's -a) keeps them in a file beside its dump
        final long[] roots = run.endsWith("-root") ? TopologyFixtures.opensm(run + "/roots").lines()
            .mapToLong(g -> Long.parseUnsignedLong(g.substring(2), 16)).toArray() : new long[0];
        final Routes ours = engine.equals("updn") ? UpDownRouting.route(t, roots) : MinHopRouting.route(t);
        assertLidsAsOpenSmAssigned(t, TopologyFixtures.opensm(run + "/opensm-lfts.dump"), run);
        int entries = 0;
        for (final Topology.Node sw : t.switches())
        {
            for (int lid = 1; lid <= t.maxLid(); lid++)
            {
                assertEquals(opensm.outPort(sw, lid), ours.outPort(sw, lid), run + " " + sw + " lid " + lid);
                assertEquals(opensm.hops(sw, lid), ours.hops(sw, lid), run + " " + sw + " lid " + lid);
                entries += opensm.outPort(sw, lid) == Routes.NO_ROUTE ? 0 : 1;
            }
        }
        assertTrue(entries > 0);
    }

    /** Each row of OpenSM's dump names the port it routes to by GUID: that port holds the row's LID here too. */
    private static void assertLidsAsOpenSmAssigned(final Topology t, final String dump, final String run)
    {
        final Matcher row = Pattern.compile("(?m)^0x([0-9a-f]{4}) \\d{3} # .* portguid 0x([0-9a-f]{16}):").matcher(dump);
        int rows = 0;
        while (row.find())
        {
            final int lid = Integer.parseInt(row.group(1), 16);
            final long guid = Long.parseUnsignedLong(row.group(2), 16);
            final Topology.Node node = t.nodeOfLid(lid);
            assertEquals(guid, null == node ? 0 : node.portGuid(t.portOfLid(lid)), run + ": the port of LID " + lid);
            rows++;
        }
        assertTrue(rows > 0, run);
    }

    @Test
    void lmcOneSpreadsAHostsTwoLidsOverBothSpines()
    {
        final Topology t = TopologyFixtures.sample("fattree-dbl", 1);
        final Routes routes = MinHopRouting.route(t);
        int spread = 0;
        int hostsAway = 0;
        for (final Topology.Node leaf : t.switches())
        {
            if (!leaf.id().startsWith("Leaf"))
            {
                continue;
            }
            for (final Topology.Node host : t.nodes())
            {
                if (host.isSwitch() || host.link(1).remote() == leaf)
                {
                    continue;
                }
                hostsAway++;
                final int base = host.baseLid(1);
                spread += leaf.link(routes.outPort(leaf, base)).remote() !=
                    leaf.link(routes.outPort(leaf, base + 1)).remote() ? 1 : 0;
            }
        }
        assertEquals(36, hostsAway);
        assertEquals(36, spread, "every host's two LIDs leave each leaf towards different spines");
    }

    @ParameterizedTest
    @ValueSource(strings = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port"})
    void everySampleIsRoutedMinHopAndLoopFree(final String name)
    {
        assertRoutedProperly(TopologyFixtures.sample(name));
    }

    @Test
    void randomTopologiesAreRoutedMinHopLoopFreeReachingAndBalanced()
    {
        final Random random = new Random(20261123L);
        for (int round = 0; round < 300; round++)
        {
            assertRoutedProperly(randomTopology(random));
        }
    }

    @Test
    void aLidWithNoPathHasNoRoute()
    {
        final Topology t = TopologyFixtures.parse(
            "Switch 2 \"A\"\n[1] \"H\"[1]\n\nSwitch 2 \"B\"\n[1] \"G\"[1]\n\nHca 1 \"H\"\n[1] \"A\"[1]\n\nHca 1 \"G\"\n[1] \"B\"[1]\n")
            .orThrow();
        final Routes routes = MinHopRouting.route(t);
        assertEquals(Routes.NO_ROUTE, routes.outPort(t.node("A"), t.node("G").baseLid(1)));
        assertEquals(1, routes.outPort(t.node("A"), t.node("H").baseLid(1)));
        final StringBuilder out = new StringBuilder();
        routes.print(out);
        assertTrue(out.toString().contains("A lid 1: dlid " + t.node("G").baseLid(1) + " -> no route"), out.toString());
    }

    @Test
    void aCaPortCabledToACaOrToNothingHasNoRoute()
    {
        // C and D are cabled to each other only; E's port 2 has no cable: no switch reaches them (OpenSM would not
        // even find them; vlink gives them LIDs and no route)
        final Topology t = TopologyFixtures.parse("Switch 2 \"A\"\n[1] \"E\"[1]\n\nHca 2 \"E\"\n[1] \"A\"[1]\n\n" +
            "Hca 1 \"C\"\n[1] \"D\"[1]\n\nHca 1 \"D\"\n[1] \"C\"[1]\n").orThrow();
        for (final String engine : new String[]{"minhop", "updn"})
        {
            final Routes routes = engine.equals("updn") ? UpDownRouting.route(t) : MinHopRouting.route(t);
            assertEquals(Routes.NO_ROUTE, routes.outPort(t.node("A"), t.node("C").baseLid(1)), engine);
            assertEquals(Routes.NO_ROUTE, routes.outPort(t.node("A"), t.node("D").baseLid(1)), engine);
            assertEquals(1, routes.outPort(t.node("A"), t.node("E").baseLid(1)), engine);
            assertEquals(0, routes.outPort(t.node("A"), t.node("A").baseLid(0)), engine);
        }
    }

    static void assertRoutedProperly(final Topology t)
    {
        final Routes routes = MinHopRouting.route(t);
        for (final Topology.Node sw : t.switches())
        {
            final int[] distance = bfs(t, sw);
            for (final int lid : routes.destinations())
            {
                final Topology.Node dest = t.nodeOfLid(lid);
                final int expected = dest.isSwitch() ? distance[dest.index()] :
                    caDistance(t, distance, dest, t.portOfLid(lid));
                if (expected == Integer.MAX_VALUE)
                {
                    assertEquals(Routes.NO_ROUTE, routes.outPort(sw, lid));
                    continue;
                }
                assertEquals(expected, routes.hops(sw, lid), "min-hop " + sw + " -> " + lid);
                assertEquals(expected, routes.walk(sw, lid), "reaches, loop-free " + sw + " -> " + lid);
            }
        }
        assertTrue(routes.balance() <= 1, "balanced: " + routes.balance());
    }

    private static int caDistance(final Topology t, final int[] distance, final Topology.Node ca, final int port)
    {
        final Topology.Link link = ca.link(port);
        if (null == link || !link.remote().isSwitch() || distance[link.remote().index()] == Integer.MAX_VALUE)
        {
            return Integer.MAX_VALUE;
        }
        return distance[link.remote().index()] + 1;
    }

    /** Links between switches, breadth-first: the independent reference the routes are checked against. */
    private static int[] bfs(final Topology t, final Topology.Node from)
    {
        final int[] d = new int[t.nodes().size()];
        Arrays.fill(d, Integer.MAX_VALUE);
        d[from.index()] = 0;
        final ArrayDeque<Topology.Node> queue = new ArrayDeque<>();
        queue.add(from);
        while (!queue.isEmpty())
        {
            final Topology.Node at = queue.poll();
            for (final Topology.Link link : t.links())
            {
                for (final Topology.Link end : new Topology.Link[]{link, link.remote().link(link.remotePort())})
                {
                    if (end.node() == at && end.remote().isSwitch() && d[end.remote().index()] == Integer.MAX_VALUE)
                    {
                        d[end.remote().index()] = d[at.index()] + 1;
                        queue.add(end.remote());
                    }
                }
            }
        }
        return d;
    }

    /** Random switch graphs with parallel cables and CAs on random ports, written as a topology file. */
    static Topology randomTopology(final Random random)
    {
        final int switches = 1 + random.nextInt(6);
        final int ports = 8;
        final int cas = 1 + random.nextInt(8);
        final String[][] remote = new String[switches + cas][ports + 1];
        final int[][] remotePort = new int[switches + cas][ports + 1];
        final String[] name = new String[switches + cas];
        for (int i = 0; i < switches + cas; i++)
        {
            name[i] = (i < switches ? "S" : "H") + i;
        }
        final int cables = random.nextInt(switches * 3 + 1);
        for (int c = 0; c < cables; c++)
        {
            final int a = random.nextInt(switches);
            final int b = random.nextInt(switches);
            final int pa = 1 + random.nextInt(ports);
            final int pb = 1 + random.nextInt(ports);
            if (null == remote[a][pa] && null == remote[b][pb] && !(a == b))
            {
                remote[a][pa] = name[b];
                remotePort[a][pa] = pb;
                remote[b][pb] = name[a];
                remotePort[b][pb] = pa;
            }
        }
        for (int h = switches; h < switches + cas; h++)
        {
            for (int hp = 1; hp <= 2; hp++)
            {
                final int s = random.nextInt(switches);
                final int sp = 1 + random.nextInt(ports);
                if (null == remote[s][sp] && random.nextInt(3) > 0)
                {
                    remote[s][sp] = name[h];
                    remotePort[s][sp] = hp;
                    remote[h][hp] = name[s];
                    remotePort[h][hp] = sp;
                }
            }
        }
        final StringBuilder text = new StringBuilder();
        for (int i = 0; i < switches + cas; i++)
        {
            text.append(i < switches ? "Switch " + ports : "Hca 2").append(" \"").append(name[i]).append("\"\n");
            for (int p = 1; p <= (i < switches ? ports : 2); p++)
            {
                if (null != remote[i][p])
                {
                    text.append('[').append(p).append("] \"").append(remote[i][p]).append("\"[")
                        .append(remotePort[i][p]).append("]\n");
                }
            }
            text.append('\n');
        }
        return TopologyReader.parse("random", text.toString(), LineRate.EDR_4X).orThrow();
    }

    /** A tiny unordered pair, for readable assertions. */
    record Set2(int low, int high)
    {
        static Set2 of(final int a, final int b)
        {
            return new Set2(Math.min(a, b), Math.max(a, b));
        }
    }
}
