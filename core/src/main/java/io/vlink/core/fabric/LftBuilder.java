package io.vlink.core.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * OpenSM's unicast manager ({@code ucast_mgr_build_lfts}, {@code osm_switch_recommend_path}, OpenSM 3.3.23 with its
 * default options): turns a {@link SwitchGraph}'s hop tables into every switch's forwarding table, entry for entry as
 * OpenSM does.
 * <ul>
 *     <li>Destinations are visited in OpenSM's port order: the switches sorted by how many channel-adapter (or router)
 *     ports hang off them, most first (a stable sort of OpenSM's switch order), each contributing those ports in port
 *     order; then every other port (the switches' own, CA ports not on a switch) in OpenSM's port order. With LMC
 *     above 0, that whole list is walked once per LID offset: every port's base LID, then every port's second LID,
 *     and so on.</li>
 *     <li>A LID of the switch itself goes to port 0; a CA port cabled to this switch goes out of that cable.</li>
 *     <li>Otherwise, among the ports with the least hops to the destination's switch, the one that already carries
 *     the fewest routes to CA (and router) ports, the first in the search order on a tie. The search starts at port 1;
 *     for a port's second and later LIDs it starts after the port the previous LID took.</li>
 *     <li>With LMC above 0, a port whose neighbour (by system GUID, then node GUID) no earlier LID of the same
 *     destination port went through wins over the rest; among ports whose neighbours were all used, the fewest routes
 *     and then the neighbour used least by that destination's LIDs.</li>
 *     <li>Routes to switch LIDs are not counted.</li>
 * </ul>
 */
final class LftBuilder
{
    private final SwitchGraph graph;
    private final Topology topology;
    /** The destination ports in OpenSM's order: {node index, port}. */
    private final List<int[]> order;
    /** Whether any port has more than one LID: OpenSM's {@code lmc > 0} routing. */
    private final int lidsPerPort;

    LftBuilder(final SwitchGraph graph)
    {
        this.graph = graph;
        this.topology = graph.topology;
        this.order = portOrder();
        int maxLmc = 0;
        for (final int[] dest : order)
        {
            maxLmc = Math.max(maxLmc, topology.nodes().get(dest[0]).lmc(dest[1]));
        }
        this.lidsPerPort = 1 << maxLmc;
    }

    /** The neighbour a destination's earlier LIDs went through, and how often ({@code struct osm_remote_node}). */
    private static final class Used
    {
        final Topology.Node node;
        int forwardedTo;

        Used(final Topology.Node node)
        {
            this.node = node;
        }
    }

    Routes build()
    {
        final Routes routes = Routes.empty(topology);
        for (int s = 0; s < graph.switches.length; s++)
        {
            table(routes, s);
        }
        // hop counts of the routes as built: the links a packet crosses
        for (final Topology.Node sw : graph.switches)
        {
            for (final int lid : routes.destinations())
            {
                final int port = routes.outPort(sw, lid);
                if (port != Routes.NO_ROUTE)
                {
                    routes.set(sw, lid, port, routes.walk(sw, lid));
                }
            }
        }
        return routes;
    }

    private void table(final Routes routes, final int s)
    {
        final Topology.Node sw = graph.switches[s];
        final int ports = sw.portCount() + 1;
        final int[] paths = new int[ports];
        final int[] lft = new int[topology.maxLid() + 1];
        Arrays.fill(lft, SwitchGraph.NO_PATH);
        final List<List<Used>> used = new ArrayList<>(order.size());
        for (int i = 0; i < order.size(); i++)
        {
            used.add(new ArrayList<>(2));
        }
        for (int offset = 0; offset < lidsPerPort; offset++)
        {
            for (int d = 0; d < order.size(); d++)
            {
                final Topology.Node dest = topology.nodes().get(order.get(d)[0]);
                final int destPort = order.get(d)[1];
                final int base = dest.baseLid(destPort);
                final int lid = base + offset;
                if (base == 0 || lid > base + (1 << dest.lmc(destPort)) - 1)
                {
                    continue;
                }
                final int startFrom = offset == 0 ? 1 : lft[lid - 1] + 1;
                final int port = recommend(s, dest, destPort, startFrom, paths, used.get(d));
                lft[lid] = port;
                if (port == SwitchGraph.NO_PATH)
                {
                    continue;
                }
                routes.set(sw, lid, port, 0);
                if (!dest.isSwitch())
                {
                    paths[port]++;
                    if (port > 0)
                    {
                        forwarded(sw.link(port).remote(), used.get(d));
                    }
                }
            }
        }
    }

    private static void forwarded(final Topology.Node neighbour, final List<Used> used)
    {
        for (final Used u : used)
        {
            if (u.node == neighbour)
            {
                u.forwardedTo++;
                return;
            }
        }
        final Used u = new Used(neighbour);
        u.forwardedTo = 1;
        used.add(u);
    }

    /** {@code osm_switch_recommend_path} without dimension ordering, port shifting or scattering. */
    private int recommend(
        final int s, final Topology.Node dest, final int destPort, final int startFrom, final int[] paths,
        final List<Used> used)
    {
        final Topology.Node sw = graph.switches[s];
        final int target;
        if (dest.isSwitch())
        {
            if (dest == sw)
            {
                return 0;
            }
            target = graph.switchIndex[dest.index()];
        }
        else
        {
            final Topology.Link link = dest.link(destPort);
            if (null == link || !link.remote().isSwitch())
            {
                return SwitchGraph.NO_PATH;
            }
            if (link.remote() == sw)
            {
                return link.remotePort();
            }
            target = graph.switchIndex[link.remote().index()];
        }
        final int leastHops = graph.least(s, target);
        if (leastHops == SwitchGraph.NO_PATH)
        {
            return SwitchGraph.NO_PATH;
        }
        final boolean forLmc = lidsPerPort > 1;
        final int ports = sw.portCount() + 1;
        long leastPaths = 0xFFFFFFFFL;
        long leastPathsOtherSys = 0xFFFFFFFFL;
        long leastPathsOtherNodes = 0xFFFFFFFFL;
        long leastForwardedTo = 0xFFFFFFFFL;
        int best = 0;
        int bestOtherSys = 0;
        int bestOtherNode = 0;
        boolean found = false;
        for (int i = startFrom; i < startFrom + ports; i++)
        {
            final int port = i % ports;
            if (port == 0 || graph.hops(s, target, port) != leastHops || null == sw.link(port))
            {
                continue;
            }
            final int count = paths[port];
            Used remote = null;
            if (forLmc)
            {
                final Topology.Node neighbour = sw.link(port).remote();
                if (null == find(used, neighbour, true))
                {
                    if (count < leastPathsOtherSys)
                    {
                        leastPathsOtherSys = count;
                        bestOtherSys = port;
                        leastForwardedTo = 0;
                    }
                }
                else
                {
                    remote = find(used, neighbour, false);
                    if (null == remote && count < leastPathsOtherNodes)
                    {
                        leastPathsOtherNodes = count;
                        bestOtherNode = port;
                        leastForwardedTo = 0;
                    }
                }
            }
            if (count < leastPaths)
            {
                found = true;
                best = port;
                leastPaths = count;
                if (forLmc && null != remote && remote.forwardedTo < leastForwardedTo)
                {
                    leastForwardedTo = remote.forwardedTo;
                }
            }
            else if (forLmc && null != remote && count == leastPaths && remote.forwardedTo < leastForwardedTo)
            {
                leastForwardedTo = remote.forwardedTo;
                best = port;
            }
        }
        if (!found)
        {
            return SwitchGraph.NO_PATH;
        }
        if (forLmc && best != 0)
        {
            if (bestOtherSys != 0)
            {
                best = bestOtherSys;
            }
            else if (bestOtherNode != 0)
            {
                best = bestOtherNode;
            }
        }
        return best;
    }

    private static Used find(final List<Used> used, final Topology.Node neighbour, final boolean bySystem)
    {
        for (final Used u : used)
        {
            if (bySystem ? u.node.systemGuid() == neighbour.systemGuid() : u.node.guid() == neighbour.guid())
            {
                return u;
            }
        }
        return null;
    }

    /** OpenSM's port order list ({@code sort_ports_by_switch_load}, then the rest of the port table). */
    private List<int[]> portOrder()
    {
        final Topology.Node[] switches = graph.switches.clone();
        final int[] endports = new int[topology.nodes().size()];
        for (final Topology.Node sw : switches)
        {
            for (int p = 1; p <= sw.portCount(); p++)
            {
                final Topology.Link link = sw.link(p);
                endports[sw.index()] += null != link && !link.remote().isSwitch() ? 1 : 0;
            }
        }
        Arrays.sort(switches, Comparator.comparingInt((Topology.Node sw) -> -endports[sw.index()]));
        final List<int[]> list = new ArrayList<>();
        final boolean[][] listed = new boolean[topology.nodes().size()][];
        for (final Topology.Node node : topology.nodes())
        {
            listed[node.index()] = new boolean[node.portCount() + 1];
        }
        for (final Topology.Node sw : switches)
        {
            for (int p = 1; p <= sw.portCount(); p++)
            {
                final Topology.Link link = sw.link(p);
                if (null != link && !link.remote().isSwitch() && link.remote().baseLid(link.remotePort()) != 0)
                {
                    list.add(new int[]{link.remote().index(), link.remotePort()});
                    listed[link.remote().index()][link.remotePort()] = true;
                }
            }
        }
        final List<int[]> rest = new ArrayList<>();
        for (final Topology.Node node : topology.nodes())
        {
            for (int p = node.isSwitch() ? 0 : 1; p <= (node.isSwitch() ? 0 : node.portCount()); p++)
            {
                if (node.baseLid(p) != 0 && !listed[node.index()][p])
                {
                    rest.add(new int[]{node.index(), p});
                }
            }
        }
        rest.sort((a, b) -> SwitchGraph.openSmOrder(
            topology.nodes().get(a[0]).portGuid(a[1]), topology.nodes().get(b[0]).portGuid(b[1])));
        list.addAll(rest);
        return list;
    }
}
