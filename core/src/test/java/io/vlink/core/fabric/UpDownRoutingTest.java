package io.vlink.core.fabric;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The roots up/down routing uses: found as OpenSM's updn_find_root_nodes_by_min_hop finds them, or given (OpenSM's
 * {@code -a} root GUID file); without any, up/down is min-hop, as OpenSM falls back. The tables themselves are
 * compared with OpenSM's dumps entry for entry in {@link MinHopRoutingTest}.
 */
class UpDownRoutingTest
{
    @Test
    void theCoresOfAFatTreeAreFoundAsRoots()
    {
        // fattree-3: Core1 and Core2 are the first two switches of the net file, GUIDs 0x200000 and 0x200001
        assertArrayEquals(new long[]{0x200000, 0x200001}, UpDownRouting.rootsOf(TopologyFixtures.sample("fattree-3")));
        assertArrayEquals(new long[]{0x200000, 0x200001},
            UpDownRouting.rootsOf(TopologyFixtures.sample("fattree-dbl", 1)), "the spines, whatever the LMC");
    }

    @Test
    void aRingOrAMeshHasNoRootAndUpDownIsMinHopThere()
    {
        for (final String net : new String[]{"ring6", "mesh3x3"})
        {
            final Topology t = TopologyFixtures.sample(net);
            assertArrayEquals(new long[0], UpDownRouting.rootsOf(t), net);
            assertSameTables(t, MinHopRouting.route(t), UpDownRouting.route(t), net);
        }
    }

    @Test
    void givenRootsAreTakenAsGivenAndUnknownOnesAreNone()
    {
        final Topology ring = TopologyFixtures.sample("ring6");
        assertArrayEquals(new long[]{0x200003}, UpDownRouting.rootsOf(ring, 0x200003));
        assertArrayEquals(new long[]{0x200001, 0x200004}, UpDownRouting.rootsOf(ring, 0x200004, 0x100001, 0x200001),
            "in switch order, a CA's GUID is no root");
        assertArrayEquals(new long[0], UpDownRouting.rootsOf(ring, 0x999));
        assertSameTables(ring, MinHopRouting.route(ring), UpDownRouting.route(ring, 0x999), "no root: min-hop");
        // a given root overrides those found: the fat tree routed up/down from an edge switch is no longer min-hop
        final Topology tree = TopologyFixtures.sample("fattree-3");
        final long edge1 = 0x200006;
        assertArrayEquals(new long[]{edge1}, UpDownRouting.rootsOf(tree, edge1));
        final Routes fromEdge = UpDownRouting.route(tree, edge1);
        final Routes fromCores = UpDownRouting.route(tree);
        int differ = 0;
        for (final Topology.Node sw : tree.switches())
        {
            for (int lid = 1; lid <= tree.maxLid(); lid++)
            {
                differ += fromEdge.outPort(sw, lid) == fromCores.outPort(sw, lid) ? 0 : 1;
            }
        }
        assertTrue(differ > 0, "routes from Edge1 differ from the cores'");
    }

    @Test
    void rootsAreListedInOpenSmsSwitchOrderTheByteSwappedGuids()
    {
        // file order 0x2, 0x100; by value 0x2 first; OpenSM's map compares the GUIDs' network-order bytes read
        // little-endian: 0x100 (0x0001000000000000) before 0x2 (0x0200000000000000)
        final Topology t = TopologyFixtures.parse("switchguid=0x2\nSwitch 2 \"A\"\n[1] \"B\"[1]\n\n" +
            "switchguid=0x100\nSwitch 2 \"B\"\n[1] \"A\"[1]\n").orThrow();
        assertArrayEquals(new long[]{0x100, 0x2}, UpDownRouting.rootsOf(t, 0x2, 0x100));
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
}
