package io.vlink.tools;

import io.vlink.core.config.Result;
import io.vlink.core.fabric.PathSl;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;
import io.vlink.tools.fabric.FabricSoak;
import io.vlink.tools.soak.FaultKind;
import io.vlink.tools.soak.FaultSpec;
import io.vlink.tools.soak.SoakSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
        "3 when the fabric deadlocked (the credit loop is printed).",
    footer = {"", "Exit status: 0 every invariant held; 1 one did not, or the soak could not run (an output file " +
        "that cannot be written is refused before it runs); 3 deadlock; 4 every invariant held but --json or " +
        "--report could not be written (a line each on stderr); 2 usage error; 130 stopped by Ctrl-C."})
final class FabricSoakCommand implements Callable<Integer>
{
    @Spec
    CommandSpec spec;

    @picocli.CommandLine.Mixin
    FabricCommand.TopologyFile topology;

    @picocli.CommandLine.Mixin
    Traffic traffic;

    @Option(names = "--faults", paramLabel = "SPEC",
        description = "Seeded faults, as vlink soak's: drop-data=P, corrupt-data=P, drop-fcp=P, corrupt-fcp=P on " +
            "--fault-link's cable (or every cable); stall-receiver=MS, retable=N and vl15-flood=N on its CA port (or " +
            "every CA port; a flood: 4 + N largest SMPs once a second to the switch, whose SMA holds meanwhile); " +
            "link-bounce=N on its cable.")
    String faults;

