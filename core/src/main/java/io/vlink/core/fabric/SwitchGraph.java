package io.vlink.core.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The switches of a topology in the order OpenSM keeps them, and each switch's hop table: for every target switch and
 * every port, the switch-to-switch links from this switch through that port to the target ({@link #NO_PATH} when the
 * port does not lead there). OpenSM's routing engines fill the table ({@link MinHopRouting} with plain breadth-first
 * distances, {@link UpDownRouting} with up/down-legal ones) and {@link LftBuilder} turns it into forwarding tables.
 * <p>
 * OpenSM keeps its switches in a map keyed by the node GUID in network byte order and walks it in key order; on a
 * little-endian machine that is the order of the byte-swapped GUIDs ({@link #openSmOrder(long, long)}).
 */
final class SwitchGraph
{
    /** A hop count of a port that does not lead to the target (OpenSM's {@code OSM_NO_PATH}). */
    static final int NO_PATH = 0xFF;

    final Topology topology;
    /** The switches, in OpenSM's order. */
    final Topology.Node[] switches;
    /** Index in {@link #switches} by node index; -1 for a node that is not a switch. */
    final int[] switchIndex;
    /** hops[switch][target switch][port]; port 0 holds the least over the ports (0 for the switch itself). */
    final int[][][] hops;

    SwitchGraph(final Topology topology)
    {
        this.topology = topology;
        final List<Topology.Node> list = new ArrayList<>(topology.switches());
        list.sort(Comparator.comparing(Topology.Node::guid, SwitchGraph::openSmOrder));
        this.switches = list.toArray(new Topology.Node[0]);
        this.switchIndex = new int[topology.nodes().size()];
        Arrays.fill(switchIndex, -1);
        for (int i = 0; i < switches.length; i++)
        {
            switchIndex[switches[i].index()] = i;
        }
        this.hops = new int[switches.length][switches.length][];
        clear();
    }

    /**
     * @param a a GUID.
     * @param b another.
     * @return their order in OpenSM's GUID-keyed maps: the GUIDs as a little-endian machine reads their network-order
     * bytes, compared unsigned.
     */
    static int openSmOrder(final long a, final long b)
    {
        return Long.compareUnsigned(Long.reverseBytes(a), Long.reverseBytes(b));
    }

    void clear()
    {
        for (int s = 0; s < switches.length; s++)
        {
            for (int t = 0; t < switches.length; t++)
            {
                hops[s][t] = new int[switches[s].portCount() + 1];
                Arrays.fill(hops[s][t], NO_PATH);
            }
        }
    }

    /** OpenSM's {@code osm_switch_set_hops}: a port's count, and the least kept in port 0. */
    void set(final int sw, final int target, final int port, final int count)
    {
        final int[] h = hops[sw][target];
        h[port] = count;
        if (h[0] > count)
        {
            h[0] = count;
        }
    }

    int least(final int sw, final int target)
    {
        return hops[sw][target][0];
    }

    int hops(final int sw, final int target, final int port)
    {
        return hops[sw][target][port];
    }

    /**
     * @param sw   a switch (index in {@link #switches}).
     * @param port one of its ports 1..N.
     * @return the switch at the far end of the port's cable (index), or -1 when the port has no cable, leads to a node
     * that is not a switch, or loops back to the same switch.
     */
    int neighbour(final int sw, final int port)
    {
        final Topology.Link link = switches[sw].link(port);
        if (null == link || !link.remote().isSwitch() || link.remote() == switches[sw])
        {
            return -1;
        }
        return switchIndex[link.remote().index()];
    }

    /**
     * OpenSM's min-hop lid matrices ({@code osm_ucast_mgr_build_lid_matrices}): every port towards every switch, by
     * its neighbour's least count plus one, relaxed until nothing changes; the result is the breadth-first distance.
     */
    void minHop()
    {
        clear();
        for (int s = 0; s < switches.length; s++)
        {
            set(s, s, 0, 0);
        }
        boolean changed = true;
        while (changed)
        {
            changed = false;
            for (int s = 0; s < switches.length; s++)
            {
                for (int p = 1; p <= switches[s].portCount(); p++)
                {
                    final int n = neighbour(s, p);
                    if (n < 0)
                    {
                        continue;
                    }
                    for (int t = 0; t < switches.length; t++)
                    {
                        final int via = least(n, t);
                        if (via != NO_PATH && via + 1 < hops(s, t, p))
                        {
                            set(s, t, p, via + 1);
                            changed = true;
                        }
                    }
                }
            }
        }
    }
}
