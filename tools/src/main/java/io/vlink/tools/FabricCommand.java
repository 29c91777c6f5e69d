package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.credit.LineRate;
import io.vlink.core.fabric.LftReader;
import io.vlink.core.fabric.MinHopRouting;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.fabric.TopologyReader;
import io.vlink.core.fabric.UpDownRouting;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosPort;
import io.vlink.core.qos.QosReader;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code vlink fabric}: reads a fabric's topology (as {@code ibnetdiscover} prints it and {@code ibsim} reads it),
 * routes it and shows what every switch port would get (docs/fabric.md).
 */
@Command(
    name = "fabric",
    mixinStandardHelpOptions = true,
    description = "Fabrics of switches and channel adapters from an ibnetdiscover/ibsim topology file: check one, " +
        "print its routes, soak it in one process, run it across processes.",
    subcommands = {FabricCommand.Check.class, FabricCommand.RoutesCommand.class, FabricSoakCommand.class,
        FabricRunCommand.class})
public final class FabricCommand implements Runnable
{
    @Spec
    CommandSpec spec;

    @Override
    public void run()
    {
        throw new ParameterException(spec.commandLine(), "missing command");
    }

    /** The topology file and link rate every subcommand takes. */
    static final class TopologyFile
    {
        @Parameters(index = "0", paramLabel = "TOPO", description = "A topology file (ibnetdiscover's output, ibsim's net files).")
        Path file;

        @Option(names = "--rate", paramLabel = "RATE", defaultValue = "EDR_4X",
            description = "Rate of links whose line gives no speed: SDR_4X .. XDR_4X (default: ${DEFAULT-VALUE}).")
        LineRate rate;

        @Option(names = "--lmc", paramLabel = "N", defaultValue = "0",
            description = "OpenSM's LMC (opensm -l N, 0..7): ports the file gives no LID get 2^N LIDs each, as OpenSM " +
                "assigns them (default: ${DEFAULT-VALUE}).")
        int lmc;

        @Option(names = "--routing", paramLabel = "ENGINE", defaultValue = "minhop",
            description = "The OpenSM routing engine whose tables vlink computes: minhop or updn (default: " +
                "${DEFAULT-VALUE}); --lft reads tables a subnet manager dumped instead.")
        String routing;

        @Option(names = "--root", paramLabel = "GUID", split = ",",
            description = "updn's root switches, node GUIDs such as 0x200000 (OpenSM's root_guid_file); default: " +
                "the switches OpenSM would find.")
        List<String> roots;

        /**
         * @return the topology, or null after printing every finding (the caller exits 1).
         */
        Topology read(final CommandSpec spec, final PrintWriter err)
        {
            if (lmc < 0 || lmc > 7)
            {
                throw new ParameterException(spec.commandLine(), "--lmc " + lmc + ": give 0..7, as opensm -l takes");
            }
            final Result<Topology> result = TopologyReader.read(file, rate, lmc);
            return Diagnostics.refused(err, file, result, "nothing runs") ? null : result.value();
        }

        /**
         * @param spec the command, for usage errors.
         * @param t    the topology.
         * @param lft  forwarding tables a subnet manager dumped, or null to route with {@code --routing}.
         * @param err  where findings go.
         * @return the routes, or null when the dump was refused (its findings printed).
         */
        Routes routes(final CommandSpec spec, final Topology t, final Path lft, final PrintWriter err)
        {
            final long[] rootGuids = rootGuids(spec);
            if (null != lft)
            {
                return readRoutes(t, lft, err);
            }
            switch (routing)
            {
                case "minhop":
                    if (rootGuids.length > 0)
                    {
                        throw new ParameterException(spec.commandLine(), "--root is for --routing updn");
                    }
                    return MinHopRouting.route(t);
                case "updn":
                    if (UpDownRouting.rootsOf(t, rootGuids).length == 0)
                    {
                        err.println(file + ": updn: " + (rootGuids.length == 0 ? "no switch qualifies as a root" :
                            "no --root GUID names a switch of the topology") + "; OpenSM then routes with minhop, and " +
                            "so does vlink");
                        err.flush();
                    }
                    return UpDownRouting.route(t, rootGuids);
                default:
                    throw new ParameterException(spec.commandLine(), "--routing " + routing + ": give minhop or updn");
            }
        }

