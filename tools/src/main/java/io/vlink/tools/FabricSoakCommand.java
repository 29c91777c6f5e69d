package io.vlink.tools;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.PortType;
import io.vlink.core.wire.Sizes;
import io.vlink.tools.fabric.FabricSoak;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code vlink fabric soak TOPO} (docs/fabric.md, docs/cli.md): every node of the topology in this process, links in
 * process, traffic by pattern; exit 0 when every invariant held, 1 when one failed, 3 on a deadlock, 2 for a usage
 * error.
 */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    description = "Runs every node of a topology in this process (switches and CA ports, in-process links), each CA " +
        "port sending to destinations its pattern chooses; prints a line each second, then a summary per CA port and " +
        "per switch port. Exit 0 only if nothing was lost, reordered or damaged and every link's credits came back; " +
        "3 when the fabric deadlocked (the credit loop is printed).")
final class FabricSoakCommand implements Callable<Integer>
{
    private static final int EXIT_USAGE = 2;

    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    FabricCommand.TopologyFile topology;

    @Option(names = "--qos", paramLabel = "FILE",
        description = "An opensm.conf: CA ports get its qos_ca_* options, switch ports qos_swe_* (port 0 qos_sw0_*) " +
            "(default: OpenSM's defaults with 8 data VLs).")
    Path qos;

    @Option(names = "--lft", paramLabel = "FILE",
        description = "Forwarding tables as OpenSM's opensm-lfts.dump or ibroute print them, instead of min-hop.")
    Path lft;

    @Option(names = "--pattern", paramLabel = "P", defaultValue = "uniform",
        description = "uniform (each packet to a random other CA port), permutation (each port to one other), " +
            "all-to-one (every port to the first), shift (port i to port i + n/2, in file order) " +
            "(default: ${DEFAULT-VALUE}).")
    String pattern;

    @Option(names = "--seconds", paramLabel = "N", defaultValue = "10",
        description = "How long traffic is offered (default: ${DEFAULT-VALUE}); the drain and checks follow.")
    double seconds;

