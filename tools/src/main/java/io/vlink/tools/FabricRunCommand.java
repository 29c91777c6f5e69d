package io.vlink.tools;

import io.vlink.core.config.Result;
import io.vlink.core.fabric.Peers;
import io.vlink.core.fabric.Topology;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.UdpLink;
import io.vlink.tools.fabric.FabricSoak;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code vlink fabric run TOPO --nodes ID,... --peers FILE} (docs/fabric.md, "Across processes"): the nodes named run
 * in this process, cables to nodes elsewhere are UDP links to the addresses the peers file gives, and the CA ports
 * here send by the pattern to destinations wherever they run. Exit 0 when every invariant this process can check
 * held, 1 when one failed or the peers never appeared, 3 on a deadlock, 2 for a usage error, 130 on Ctrl-C.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
        "Runs some nodes of a topology in this process (--nodes; default all) and links them over UDP to the nodes " +
            "other processes run, at the addresses of --peers (lines 'ID HOST:PORT'): a node's port P is the UDP " +
            "socket HOST:PORT+P, one socket per cable end. Each CA port here sends by --pattern to every CA port of " +
            "the fabric, wherever it runs.",
        "Every process offers traffic for --seconds once its links are up, then runs until nothing has moved " +
            "through it for --quiet-ms, checks what it can (FIFO per source, destination and SL, no damage, " +
            "discards, credits on its links), keeps its links up --quiet-ms more for its neighbours' checks, and " +
            "prints its part of the summary. End-to-end loss: sum sent_to and received_from over every process's " +
            "--json.",
        "A peer whose links go down mid-run and stay down (its process killed or stopped) ends the run: the summary " +
            "of what ran, then one line on stderr naming the peer, its address and the links, exit 1.",
        "Exit 0 when every check held, 1 when one failed, the peers never appeared (--peer-wait) or a peer went away, " +
            "3 on a deadlock, 4 when every check held but --json or --report could not be written, 2 for a usage " +
            "error, 130 on Ctrl-C (after the summary)."})
final class FabricRunCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    FabricCommand.TopologyFile topology;

    @picocli.CommandLine.Mixin
    FabricSoakCommand.Traffic traffic;

    @Option(names = "--nodes", paramLabel = "ID", split = ",",
        description = "The nodes (switches and CAs) this process runs (default: every node).")
    List<String> nodes;

    @Option(names = "--peers", paramLabel = "FILE",
        description = "Where the nodes run: lines 'ID HOST:PORT' ('#' comments); a node of N ports takes the UDP " +
            "ports PORT+1..PORT+N of HOST. Needed for every node with a cable that leaves this process, at both ends.")
    Path peers;

    @Option(names = "--peer-wait", paramLabel = "SECONDS", defaultValue = "30",
        description = "How long the links to other processes get to come up (default: ${DEFAULT-VALUE}); then " +
            "one line naming the peers that never appeared, exit 1.")
    long peerWait;

    @Option(names = "--quiet-ms", paramLabel = "N", defaultValue = "2000",
        description = "After its --seconds, a process ends when nothing moved through it for N ms, and keeps its " +
            "links up N ms more (default: ${DEFAULT-VALUE}): start the processes within N ms of each other.")
    long quietMs;

    @Option(names = "--link-timeout-ms", paramLabel = "N",
        description = "How long every port waits without hearing its peer before its link goes down (default: " +
            "the engine's, 200); raise it on a loaded machine.")
    Long linkTimeoutMs;

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        if (peerWait <= 0)
        {
            throw usage("--peer-wait " + peerWait + ": give a positive number of seconds");
        }
        if (quietMs <= 0)
        {
            throw usage("--quiet-ms " + quietMs + ": give a positive number of milliseconds");
        }
        if (null != linkTimeoutMs && (linkTimeoutMs <= 0 || linkTimeoutMs > 3_600_000))
        {
            throw usage("--link-timeout-ms " + linkTimeoutMs + ": give 1 to 3600000 milliseconds");
        }
        final FabricSoak.Options options = new FabricSoak.Options();
        final int refused = traffic.prepare(spec, "vlink fabric run", topology, options, err);
        if (FabricSoakCommand.Traffic.READY != refused)
        {
            return refused;
        }
        final Topology t = options.topology;
        options.title = "fabric run";
        options.bringUpNs = peerWait * 1_000_000_000L;
        options.quietNs = quietMs * 1_000_000L;
        if (null != linkTimeoutMs)
        {
            options.linkTimeoutNs = linkTimeoutMs * 1_000_000L;
        }
        String more = "";
        if (null != nodes)
        {
            final Set<String> local = new LinkedHashSet<>();
            for (final String id : nodes)
            {
                final Topology.Node node = t.node(id.trim());
                if (null == node)
                {
                    throw usage("--nodes: no node \"" + id.trim() + "\" in " + topology.file +
                        "; give IDs 'vlink fabric check' lists");
                }
                local.add(node.id());
            }
            options.nodes = local;
            more = ", nodes " + String.join(",", local);
        }
        else if (null != peers)
        {
            throw usage("--peers " + peers + ": it places the nodes other processes run; give --nodes too");
        }
        if (null != options.nodes && options.nodes.size() < t.nodes().size())
        {
            final Peers addresses = readPeers(t, options.nodes, err);
            if (null == addresses)
            {
                return Vlink.EXIT_FAILURE;
            }
            options.remoteLinks = (node, port, counters) -> udp(addresses, node, port, counters);
            options.peerAddress = node ->
            {
                final InetSocketAddress base = addresses.base(node.id());
                return base.getHostString() + ":" + base.getPort();
            };
        }
        try (Interrupt interrupt = Interrupt.install(() ->
        {
            err.println("vlink fabric run: interrupted: traffic stops; the summary of what ran follows");
            err.flush();
        }))
        {
            options.stop = interrupt::interrupted;
            return traffic.run(options, more, spec, "vlink fabric run");
        }
    }

    /**
     * @return the peers file's addresses, or null after printing its findings.
     */
    private Peers readPeers(final Topology t, final Set<String> local, final PrintWriter err)
    {
        if (null == peers)
        {
            throw usage("--nodes runs part of the fabric: give --peers FILE with the address of every node at " +
                "either end of a cable that leaves this process");
        }
        final Result<Peers> read = Peers.read(peers, t);
        final Result<Peers> complete = read.ok() ? Result.of(read.value(), read.value().missing(peers.toString(), t,
            local)) : read;
        return Diagnostics.refused(err, peers, complete, "nothing runs") ? null : complete.value();
    }

    /** A cable end that leaves this process: its own socket, {@code HOST:PORT+P}, to the far end's. */
    private static Link udp(
        final Peers addresses, final Topology.Node node, final int port, final io.vlink.nic.status.LinkCounters counters)
    {
        final Topology.Link cable = node.link(port);
        final InetSocketAddress local = addresses.address(node, port);
        final InetSocketAddress remote = addresses.address(cable.remote(), cable.remotePort());
        return new UdpLink(local, remote, Link.MAX_DATA_FRAME_LENGTH, counters);
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }
}