        private long[] rootGuids(final CommandSpec spec)
        {
            if (null == roots)
            {
                return new long[0];
            }
            final long[] guids = new long[roots.size()];
            for (int i = 0; i < guids.length; i++)
            {
                final String text = roots.get(i).trim();
                final String digits = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
                try
                {
                    if (digits.isEmpty() || digits.length() > 16)
                    {
                        throw new NumberFormatException();
                    }
                    guids[i] = Long.parseUnsignedLong(digits, 16);
                }
                catch (final NumberFormatException ex)
                {
                    throw new ParameterException(spec.commandLine(), "--root " + Diagnostic.excerpt(text) +
                        ": give switch node GUIDs in hex, e.g. 0x200000");
                }
            }
            return guids;
        }
    }

    /**
     * @param qos   an opensm.conf, read once, or null for OpenSM's defaults with 8 data VLs.
     * @param types which port types' options.
     * @param err   where findings go.
     * @return each port type's QoS, or null when the file was refused (its findings printed, each once).
     */
    static Map<PortType, QosConfig> readQos(final Path qos, final List<PortType> types, final PrintWriter err)
    {
        if (null == qos)
        {
            final Map<PortType, QosConfig> defaults = new EnumMap<>(PortType.class);
            types.forEach(type -> defaults.put(type, QosConfig.opensmDefaults(8)));
            return defaults;
        }
        final Result<Map<PortType, QosConfig>> result = QosReader.read(qos, types, QosPort.vlink(),
            QosReader.Mode.APPLY, false);
        return Diagnostics.refused(err, qos, result, "nothing runs") ? null : result.value();
    }

    /**
     * @param t   the topology.
     * @param lft forwarding tables a subnet manager dumped.
     * @param err where findings go.
     * @return the routes, or null when the dump was refused (its findings printed).
     */
    private static Routes readRoutes(final Topology t, final Path lft, final PrintWriter err)
    {
        final Result<Routes> result = LftReader.read(lft, t);
        return Diagnostics.refused(err, lft, result, "nothing runs") ? null : result.value();
    }