    @Option(names = "--packets", paramLabel = "N",
        description = "Stop offering after N packets over all CA ports, or when --seconds is over if that comes first.")
    Long packets;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "256",
        description = "The packet size S (LRH through ICRC), a multiple of 4 from 56 to 4096 (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--sls", paramLabel = "LIST", defaultValue = "0",
        description = "SLs each CA port uses in turn, e.g. 0,1,2 (default: ${DEFAULT-VALUE}); a pair --sl-policy or " +
            "--sl-map assigns ignores them.")
    String sls;

    @Option(names = "--seed", paramLabel = "N", defaultValue = "1",
        description = "Seeds the destinations and the fill (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--stall-ms", paramLabel = "N", defaultValue = "1000",
        description = "Deadlock when packets are queued and no link moved one for N ms (default: ${DEFAULT-VALUE}).")
    long stallMs;

    @Option(names = "--sl-policy", paramLabel = "dateline:SWITCH[PORT]",
        description = "SL 1 for every path that crosses the cable at SWITCH's PORT, SL 0 for the rest: with SL 1 " +
            "mapped to VL 1, a ring's credit loop is broken.")
    String slPolicy;

    @Option(names = "--sl-map", paramLabel = "FILE",
        description = "An SL per path: lines 'SRC_LID DST_LID SL'; before --sl-policy and --sls.")
    Path slMap;

    @Option(names = "--vl-buffer", paramLabel = "BLOCKS",
        description = "Each data VL's receive buffer at every port, in 64-byte blocks (default: the engine's, 2048).")
    Integer vlBuffer;

    @Option(names = "--json", paramLabel = "FILE", description = "Write the JSON summary there ('-': to stdout).")
    String json;

    @Option(names = "--report", paramLabel = "FILE.html", description = "Write a self-contained HTML summary.")
    Path report;

    @Option(names = "--dir", paramLabel = "DIR",
        description = "Where the nodes' counters files go (default: ${java.io.tmpdir}/vlink-${user.name}), for " +
            "vlink stat.")
    File directory;

    @Override
    public Integer call() throws IOException
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final FabricSoak.Options options = new FabricSoak.Options();
        options.pattern = FabricSoak.Pattern.of(pattern);
        if (null == options.pattern)
        {
            throw usage("--pattern " + pattern + ": use uniform, permutation, all-to-one or shift");
        }
        if (!(seconds > 0) || seconds > 366 * 24 * 3600.0)
        {
            throw usage("--seconds " + seconds + ": give a positive number of seconds");
        }
        options.seconds = seconds;
        if (null != packets)
        {
            if (packets <= 0)
            {
                throw usage("--packets " + packets + ": give a positive number of packets");
            }
            options.packets = packets;
        }
        if ((size & 3) != 0 || size < 56 || size > 4096)
        {
            throw usage("--size " + size + ": give a multiple of 4 from 56 to 4096");
        }
        options.size = size;
        options.sls = parseSls();
        options.seed = seed;
        if (stallMs <= 0)
        {
            throw usage("--stall-ms " + stallMs + ": give a positive number of milliseconds");
        }
        options.stallMs = stallMs;
        if (null != vlBuffer)
        {
            if (vlBuffer < Sizes.blocks(size) || vlBuffer > 1 << 20)
            {
                throw usage("--vl-buffer " + vlBuffer + ": give " + Sizes.blocks(size) + " (one packet of --size) to " +
                    "1048576 blocks");
            }
            options.vlBufferBlocks = vlBuffer;
        }
        final String badOutput = SoakCommand.checkOutputs(json, report, null, directory);
        if (null != badOutput)
        {
            err.println("vlink fabric soak: " + badOutput);
            err.flush();
            return EXIT_USAGE;
        }
        options.directory = directory;

        final Topology t = topology.read(err);
        if (null == t)
        {
            return Vlink.EXIT_FAILURE;
        }
        options.topology = t;
        options.label = topology.file.getFileName().toString();
        options.routes = FabricCommand.readRoutes(t, lft, err);
        options.ca = FabricCommand.readQos(qos, PortType.CA, err);
        options.external = FabricCommand.readQos(qos, PortType.SWE, err);
        options.management = FabricCommand.readQos(qos, PortType.SW0, err);
        if (null == options.routes || null == options.ca || null == options.external || null == options.management)
        {
            if (null != options.routes)
            {
                err.println(qos + ": refused; nothing runs");
            }
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        if (options.ca.dataVls() != options.external.dataVls())
        {
            err.println(qos + ": CA ports get " + options.ca.dataVls() + " data VLs and switch ports " +
                options.external.dataVls() + "; a link runs one VL count at both ends: give qos_ca_max_vls and " +
                "qos_swe_max_vls the same value");
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        if (null != slPolicy)
        {
            parseDateline(t, options);
        }
        if (null != slMap)
        {
            final List<Diagnostic> findings = new ArrayList<>();
            options.slMap = PathSl.readMap(slMap, t, findings);
            final int errors = Diagnostics.print(err, findings);
            if (null == options.slMap)
            {
                err.println(slMap + ": refused: " + Diagnostics.count(errors, "error") + "; nothing runs");
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
        }

        out.println(String.format(Locale.ROOT, "vlink fabric soak: %s, pattern %s, %s s%s, %d-byte packets, SLs %s, " +
            "seed %d, stall %d ms", options.label, options.pattern.label(), fmt(seconds),
            0 == options.packets ? "" : " or " + options.packets + " packets", size,
            null != slPolicy ? slPolicy : sls, seed, stallMs));
        out.flush();
        final FabricSoak soak = new FabricSoak(options, out);
        final int exit;
        try
        {
            exit = soak.run();
        }
        catch (final IllegalArgumentException | IllegalStateException ex)
        {
            err.println("vlink fabric soak: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        out.print(soak.summaryText());
        final String summary = soak.jsonText();
        if ("-".equals(json))
        {
            out.println(summary);
        }
        else if (null != json)
        {
            Files.writeString(Path.of(json), summary + "\n", StandardCharsets.UTF_8);
        }
        if (null != report)
        {
            Files.writeString(report, soak.html(exit), StandardCharsets.UTF_8);
        }
        out.flush();
        return exit;
    }

    private int[] parseSls()
    {
        final String[] words = sls.split(",", -1);
        final int[] values = new int[words.length];
        for (int i = 0; i < words.length; i++)
        {
            try
            {
                values[i] = Integer.parseInt(words[i].trim());
            }
            catch (final NumberFormatException ex)
            {
                values[i] = -1;
            }
            if (values[i] < 0 || values[i] > 15)
            {
                throw usage("--sls " + sls + ": give SLs from 0 to 15 separated by commas, e.g. 0,1");
            }
        }
        return values;
    }

    private void parseDateline(final Topology t, final FabricSoak.Options options)
    {
        final String hint = "--sl-policy " + slPolicy + ": give dateline:SWITCH[PORT], a switch's ID and a port " +
            "cabled to another switch";
        final int open = slPolicy.lastIndexOf('[');
        if (!slPolicy.startsWith("dateline:") || open < 0 || !slPolicy.endsWith("]"))
        {
            throw usage(hint);
        }
        final String id = slPolicy.substring("dateline:".length(), open);
        final Topology.Node sw = t.node(id);
        if (null == sw || !sw.isSwitch())
        {
            throw usage(hint + " (no switch \"" + id + "\")");
        }
        final int port;
        try
        {
            port = Integer.parseInt(slPolicy.substring(open + 1, slPolicy.length() - 1));
        }
        catch (final NumberFormatException ex)
        {
            throw usage(hint);
        }
        if (null == sw.link(port) || !sw.link(port).remote().isSwitch())
        {
            throw usage(hint + " (port " + port + " of \"" + id + "\" is not cabled to a switch)");
        }
        options.datelineSwitch = sw;
        options.datelinePort = port;
    }

    private static String fmt(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }
}