    @Option(names = "--fault-link", paramLabel = "NODE[PORT]",
        description = "The cable at that node's port gets the faults, both ways (default: every cable).")
    String faultLink;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "auto",
        description = "1: every node on one thread; 2: the switches on a second thread, the CA ports on the first; " +
            "auto: 2 when the JVM sees 2 or more processors and no --faults are given, else 1 (default: " +
            "${DEFAULT-VALUE}). Faults run on 1 thread only.")
    String threads;

    @Option(names = "--baseline",
        description = "After the fabric, run vlink soak's two ports back to back (its default threads here, the same " +
            "--size, --seconds and --seed) and print the fabric's rate against it.")
    boolean baseline;

    @Option(names = "--warmup", paramLabel = "SECONDS", defaultValue = "2",
        description = "Seconds at the start that the rate after warm-up leaves out, the fabric's and the baseline's " +
            "(a run shorter than twice this leaves out its first half; default: ${DEFAULT-VALUE}).")
    double warmup;

    @Override
    public Integer call()
    {
        final PrintWriter err = spec.commandLine().getErr();
        final FabricSoak.Options options = new FabricSoak.Options();
        final int refused = traffic.prepare(spec, "vlink fabric soak", topology, options, err);
        if (Traffic.READY != refused)
        {
            return refused;
        }
        if (null != faults)
        {
            options.faults = parseFaults();
        }
        if (null != faultLink)
        {
            if (!options.faults.any())
            {
                throw usage("--fault-link " + faultLink + ": it places --faults; give --faults too");
            }
            final Topology.Node node = traffic.nodePort(spec, options.topology, "--fault-link " + faultLink, faultLink,
                false);
            options.faultNode = node;
            options.faultPort = Integer.parseInt(faultLink.substring(faultLink.lastIndexOf('[') + 1,
                faultLink.length() - 1));
            final boolean timed = options.faults.isOn(FaultKind.STALL_RECEIVER) ||
                options.faults.isOn(FaultKind.RETABLE) || options.faults.isOn(FaultKind.VL15_FLOOD);
            if (timed && node.isSwitch() && node.link(options.faultPort).remote().isSwitch())
            {
                throw usage("--fault-link " + faultLink + ": stall-receiver, retable and vl15-flood act on a CA " +
                    "port; give a cable with a CA at one end");
            }
        }
        options.switchThread = 2 == parseThreads(options.faults.any());
        if (baseline)
        {
            options.baselineThreading = SoakSettings.autoThreading();
        }
        if (!(warmup >= 0) || Double.isInfinite(warmup))
        {
            throw usage("--warmup " + warmup + ": give 0 or more seconds");
        }
        options.warmupSeconds = warmup;
        return traffic.run(options, ", threads " + (options.switchThread ? 2 : 1) + (options.faults.any() ?
            ", faults " + options.faults + " on " + (null == faultLink ? "every cable" : faultLink) : ""), spec,
            "vlink fabric soak");
    }

    /**
     * @param faults whether faults are given: they act on the switches mid-run, so they run on one thread.
     * @return the threads the fabric runs on, 1 or 2.
     */
    private int parseThreads(final boolean faults)
    {
        switch (threads)
        {
            case "auto":
                return !faults && Runtime.getRuntime().availableProcessors() >= 2 ? 2 : 1;
            case "1":
                return 1;
            case "2":
                if (faults)
                {
                    throw usage("--threads 2 with --faults: faults act on the switches mid-run and run on one " +
                        "thread; give --threads 1 or leave --threads out");
                }
                return 2;
            default:
                throw usage("--threads " + threads + ": use 1, 2 or auto");
        }
    }

    private FaultSpec parseFaults()
    {
        final FaultSpec spec;
        try
        {
            spec = FaultSpec.parse(faults);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage(ex.getMessage());
        }
        if (spec.isOn(FaultKind.LINK_BOUNCE) && null == faultLink)
        {
            throw usage("--faults link-bounce: give --fault-link NODE[PORT], the cable to bounce");
        }
        return spec;
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }

    /**
     * The options {@code vlink fabric soak} and {@code vlink fabric run} share: the QoS, routes and traffic of the
     * fabric, and the summary's files; their checks, and the run with its summary.
     */
    static final class Traffic
    {
        /** {@link #prepare}: every option held and every file was read. */
        static final int READY = -1;

        @Option(names = "--qos", paramLabel = "FILE",
            description = "An opensm.conf: CA ports get its qos_ca_* options, switch ports qos_swe_* (port 0 " +
                "qos_sw0_*) (default: OpenSM's defaults with 8 data VLs).")
        Path qos;

        @Option(names = "--lft", paramLabel = "FILE",
            description = "Forwarding tables as OpenSM's opensm-lfts.dump or ibroute print them, instead of min-hop.")
        Path lft;

        @Option(names = "--pattern", paramLabel = "P", defaultValue = "uniform",
            description = "uniform (each packet to a random other CA port), permutation (each port to one other), " +
                "all-to-one (every port to the first), shift (port i to port i + n/2, in file order) " +
                "(default: ${DEFAULT-VALUE}).")
        String pattern;

        @Mixin
        SoakOptions run;

        @Option(names = "--size", paramLabel = "BYTES", defaultValue = "256",
            description = "The packet size S (LRH through ICRC), a multiple of 4 from 56 to 4096 (default: " +
                "${DEFAULT-VALUE}).")
        int size;

        @Option(names = "--sls", paramLabel = "LIST", defaultValue = "0",
            description = "SLs each CA port uses in turn, e.g. 0,1,2 (default: ${DEFAULT-VALUE}); a pair " +
                "--sl-policy or --sl-map assigns ignores them.")
        String sls;

        @Option(names = "--stall-ms", paramLabel = "N", defaultValue = "1000",
            description = "Deadlock when packets are queued and no link moved one for N ms (default: " +
                "${DEFAULT-VALUE}).")
        long stallMs;

        @Option(names = "--sl-policy", paramLabel = "dateline:SWITCH[PORT]",
            description = "SL 1 for every path that crosses the cable at SWITCH's PORT, SL 0 for the rest: with SL 1 " +
                "mapped to VL 1, a ring's credit loop is broken.")
        String slPolicy;

        @Option(names = "--sl-map", paramLabel = "FILE",
            description = "An SL per path: lines 'SRC_LID DST_LID SL'; before --sl-policy and --sls.")
        Path slMap;

        @Option(names = "--vl-buffer", paramLabel = "BLOCKS",
            description = "Each data VL's receive buffer at every port, in 64-byte blocks (default: the engine's, " +
                "2048).")
        Integer vlBuffer;

        /**
         * Check the options and read the files into {@code options}.
         *
         * @return {@link #READY}, or the exit code after the findings were printed.
         * @throws ParameterException for a usage error.
         */
        int prepare(
            final CommandSpec spec,
            final String command,
            final FabricCommand.TopologyFile topology,
            final FabricSoak.Options options,
            final PrintWriter err)
        {
            options.pattern = FabricSoak.Pattern.of(pattern);
            if (null == options.pattern)
            {
                throw usage(spec, "--pattern " + pattern + ": use uniform, permutation, all-to-one or shift");
            }
            options.seconds = SoakOptions.seconds(spec, run.seconds);
            if (null != run.packets)
            {
                options.packets = SoakOptions.packets(spec, run.packets);
            }
            if ((size & 3) != 0 || size < 56 || size > 4096)
            {
                throw usage(spec, "--size " + size + ": give a multiple of 4 from 56 to 4096");
            }
            options.size = size;
            options.sls = parseSls(spec);
            options.seed = run.seed;
            if (stallMs <= 0)
            {
                throw usage(spec, "--stall-ms " + stallMs + ": give a positive number of milliseconds");
            }
            options.stallMs = stallMs;
            if (null != vlBuffer)
            {
                if (vlBuffer < Sizes.blocks(size) || vlBuffer > 1 << 20)
                {
                    throw usage(spec, "--vl-buffer " + vlBuffer + ": give " + Sizes.blocks(size) + " (one packet of " +
                        "--size) to 1048576 blocks");
                }
                options.vlBufferBlocks = vlBuffer;
            }
            options.directory = run.directory;

            final Topology t = topology.read(spec, err);
            if (null == t)
            {
                return Vlink.EXIT_FAILURE;
            }
            options.topology = t;
            options.label = topology.file.getFileName().toString();
            options.routes = topology.routes(spec, t, lft, err);
            final Map<PortType, QosConfig> configs =
                FabricCommand.readQos(qos, List.of(PortType.CA, PortType.SWE, PortType.SW0), err);
            if (null == options.routes || null == configs)
            {
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            options.ca = configs.get(PortType.CA);
            options.external = configs.get(PortType.SWE);
            options.management = configs.get(PortType.SW0);
            if (options.ca.dataVls() != options.external.dataVls())
            {
                err.println(qos + ": CA ports get " + options.ca.dataVls() + " data VLs and switch ports " +
                    options.external.dataVls() + "; a link runs one VL count at both ends (OpenSM gives both the lower of " +
                    "their VL capabilities, within max_op_vls)");
                err.flush();
                return Vlink.EXIT_FAILURE;
            }
            if (null != slPolicy)
            {
                final String hint = "--sl-policy " + slPolicy + ": give dateline:SWITCH[PORT], a switch's ID and a " +
                    "port cabled to another switch";
                if (!slPolicy.startsWith("dateline:"))
                {
                    throw usage(spec, hint);
                }
                final String cable = slPolicy.substring("dateline:".length());
                options.datelineSwitch = nodePort(spec, t, "--sl-policy " + slPolicy, cable, true);
                options.datelinePort = Integer.parseInt(cable.substring(cable.lastIndexOf('[') + 1,
                    cable.length() - 1));
            }
            if (null != slMap)
            {
                final Result<PathSl> read = PathSl.readMap(slMap, t);
                if (Diagnostics.refused(err, slMap, read, "nothing runs"))
                {
                    return Vlink.EXIT_FAILURE;
                }
                options.slMap = read.value();
            }
            return READY;
        }

        /**
         * Run the soak and write its summary, JSON and report.
         *
         * @param more what the first line adds (faults, nodes).
         * @return the exit code.
         */
        int run(final FabricSoak.Options options, final String more, final CommandSpec spec, final String command)
        {
            final PrintWriter out = spec.commandLine().getOut();
            final PrintWriter err = spec.commandLine().getErr();
            try (Outputs outputs = new Outputs(command, err))
            {
                // before anything runs: a run of minutes must not end in a file it cannot write
                try
                {
                    outputs.openSummaries(run.json, run.report, run.directory);
                }
                catch (final OutputFile.Failed ex)
                {
                    return outputs.refused(ex);
                }
                out.println(String.format(Locale.ROOT, "%s: %s, pattern %s, %s s%s, %d-byte packets, SLs %s, " +
                    "seed %d, stall %d ms%s", command, options.label, options.pattern.label(), fmt(run.seconds),
                    0 == options.packets ? "" : " or " + options.packets + " packets", size,
                    null != slPolicy ? slPolicy : sls, run.seed, stallMs, more));
                out.flush();
                final FabricSoak soak = new FabricSoak(options, out);
                final int exit;
                try
                {
                    exit = soak.run();
                }
                catch (final IllegalArgumentException | IllegalStateException | java.io.UncheckedIOException ex)
                {
                    err.println(command + ": " + ex.getMessage());
                    err.flush();
                    return Vlink.EXIT_FAILURE;
                }
                out.print(soak.summaryText());
                if (null != soak.peerGone())
                {
                    err.println(command + ": " + soak.peerGone());
                }
                final String summary = soak.jsonText();
                if ("-".equals(run.json))
                {
                    out.println(summary);
                }
                out.flush();
                outputs.writeJson(() -> summary + "\n");
                outputs.writeReport(() -> soak.html(exit));
                return soak.stopped() ? Interrupt.EXIT_INTERRUPTED : outputs.exitCode(exit);
            }
        }

        /**
         * @param what     the option and its value, for the message.
         * @param text     {@code NODE[PORT]}.
         * @param toSwitch whether the node must be a switch and the port cabled to another switch.
         * @return the node, its port cabled.
         * @throws ParameterException when the text names no such cable.
         */
        Topology.Node nodePort(
            final CommandSpec spec, final Topology t, final String what, final String text, final boolean toSwitch)
        {
            final String hint = what + ": give " + (toSwitch ? "SWITCH[PORT], a switch's ID and a port cabled to " +
                "another switch" : "NODE[PORT], a node's ID and a cabled port");
            final int open = text.lastIndexOf('[');
            if (open < 0 || !text.endsWith("]"))
            {
                throw usage(spec, hint);
            }
            final String id = text.substring(0, open);
            final Topology.Node node = t.node(id);
            if (null == node || (toSwitch && !node.isSwitch()))
            {
                throw usage(spec, hint + " (no " + (toSwitch ? "switch" : "node") + " \"" + id + "\")");
            }
            final int port;
            try
            {
                port = Integer.parseInt(text.substring(open + 1, text.length() - 1));
            }
            catch (final NumberFormatException ex)
            {
                throw usage(spec, hint);
            }
            if (port < 1 || port > node.portCount() || null == node.link(port) ||
                (toSwitch && !node.link(port).remote().isSwitch()))
            {
                throw usage(spec, hint + " (port " + port + " of \"" + id + "\" is not cabled" +
                    (toSwitch ? " to a switch)" : ")"));
            }
            return node;
        }

        private int[] parseSls(final CommandSpec spec)
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
                    throw usage(spec, "--sls " + sls + ": give SLs from 0 to 15 separated by commas, e.g. 0,1");
                }
            }
            return values;
        }

        private static String fmt(final double value)
        {
            return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
        }

        private static ParameterException usage(final CommandSpec spec, final String message)
        {
            return new ParameterException(spec.commandLine(), message);
        }
    }
}
