package io.vlink.tools;

import io.vlink.tools.fabric.FabricSoak;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * {@code vlink fabric run}: ibsim's two-switch, four-HCA fabric as three processes on 127.0.0.1, each a JVM of its
 * own as users run it, with cables between switches and between a switch and a CA leaving each process: every check
 * each process makes holds, and summed over the three JSON files every packet sent was received, pair by pair. Then
 * what a user gets wrong: a peers file with mistakes, at their lines; a peer that never appears.
 */
@Tag("long")
class FabricRunCommandTest
{
    private static final long DEADLINE_S = 180;

    @TempDir
    Path dir;

    private String resource(final String name)
    {
        try (InputStream in = FabricRunCommandTest.class.getResourceAsStream("/topology/" + name))
        {
            final Path target = dir.resolve(name);
            Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            return target.toString();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /** A base port with {@code span} free UDP ports above it on 127.0.0.1 (as free as a probe can tell). */
    private static int freeBase(final int span) throws IOException
    {
        for (int attempt = 0; attempt < 50; attempt++)
        {
            final int base;
            try (DatagramSocket probe = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
            {
                base = probe.getLocalPort();
            }
            if (base + span > 65000)
            {
                continue;
            }
            boolean free = true;
            for (int p = base + 1; p <= base + span && free; p++)
            {
                try (DatagramSocket s = new DatagramSocket(p, InetAddress.getLoopbackAddress()))
                {
                    free = s.isBound();
                }
                catch (final IOException ex)
                {
                    free = false;
                }
            }
            if (free)
            {
                return base;
            }
        }
        throw new IOException("no run of " + span + " free UDP ports found");
    }

    private Path peers() throws IOException
    {
        final int base = freeBase(60);
        final String[] nodes = {"Switch1", "Switch2", "Hca1", "Hca2", "Hca3", "Hca4"};
        final StringBuilder sb = new StringBuilder("# net.2sw2path4hca over three processes\n");
        for (int i = 0; i < nodes.length; i++)
        {
            sb.append(nodes[i]).append(" 127.0.0.1:").append(base + 10 * i).append('\n');
        }
        final Path file = dir.resolve("peers");
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
        return file;
    }

    @Test
    void twoSwitchesAndFourHcasAsThreeProcessesHoldEveryInvariantAndLoseNothing() throws Exception
    {
        final String topology = resource("net.2sw2path4hca");
        final Path peers = peers();
        // Switch1 with Hca1 and Hca3; Switch2 with Hca2; Hca4 alone: both switch-to-switch cables and the cable
        // Switch2[2] - Hca4[1] leave their processes. Small VL buffers keep what is in flight on a link within the
        // receiving socket's buffer; a patient link timeout lets a starved JVM catch up without a link reset.
        final String[][] splits = {{"Switch1,Hca1,Hca3"}, {"Switch2,Hca2"}, {"Hca4"}};
        final List<Child> children = new ArrayList<>();
        for (int i = 0; i < splits.length; i++)
        {
            children.add(new Child(topology, "--nodes", splits[i][0], "--peers", peers.toString(), "--seconds", "3",
                "--size", "128", "--sls", "0,1", "--vl-buffer", "64", "--link-timeout-ms", "10000", "--peer-wait",
                "120", "--quiet-ms", "3000", "--json", dir.resolve("p" + i + ".json").toString(), "--dir",
                dir.toString()));
        }
        final List<Map<String, Object>> parts = new ArrayList<>();
        for (int i = 0; i < children.size(); i++)
        {
            final Child child = children.get(i);
            assertEquals(0, child.exitCode(), child.toString());
            assertTrue(child.out.contains("invariant fifo: held"), child.out);
            assertTrue(child.out.contains("invariant no_damage: held"), child.out);
            assertTrue(child.out.contains("invariant credits_recovered: held"), child.out);
            assertTrue(child.out.contains("invariant discards_explained: held"), child.out);
            assertFalse(child.out.contains("invariant no_loss"), "loss is summed across processes, not per process");
            parts.add(Json.object(Files.readString(dir.resolve("p" + i + ".json"))));
        }

        // end to end: per (source, destination), what the sources' processes sent is what the destinations' received
        final Map<String, Long> sent = new HashMap<>();
        final Map<String, Long> received = new HashMap<>();
        long totalSent = 0;
        long totalReceived = 0;
        int cas = 0;
        for (final Map<String, Object> part : parts)
        {
            for (final Map<String, Object> ca : list(part.get("cas")))
            {
                cas++;
                final String name = (String)ca.get("name");
                totalSent += ((Number)ca.get("sent")).longValue();
                totalReceived += ((Number)ca.get("received")).longValue();
                map(ca.get("sent_to")).forEach((dst, n) -> sent.merge(name + "->" + dst, ((Number)n).longValue(),
                    Long::sum));
                map(ca.get("received_from")).forEach((src, n) -> received.merge(src + "->" + name,
                    ((Number)n).longValue(), Long::sum));
                assertEquals(0L, ((Number)ca.get("out_of_order")).longValue(), name);
                assertEquals(0L, ((Number)ca.get("damaged")).longValue(), name);
            }
        }
        assertEquals(4, cas, "each CA port in exactly one process");
        assertEquals(12, sent.size(), "uniform traffic: every CA port to every other: " + sent);
        assertTrue(totalSent > 0);
        assertEquals(totalSent, totalReceived);
        assertEquals(sent, received);
    }

    @Test
    void aPeersFileWithMistakesIsRefusedAtItsLinesAndNothingRuns() throws Exception
    {
        final String topology = resource("net.2sw2path4hca");
        final Path peers = dir.resolve("bad-peers");
        Files.writeString(peers, String.join("\n",
            "Switch1 127.0.0.1:47000",
            "Switch9 127.0.0.1:47100",
            "Switch1 127.0.0.1:47200",
            "Hca1 127.0.0.1:47005",
            "Hca2 127.0.0.1:notaport",
            "Hca3 127.0.0.1:65534",
            "Hca4",
            ""), StandardCharsets.UTF_8);
        final Cli cli = Cli.run("fabric", "run", topology, "--nodes", "Switch1,Hca1,Hca3", "--peers", peers.toString(),
            "--seconds", "1");
        assertEquals(1, cli.exitCode, cli.toString());
        final String p = peers.toString();
        assertTrue(cli.err.contains(p + ":2:1: error: no node \"Switch9\""), cli.err);
        assertTrue(cli.err.contains(p + ":3:1: error: \"Switch1\" has an address already at line 1"), cli.err);
        assertTrue(cli.err.contains(p + ":4:6: error: \"Hca1\" takes UDP ports 47006..47007"), cli.err);
        assertTrue(cli.err.contains(p + ":5:16: error: expected a UDP port number"), cli.err);
        assertTrue(cli.err.contains(p + ":6:16: error: PORT 65534"), cli.err);
        assertTrue(cli.err.contains(p + ":7:1: error: expected 'ID HOST:PORT', found 1 fields"), cli.err);
        assertTrue(cli.err.contains(p + ": refused: 6 errors; nothing runs"), cli.err);
        assertFalse(cli.out.contains("invariant"), "nothing ran: " + cli.out);

        Files.writeString(peers, "Switch1 127.0.0.1:47000\nHca1 127.0.0.1:47010\n", StandardCharsets.UTF_8);
        final Cli missing = Cli.run("fabric", "run", topology, "--nodes", "Switch1,Hca1,Hca3", "--peers",
            peers.toString(), "--seconds", "1");
        assertEquals(1, missing.exitCode, missing.toString());
        assertTrue(missing.err.contains(p + ": error: no line for \"Switch2\", an end of the cable Switch1[3] - " +
            "Switch2[3] that leaves this process; add 'Switch2 HOST:PORT'"), missing.err);
    }

    @Test
    void aPeerThatNeverAppearsIsNamedInOneLineAndTheRunFails() throws Exception
    {
        final String topology = resource("net.2sw2path4hca");
        final Path peers = peers();
        final Cli cli = Cli.run("fabric", "run", topology, "--nodes", "Switch2,Hca2,Hca4", "--peers",
            peers.toString(), "--seconds", "1", "--peer-wait", "1", "--dir", dir.toString());
        assertEquals(1, cli.exitCode, cli.toString());
        final List<String> lines = cli.err.lines().toList();
        assertEquals(1, lines.size(), cli.err);
        assertTrue(lines.get(0).startsWith("vlink fabric run: peers never appeared in 1 s: Switch1 (links not up: " +
            "Switch2[3], Switch2[5])"), cli.err);
    }

    @Test
    void usageErrorsAreOneLineAndAHint()
    {
        final String topology = resource("net.2sw2path4hca");
        final Cli noPeers = Cli.run("fabric", "run", topology, "--nodes", "Switch1,Hca1,Hca3");
        assertEquals(2, noPeers.exitCode, noPeers.toString());
        assertTrue(noPeers.err.startsWith("vlink fabric run: --nodes runs part of the fabric: give --peers FILE"), noPeers.err);
        assertTrue(noPeers.err.contains("see 'vlink fabric run --help'"), noPeers.err);
        final Cli unknown = Cli.run("fabric", "run", topology, "--nodes", "Switch7");
        assertEquals(2, unknown.exitCode, unknown.toString());
        assertTrue(unknown.err.startsWith("vlink fabric run: --nodes: no node \"Switch7\""), unknown.err);
    }

    @Test
    void ctrlCStopsTheRunPrintsWhatRanAndExits130() throws Exception
    {
        final Path json = dir.resolve("stopped.json");
        final Child child = new Child(resource("net.2sw2path4hca"), "--seconds", "600", "--size", "128", "--json",
            json.toString(), "--dir", dir.toString());
        child.awaitOut("sent ");
        final Process kill = new ProcessBuilder("kill", "-INT", Long.toString(child.process.pid())).start();
        assertTrue(kill.waitFor(DEADLINE_S, TimeUnit.SECONDS) && 0 == kill.exitValue(), "kill -INT");
        assertEquals(130, child.exitCode(), child.toString());
        assertTrue(child.err.contains("vlink fabric run: interrupted: traffic stops"), child.err);
        assertTrue(child.out.contains("stopped before the end: the invariants hold for what ran"), child.out);
        assertTrue(child.out.contains("invariant fifo: held"), child.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEquals(true, summary.get("stopped"));
        assertTrue(((Number)summary.get("seconds")).doubleValue() < 600);
    }

    @Test
    void aPeerKilledMidRunIsNamedWithItsAddressAndTheSurvivorExits1NotAsADeadlock() throws Exception
    {
        final String topology = resource("net.2sw2path4hca");
        final Path peers = peers();
        final String hca4 = Files.readAllLines(peers).stream().filter(line -> line.startsWith("Hca4 "))
            .findFirst().orElseThrow().substring("Hca4 ".length());
        final Path json = dir.resolve("survivor.json");
        // uniform traffic: the survivor's CA ports send to Hca4 too, whose packets queue at Switch2[2] once it is gone
        final Child survivor = new Child(topology, "--nodes", "Switch1,Switch2,Hca1,Hca2,Hca3", "--peers",
            peers.toString(), "--seconds", "600", "--size", "128", "--peer-wait", "120", "--json", json.toString(),
            "--dir", dir.toString());
        final Child victim = new Child(topology, "--nodes", "Hca4", "--peers", peers.toString(), "--seconds", "600",
            "--size", "128", "--peer-wait", "120", "--dir", dir.toString());
        try
        {
            survivor.awaitOut("sent ");
            victim.awaitOut("sent ");
            victim.process.destroyForcibly();
            assertEquals(FabricSoak.EXIT_PEER_GONE, survivor.exitCode(), survivor.toString());
            final String named = "vlink fabric run: the peer Hca4 at " + hca4 + " went away: the link Switch2[2] - " +
                "Hca4[1] is down (its process is gone or stopped: it answered nothing for the link timeout)\n";
            assertEquals(named, survivor.err);
            assertFalse(survivor.out.contains("\ndeadlock:"), survivor.out);
            assertTrue(survivor.out.contains("invariant no_deadlock: held"), survivor.out);
            assertTrue(survivor.out.contains("ended early: the peer Hca4 at " + hca4 + " went away"), survivor.out);
            final Map<String, Object> summary = Json.object(Files.readString(json));
            assertEquals(named.substring("vlink fabric run: ".length(), named.length() - 1), summary.get("peer_gone"));
            assertEquals(false, summary.get("ok"));
        }
        finally
        {
            survivor.process.destroyForcibly();
            victim.process.destroyForcibly();
        }
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(final Object value)
    {
        return (List<Map<String, Object>>)value;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Object value)
    {
        return (Map<String, Object>)value;
    }

    /** {@code vlink fabric run TOPO ...} in a JVM of its own: the test's java, class path and flags. */
    private static final class Child
    {
        private final Process process;
        private final Path outFile;
        private final Path errFile;
        String out = "";
        String err = "";

        Child(final String topology, final String... args) throws IOException
        {
            final List<String> command = new ArrayList<>(List.of(
                new File(System.getProperty("java.home"), "bin/java").getPath(),
                "--add-exports", "java.base/jdk.internal.misc=ALL-UNNAMED"));
            if (Runtime.version().feature() >= 24)
            {
                command.add("--sun-misc-unsafe-memory-access=allow");
            }
            command.addAll(List.of("-cp", System.getProperty("java.class.path"), Vlink.class.getName(), "fabric",
                "run", topology));
            command.addAll(List.of(args));
            outFile = Files.createTempFile("fabric-run", ".out");
            errFile = Files.createTempFile("fabric-run", ".err");
            process = new ProcessBuilder(command).redirectOutput(outFile.toFile()).redirectError(errFile.toFile())
                .start();
        }

        /** Wait until stdout holds the text (the file the child writes, read again until then). */
        void awaitOut(final String text) throws Exception
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            while (!Files.readString(outFile).contains(text))
            {
                assertTrue(process.isAlive(), "ended before printing '" + text + "': " + Files.readString(outFile) +
                    Files.readString(errFile));
                assertTrue(System.nanoTime() < deadline, "no '" + text + "' in " + DEADLINE_S + " s");
                process.waitFor(50, TimeUnit.MILLISECONDS);
            }
        }

        int exitCode() throws Exception
        {
            if (!process.waitFor(DEADLINE_S, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                read();
                fail("still running after " + DEADLINE_S + " s:\n" + this);
            }
            read();
            return process.exitValue();
        }

        private void read() throws IOException
        {
            out = Files.readString(outFile);
            err = Files.readString(errFile);
            Files.deleteIfExists(outFile);
            Files.deleteIfExists(errFile);
        }

        @Override
        public String toString()
        {
            return "--- stdout\n" + out + "--- stderr\n" + err;
        }
    }
}
