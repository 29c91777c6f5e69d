package io.vlink.tools;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Result;
import io.vlink.core.qos.PortType;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.QosReader;
import io.vlink.nic.JvmFlags;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.capture.CaptureStoppedException;
import io.vlink.nic.link.LinkKey;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.tools.soak.FaultSpec;
import io.vlink.tools.soak.HtmlReport;
import io.vlink.tools.soak.SoakLeftovers;
import io.vlink.tools.soak.SoakReceiver;
import io.vlink.tools.soak.SoakResult;
import io.vlink.tools.soak.SoakRunner;
import io.vlink.tools.soak.SoakSettings;
import io.vlink.tools.soak.SoakTraffic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code vlink soak} (docs/cli.md): two ports back to back, traffic on every data VL the tables can serve
 * plus VL15, seeded fault injection, a live line each second, a summary table and the JSON summary; exit 0 only
 * when every invariant held, 1 otherwise, 2 for a usage error.
 */
@Command(
    name = "soak",
    mixinStandardHelpOptions = true,
    description = "Drives traffic through two ports wired back to back (loopback peer; UDP or shared memory to port B " +
        "in a second process; UDP to port B on another host with --peer), on every data VL the tables can serve plus " +
        "VL15, with optional seeded faults; prints a line each second and a summary; exit 0 only if no packet was " +
        "lost, duplicated or reordered, no buffer overflowed and the credits recovered. --serve runs port B for a " +
        "soak on another host.",
    footer = {"", "Exit status: 0 every invariant held; 1 one did not, or the soak could not run (an output file " +
        "that cannot be written is refused before it runs); 4 every invariant held but --json, --report or " +
        "--capture could not be written (a line each on stderr); 2 usage error; 130 stopped by Ctrl-C (here or at " +
        "the peer). A peer that dies or goes away ends the soak with one line naming it, exit 1. --serve exits as " +
        "the soak it served (0, 1 or 130), 1 when that soak went away."})
public final class SoakCommand implements Callable<Integer>
{
    /** How every reader begins the finding for a file it could not read ({@link Diagnostic#cannotRead}). */
    private static final String CANNOT_READ = Diagnostic.cannotRead("", "").message();

    @Spec
    CommandSpec spec;

    @Mixin
    SoakOptions run;

    @Option(names = "--qos", paramLabel = "FILE",
        description = "An opensm.conf whose QoS options apply (default: 8 data VLs, qos_ca_high_limit 6, " +
            "qos_ca_vlarb_high 0:4, qos_ca_vlarb_low 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64).")
    Path qosFile;

    @Option(names = "--port-type", paramLabel = "T", defaultValue = "ca",
        description = "Which qos_<type>_ options of --qos apply: ca, swe, sw0, rtr or sw2sw (default: ${DEFAULT-VALUE}); " +
            "only with --qos.")
    PortType portType;

    @Option(names = "--vls", paramLabel = "N",
        description = "Data VLs of the ports: 1, 2, 4, 8 or 15 (default: 8, or what --qos says); table entries for " +
            "VLs beyond them are skipped.")
    Integer vls;

    @Option(names = "--size", paramLabel = "BYTES",
        description = "A fixed packet size S (LRH through ICRC), a multiple of 4 from 48 to 4096 (default: 4096).")
    Integer size;

    @Option(names = "--sizes", paramLabel = "MIN-MAX",
        description = "Packet sizes drawn uniformly (seeded) from MIN to MAX, multiples of 4 from 48 to 4096.")
    String sizes;

    @Option(names = "--rate", paramLabel = "PPS",
        description = "Open loop: data packets a second over all driven VLs, shared evenly, each with an intended " +
            "send time (default: every VL backlogged).")
    Long rate;

    @Option(names = "--link", paramLabel = "KIND", defaultValue = "loopback",
        description = "loopback (in-process peer), udp (port B in a second process the soak starts, over UDP on " +
            "127.0.0.1; with --peer, on another host) or shm (port B in a second process the soak starts, through a " +
            "shared-memory file in the counters directory) (default: ${DEFAULT-VALUE}; udp with --peer).")
    String link;

    @Option(names = "--peer", paramLabel = "HOST[:PORT]",
        description = "Run port B on another host, in the 'vlink soak --serve' there (port " + SoakReceiver.DEFAULT_PORT +
            " unless given): the run is agreed over TCP, the link is UDP; both halves merge into this summary.")
    String peer;

