package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Ctrl-C on a running soak, as a user sends it: {@code vlink soak} in a JVM of its own, SIGINT once its first live
 * line is out. It stops offering, drains, prints the summary of what ran, writes the JSON and the report, closes its
 * engine (which removes the counters file) and exits 130.
 */
class SoakInterruptTest
{
    private static final long DEADLINE_S = 60;

    @TempDir
    Path dir;

    @Test
    void ctrlCStopsDrainsReportsAndExits130() throws Exception
    {
        final Path json = dir.resolve("soak.json");
        final Path report = dir.resolve("soak.html");
        final Path counters = Files.createDirectory(dir.resolve("counters"));
        final Process soak = new ProcessBuilder(List.of(
            new File(System.getProperty("java.home"), "bin/java").getPath(),
            "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"),
            Vlink.class.getName(),
            "soak", "--seconds", "600", "--size", "512", "--threads", "invoker",
            "--json", json.toString(), "--report", report.toString(), "--dir", counters.toString()))
            .redirectError(dir.resolve("stderr.txt").toFile())
            .start();
        try
        {
            final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
            final Thread reader = new Thread(() -> readLines(soak, lines), "soak-stdout");
            reader.setDaemon(true);
            reader.start();

            final List<String> out = new ArrayList<>();
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            String line;
            do
            {
                line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertNotNull(line, "no live line within " + DEADLINE_S + " s: " + out);
                out.add(line);
            }
            while (!line.matches(" *1s vl0=.*"));
            assertEquals(1, countersFiles(counters), "the running engine has its counters file");

            final Process kill = new ProcessBuilder("kill", "-INT", Long.toString(soak.pid())).start();
            assertTrue(kill.waitFor(DEADLINE_S, TimeUnit.SECONDS) && 0 == kill.exitValue(), "kill -INT");
            assertTrue(soak.waitFor(DEADLINE_S, TimeUnit.SECONDS), "the soak stopped after SIGINT");
            reader.join(TimeUnit.SECONDS.toMillis(DEADLINE_S));
            lines.drainTo(out);
            final String stdout = String.join("\n", out);
            final String stderr = Files.readString(dir.resolve("stderr.txt"));

            assertEquals(130, soak.exitValue(), stdout + "\n" + stderr);
            assertTrue(stderr.contains("vlink soak: interrupted: traffic stops; draining"), stderr);
            assertTrue(stdout.contains("  VL driven         sent     received"), "the summary table: " + stdout);
            assertTrue(stdout.matches("(?s).*\ninvariants: no_loss=ok fifo=ok .*"), stdout);
            assertTrue(stdout.endsWith("(every invariant held for what ran)"), stdout);
            assertTrue(stdout.contains("soak: interrupted after "), stdout);

            final Map<String, Object> summary = Json.object(Files.readString(json));
            assertEquals(true, summary.get("interrupted"));
            assertEquals(true, summary.get("ok"), summary.toString());
            assertTrue(((Number)summary.get("seconds")).doubleValue() < 600);
            assertTrue(Files.readString(report).contains("<svg"), "the report is written");
            assertEquals(0, countersFiles(counters), "the engine removed its counters file");
        }
        finally
        {
            soak.destroyForcibly();
        }
    }

    private static void readLines(final Process process, final BlockingQueue<String> lines)
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while (null != (line = in.readLine()))
            {
                lines.add(line);
            }
        }
        catch (final IOException ex)
        {
            lines.add("(stdout: " + ex + ")");
        }
    }

    private static long countersFiles(final Path directory) throws IOException
    {
        try (Stream<Path> files = Files.list(directory))
        {
            return files.filter(file -> file.toString().endsWith(".counters")).count();
        }
    }
}
