package io.vlink.tools;

import org.junit.jupiter.api.Tag;
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
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The two-process shm soak when a process dies: {@code vlink soak --link shm} in a JVM of its own (it spawns its peer
 * process, which runs port B). A peer killed mid-run ends the soak with one line on stderr and exit 1, never a hang,
 * and no file left; a soak killed mid-run makes its peer exit; Ctrl-C drains, summarizes, exits 130 and reaps the peer.
 */
@Tag("long")
class SoakPeerTest
{
    private static final long DEADLINE_S = 60;

    @TempDir
    Path dir;

    @Test
    void aPeerKilledMidRunIsOneLineAndExit1WithNoFileLeft() throws Exception
    {
        final Running soak = new Running();
        try
        {
            soak.awaitLiveLine();
            final ProcessHandle peer = soak.peer();
            assertTrue(peer.destroyForcibly(), "kill -9 the peer");
            assertTrue(soak.process.waitFor(DEADLINE_S, TimeUnit.SECONDS), "the soak ended after its peer died");
            final String stderr = soak.stderr();
            assertEquals(1, soak.process.exitValue(), stderr);
            final List<String> lines = stderr.lines().toList();
            assertEquals(1, lines.size(), stderr);
            assertTrue(lines.get(0).matches("vlink soak: the peer process " + peer.pid() +
                " \\(port B\\) was killed \\(signal 9\\) before the soak ended.*"), stderr);
            assertEquals(List.of(), soak.leftovers(), "no file left");
        }
        finally
        {
            soak.process.destroyForcibly();
        }
    }

    @Test
    void aSoakKilledMidRunTakesItsPeerWithIt() throws Exception
    {
        final Running soak = new Running();
        try
        {
            soak.awaitLiveLine();
            final ProcessHandle peer = soak.peer();
            soak.process.destroyForcibly();
            assertTrue(soak.process.waitFor(DEADLINE_S, TimeUnit.SECONDS));
            assertTrue(peer.onExit().get(DEADLINE_S, TimeUnit.SECONDS) != null && !peer.isAlive(),
                "the peer exited once its soak was gone");
        }
        finally
        {
            soak.process.destroyForcibly();
        }
    }

    @Test
    void ctrlCDrainsSummarizesExits130AndReapsThePeer() throws Exception
    {
        final Running soak = new Running();
        try
        {
            soak.awaitLiveLine();
            final ProcessHandle peer = soak.peer();
            final Process kill = new ProcessBuilder("kill", "-INT", Long.toString(soak.process.pid())).start();
            assertTrue(kill.waitFor(DEADLINE_S, TimeUnit.SECONDS) && 0 == kill.exitValue(), "kill -INT");
            assertTrue(soak.process.waitFor(DEADLINE_S, TimeUnit.SECONDS), "the soak stopped after SIGINT");
            final String stdout = soak.stdout();
            assertEquals(130, soak.process.exitValue(), stdout + "\n" + soak.stderr());
            assertTrue(stdout.contains("soak: interrupted after ") && stdout.endsWith("(every invariant held for what ran)"),
                stdout);
            assertFalse(peer.isAlive(), "the peer was reaped");
            final String json = Files.readString(dir.resolve("soak.json"));
            assertTrue(json.contains("\"peer_pid\": " + peer.pid()), json);
            assertEquals(List.of(dir.resolve("soak.json")), soak.leftovers(), "no file left but the JSON");
        }
        finally
        {
            soak.process.destroyForcibly();
        }
    }

    /** A 600 s shm soak in a JVM of its own, its stdout read line by line. */
    private final class Running
    {
        final Process process;
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final List<String> out = new ArrayList<>();
        final Path counters;

        Running() throws IOException
        {
            counters = Files.createDirectory(dir.resolve("counters"));
            final List<String> command = new ArrayList<>(List.of(
                new File(System.getProperty("java.home"), "bin/java").getPath(),
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));
            if (Runtime.version().feature() >= 24)
            {
                command.add("--sun-misc-unsafe-memory-access=allow");
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), Vlink.class.getName(),
                "soak", "--link", "shm", "--seconds", "600", "--size", "512", "--threads", "invoker", "--vls", "2",
                "--json", dir.resolve("soak.json").toString(), "--dir", counters.toString()));
            process = new ProcessBuilder(command).redirectError(dir.resolve("stderr.txt").toFile()).start();
            final Thread reader = new Thread(this::read, "soak-stdout");
            reader.setDaemon(true);
            reader.start();
        }

        void awaitLiveLine() throws InterruptedException, IOException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            String line;
            do
            {
                line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS);
                assertNotNull(line, "no live line within " + DEADLINE_S + " s: " + out + "\n" + stderr());
                out.add(line);
            }
            while (!line.matches(" *1s vl0=.*"));
        }

        ProcessHandle peer()
        {
            final List<ProcessHandle> children = process.children().toList();
            assertEquals(1, children.size(), "one peer process: " + children);
            return children.get(0);
        }

        String stdout() throws InterruptedException
        {
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            // the reader ends with the process's stdout
            String line;
            while (null != (line = lines.poll(Math.max(1, deadlineNs - System.nanoTime()), TimeUnit.NANOSECONDS)) &&
                !EOF.equals(line))
            {
                out.add(line);
            }
            return String.join("\n", out);
        }

        String stderr() throws IOException
        {
            return Files.readString(dir.resolve("stderr.txt"));
        }

        List<Path> leftovers() throws IOException
        {
            final List<Path> left = new ArrayList<>();
            try (Stream<Path> files = Files.list(counters))
            {
                files.forEach(left::add);
            }
            try (Stream<Path> files = Files.list(dir))
            {
                files.filter(file -> !file.equals(counters) && !file.getFileName().toString().equals("stderr.txt"))
                    .forEach(left::add);
            }
            return left;
        }

        private void read()
        {
            try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
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
            lines.add(EOF);
        }
    }

    private static final String EOF = "\u0000EOF";
}
