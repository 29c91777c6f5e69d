package io.vlink.tools;

import io.vlink.nic.agent.IdleStrategies;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import io.vlink.tools.perf.EngineTransport;
import io.vlink.tools.perf.PeerVanishedException;
import io.vlink.tools.perf.PerfPeer;
import io.vlink.tools.perf.PerfRow;
import io.vlink.tools.perf.PerfTransport;
import io.vlink.tools.perf.RingTransport;
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
        "serves (--server), the other connects; both print the result.",
    footer = {"", "Exit status: 0 the run completed; 1 the peer vanished, a bandwidth run lost messages, or --json " +
        "cannot be written (refused before the run); 4 the run completed but --json could not be written; 2 usage " +
        "error."})
public final class PerfCommand implements Callable<Integer>
{
    /** perftest's port. */
    public static final int DEFAULT_PORT = 18515;

    private static final int EXIT_USAGE = 2;

    /**
     * Default warm-ups. perftest needs none; a JVM does: until C2 has compiled the path, a message costs several
     * times more, and on two cores both busy with the test the compiler threads get little time, so a run whose
     * warm-up is short reports the compiler's progress. These counts are where the figures over shm on two vCPUs
     * stopped moving (about one second for latency, three for bandwidth; the runs: docs/performance.md, "vlink perf
     * between two processes"). Over UDP, whose round trip is ten times longer, the same counts take ten times as
     * long.
     */
    static final long LATENCY_WARMUP = 300_000;
    static final long BANDWIDTH_WARMUP = 2_000_000;

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

    @Option(names = "--warmup", paramLabel = "N",
        description = "Messages per size sent first and not counted (default: " + LATENCY_WARMUP + " for latency, " +
            BANDWIDTH_WARMUP + " for bandwidth: enough for the JIT to compile the path on two busy cores).")
    Long warmup;

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
        final boolean[] printed = new boolean[1];
        final Runnable connected = () ->
        {
            if (!printed[0])
            {
                printed[0] = true;
                preamble(out, run);
            }
        };
        long lost = 0;
        try
        {
            if (server)
            {
                peer.server(run.transports, connected, row -> print(out, rows, row), reason ->
                {
                    err.println("vlink perf: the client vanished (" + reason + "); waiting for the next client");
                    err.flush();
                    rows.clear();
                });
            }
            else
            {
                try (PerfTransport transport = run.transports.get())
                {
                    lost = peer.client(transport, connected, row -> print(out, rows, row));
                }
            }
        }
        catch (final PeerVanishedException ex)
        {
            err.println("vlink perf: the server vanished: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        catch (final IllegalStateException | UncheckedIOException ex)
        {
            err.println("vlink perf: " + ex.getMessage());
            err.flush();
            return Vlink.EXIT_FAILURE;
        }
        if (printed[0])
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

    /** perftest's preamble, once the link is up: what runs, how, and what is not counted; then the header. */
    private void preamble(final PrintWriter out, final Run run)
    {
        out.println(DASHES);
        out.println("                    " + run.title);
        out.println(" Side           : " + (server ? "server" : "client"));
        out.println(" Link           : " + run.linkText);
        out.println(" Threads        : " + run.threadsText);
        out.println(" Warm-up        : " + run.settings.warmup + " messages per size, not counted");
        out.println(" Measured       : " + (null != duration ? duration + " s per size" : run.settings.iterations +
            " messages per size") + (run.settings.bandwidth ? "" : "; latency is half the round trip"));
        out.println(DASHES);
        out.println(run.settings.bandwidth ? PerfRow.BANDWIDTH_HEADER : PerfRow.LATENCY_HEADER);
        out.flush();
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
        Supplier<PerfTransport> transports;
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
        if (null != warmup && warmup < 0)
        {
            throw new IllegalArgumentException("--warmup " + warmup + ": give 0 or more messages");
        }
        run.settings.warmup = null != warmup ? warmup : run.settings.bandwidth ? BANDWIDTH_WARMUP : LATENCY_WARMUP;
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
        run.threadsText = ring ? "none (no engine); the application's thread spins, then yields" :
            ThreadingMode.INVOKER == mode ?
            "invoker (the application's thread runs the engine; it spins, then yields)" :
            mode.name().toLowerCase(Locale.ROOT) + ", idle " + idle + "; the application's thread spins, then yields";
        if (shm)
        {
            final Path file = path.toAbsolutePath();
            final ShmLink.Role role = server ? ShmLink.Role.A : ShmLink.Role.B;
            run.linkText = ring ? "shm " + file + " (bare rings, no engine)" : "shm " + file;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = ring ? () -> new RingTransport(file, role) :
                () -> EngineTransport.shm(file, role, mode, idle, linkTimeoutNs);
        }
        else if (server)
        {
            final int udpPort = null != port ? checkPort(port) : DEFAULT_PORT;
            run.linkText = "udp, port " + udpPort;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = () -> EngineTransport.udpServer(udpPort, mode, idle, linkTimeoutNs);
        }
        else
        {
            final InetSocketAddress address = address(connect);
            run.linkText = "udp, server " + address;
            final long timeoutNs = run.settings.linkUpTimeoutNs;
            final long linkTimeoutNs = run.settings.peerTimeoutNs;
            run.transports = () -> EngineTransport.udpClient(address, mode, idle, timeoutNs, linkTimeoutNs);
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

    private String json(final Run run, final List<PerfRow> rows, final boolean ok)
    {
        final JsonWriter writer = new JsonWriter();
        writer.beginObject()
            .field("ok", ok)
            .field("test", test)
            .field("side", server ? "server" : "client")
            .field("link", run.linkText)
            .field("threads", run.threadsText)
            .field("warmup_messages", run.settings.warmup)
            .field("latency_is", run.settings.bandwidth ? "" : "half the round trip")
            .name("results").beginArray();
        for (final PerfRow row : rows)
        {
            row.json(writer);
        }
        writer.endArray().endObject();
        return writer + "\n";
    }
}
