package io.vlink.core.fabric;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * OpenSM's {@code updn} routing engine (OpenSM 3.3.23, default options), entry for entry. Switches are ranked by
 * their distance from the root switches; a route may go up (towards a lower rank; between equal ranks, towards the
 * lower GUID) and then down, never down and then up again, so no credit loop can form. The hop tables are filled by
 * OpenSM's breadth-first walk from every switch in its order, which obeys that rule; the forwarding tables are then
 * built as {@link MinHopRouting}'s ({@link LftBuilder}) on those hop counts. A destination no legal path reaches has
 * {@link Routes#NO_ROUTE}.
 * <p>
 * Roots: the switches given (OpenSM's {@code root_guid_file}), or found as OpenSM finds them: a switch from which more
 * than 90 % of the channel adapters are at one distance and no more than 5 % at any other. With no root OpenSM
 * disables up/down and routes with {@code minhop}; so does this class ({@link #rootsOf(Topology, long[])} tells).
 */
public final class UpDownRouting
{
    private static final int UP = 0;
    private static final int DOWN = 1;
    private static final int UNRANKED = Integer.MAX_VALUE;

    private UpDownRouting()
    {
    }

    /**
     * @param topology the fabric.
     * @param roots    the root switches' node GUIDs, or none to find them as OpenSM does.
     * @return every switch's forwarding table: up/down, or min-hop when there is no root.
     */
    public static Routes route(final Topology topology, final long... roots)
    {
        final SwitchGraph graph = new SwitchGraph(topology);
        final int[] rank = rank(graph, rootIndexes(graph, roots));
        if (null == rank)
        {
            graph.minHop();
            return new LftBuilder(graph).build();
        }
        graph.clear();
        for (int s = 0; s < graph.switches.length; s++)
        {
            walk(graph, rank, s);
        }
        return new LftBuilder(graph).build();
    }

    /**
     * @param topology the fabric.
     * @param roots    the root switches' node GUIDs, or none to find them as OpenSM does.
     * @return the roots routing uses (node GUIDs, in OpenSM's switch order); empty when up/down falls back to min-hop.
     */
    public static long[] rootsOf(final Topology topology, final long... roots)
    {
        final SwitchGraph graph = new SwitchGraph(topology);
        final boolean[] root = rootIndexes(graph, roots);
        final List<Long> guids = new ArrayList<>();
        for (int s = 0; s < graph.switches.length; s++)
        {
            if (root[s])
            {
                guids.add(graph.switches[s].guid());
            }
        }
        return guids.stream().mapToLong(Long::longValue).toArray();
    }

    private static boolean[] rootIndexes(final SwitchGraph graph, final long[] roots)
    {
        final boolean[] root = new boolean[graph.switches.length];
        if (roots.length > 0)
        {
            for (int s = 0; s < graph.switches.length; s++)
            {
                for (final long guid : roots)
                {
                    root[s] |= graph.switches[s].guid() == guid;
                }
            }
            return root;
        }
        // OpenSM's updn_find_root_nodes_by_min_hop: a histogram of the CAs' distances from each switch
        graph.minHop();
        final Topology topology = graph.topology;
        final int[] casOn = new int[graph.switches.length];
        int cas = 0;
        for (final Topology.Node node : topology.nodes())
        {
            if (node.isSwitch())
            {
                continue;
            }
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link link = node.link(p);
                if (null != link && link.remote().isSwitch() && node.baseLid(p) != 0)
                {
                    casOn[graph.switchIndex[link.remote().index()]]++;
                    cas++;
                }
            }
        }
        final double thd1 = cas * 0.9;
        final double thd2 = cas * 0.05;
        for (int s = 0; s < graph.switches.length; s++)
        {
            final int[] histogram = new int[64];
            for (int t = 0; t < graph.switches.length; t++)
            {
                final int hops = graph.least(s, t);
                if (casOn[t] > 0 && hops < histogram.length)
                {
                    histogram[hops] += casOn[t];
                }
            }
            int over1 = 0;
            int over2 = 0;
            for (final int bar : histogram)
            {
                over1 += bar > thd1 ? 1 : 0;
                over2 += bar > thd2 ? 1 : 0;
            }
            root[s] = over1 == 1 && over2 == 1;
        }
        return root;
    }

    /** OpenSM's updn_subn_rank: breadth-first from the roots; null when there is no root. */
    private static int[] rank(final SwitchGraph graph, final boolean[] root)
    {
        final int[] rank = new int[graph.switches.length];
        Arrays.fill(rank, UNRANKED);
        final ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int s = 0; s < graph.switches.length; s++)
        {
            if (root[s])
            {
                rank[s] = 0;
                queue.add(s);
            }
        }
        if (queue.isEmpty())
        {
            return null;
        }
        while (!queue.isEmpty())
        {
            final int u = queue.poll();
            for (int p = 1; p <= graph.switches[u].portCount(); p++)
            {
                final Topology.Link link = graph.switches[u].link(p);
                if (null == link || !link.remote().isSwitch())
                {
                    continue;
                }
                final int r = graph.switchIndex[link.remote().index()];
                if (rank[r] == UNRANKED || rank[r] > rank[u] + 1)
                {
                    rank[r] = rank[u] + 1;
                    queue.add(r);
                }
            }
        }
        return rank;
    }

    /** OpenSM's updn_get_dir. */
    private static int direction(final int[] rank, final SwitchGraph graph, final int from, final int to)
    {
        final int a = rank[from];
        final int b = rank[to];
        if (a == 0 && b == 0)
        {
            return UP;
        }
        if (a != b)
        {
            return Integer.compareUnsigned(a, b) < 0 ? DOWN : UP;
        }
        return Long.compareUnsigned(graph.switches[from].guid(), graph.switches[to].guid()) > 0 ? UP : DOWN;
    }

    /** OpenSM's updn_bfs_by_node: the hop counts towards switch s's LID, legal up/down moves only. */
    private static void walk(final SwitchGraph graph, final int[] rank, final int s)
    {
        graph.set(s, s, 0, 0);
        final int[] dir = new int[graph.switches.length];
        final boolean[] visited = new boolean[graph.switches.length];
        final ArrayDeque<Integer> queue = new ArrayDeque<>();
        dir[s] = UP;
        queue.add(s);
        while (!queue.isEmpty())
        {
            final int u = queue.poll();
            visited[u] = false;
            final Topology.Node node = graph.switches[u];
            for (int p = 1; p <= node.portCount(); p++)
            {
                final Topology.Link link = node.link(p);
                if (null == link || !link.remote().isSwitch())
                {
                    continue;
                }
                final int r = graph.switchIndex[link.remote().index()];
                final int next = direction(rank, graph, u, r);
                if (dir[u] == DOWN && next == UP)
                {
                    continue;
                }
                final int current = graph.least(u, s);
                if (current + 1 < graph.hops(r, s, link.remotePort()))
                {
                    graph.set(r, s, link.remotePort(), current + 1);
                    if (!visited[r])
                    {
                        dir[r] = next;
                        visited[r] = true;
                        queue.add(r);
                    }
                }
            }
        }
    }
}
