package io.vlink.core.fabric;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;

/**
 * Min-hop unicast routing in the spirit of OpenSM's default {@code minhop} engine, made deterministic:
 * <ul>
 *     <li>for every switch and every destination LID, the output port is one with the fewest links to the
 *     destination;</li>
 *     <li>among equal ports, the one already chosen for the fewest channel-adapter (or router) destinations of this
 *     switch (destinations are visited in ascending LID order; routes to switch LIDs are not counted), then the lowest
 *     port number;</li>
 *     <li>a switch's own LID forwards to port 0.</li>
 * </ul>
 * Every route it makes is min-hop and therefore loop-free; a LID no path reaches has {@link Routes#NO_ROUTE}.
 */
public final class MinHopRouting
{
    private static final int UNREACHED = Integer.MAX_VALUE;

    private MinHopRouting()
    {
    }

    /**
     * @param topology the fabric.
     * @return every switch's forwarding table.
     */
    public static Routes route(final Topology topology)
    {
        final Routes routes = Routes.empty(topology);
        final List<Topology.Node> nodes = topology.nodes();
        final int[] destinations = routes.destinations();
        // distance[lid][node]: links from node to the port answering lid, through switches only
        final int[][] distance = new int[topology.maxLid() + 1][];
        for (final int lid : destinations)
        {
            distance[lid] = distances(topology, lid);
        }
        for (final Topology.Node sw : nodes)
        {
            if (!sw.isSwitch())
            {
                continue;
            }
            final int[] routed = new int[sw.portCount() + 1];
            for (final int lid : destinations)
            {
                final Topology.Node dest = topology.nodeOfLid(lid);
                if (dest == sw)
                {
                    routes.set(sw, lid, 0, 0);
                    continue;
                }
                final int[] d = distance[lid];
                if (d[sw.index()] == UNREACHED)
                {
                    continue;
                }
                int best = Routes.NO_ROUTE;
                for (int p = 1; p <= sw.portCount(); p++)
                {
                    final Topology.Link link = sw.link(p);
                    if (null == link || !leadsTo(topology, link, lid, d, d[sw.index()]))
                    {
                        continue;
                    }
                    if (best == Routes.NO_ROUTE || routed[p] < routed[best])
                    {
                        best = p;
                    }
                }
                routes.set(sw, lid, best, d[sw.index()]);
                if (!dest.isSwitch())
                {
                    routed[best]++;
                }
            }
        }
        return routes;
    }

    /** A port is on a shortest path if its far end is the destination port, or a switch one link closer. */
    private static boolean leadsTo(
        final Topology topology, final Topology.Link link, final int lid, final int[] d, final int hops)
    {
        final Topology.Node remote = link.remote();
        if (remote == topology.nodeOfLid(lid))
        {
            return remote.isSwitch() || link.remotePort() == topology.portOfLid(lid);
        }
        return remote.isSwitch() && d[remote.index()] == hops - 1;
    }

    /** Breadth-first from the destination port back through switches. */
    private static int[] distances(final Topology topology, final int lid)
    {
        final int[] d = new int[topology.nodes().size()];
        Arrays.fill(d, UNREACHED);
        final Topology.Node dest = topology.nodeOfLid(lid);
        final ArrayDeque<Topology.Node> queue = new ArrayDeque<>();
        d[dest.index()] = 0;
        if (dest.isSwitch())
        {
            queue.add(dest);
        }
        else
        {
            // a CA or router port is reached only through its own cable
            final Topology.Link link = dest.link(topology.portOfLid(lid));
            if (null != link && link.remote().isSwitch())
            {
                d[link.remote().index()] = 1;
                queue.add(link.remote());
            }
        }
        while (!queue.isEmpty())
        {
            final Topology.Node at = queue.poll();
            for (int p = 1; p <= at.portCount(); p++)
            {
                final Topology.Link link = at.link(p);
                if (null != link && link.remote().isSwitch() && d[link.remote().index()] == UNREACHED)
                {
                    d[link.remote().index()] = d[at.index()] + 1;
                    queue.add(link.remote());
                }
            }
        }
        return d;
    }
}
