package io.vlink.tools;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The two-process soak when a process dies or stops: {@code vlink soak --link shm} (and {@code udp}) in a JVM of its
 * own (it spawns its peer process, which runs port B). A peer killed mid-run ends the soak with one line on stderr and
 * exit 1, never
 * a hang, and no file left; a soak killed mid-run makes its peer exit, and the next soak in its directory removes what
 * it left; Ctrl-C drains, summarizes, exits 130 and reaps the peer; a peer stopped (SIGSTOP) past the link timeout is
 * named as the cause of the link's fall and of every discard it made; a bounced link's skipped once-a-second faults
 * are the bounce's.
 */
@Tag("long")
class SoakPeerTest
{
    private static final long DEADLINE_S = VlinkProcess.DEADLINE_S;

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "udp"})
    void aPeerKilledMidRunIsOneLineAndExit1WithNoFileLeft(final String link) throws Exception
    {
        final Running soak = new Running(link);
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

            // what the killed soak left: its counters file, the peer's channel and stderr, the JSON's temporary file
            // (the link's file too, unless the peer, the last to hold it, removed it as it closed); the next soak in
            // the directory removes them and says so
            final long pid = soak.process.pid();
            final List<String> left = new ArrayList<>(soak.leftovers().stream()
                .map(file -> file.getFileName().toString()).sorted().toList());
            left.remove("soak-" + pid + ".shm");
            assertEquals(List.of(".soak.json." + pid + "-1.tmp", "soak-" + pid + ".peer", "soak-" + pid + ".peer.err",
                "soak-a-" + pid + ".counters"), left);
            final List<String> removable = soak.leftovers().stream().filter(file -> file.startsWith(soak.counters))
                .map(file -> file.getFileName().toString()).sorted().toList();
            final Cli next = Cli.run("soak", "--packets", "1000", "--size", "512", "--vls", "2", "--threads",
                "invoker", "--json", dir.resolve("soak.json").toString(), "--dir", soak.counters.toString());
            assertEquals(0, next.exitCode, next::toString);
            assertEquals("vlink soak: removed what soaks that are gone (killed) left in " + soak.counters + ": " +
                String.join(", ", removable) + "\n", next.err);
            assertEquals(List.of(dir.resolve("soak.json")), soak.leftovers(), "nothing left but the new JSON");
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

    @Test
    void aStoppedPeerIsNamedAsTheCauseOfTheLinksFallAndOfEveryDiscard() throws Exception
    {
        final Running soak = new Running();
        try
        {
            soak.awaitLiveLine();
            final ProcessHandle peer = soak.peer();
            signal("STOP", peer.pid());
            try
            {
                // stopped until port A takes its silent peer for lost (the 2 s link timeout of a two-process soak)
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
                while (!Cli.run("stat", "--dir", soak.counters.toString(), "--engine", "soak-a", "--counter",
                    "link_downed").out.contains("name=link_downed value=1"))
                {
                    assertTrue(System.nanoTime() - deadlineNs < 0, "port A never took its stopped peer for lost");
                    Thread.onSpinWait();
                }
            }
            finally
            {
                signal("CONT", peer.pid());
            }
            signal("INT", soak.process.pid());
            assertTrue(soak.process.waitFor(DEADLINE_S, TimeUnit.SECONDS), "the soak stopped after SIGINT");
            final String stdout = soak.stdout();
            assertEquals(130, soak.process.exitValue(), stdout + "\n" + soak.stderr());
            assertTrue(stdout.endsWith("(FAILED for what ran)"), stdout);
            final String cause = "port B's process did not run for \\d+\\.\\d s \\(stopped or starved\\), longer " +
                "than the 2 s link timeout: the link went down \\d+ time\\(s\\) outside a link bounce";
            final String discards = stdout.lines().filter(line -> line.startsWith("discards: ")).findFirst()
                .orElseThrow();
            assertFalse(discards.contains("UNEXPLAINED"), discards);
            assertTrue(discards.matches("discards: (fcp_\\w+ \\d+ \\(" + cause + "\\)(, )?)+"), discards);
            assertTrue(stdout.contains("discards_explained=ok"), stdout);
            assertTrue(stdout.lines().anyMatch(line -> line.matches("violation: \\d+ message\\(s\\) flushed at a link " +
                "error: " + cause)), stdout);
            assertTrue(stdout.lines().anyMatch(line -> line.matches("violation: link transitions .*: a link reset " +
                "happened; " + cause)), stdout);
        }
        finally
        {
            soak.process.destroyForcibly();
        }
    }

    @Test
    void aBouncedShmLinksSkippedFaultsAreTheBouncesNotAPausedMachines() throws Exception
    {
        // each bounce of a two-process soak lasts the 2 s link timeout and more: the once-a-second faults whose time
        // passes meanwhile cannot run (the link is down)
        final Path json = dir.resolve("bounce.json");
        final Cli cli = Cli.run("soak", "--link", "shm", "--seconds", "5", "--size", "512", "--vls", "2",
            "--threads", "invoker", "--faults", "stall-receiver=50,vl15-flood=10,link-bounce=2", "--json",
            json.toString(), "--dir", Files.createDirectory(dir.resolve("bounce")).toString());
        assertEquals(0, cli.exitCode, cli::toString);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        final Map<String, Object> faults = map(summary, "faults");
        final Map<String, Object> injected = map(faults, "injected");
        final Map<String, Object> scheduled = map(faults, "scheduled");
        final Map<String, Object> skipped = map(faults, "skipped_for_bounce");
        for (final String kind : List.of("stall-receiver", "vl15-flood"))
        {
            assertTrue(number(skipped, kind) >= 2 * ("vl15-flood".equals(kind) ? 10 : 1), kind + ": " + faults);
            assertEquals(number(scheduled, kind), number(injected, kind) + number(skipped, kind), kind + ": " + faults);
        }
        assertEquals(2, number(injected, "link-bounce"));
        assertTrue(cli.out.lines().anyMatch(line -> line.matches("faults \\(injected/detected\\): stall-receiver " +
            "\\d+/\\d+ \\(\\d+ scheduled, \\d+ while the link was down for link-bounce\\) .*")), cli.out);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Map<String, Object> json, final String key)
    {
        return (Map<String, Object>)json.get(key);
    }

    private static long number(final Map<String, Object> json, final String key)
    {
        return ((Number)json.get(key)).longValue();
    }

    private static void signal(final String name, final long pid) throws Exception
    {
        VlinkProcess.signal(name, pid);
    }

    /** A 600 s two-process soak in a JVM of its own (shm unless said), its stdout read line by line. */
    private final class Running
    {
        final Process process;
        final Path counters;
        private final VlinkProcess vlink;

        Running() throws IOException
        {
            this("shm");
        }

        Running(final String link) throws IOException
        {
            counters = Files.createDirectory(dir.resolve("counters"));
            vlink = VlinkProcess.start(dir.resolve("stderr.txt"), "soak", "--link", link, "--seconds", "600",
                "--size", "512", "--threads", "invoker", "--vls", "2", "--json", dir.resolve("soak.json").toString(),
                "--dir", counters.toString());
            process = vlink.process;
        }

        void awaitLiveLine() throws InterruptedException, IOException
        {
            vlink.awaitLine(" *1s vl0=.*");
        }

        ProcessHandle peer()
        {
            final List<ProcessHandle> children = process.children().toList();
            assertEquals(1, children.size(), "one peer process: " + children);
            return children.get(0);
        }

        String stdout() throws InterruptedException
        {
            return vlink.stdout();
        }

        String stderr() throws IOException
        {
            return vlink.stderr();
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
    }
}
