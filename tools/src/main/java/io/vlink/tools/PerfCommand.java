package io.vlink.tools;

import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import io.vlink.tools.json.JsonWriter;
import io.vlink.tools.perf.EngineTransport;
import io.vlink.tools.perf.PeerVanishedException;
import io.vlink.tools.perf.PerfPeer;
import io.vlink.tools.perf.PerfRow;
import io.vlink.tools.perf.PerfTransport;
import io.vlink.tools.perf.RingTransport;
import org.agrona.concurrent.UnsafeBuffer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * {@code vlink perf} (docs/cli.md): perftest's {@code ib_send_lat} and {@code ib_send_bw} over vlink, with their
 * output. One side serves ({@code --server}), the other connects; both print the result. {@code ring-lat} measures
 * the bare mapped rings of the shm link without the engine: the baseline of {@code send-lat --link shm}.
 */
@Command(
    name = "perf",
    mixinStandardHelpOptions = true,
    description = "Measures latency (send-lat: half the round trip of one message in flight) or bandwidth (send-bw) " +
        "between two processes through the engine over UDP or shared memory, as perftest's ib_send_lat and " +
        "ib_send_bw do and print it; ring-lat: the same bytes over the shm link's bare rings, no engine. One side " +
        "serves (--server), the other connects; both print the result. The vlink launcher runs perf without " +
        "Agrona's bounds checks (-Dagrona.disable.bounds.checks=true, as the benchmarks run; " +
        "VLINK_JAVA_OPTS=-Dagrona.disable.bounds.checks=false turns them back on); the preamble says which applies.",
    footer = {"", "Exit status: 0 the run completed; 1 the peer vanished, a message was lost while the link stayed " +
        "up, a bandwidth run lost messages, or --json cannot be written (refused before the run); 4 the run " +
        "completed but --json could not be written; 2 usage error."})
public final class PerfCommand implements Callable<Integer>
{
    /** perftest's port. */
    public static final int DEFAULT_PORT = 18515;

    private static final int EXIT_USAGE = 2;

