package io.vlink.core.fabric;

/**
 * OpenSM's default {@code minhop} routing engine (OpenSM 3.3.23, default options), entry for entry: every switch's
 * forwarding table routes each LID over a port with the fewest switch-to-switch links to the destination, balancing
 * the routes to channel adapters over equal ports in OpenSM's order ({@link LftBuilder}: destinations grouped by the
 * switch they hang off, busiest switch first; LMC above 0 spreads a port's LIDs over different neighbours). A switch's
 * own LID forwards to port 0; a LID no path reaches has {@link Routes#NO_ROUTE}. Every route is min-hop, so loop-free.
 * <p>
 * The order depends on the GUIDs and LIDs of the topology: for a file without them, the ones ibsim and OpenSM give it
 * ({@link TopologyReader}).
 */
public final class MinHopRouting
{
    private MinHopRouting()
    {
    }

    /**
     * @param topology the fabric.
     * @return every switch's forwarding table.
     */
    public static Routes route(final Topology topology)
    {
        final SwitchGraph graph = new SwitchGraph(topology);
        graph.minHop();
        return new LftBuilder(graph).build();
    }
}
