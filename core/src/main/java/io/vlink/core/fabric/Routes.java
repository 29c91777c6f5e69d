package io.vlink.core.fabric;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Every switch's linear forwarding table (LFT): for each destination LID, the output port (0 for the switch's own
 * LID) and the number of links a packet crosses from this switch to its destination. Built by {@link MinHopRouting}
 * or read from a subnet manager's dump ({@link LftReader}); immutable once built. Lookups are array reads.
 */
public final class Routes
{
    /** The output port of a LID with no route. */
    public static final int NO_ROUTE = -1;

    private final Topology topology;
    private final int[][] port;
    private final int[][] hops;

    Routes(final Topology topology, final int[][] port, final int[][] hops)
    {
        this.topology = topology;
        this.port = port;
        this.hops = hops;
    }

    static Routes empty(final Topology topology)
    {
        final int nodes = topology.nodes().size();
        final int[][] port = new int[nodes][];
        final int[][] hops = new int[nodes][];
        for (final Topology.Node node : topology.nodes())
        {
            if (node.isSwitch())
            {
                port[node.index()] = new int[topology.maxLid() + 1];
                hops[node.index()] = new int[topology.maxLid() + 1];
                Arrays.fill(port[node.index()], NO_ROUTE);
                Arrays.fill(hops[node.index()], NO_ROUTE);
            }
        }
        return new Routes(topology, port, hops);
    }

    void set(final Topology.Node sw, final int lid, final int outPort, final int hopCount)
    {
        port[sw.index()][lid] = outPort;
        hops[sw.index()][lid] = hopCount;
    }

    public Topology topology()
    {
        return topology;
    }

    /**
     * @param sw  a switch of the topology.
     * @param lid a destination LID.
     * @return its output port, or {@link #NO_ROUTE}.
     */
    public int outPort(final Topology.Node sw, final int lid)
    {
        final int[] lft = port[sw.index()];
        return lid >= 0 && lid < lft.length ? lft[lid] : NO_ROUTE;
    }

    /**
     * @param sw a switch of the topology.
     * @return a copy of its linear forwarding table: the output port per LID (index) from 0 to the topology's
     * highest LID, {@link #NO_ROUTE} where there is none. What the switch engine looks up per packet.
     */
    public int[] lft(final Topology.Node sw)
    {
        return port[sw.index()].clone();
    }

    /**
     * @param sw  a switch of the topology.
     * @param lid a destination LID with a route.
     * @return links from this switch to the destination (0 for its own LID), or {@link #NO_ROUTE}.
     */
    public int hops(final Topology.Node sw, final int lid)
    {
        final int[] h = hops[sw.index()];
        return lid >= 0 && lid < h.length ? h[lid] : NO_ROUTE;
    }

    /**
     * @return every LID some port answers to, ascending.
     */
    public int[] destinations()
    {
        final List<Integer> lids = new ArrayList<>();
        for (int lid = 1; lid <= topology.maxLid(); lid++)
        {
            if (null != topology.nodeOfLid(lid))
            {
                lids.add(lid);
            }
        }
        return lids.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * @return the most links any route crosses.
     */
    public int maxHops()
    {
        int max = 0;
        for (final int[] h : hops)
        {
            if (null != h)
            {
                for (final int value : h)
                {
                    max = Math.max(max, value);
                }
            }
        }
        return max;
    }

    /**
     * How evenly routes spread over parallel cables: for each switch and each neighbour it has several cables to,
     * the difference between the most and the fewest channel-adapter (and router) destinations routed over one of
     * those cables. Routes to switch LIDs are not counted.
     *
     * @return the largest such difference over the fabric (0 when there are no parallel cables).
     */
    public int balance()
    {
        int worst = 0;
        for (final Topology.Node sw : topology.nodes())
        {
            if (!sw.isSwitch())
            {
                continue;
            }
            final int[] count = new int[sw.portCount() + 1];
            for (int lid = 1; lid <= topology.maxLid(); lid++)
            {
                final Topology.Node dest = topology.nodeOfLid(lid);
                final int out = outPort(sw, lid);
                if (null != dest && !dest.isSwitch() && out > 0)
                {
                    count[out]++;
                }
            }
            for (int p = 1; p <= sw.portCount(); p++)
            {
                final Topology.Link a = sw.link(p);
                if (null == a)
                {
                    continue;
                }
                for (int q = p + 1; q <= sw.portCount(); q++)
                {
                    final Topology.Link b = sw.link(q);
                    if (null != b && b.remote() == a.remote())
                    {
                        worst = Math.max(worst, Math.abs(count[p] - count[q]));
                    }
                }
            }
        }
        return worst;
    }

    /**
     * Follow the tables from a switch to a LID.
     *
     * @param from a switch.
     * @param lid  a destination LID.
     * @return the links crossed, or {@link #NO_ROUTE} when a table on the way has no route, a packet would leave the
     * fabric at a node that is not its destination, or it would loop.
     */
    public int walk(final Topology.Node from, final int lid)
    {
        final Topology.Node dest = topology.nodeOfLid(lid);
        if (null == dest)
        {
            return NO_ROUTE;
        }
        Topology.Node at = from;
        int links = 0;
        for (int step = 0; step <= topology.nodes().size(); step++)
        {
            if (at == dest)
            {
                return links;
            }
            if (!at.isSwitch())
            {
                return NO_ROUTE;
            }
            final int out = outPort(at, lid);
            if (out == 0 || out == NO_ROUTE)
            {
                return NO_ROUTE;
            }
            final Topology.Link link = at.link(out);
            if (null == link)
            {
                return NO_ROUTE;
            }
            at = link.remote();
            links++;
        }
        return NO_ROUTE;
    }

    /**
     * The routes as {@code vlink fabric routes} prints them: one line per switch and destination LID
     * ({@code SWITCH_ID lid L: dlid D -> port P (HOPS hops)}), switches in file order, LIDs ascending, then a summary
     * line {@code routes: N destinations, max hops H, ports balanced within B}.
     *
     * @param out where the lines go.
     */
    public void print(final StringBuilder out)
    {
        final int[] destinations = destinations();
        for (final Topology.Node sw : topology.switches())
        {
            for (final int lid : destinations)
            {
                final int p = outPort(sw, lid);
                out.append(sw.id()).append(" lid ").append(sw.baseLid(0)).append(": dlid ").append(lid).append(" -> ");
                if (p == NO_ROUTE)
                {
                    out.append("no route\n");
                }
                else
                {
                    final int h = hops(sw, lid);
                    out.append("port ").append(p).append(" (").append(h).append(h == 1 ? " hop)\n" : " hops)\n");
                }
            }
        }
        out.append("routes: ").append(destinations.length).append(" destinations, max hops ").append(maxHops())
            .append(", ports balanced within ").append(balance()).append('\n');
    }
}