    /**
     * The default warm-ups, in seconds: the first size's; each later size of {@code -a} warms for a tenth of it.
     * perftest needs none; a JVM does: until C2 has compiled the path a message costs several times more, and on two
     * cores busy with the test the compiler threads get little time. These are where the figures over shm on two vCPUs
     * stopped moving (about one second for latency, three for bandwidth: docs/performance.md, "vlink perf between two
     * processes"). A time, not a count, so that the warm-up is as long over UDP (a round trip ten times shm's, a
     * hundred on a loaded machine) as over shm: the 300,000 latency messages that warmed shm for a second took minutes
     * over UDP on a loaded machine.
     */
    static final double LATENCY_WARMUP_S = 1.0;
    static final double BANDWIDTH_WARMUP_S = 3.0;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "TEST", description = "send-lat, send-bw or ring-lat.")
    String test;

    @Option(names = "--server", description = "Serve: wait for a client, run its test, print the result, exit.")
    boolean server;

    @Option(names = "--connect", paramLabel = "HOST[:PORT]", description = "With --link udp: the server to connect to.")
    String connect;

    @Option(names = "--link", paramLabel = "KIND",
        description = "udp or shm (default: udp; ring-lat: shm, its only link).")
    String link;

    @Option(names = "--port", paramLabel = "N",
        description = "With --link udp: the server's UDP port (default: " + DEFAULT_PORT + ", perftest's).")
    Integer port;

    @Option(names = "--path", paramLabel = "FILE", description = "With --link shm: the link's file, the same on both sides.")
    Path path;

    @Option(names = "-s", paramLabel = "BYTES",
        description = "Message size, 1 to 4096 (one packet) (default: 2 for latency, 4096 for bandwidth).")
    Integer size;

    @Option(names = "-n", paramLabel = "ITERS",
        description = "Measured messages per size (default: 1000 for latency, 5000 for bandwidth, as perftest).")
    Long iterations;

    @Option(names = "-D", paramLabel = "SECONDS", description = "Measure each size for SECONDS instead of -n messages.")
    Double duration;

    @Option(names = "-a", description = "All sizes: 2 to 4096 bytes by powers of two, one row each.")
    boolean all;

    @Option(names = "--warmup", paramLabel = "SECONDS",
        description = "Messages are sent for SECONDS first and not counted, with a line while it warms (default: " +
            LATENCY_WARMUP_S + " for latency, " + BANDWIDTH_WARMUP_S + " for bandwidth: the JIT compiles the path); " +
            "each further size of -a warms for a tenth of it.")
    Double warmup;

    @Option(names = "--retry", paramLabel = "on|off",
        description = "Link-level retry on both sides (they must agree): every frame numbered, acknowledged and sent " +
            "again when lost (default: on with --link udp, off with shm).")
    String retry;

    @Option(names = "--sl", paramLabel = "SL", defaultValue = "0", description = "The SL, 0 to 15 (default: ${DEFAULT-VALUE}).")
    int sl;

    @Option(names = "--threads", paramLabel = "MODE", defaultValue = "invoker",
        description = "Engine threads: invoker (the application's thread runs the engine), shared, split or " +
            "dedicated (default: ${DEFAULT-VALUE}).")
    String threads;

    @Option(names = "--idle", paramLabel = "STRATEGY", defaultValue = "backoff",
        description = "Idle strategy of the engine's threads (not invoker): spin, backoff, yield, sleep " +
            "(default: ${DEFAULT-VALUE}). The application's thread spins, then yields.")
    String idle;

    @Option(names = "--peer-timeout", paramLabel = "SECONDS", defaultValue = "5",
        description = "A peer that sends nothing for SECONDS during a test is gone (default: ${DEFAULT-VALUE}).")
    double peerTimeout;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the figures as JSON to FILE.")
    Path json;

    @Override
    public Integer call()
    {
        final PrintWriter out = spec.commandLine().getOut();
        final PrintWriter err = spec.commandLine().getErr();
        final Run run;
        try
        {
            run = parse();
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("vlink perf: " + ex.getMessage());
            err.println("see 'vlink perf --help'");
            err.flush();
            return EXIT_USAGE;
        }
        try (Outputs outputs = new Outputs("vlink perf", err))
        {
            try
            {
                // before the run: a run of minutes must not end in a file it cannot write
                outputs.openSummaries(null == json ? null : json.toString(), null, null);
                if (null != path && (!Files.exists(path) || Files.isDirectory(path)))
                {
                    // the side that starts first makes the link's file: its directory must take it
                    OutputFile.checkCreatable("--path", path);
                }
                else if (null != path && !Files.isWritable(path))
                {
                    throw new OutputFile.Failed("--path", path, "Permission denied");
                }
            }
            catch (final OutputFile.Failed ex)
            {
                return outputs.refused(ex);
            }
            final List<PerfRow> rows = new ArrayList<>();
            final int exit = measure(run, rows, out, err);
            if (0 == exit || !rows.isEmpty())
            {
                outputs.writeJson(() -> json(run, rows, 0 == exit));
            }
            return outputs.exitCode(exit);
        }
    }

    /**
     * Serve or connect, and print the rows.
     *
     * @return 0 when the run completed, 1 when the peer vanished or a bandwidth run lost messages.
     */
    private int measure(final Run run, final List<PerfRow> rows, final PrintWriter out, final PrintWriter err)
    {
        final PerfPeer peer = new PerfPeer(run.settings);
        final PerfPeer.Listener listener = new PerfPeer.Listener()
        {
            @Override
            public void connected(final PerfPeer.Connected connected)
            {
                run.connected = connected;
                preamble(out, run, connected);
            }

            @Override
            public void warming(final long warmupNs)
            {
                // while it warms the user sees why nothing comes yet; the header follows at once, the rows below it
                out.println(String.format(Locale.ROOT, " Warming up for %.2f s (not counted)...", warmupNs / 1e9));
                out.println(run.settings.bandwidth ? PerfRow.BANDWIDTH_HEADER : PerfRow.LATENCY_HEADER);
                out.flush();
            }

            @Override
            public void row(final PerfRow row)
            {
                print(out, rows, row);
            }
        };
        long lost = 0;
        try
        {
            if (server)
            {
                peer.server(run.transports, listener, reason ->
                {
                    if (null != run.connected)
                    {
                        out.println(DASHES); // the vanished client's run ends here; the next one's follows
                        out.flush();
                    }
                    err.println("vlink perf: the client vanished (" + reason + "); waiting for the next client");
                    err.flush();
                    rows.clear();
                    run.connected = null;
                });
            }
            else
            {
                try (PerfTransport transport = run.transports.get())
                {
                    lost = peer.client(transport, listener);
                }
            }
        }
        catch (final PeerVanishedException ex)
        {
            err.println(ex.lost() ? "vlink perf: " + ex.getMessage() :
                "vlink perf: the server vanished: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        catch (final IllegalStateException | UncheckedIOException ex)
        {
            err.println("vlink perf: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        if (null != run.connected)
        {
            out.println(DASHES);
        }
        out.flush();
        if (lost > 0)
        {
            err.println("vlink perf: the server received " + lost + " fewer messages than were sent (a lossy link)");
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        return 0;
    }

    private static final String DASHES = "-".repeat(87);

    /**
     * perftest's preamble, once both sides know the run (on the server: the client's): the test, perftest's lines in
     * its layout (two columns where perftest has two), vlink's own lines after them, and both addresses.
     */
    private void preamble(final PrintWriter out, final Run run, final PerfPeer.Connected connected)
    {
        final PerfPeer.Settings settings = connected.run();
        final boolean engine = null != connected.local();
        out.println(DASHES);
        out.println("                    " + run.title);
        out.println(pair("Dual-port", "OFF", "Device", engine ? "vlink engine" : "none (bare rings)"));
        out.println(pair("Number of qps", "1", "Transport type", "IB"));
        out.println(pair("Connection type", engine ? "RC" : "none", "Using SRQ", "OFF"));
        if (engine)
        {
            out.println(line("Mtu", connected.mtu() + "[B]"));
        }
        out.println(line("Link type", "IB"));
        out.println(line("SL", String.valueOf(settings.sl)));
        out.println(line("Max inline data", connected.maxInline() + "[B]"));
        out.println(line("Data ex. method", "in-band" + (run.udp ? " (after a UDP hello)" : "")));
        out.println(line("Side", server ? "server" : "client"));
        out.println(line("vlink link", run.linkText));
        out.println(line("Threads", run.threadsText));
        out.println(line("Bounds checks", UnsafeBuffer.SHOULD_BOUNDS_CHECK ?
            "on (Agrona checks every buffer access; the vlink launcher turns them off for perf)" :
            "off (-D" + UnsafeBuffer.DISABLE_BOUNDS_CHECKS_PROP_NAME + "=true, as the benchmarks run)"));
        out.println(line("Warm-up", warmupText(settings)));
        out.println(line("Measured", measuredText(settings)));
        out.println(DASHES);
        out.println(" local address: " + addressText(connected.local()));
        out.println(" remote address: " + addressText(connected.remote()));
        out.println(DASHES);
        out.flush();
    }

    private static String pair(final String label, final String value, final String label2, final String value2)
    {
        return line(label, value) + "\t\t" + String.format(Locale.ROOT, "%-15s: %s", label2, value2);
    }

    private static String line(final String label, final String value)
    {
        return String.format(Locale.ROOT, " %-16s: %s", label, value);
    }

    /** perftest's form: {@code LID 0x01 QPN 0x0011 PSN 0x4e6a1b}. */
    static String addressText(final PerfTransport.Address address)
    {
        if (null == address)
        {
            return "none (bare rings, no queue pair)";
        }
        return String.format(Locale.ROOT, "LID %#04x QPN %#06x PSN %#06x", address.lid(), address.qpn(), address.psn());
    }

    private static String warmupText(final PerfPeer.Settings settings)
    {
        return String.format(Locale.ROOT, "%.2f s before the first size, %.2f s before each other; not counted",
            settings.warmupNs(0) / 1e9, settings.warmupNs(1) / 1e9);
    }

    private static String measuredText(final PerfPeer.Settings settings)
    {
        return (0 != settings.durationNs ? String.format(Locale.ROOT, "%.2f s per size", settings.durationNs / 1e9) :
            settings.iterations + " messages per size") + (settings.bandwidth ? "" : "; latency is half the round trip");
    }

    private static void print(final PrintWriter out, final List<PerfRow> rows, final PerfRow row)
    {
        rows.add(row);
        out.println(row.format());
        out.flush();
    }

    /** What to run, once every option was checked. */
    private static final class Run
    {
        final PerfPeer.Settings settings = new PerfPeer.Settings();
        String title;
        String linkText;
        String threadsText;
        String threadsMode;
        boolean udp;
        int udpPort;
        String serverHost;
        Supplier<PerfTransport> transports;
        /** The run both sides agreed on, once connected (the server's: the client's settings). */
        PerfPeer.Connected connected;
    }

    private Run parse()
    {
        final Run run = new Run();
        final boolean ring;
        switch (test)
        {
            case "send-lat":
                run.title = "Send Latency Test";
                ring = false;
                break;
            case "send-bw":
                run.title = "Send BW Test";
                run.settings.bandwidth = true;
                ring = false;
                break;
            case "ring-lat":
                run.title = "Ring Latency Test (the shm link's bare rings, no engine)";
                ring = true;
                break;
            default:
                throw new IllegalArgumentException("unknown test '" + test + "': use send-lat, send-bw or ring-lat");
        }
        final String kind = null != link ? link : ring ? "shm" : "udp";
        if (!"udp".equals(kind) && !"shm".equals(kind))
        {
            throw new IllegalArgumentException("--link " + link + ": use udp or shm");
        }
        if (ring && !"shm".equals(kind))
        {
            throw new IllegalArgumentException("ring-lat measures the shm link's rings: use --link shm --path FILE");
        }
        final boolean shm = "shm".equals(kind);
        if (shm)
        {
            if (null == path)
            {
                throw new IllegalArgumentException("--link shm needs --path FILE (the same file on both sides)");
            }
            if (null != connect || null != port)
            {
                throw new IllegalArgumentException((null != connect ? "--connect" : "--port") +
                    " is for --link udp; a shm link is named by --path");
            }
        }
        else
        {
            if (null != path)
            {
                throw new IllegalArgumentException("--path is for --link shm");
            }
            if (server == (null != connect))
            {
                throw new IllegalArgumentException(server ? "--server and --connect: give one of them" :
                    "give --server, or --connect HOST[:PORT]");
            }
        }
        if (null != size && all)
        {
            throw new IllegalArgumentException("-s and -a: give one of them");
        }
        if (null != size && (size < 1 || size > PerfPeer.MAX_SIZE))
        {
            throw new IllegalArgumentException("-s " + size + ": use 1 to " + PerfPeer.MAX_SIZE + " bytes (one packet)");
        }
        run.settings.sizes = all ? allSizes() : new int[] {null != size ? size : run.settings.bandwidth ? 4096 : 2};
        if (null != iterations && null != duration)
        {
            throw new IllegalArgumentException("-n and -D: give one of them");
        }
        if (null != iterations && iterations < 1)
        {
            throw new IllegalArgumentException("-n " + iterations + ": give at least 1 message");
        }
        if (null != duration && !(duration > 0 && duration <= 3600))
        {
            throw new IllegalArgumentException("-D " + duration + ": give 0 to 3600 seconds (more than 0)");
        }
        run.settings.iterations = null != iterations ? iterations : run.settings.bandwidth ? 5000 : 1000;
        run.settings.durationNs = null != duration ? (long)(duration * 1e9) : 0;
        if (null != warmup && !(warmup >= 0 && warmup <= 3600))
        {
            throw new IllegalArgumentException("--warmup " + warmup + ": give 0 to 3600 seconds");
        }
        run.settings.warmupNs = (long)((null != warmup ? warmup : run.settings.bandwidth ? BANDWIDTH_WARMUP_S : LATENCY_WARMUP_S) * 1e9);
        if (sl < 0 || sl > 15)
        {
            throw new IllegalArgumentException("--sl " + sl + ": use 0 to 15");
        }
        run.settings.sl = sl;
        if (!(peerTimeout > 0 && peerTimeout <= 3600))
        {
            throw new IllegalArgumentException("--peer-timeout " + peerTimeout + ": give 0 to 3600 seconds (more than 0)");
        }
        run.settings.peerTimeoutNs = (long)(peerTimeout * 1e9);
        final ThreadingMode mode = ThreadingMode.parse(threads);
        IdleStrategies.supplier(idle);
        final Boolean linkRetry = SoakOptions.parseRetry(retry);
        if (ring && null != linkRetry)
        {
            throw new IllegalArgumentException("--retry: ring-lat measures the bare rings, without an engine or retry");
        }
        final String retryText = null == linkRetry ? (shm ? "" : ", retry on") : linkRetry ? ", retry on" : ", retry off";
        run.threadsMode = ring ? "none" : mode.name().toLowerCase(Locale.ROOT);
        run.udp = !shm;
        run.threadsText = ring ? "none (no engine); the application's thread spins, then yields" :
            ThreadingMode.INVOKER == mode ?
            "invoker (the application's thread runs the engine; it spins, then yields)" :
            mode.name().toLowerCase(Locale.ROOT) + ", idle " + idle + "; the application's thread spins, then yields";
        if (shm)
        {
            final Path file = path.toAbsolutePath();
            final ShmLink.Role role = server ? ShmLink.Role.A : ShmLink.Role.B;
            run.linkText = ring ? "shm " + file + " (bare rings, no engine)" : "shm " + file + retryText;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = ring ? () -> new RingTransport(file, role) :
                () -> EngineTransport.shm(file, role, mode, idle, linkTimeoutNs, linkRetry);
        }
        else if (server)
        {
            final int udpPort = null != port ? checkPort(port) : DEFAULT_PORT;
            run.udpPort = udpPort;
            run.linkText = "udp, port " + udpPort + retryText;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = () -> EngineTransport.udpServer(udpPort, mode, idle, linkTimeoutNs, linkRetry);
        }
        else
        {
            final InetSocketAddress address = address(connect);
            run.udpPort = address.getPort();
            run.serverHost = address.getHostString();
            run.linkText = "udp, server " + address + retryText;
            final long timeoutNs = run.settings.linkUpTimeoutNs;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = () -> EngineTransport.udpClient(address, mode, idle, timeoutNs, linkTimeoutNs, linkRetry);
        }
        return run;
    }

    private InetSocketAddress address(final String hostPort)
    {
        final int colon = hostPort.lastIndexOf(':');
        final boolean hasPort = colon > 0 && hostPort.indexOf(':') == colon;
        final String host = hasPort ? hostPort.substring(0, colon) : hostPort;
        int udpPort = null != port ? checkPort(port) : DEFAULT_PORT;
        if (hasPort)
        {
            try
            {
                udpPort = checkPort(Integer.parseInt(hostPort.substring(colon + 1)));
            }
            catch (final NumberFormatException ex)
            {
                throw new IllegalArgumentException("--connect " + hostPort + ": the port is not a number");
            }
        }
        final InetSocketAddress address = new InetSocketAddress(host, udpPort);
        if (address.isUnresolved())
        {
            throw new IllegalArgumentException("--connect " + hostPort + ": cannot resolve " + host);
        }
        return address;
    }

    private static int checkPort(final int udpPort)
    {
        if (udpPort < 1 || udpPort > 65535)
        {
            throw new IllegalArgumentException("port " + udpPort + ": use 1 to 65535");
        }
        return udpPort;
    }

    private static int[] allSizes()
    {
        final int[] sizes = new int[Integer.numberOfTrailingZeros(PerfPeer.MAX_SIZE)];
        for (int i = 0; i < sizes.length; i++)
        {
            sizes[i] = 2 << i;
        }
        return sizes;
    }

    /**
     * The run as JSON, every field a plain value (numbers as numbers, names as bare words, no units in strings: the
     * units are in the keys), from the run both sides agreed on (the server's: the client's settings).
     */
    private String json(final Run run, final List<PerfRow> rows, final boolean ok)
    {
        final PerfPeer.Settings settings = null != run.connected ? run.connected.run() : run.settings;
        final JsonWriter writer = new JsonWriter();
        writer.beginObject()
            .field("ok", ok)
            .field("test", test)
            .field("side", server ? "server" : "client")
            .field("link", run.udp ? "udp" : "shm");
        if (null != path)
        {
            writer.field("path", path.toAbsolutePath().toString());
        }
        else
        {
            writer.field("port", run.udpPort);
            if (!server)
            {
                writer.field("server", run.serverHost);
            }
        }
        writer.field("threads", run.threadsMode);
        if (!"none".equals(run.threadsMode) && !"invoker".equals(run.threadsMode))
        {
            writer.field("idle", idle);
        }
        writer.field("sl", settings.sl)
            .field("warmup_seconds", settings.warmupNs(0) / 1e9)
            .field("size_warmup_seconds", settings.warmupNs(1) / 1e9);
        if (0 != settings.durationNs)
        {
            writer.field("duration_seconds", settings.durationNs / 1e9);
        }
        else
        {
            writer.field("iterations", settings.iterations);
        }
        if (!settings.bandwidth)
        {
            writer.field("latency_is_half_round_trip", true);
        }
        if (null != run.connected)
        {
            writer.field("mtu", run.connected.mtu()).field("max_inline_bytes", run.connected.maxInline());
            address(writer, "local", run.connected.local());
            address(writer, "remote", run.connected.remote());
        }
        writer.name("results").beginArray();
        for (final PerfRow row : rows)
        {
            row.json(writer);
        }
        writer.endArray().endObject();
        return writer + "\n";
    }

    private static void address(final JsonWriter writer, final String side, final PerfTransport.Address address)
    {
        if (null != address)
        {
            writer.name(side).beginObject().field("lid", address.lid()).field("qpn", address.qpn())
                .field("psn", address.psn()).endObject();
        }
    }
}