    /** {@code vlink fabric check TOPO [--qos FILE]}. */
    @Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description = "Parses and routes a topology; prints its nodes, links, LIDs, hop counts and the QoS each port " +
            "type gets. Exit 0 when it can run, 1 with every error otherwise.")
    static final class Check implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        TopologyFile topology;

        @Option(names = "--qos", paramLabel = "FILE",
            description = "An opensm.conf whose qos_ca_*, qos_swe_*, qos_sw0_* and qos_rtr_* options the ports get " +
                "(default: OpenSM's defaults with 8 data VLs, as an engine gets them).")
        Path qos;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final Topology t = topology.read(spec, err);
            if (null == t)
            {
                return Vlink.EXIT_FAILURE;
            }
            final Map<PortType, QosConfig> configs =
                readQos(qos, List.of(PortType.CA, PortType.SWE, PortType.SW0, PortType.RTR), err);
            if (null == configs)
            {
                return Vlink.EXIT_FAILURE;
            }
            final List<String> qosLines = new ArrayList<>();
            configs.forEach((type, config) -> qosLines.add("qos " + type.label() + ": " +
                Diagnostics.count(config.dataVls(), "data VL") + ", VLHighLimit " + config.highLimit() + ", SL2VL " +
                sl2vl(config)));
            final Routes routes = topology.routes(spec, t, null, err);
            final StringBuilder text = new StringBuilder();
            int switches = 0;
            int routers = 0;
            for (final Topology.Node node : t.nodes())
            {
                switches += node.isSwitch() ? 1 : 0;
                routers += node.type() == Topology.NodeType.ROUTER ? 1 : 0;
            }
            final int cas = t.nodes().size() - switches - routers;
            text.append(topology.file).append(": ").append(Diagnostics.count(t.nodes().size(), "node")).append(" (")
                .append(switches).append(switches == 1 ? " switch, " : " switches, ").append(cas)
                .append(cas == 1 ? " CA" : " CAs").append(routers == 0 ? "" : ", " + Diagnostics.count(routers, "router"))
                .append("), ").append(Diagnostics.count(t.links().size(), "link")).append(", LIDs 1..").append(t.maxLid())
                .append('\n');
            for (final Topology.Node node : t.nodes())
            {
                node(text, t, routes, node);
            }
            for (final String line : qosLines)
            {
                text.append(line).append('\n');
            }
            final int[] destinations = routes.destinations();
            int unrouted = 0;
            for (final Topology.Node sw : t.switches())
            {
                for (final int lid : destinations)
                {
                    unrouted += routes.outPort(sw, lid) == Routes.NO_ROUTE ? 1 : 0;
                }
            }
            text.append("routes: ").append(destinations.length).append(" destinations, max hops ")
                .append(routes.maxHops()).append(", ports balanced within ").append(routes.balance());
            if (unrouted > 0)
            {
                text.append(", ").append(unrouted).append(" unreachable (switch, LID) pairs");
            }
            text.append('\n');
            out.print(text);
            out.flush();
            err.flush();
            return 0;
        }

        private static void node(final StringBuilder text, final Topology t, final Routes routes, final Topology.Node node)
        {
            text.append(node.type().label()).append(" \"").append(node.id()).append('"');
            if (!node.description().equals(node.id()))
            {
                text.append(" (").append(node.description()).append(')');
            }
            if (node.isSwitch())
            {
                text.append(" lid ").append(node.baseLid(0));
                if (node.lmc(0) > 0)
                {
                    text.append(" lmc ").append(node.lmc(0));
                }
            }
            text.append(", ").append(node.connectedPorts()).append(" of ").append(node.portCount())
                .append(" ports cabled\n");
            for (int port = 1; port <= node.portCount(); port++)
            {
                final Topology.Link link = node.link(port);
                if (null == link)
                {
                    continue;
                }
                text.append("  [").append(port).append("] -> \"").append(link.remote().id()).append("\"[")
                    .append(link.remotePort()).append("] ").append(link.rate().label());
                if (link.width() != 0 && link.width() != 4)
                {
                    text.append(" (").append(link.width()).append("x)");
                }
                if (!node.isSwitch())
                {
                    text.append(", lid ").append(node.baseLid(port));
                    if (node.lmc(port) > 0)
                    {
                        text.append(" lmc ").append(node.lmc(port));
                    }
                    if (link.remote().isSwitch())
                    {
                        int farthest = 0;
                        for (final Topology.Node sw : t.switches())
                        {
                            farthest = Math.max(farthest, routes.hops(sw, node.baseLid(port)));
                        }
                        text.append(", at most ").append(farthest).append(farthest == 1 ? " hop" : " hops")
                            .append(" from any switch");
                    }
                }
                text.append('\n');
            }
        }

        private static String sl2vl(final QosConfig config)
        {
            final StringBuilder sb = new StringBuilder();
            for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
            {
                sb.append(sl == 0 ? "" : ",").append(config.sl2vl(sl));
            }
            return sb.toString();
        }
    }

    /** {@code vlink fabric routes TOPO [--lft FILE]}. */
    @Command(
        name = "routes",
        mixinStandardHelpOptions = true,
        description = "Prints every switch's forwarding table: 'SWITCH lid L: dlid D -> port P (HOPS hops)', then a " +
            "summary. Min-hop routing by default, or the tables a subnet manager dumped (--lft).")
    static final class RoutesCommand implements Callable<Integer>
    {
        @Spec
        CommandSpec spec;

        @picocli.CommandLine.Mixin
        TopologyFile topology;

        @Option(names = "--lft", paramLabel = "FILE",
            description = "Forwarding tables as OpenSM's opensm-lfts.dump or ibroute print them, instead of min-hop.")
        Path lft;

        @Override
        public Integer call()
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            final Topology t = topology.read(spec, err);
            if (null == t)
            {
                return Vlink.EXIT_FAILURE;
            }
            final Routes routes = topology.routes(spec, t, lft, err);
            if (null == routes)
            {
                return Vlink.EXIT_FAILURE;
            }
            final StringBuilder text = new StringBuilder();
            routes.print(text);
            out.print(text);
            out.flush();
            err.flush();
            return 0;
        }
    }
}
