package io.vlink.tools.opensm;

import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whether forwarding tables can deadlock a fabric on one VL: the channel dependency graph (a link a packet holds,
 * waiting for the next link of its path) of every route from a channel adapter port to another's LIDs has no cycle
 * (Dally and Seitz). The fabric soak runs only where this holds, since elsewhere a credit loop is what a soak should
 * find (docs/fabric.md, "Deadlock").
 */
final class CreditLoops
{
    private CreditLoops()
    {
    }

    /**
     * @param t      the fabric.
     * @param routes its tables.
     * @return whether no dependency cycle exists.
     */
    static boolean acyclic(final Topology t, final Routes routes)
    {
        final Map<Long, Set<Long>> next = new HashMap<>();
        for (final Topology.Node source : t.nodes())
        {
            for (int p = 1; !source.isSwitch() && p <= source.portCount(); p++)
            {
                if (null == source.link(p) || source.baseLid(p) == 0)
                {
                    continue;
                }
                for (final Topology.Node dest : t.nodes())
                {
                    for (int q = 1; !dest.isSwitch() && q <= dest.portCount(); q++)
                    {
                        for (int lid = dest.baseLid(q); dest.baseLid(q) != 0 && lid < dest.baseLid(q) + (1 << dest.lmc(q));
                            lid++)
                        {
                            follow(t, routes, source.link(p), lid, next);
                        }
                    }
                }
            }
        }
        final Map<Long, Integer> state = new HashMap<>();
        for (final Long channel : next.keySet())
        {
            if (cycle(channel, next, state))
            {
                return false;
            }
        }
        return true;
    }

    private static long channel(final Topology.Link link)
    {
        return ((long)link.node().index() << 16) | link.port();
    }

    private static void follow(
        final Topology t, final Routes routes, final Topology.Link first, final int lid, final Map<Long, Set<Long>> next)
    {
        Topology.Link held = first;
        for (int hop = 0; hop <= t.nodes().size() && held.remote().isSwitch(); hop++)
        {
            final int out = routes.outPort(held.remote(), lid);
            if (out <= 0)
            {
                return;
            }
            final Topology.Link wanted = held.remote().link(out);
            next.computeIfAbsent(channel(held), k -> new HashSet<>()).add(channel(wanted));
            held = wanted;
        }
    }

    /** Depth-first, iteratively: 1 on the stack, 2 done. */
    private static boolean cycle(final Long start, final Map<Long, Set<Long>> next, final Map<Long, Integer> state)
    {
        if (state.containsKey(start))
        {
            return false;
        }
        final List<Long> stack = new ArrayList<>();
        final List<java.util.Iterator<Long>> iterators = new ArrayList<>();
        stack.add(start);
        iterators.add(next.getOrDefault(start, Set.of()).iterator());
        state.put(start, 1);
        while (!stack.isEmpty())
        {
            final java.util.Iterator<Long> it = iterators.get(iterators.size() - 1);
            if (it.hasNext())
            {
                final Long to = it.next();
                final Integer s = state.get(to);
                if (null != s && s == 1)
                {
                    return true;
                }
                if (null == s)
                {
                    state.put(to, 1);
                    stack.add(to);
                    iterators.add(next.getOrDefault(to, Set.of()).iterator());
                }
            }
            else
            {
                state.put(stack.remove(stack.size() - 1), 2);
                iterators.remove(iterators.size() - 1);
            }
        }
        return false;
    }
}