    @Option(names = "--serve", paramLabel = "[HOST:]PORT", arity = "0..1", fallbackValue = "0.0.0.0:" + SoakReceiver.DEFAULT_PORT,
        description = "Run port B for one soak that joins from another host with --peer (listening on TCP " +
            "[HOST:]PORT, default 0.0.0.0:" + SoakReceiver.DEFAULT_PORT + "; this side's end of the link is UDP on the same " +
            "port); the soak gives the run; this side's --threads, --idle, --dir and --key apply.")
    String serve;

    @Option(names = "--key", paramLabel = "FILE",
        description = "With --link udp: authenticate every datagram with the pre-shared key in FILE (32 hex digits, " +
            "mode 600), a SipHash-2-4 MAC per datagram.")
    Path key;

    @Option(names = "--retry", paramLabel = "on|off",
        description = "Link-level retry: every frame numbered, acknowledged and sent again when lost or damaged, so " +
            "the wire's faults act below it and cost retransmissions, not packets (default: on with --link udp, off " +
            "otherwise).")
    String retry;

    @Option(names = "--threads", paramLabel = "MODE", defaultValue = "auto",
        description = "Engine threads: shared (one engine thread), split (transmit and receive agents on a thread " +
            "each), dedicated (one per agent) or invoker (the soak's " +
            "own thread runs the engine: deterministic, for small busy machines); auto: shared with 4 or more " +
            "processors, invoker with fewer (default: ${DEFAULT-VALUE}). Real hardware: --threads dedicated --idle spin.")
    String threads;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "backoff",
        description = "Engine idle strategy: spin, backoff, yield or sleep (default: ${DEFAULT-VALUE}).")
    String idle;

    @Option(names = "--faults", paramLabel = "SPEC",
        description = "KIND=VALUE[,KIND=VALUE...], kinds: drop-data=P, corrupt-data=P, drop-fcp=P, corrupt-fcp=P, " +
            "stall-receiver=MS, vl15-flood=N, retable=N, link-bounce=N.")
    String faults;

    @Option(names = "--allow-fewer-faults",
        description = "Pass even when some scheduled faults could not be injected (the process was paused or " +
            "starved); the summary still says how many ran.")
    boolean allowFewerFaults;

    @Option(names = "--capture", paramLabel = "FILE", description = "Record both directions of the wire as pcap.")
    Path capture;

    /** The soak that started this process: serve its port B through this channel file (docs/soak.md). */
    @Option(names = "--peer-of", paramLabel = "FILE", hidden = true)
    File peerOf;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final SoakSettings options = new SoakSettings();
        options.seconds = SoakOptions.seconds(spec, run.seconds);
        if (null != run.packets)
        {
            options.packets = SoakOptions.packets(spec, run.packets);
        }
        if (null == qosFile && spec.commandLine().getParseResult().hasMatchedOption("--port-type"))
        {
            throw usage("--port-type " + portType.label() + ": it picks the qos_<type>_ options of a --qos file; " +
                "without --qos the ports get the default tables, add --qos FILE");
        }
        options.faults = parseFaults();
        options.allowFewerFaults = allowFewerFaults;
        options.seed = run.seed;
        if (null != peer)
        {
            if (spec.commandLine().getParseResult().hasMatchedOption("--link") && !"udp".equals(link))
            {
                throw usage("--peer " + peer + ": a peer on another host is reached over UDP; drop --link " + link +
                    " or give --link udp");
            }
            link = "udp";
            options.peer = address("--peer", peer);
        }
        if (null != serve)
        {
            checkServeOptions();
        }
        options.udp = parseLink();
        options.shm = "shm".equals(link);
        options.retry = SoakOptions.retry(spec, retry);
        if (null != key)
        {
            if (!options.udp)
            {
                throw usage("--key " + key + ": a key authenticates the UDP link; add --link udp");
            }
            options.udpKey = readKey(err);
            if (null == options.udpKey)
            {
                return Vlink.EXIT_FAILURE;
            }
        }
        options.threading = parseThreads();
        options.idle = parseIdle();
        parseSizes(options);
        if (null != rate)
        {
            if (rate <= 0)
            {
                throw usage("--rate " + rate + ": give a positive number of packets a second");
            }
            options.rate = rate;
        }
        options.capture = capture;
        options.directory = run.directory;
        final QosConfig qos = readQos(err);
        if (null == qos)
        {
            return Vlink.EXIT_FAILURE;
        }
        options.qos = qos;
        if (null != peerOf)
        {
            return servePeer(options, err);
        }
        if (null != serve)
        {
            return serve(options, out, err);
        }
        try (Outputs outputs = new Outputs("vlink soak", err))
        {
            // before anything runs: a run of minutes must not end in a file it cannot write
            try
            {
                outputs.openSummaries(run.json, run.report, run.directory);
                if (null != capture)
                {
                    OutputFile.checkCreatable("--capture", capture);
                    final String missing = JvmFlags.missing(true);
                    if (null != missing)
                    {
                        throw new OutputFile.Failed("--capture", capture, missing);
                    }
                }
            }
            catch (final OutputFile.Failed ex)
            {
                return outputs.refused(ex);
            }
            return run(options, outputs);
        }
    }

    /**
     * The peer process of a two-process soak: port B, until the soak that started it is done (a Ctrl-C at the
     * terminal reaches both: the soak drains and then ends this process). It writes none of the soak's files.
     */
    private int servePeer(final SoakSettings options, final PrintWriter err)
    {
        Interrupt.ignore();
        try
        {
            return SoakReceiver.serve(options, peerOf, err);
        }
        catch (final RuntimeException ex)
        {
            // the soak shows this line as the peer's last words
            err.println("vlink soak: peer: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
    }

    private int run(final SoakSettings options, final Outputs outputs)
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final QosConfig qos = options.qos;
        if ((options.shm || options.udp) && null == options.peer)
        {
            // port B runs in a peer process: this program, with the same arguments
            // (the original arguments are the whole command line: the soak's own follow its name)
            final List<String> args = spec.commandLine().getParseResult().originalArgs();
            options.peerCommand = new java.util.ArrayList<>(List.of(Vlink.class.getName(), spec.name()));
            options.peerCommand.addAll(args.subList(args.indexOf(spec.name()) + 1, args.size()));
        }

        out.println(String.format(Locale.ROOT, "vlink soak: %s s%s, link %s, threads %s, idle %s, %d data VLs, " +
            "packets %s, %s, seed %d%s", fmt(run.seconds), 0 == options.packets ? "" : " or " + options.packets +
            " packets", (null == options.peer ? link : link + " to the peer at " + peer) +
            (options.retryOn() ? " (retry on)" : ""), threads,
            ThreadingMode.INVOKER == options.threading ? "none" : idle, qos.dataVls(), sizeText(options),
            0 == options.rate ? "every VL backlogged" : options.rate + " packets/s (open loop)", run.seed,
            options.faults.any() ? ", faults " + options.faults : ""));
        if (options.udp)
        {
            warnIfSocketBuffersAreSmall(err, qos.dataVls(), options.retryOn());
        }
        final String[] notDriven = SoakSettings.notDrivenReasons(qos);
        for (int vl = 0; vl < qos.dataVls(); vl++)
        {
            if (null != notDriven[vl])
            {
                out.println("VL" + vl + " not driven: " + notDriven[vl]);
            }
        }
        out.flush();

        final File countersDirectory = null != run.directory ? run.directory : CountersFileDescriptor.defaultDirectory();
        final List<String> removed = SoakLeftovers.remove(countersDirectory);
        if (!removed.isEmpty())
        {
            err.println("vlink soak: removed what soaks that are gone (killed) left in " + countersDirectory + ": " +
                String.join(", ", removed));
            err.flush();
        }
        final SoakRunner.Outcome outcome;
        try (Interrupt interrupt = Interrupt.install(() ->
        {
            err.println("vlink soak: interrupted: traffic stops; draining, then the summary (Ctrl-C again quits now)");
            err.flush();
        }))
        {
            options.stop = interrupt::interrupted;
            outcome = SoakRunner.run(options, out);
        }
        catch (final RuntimeException ex)
        {
            err.println("vlink soak: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        final SoakResult result = outcome.result;
        printSummary(out, result);
        final String document = result.toJson();
        if ("-".equals(run.json))
        {
            out.println(document);
        }
        out.flush();
        if (null != outcome.captureFailure)
        {
            // the capture is an output: its failure is said on its own and leaves the data verdict alone
            outputs.failed("--capture " + capture + ": " + captureReason(outcome.captureFailure));
        }
        outputs.writeJson(() -> document + "\n");
        outputs.writeReport(() -> HtmlReport.render(result, outcome.timeline, outcome.latency, outcome.steadyLatency));
        if (result.interrupted)
        {
            return Interrupt.EXIT_INTERRUPTED;
        }
        return outputs.exitCode(result.ok() ? 0 : Vlink.EXIT_FAILURE);
    }

    /**
     * @param failure what stopped the capture.
     * @return the system's reason, how many records the file keeps, and that they decode.
     */
    private static String captureReason(final CaptureStoppedException failure)
    {
        final Throwable cause = failure.getCause();
        final String reason = cause instanceof IOException ? OutputFile.reason((IOException)cause) :
            String.valueOf(cause.getMessage());
        return reason + "; the capture stopped after " + failure.records() + " records, which the file keeps " +
            "(vlink decode reads them)";
    }

    /**
     * {@code --serve}: port B for one soak that joins from another host; this side prints what it serves, who joined
     * and the soak's verdict, and exits as the soak did.
     */
    private int serve(final SoakSettings options, final PrintWriter out, final PrintWriter err)
    {
        final java.net.InetSocketAddress listen = address("--serve", serve);
        try (Interrupt interrupt = Interrupt.install(() ->
        {
            err.println("vlink soak: interrupted: the soak that joined is told to stop (Ctrl-C again quits now)");
            err.flush();
        }))
        {
            return SoakReceiver.serve(options, listen, out, err, interrupt::interrupted);
        }
        catch (final RuntimeException ex)
        {
            err.println("vlink soak: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
    }

    /** The options that describe a run belong to the soak that joins a {@code --serve}, not to it. */
    private void checkServeOptions()
    {
        for (final String name : List.of("--seconds", "--packets", "--qos", "--port-type", "--vls", "--size",
            "--sizes", "--rate", "--faults", "--allow-fewer-faults", "--seed", "--capture", "--json", "--report",
            "--peer"))
        {
            if (spec.commandLine().getParseResult().hasMatchedOption(name))
            {
                throw usage("--serve: " + name + " belongs to the soak that joins (vlink soak --peer HOST:PORT " +
                    name + " ...): it gives the run");
            }
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--link") && !"udp".equals(link))
        {
            throw usage("--serve: --link " + link + ": a soak on another host joins over UDP; drop --link");
        }
        link = "udp";
    }

    /**
     * @param option the option.
     * @param text   {@code HOST}, {@code HOST:PORT} or {@code [IPV6]:PORT}; the port defaults to
     *               {@link SoakReceiver#DEFAULT_PORT}.
     * @return the address, resolved.
     */
    private java.net.InetSocketAddress address(final String option, final String text)
    {
        String host = text;
        int port = SoakReceiver.DEFAULT_PORT;
        final int colon = text.lastIndexOf(':');
        if (colon >= 0 && (text.indexOf(':') == colon || text.startsWith("[")) && !text.endsWith("]"))
        {
            host = text.substring(0, colon);
            try
            {
                port = Integer.parseInt(text.substring(colon + 1));
            }
            catch (final NumberFormatException ex)
            {
                port = -1;
            }
            if (port < 0 || port > 65535)
            {
                throw usage(option + " " + text + ": '" + text.substring(colon + 1) + "' is not a port (0 to 65535)");
            }
        }
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final java.net.InetSocketAddress address = new java.net.InetSocketAddress(host, port);
        if (address.isUnresolved())
        {
            throw usage(option + " " + text + ": cannot resolve the host '" + host + "'");
        }
        return address;
    }

    private ParameterException usage(final String message)
    {
        return new ParameterException(spec.commandLine(), message);
    }

    private FaultSpec parseFaults()
    {
        try
        {
            return FaultSpec.parse(faults);
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage(ex.getMessage());
        }
    }

    /**
     * @return the key; null when the file cannot be read or its reading stopped at a limit, which is said on stderr in
     * one line as every command says it (a file that is read but is not a key is a usage error).
     */
    private LinkKey readKey(final PrintWriter err)
    {
        try
        {
            return LinkKey.read(key);
        }
        catch (final ConfigException ex)
        {
            final Diagnostic first = ex.diagnostics().get(0);
            if (ex.stopped() || first.message().startsWith(CANNOT_READ))
            {
                err.println(first);
                err.flush();
                return null;
            }
            throw usage(ex.getMessage());
        }
    }

    private boolean parseLink()
    {
        switch (link)
        {
            case "loopback":
                return false;
            case "udp":
                return true;
            case "shm":
                return false;
            default:
                throw usage("--link " + link + ": use loopback, udp or shm");
        }
    }

    private ThreadingMode parseThreads()
    {
        switch (threads)
        {
            case "auto":
                threads = SoakSettings.autoThreading().name().toLowerCase(Locale.ROOT);
                return parseThreads();
            case "invoker":
                return ThreadingMode.INVOKER;
            case "shared":
                return ThreadingMode.SHARED;
            case "split":
                return ThreadingMode.SPLIT;
            case "dedicated":
                return ThreadingMode.DEDICATED;
            default:
                throw usage("--threads " + threads + ": use auto, shared, split, dedicated or invoker");
        }
    }

    private String parseIdle()
    {
        switch (idle)
        {
            case "spin":
            case "backoff":
            case "yield":
            case "sleep":
                return idle;
            default:
                throw usage("--idle " + idle + ": use spin, backoff, yield or sleep");
        }
    }

    private void parseSizes(final SoakSettings options)
    {
        if (null != size && null != sizes)
        {
            throw usage("give --size or --sizes, not both");
        }
        if (null != sizes)
        {
            final String[] parts = sizes.split("-", -1);
            if (parts.length != 2)
            {
                throw usage("--sizes " + sizes + ": write MIN-MAX, e.g. 256-4096");
            }
            options.sizeMin = checkedSize("--sizes", parts[0].trim());
            options.sizeMax = checkedSize("--sizes", parts[1].trim());
            if (options.sizeMin > options.sizeMax)
            {
                throw usage("--sizes " + sizes + ": MIN is larger than MAX");
            }
        }
        else if (null != size)
        {
            options.sizeMin = checkedSize("--size", Integer.toString(size));
            options.sizeMax = options.sizeMin;
        }
    }

    private int checkedSize(final String option, final String text)
    {
        final int value;
        try
        {
            value = Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw usage(option + ": '" + text + "' is not a number of bytes");
        }
        if (value < SoakTraffic.MIN_SIZE || value > SoakTraffic.MAX_SIZE || (value & 3) != 0)
        {
            throw usage(option + ": " + value + " bytes: a packet size is a multiple of 4 from " +
                SoakTraffic.MIN_SIZE + " (LRH, BTH, the soak header and ICRC) to " + SoakTraffic.MAX_SIZE);
        }
        return value;
    }

    private QosConfig readQos(final PrintWriter err)
    {
        QosConfig qos = QosConfig.seedExample();
        if (null != qosFile)
        {
            final Result<QosConfig> read = QosReader.read(qosFile, portType, false);
            if (Diagnostics.refused(err, qosFile, read, "nothing is run"))
            {
                return null;
            }
            qos = read.value();
        }
        if (null != vls)
        {
            if (!QosConfig.isDataVlCount(vls))
            {
                throw usage("--vls " + vls + ": a port has 1, 2, 4, 8 or 15 data VLs");
            }
            try
            {
                qos = qos.toBuilder().dataVls(vls).build();
            }
            catch (final IllegalArgumentException ex)
            {
                throw usage("--vls " + vls + ": " + ex.getMessage());
            }
        }
        return qos;
    }

    /**
     * Over UDP the kernel's socket buffer should hold every credit window (docs/engine.md): if it cannot, datagrams are
     * lost that credits did not allow for; with link-level retry they are sent again (slower), without it the soak
     * reports them as losses.
     */
    private static void warnIfSocketBuffersAreSmall(final PrintWriter err, final int dataVls, final boolean retry)
    {
        final Path rmemMax = Path.of("/proc/sys/net/core/rmem_max");
        try (InputStream in = Files.newInputStream(rmemMax))
        {
            // read to the end, bounded: procfs reports a length of 0 (or less than the content), Files.readString
            // trusts it; the file is one number
            final long max = Long.parseLong(new String(in.readNBytes(64), StandardCharsets.US_ASCII).trim());
            // each datagram costs the kernel about twice its bytes
            final long needed = 2L * dataVls * SoakSettings.VL_BUFFER_BLOCKS * 64;
            if (max < needed)
            {
                err.println("warning: net.core.rmem_max is " + max + " bytes; " + dataVls + " credit windows need " +
                    "about " + needed + ": the kernel may drop datagrams" + (retry ? ", which are then sent again" : "") +
                    " (sysctl -w net.core.rmem_max=" + Math.max(needed, 4L * 1024 * 1024) + ")");
                err.flush();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // not Linux, or not readable: nothing to check
        }
    }

    private static String sizeText(final SoakSettings options)
    {
        return options.sizeMin == options.sizeMax ? options.sizeMin + " B" :
            options.sizeMin + "-" + options.sizeMax + " B";
    }

    private static String fmt(final double value)
    {
        return value == Math.rint(value) ? Long.toString((long)value) : Double.toString(value);
    }

    private static void printSummary(final PrintWriter out, final SoakResult result)
    {
        out.println();
        out.println(String.format(Locale.ROOT, "%4s %6s %12s %12s %8s %8s %6s %6s %7s %10s %7s %9s",
            "VL", "driven", "sent", "received", "lost", "fault", "ooo", "dup", "damaged", "stalls", "share",
            "predicted"));
        for (final SoakResult.Vl v : result.vls)
        {
            out.println(String.format(Locale.ROOT, "%4d %6s %12d %12d %8d %8d %6d %6d %7d %10d %7.4f %9.4f",
                v.vl, v.driven ? "yes" : "no", v.sentPackets, v.receivedPackets, v.lost, v.faultLost, v.outOfOrder,
                v.duplicated, v.damaged, v.creditStalls, v.share, v.predictedShare));
        }
        out.println(String.format(Locale.ROOT, "VL15: sent %d, received %d, dropped %d, flushed %d",
            result.vl15Sent, result.vl15Received, result.vl15Dropped, result.vl15Flushed));
        final StringBuilder cells = new StringBuilder("cells per buffer class (share / weight share):");
        for (final SoakResult.Vl v : result.vls)
        {
            if (v.driven)
            {
                cells.append(String.format(Locale.ROOT, " VL%d %d (%.4f / %.4f)", v.vl, v.injectedCells, v.cellShare,
                    v.weightShare));
            }
        }
        out.println(cells.append(String.format(Locale.ROOT, " VL15 %d", result.vl15InjectedCells)));
        out.println(String.format(Locale.ROOT, "FCP: sent %d, received %d, discarded %d", result.fcpSent,
            result.fcpReceived, result.fcpDiscarded));
        out.println(result.retryText());
        if (!result.faultsInjected.isEmpty())
        {
            final StringBuilder line = new StringBuilder("faults (injected/detected):");
            result.faultsInjected.forEach((kind, count) ->
            {
                final Long seen = result.faultsDetected.get(kind);
                line.append(' ').append(kind.label()).append(' ').append(count).append('/')
                    .append(null == seen ? "-" : seen.toString());
                final Long asked = result.faultsScheduled.get(kind);
                final Long skipped = result.faultsSkippedForBounce.get(kind);
                if (null != asked && asked != count.longValue())
                {
                    line.append(" (").append(asked).append(" scheduled").append(null == skipped ? "" :
                        ", " + skipped + " while the link was down for link-bounce").append(')');
                }
            });
            out.println(line);
        }
        final StringBuilder discards = new StringBuilder("discards:");
        if (result.discards.isEmpty())
        {
            discards.append(" none");
        }
        result.discards.forEach((reason, count) ->
        {
            final String cause = result.discardCauses.get(reason);
            discards.append(discards.length() > "discards:".length() ? ", " : " ").append(reason).append(' ')
                .append(count).append(" (").append(null == cause ? "UNEXPLAINED" : cause).append(')');
        });
        out.println(discards);
        out.println("latency: " + result.latencyText());
        final StringBuilder invariants = new StringBuilder("invariants:");
        result.invariants.forEach((name, held) -> invariants.append(' ').append(name).append('=')
            .append(held ? "ok" : "FAILED"));
        out.println(invariants);
        for (final String violation : result.violations)
        {
            out.println("violation: " + violation);
        }
        if (result.interrupted)
        {
            out.println(String.format(Locale.ROOT, "soak: interrupted%s after %.1f s of traffic (%s for what ran)",
                result.interruptedAtPeer ? " at the peer (Ctrl-C there)" : "", result.seconds,
                result.ok() ? "every invariant held" : "FAILED"));
        }
        else
        {
            out.println(result.ok() ? "soak: ok" : "soak: FAILED");
        }
    }
}
