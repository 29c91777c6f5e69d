package io.vlink.tools.opensm;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The real InfiniBand management stack on one simulated fabric: {@code ibsim} (ibsim-utils) runs a net file, OpenSM
 * configures it through ibsim's {@code libumad2sim.so} preload, and infiniband-diags read back what it programmed.
 * Every process is started by this class and ended by its pid, each wait bounded by a deadline; each fabric gets its
 * own {@code IBSIM_SOCKNAME}, so runs (and colleagues' runs) do not meet. A missing tool fails the test with the
 * packages to install: nothing is skipped.
 */
final class RealTools implements AutoCloseable
{
    /** The Debian packages that hold the tools ({@code .ci/run} installs them). */
    static final String PACKAGES = "opensm ibsim-utils infiniband-diags";
    private static final String[] TOOLS = {"ibsim", "opensm", "ibnetdiscover", "ibroute", "dump_fts", "smpquery"};
    private static final String[] SEARCH = {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"};
    private static final long START_DEADLINE_MS = 10_000;
    private static final long TOOL_DEADLINE_MS = 60_000;
    private static final long STOP_DEADLINE_MS = 5_000;
    private static final AtomicInteger RUNS = new AtomicInteger();

    private final Path dir;
    private final String socket;
    private final Process ibsim;
    private final Path umad2sim;

    private RealTools(final Path dir, final String socket, final Process ibsim, final Path umad2sim)
    {
        this.dir = dir;
        this.socket = socket;
        this.ibsim = ibsim;
        this.umad2sim = umad2sim;
    }

    /**
     * Starts ibsim on a net file, in a directory of its own.
     *
     * @param net the fabric.
     * @param dir where ibsim, OpenSM and the diags work and write.
     * @return the running fabric.
     * @throws IOException when a process cannot be started.
     */
    static RealTools start(final Path net, final Path dir) throws IOException
    {
        final Path umad2sim = umad2sim();
        for (final String tool : TOOLS)
        {
            find(tool);
        }
        Files.createDirectories(dir.resolve("cache"));
        final String socket = "vlink" + ProcessHandle.current().pid() + "x" + RUNS.incrementAndGet();
        final Path log = dir.resolve("ibsim.log");
        final ProcessBuilder builder = new ProcessBuilder(find("ibsim").toString(), "-s", "-n", net.toString())
            .directory(dir.toFile()).redirectErrorStream(true)
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("IBSIM_SOCKNAME", socket);
        final Process ibsim = builder.start();
        final RealTools tools = new RealTools(dir, socket, ibsim, umad2sim);
        final CountDownLatch readyOrGone = new CountDownLatch(1);
        final AtomicBoolean ready = new AtomicBoolean();
        final Thread copier = new Thread(() -> copyLog(ibsim, log, ready, readyOrGone), "ibsim-log " + socket);
        copier.setDaemon(true);
        copier.start();
        final boolean answered;
        try
        {
            answered = readyOrGone.await(START_DEADLINE_MS, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            tools.close();
            throw new IOException("interrupted while ibsim came up on " + net, ex);
        }
        if (!answered || !ready.get())
        {
            tools.close();
            fail("ibsim did not come up on " + net + " within " + START_DEADLINE_MS + " ms:\n" +
                (Files.exists(log) ? Files.readString(log, StandardCharsets.ISO_8859_1) : "(no output)"));
        }
        return tools;
    }

    /**
     * Runs OpenSM once, then once more (a running OpenSM's next sweep: switch ports then have the operational VLs
     * the first pass set, and get tables masked to them), each {@code -o} (sweep once and exit).
     *
     * @param options engine, LMC, configuration: e.g. {@code -R minhop -l 1 -F opensm.conf}.
     * @return the dump of the forwarding tables OpenSM wrote ({@code opensm-lfts.dump}).
     * @throws IOException when OpenSM cannot run or wrote no dump.
     */
    Path opensm(final String... options) throws IOException
    {
        for (int pass = 1; pass <= 2; pass++)
        {
            final List<String> command = new ArrayList<>(List.of(find("opensm").toString(), "-o", "-e", "-s", "0",
                "-f", dir.resolve("opensm" + pass + ".log").toString(), "-D", "0x43", "--dump_files_dir",
                dir.toString()));
            command.addAll(List.of(options));
            final Run run = run(command, Map.of("OSM_CACHE_DIR", dir.resolve("cache").toString(),
                "OSM_TMP_DIR", dir.resolve("cache").toString()));
            if (run.exit != 0)
            {
                fail("opensm " + String.join(" ", options) + " exited " + run.exit + ":\n" + run.out + run.err);
            }
        }
        final Path dump = dir.resolve("opensm-lfts.dump");
        if (!Files.exists(dump))
        {
            fail("opensm " + String.join(" ", options) + " wrote no opensm-lfts.dump; its log: " +
                Files.readString(dir.resolve("opensm2.log"), StandardCharsets.ISO_8859_1));
        }
        return dump;
    }

    /**
     * @return the routing engine OpenSM's log says it configured the switches with ({@code minhop}, {@code updn}, ...).
     * @throws IOException when the log cannot be read.
     */
    String engineUsed() throws IOException
    {
        final String log = Files.readString(dir.resolve("opensm2.log"), StandardCharsets.ISO_8859_1);
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\w+) tables configured on all switches")
            .matcher(log);
        String engine = "?";
        while (m.find())
        {
            engine = m.group(1);
        }
        return engine;
    }

    /**
     * Runs one diag (or any tool) against the fabric and returns what it printed.
     *
     * @param tool the tool and its arguments, e.g. {@code ibnetdiscover -g}.
     * @return its standard output.
     * @throws IOException when it cannot run or exits with an error.
     */
    String diag(final String... tool) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(tool));
        command.set(0, find(tool[0]).toString());
        final Run run = run(command, Map.of());
        if (run.exit != 0)
        {
            fail(String.join(" ", tool) + " exited " + run.exit + ":\n" + run.err);
        }
        return run.out;
    }

    /**
     * @param tool a tool and its arguments.
     * @return its standard output, whatever its exit code (ibroute fails for a switch no route reaches).
     * @throws IOException when it cannot run.
     */
    String diagAnyway(final String... tool) throws IOException
    {
        final List<String> command = new ArrayList<>(List.of(tool));
        command.set(0, find(tool[0]).toString());
        return run(command, Map.of()).out;
    }

    Path dir()
    {
        return dir;
    }

    private record Run(int exit, String out, String err)
    {
    }

    private Run run(final List<String> command, final Map<String, String> environment) throws IOException
    {
        final int n = RUNS.incrementAndGet();
        final Path out = dir.resolve("run" + n + ".out");
        final Path err = dir.resolve("run" + n + ".err");
        final ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().put("IBSIM_SOCKNAME", socket);
        builder.environment().put("LD_PRELOAD", umad2sim.toString());
        builder.environment().putAll(environment);
        final Process process = builder.start();
        try
        {
            if (!process.waitFor(TOOL_DEADLINE_MS, TimeUnit.MILLISECONDS))
            {
                stop(process);
                fail(String.join(" ", command) + " did not finish within " + TOOL_DEADLINE_MS + " ms");
            }
        }
        catch (final InterruptedException ex)
        {
            stop(process);
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", ex);
        }
        return new Run(process.exitValue(), Files.readString(out, StandardCharsets.ISO_8859_1),
            Files.readString(err, StandardCharsets.ISO_8859_1));
    }

    /** Ends ibsim by its pid: SIGTERM, then SIGKILL after the deadline. */
    @Override
    public void close()
    {
        stop(ibsim);
    }

    private static void stop(final Process process)
    {
        process.destroy();
        try
        {
            if (!process.waitFor(STOP_DEADLINE_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                process.waitFor(STOP_DEADLINE_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static Path find(final String tool)
    {
        final List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of(SEARCH));
        for (final String d : dirs)
        {
            if (!d.isEmpty() && Files.isExecutable(Path.of(d, tool)))
            {
                return Path.of(d, tool);
            }
        }
        return fail("'" + tool + "' is not installed: these tests run the real OpenSM on ibsim; install them with " +
            "apt-get install " + PACKAGES + " (.ci/run does)");
    }

    private static Path umad2sim()
    {
        for (final String d : new String[]{"/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib64",
            "/usr/lib"})
        {
            final Path so = Path.of(d, "umad2sim", "libumad2sim.so");
            if (Files.exists(so))
            {
                return so;
            }
        }
        return fail("ibsim's libumad2sim.so is not installed: install it with apt-get install " + PACKAGES +
            " (.ci/run does)");
    }

    /**
     * ibsim's output into its log, line by line, on a thread of its own until ibsim ends: counts {@code readyOrGone}
     * down at its ready line (setting {@code ready}) or at its end, whichever comes first, so the start waits on the
     * event with its deadline instead of polling the log.
     */
    private static void copyLog(final Process ibsim, final Path log, final AtomicBoolean ready,
        final CountDownLatch readyOrGone)
    {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(ibsim.getInputStream(), StandardCharsets.ISO_8859_1));
            BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.ISO_8859_1))
        {
            for (String line; null != (line = in.readLine()); )
            {
                out.write(line);
                out.newLine();
                out.flush();
                if (!ready.get() && line.contains("Network simulator ready"))
                {
                    ready.set(true);
                    readyOrGone.countDown();
                }
            }
        }
        catch (final IOException ignored)
        {
            // ibsim's output closed while it was being read: it ended
        }
        finally
        {
            readyOrGone.countDown();
        }
    }
}
