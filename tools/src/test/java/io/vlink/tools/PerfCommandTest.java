package io.vlink.tools;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink perf}: the output parses as perftest's does (the header, then one row of numbers per size), the JSON
 * holds the same figures, both sides print, UDP and shm; a server whose client vanishes says so and serves the next
 * one; a client whose server vanishes exits 1 with one line; usage errors are one line and a hint.
 */
@Tag("long")
class PerfCommandTest
{
    private static final long DEADLINE_S = 120;

    @TempDir
    Path dir;

    /** A {@code vlink} run in this process on a thread of its own, whose output can be read while it runs. */
    /**
     * One side of a run in a JVM of its own, as a user runs {@code vlink perf}: two busy sides sharing the test JVM
     * with everything else the suite left would measure the suite, not the tool.
     */
    private static final class Running
    {
        final StringBuffer out = new StringBuffer();
        final StringBuffer err = new StringBuffer();
        private final Process process;
        private final Thread outReader;
        private final Thread errReader;

        Running(final String... args) throws Exception
        {
            process = new ProcessBuilder(command(args)).start();
            outReader = copier(process.getInputStream(), out);
            errReader = copier(process.getErrorStream(), err);
        }

        private static Thread copier(final java.io.InputStream from, final StringBuffer to)
        {
            final Thread thread = new Thread(() ->
            {
                try (BufferedReader reader = new BufferedReader(new InputStreamReader(from, StandardCharsets.UTF_8)))
                {
                    String line;
                    while (null != (line = reader.readLine()))
                    {
                        to.append(line).append('\n');
                    }
                }
                catch (final java.io.IOException ignore)
                {
                    // the child ended
                }
            });
            thread.setDaemon(true);
            thread.start();
            return thread;
        }

        int exitCode() throws Exception
        {
            if (!process.waitFor(DEADLINE_S, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                fail("still running after " + DEADLINE_S + " s:\n" + this);
            }
            outReader.join(TimeUnit.SECONDS.toMillis(DEADLINE_S));
            errReader.join(TimeUnit.SECONDS.toMillis(DEADLINE_S));
            return process.exitValue();
        }

        void awaitOut(final String text) throws Exception
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
            while (!out.toString().contains(text))
            {
                assertTrue(System.nanoTime() < deadline, "timed out waiting for '" + text + "' in\n" + this);
                assertTrue(process.isAlive() || out.toString().contains(text),
                    "ended before printing '" + text + "':\n" + this);
                java.util.concurrent.locks.LockSupport.parkNanos(100_000);
            }
        }

        @Override
        public String toString()
        {
            return "--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    @Test
    void latencyOverShmParsesAsPerftestsOnBothSidesWithEverySizeAndTheJson() throws Exception
    {
        final String file = dir.resolve("lat.shm").toString();
        final Path json = dir.resolve("client.json");
        // a patient peer timeout: both ends run on this JVM's threads beside the rest of the suite on two cores
        final Path serverJson = dir.resolve("server.json");
        // the server is given none of the run's options: it runs, prints and writes the client's
        final Running server = new Running("perf", "send-lat", "--server", "--link", "shm", "--path", file,
            "--peer-timeout", "30", "--json", serverJson.toString());
        final Running client = new Running("perf", "send-lat", "--link", "shm", "--path", file, "--warmup", "0.2",
            "-n", "200", "-a", "--json", json.toString(), "--peer-timeout", "30", "--sl", "2");
        assertEquals(0, client.exitCode(), client + "\n--- the server\n" + server);
        assertEquals(0, server.exitCode(), server.toString());

        final int[] sizes = {2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
        final List<double[]> clientRows = rows(client.out.toString(), "t_min[usec]", 9);
        final List<double[]> serverRows = rows(server.out.toString(), "t_min[usec]", 9);
        assertEquals(sizes.length, clientRows.size());
        assertEquals(sizes.length, serverRows.size());
        for (int i = 0; i < sizes.length; i++)
        {
            final double[] row = clientRows.get(i);
            assertEquals(sizes[i], (int)row[0]);
            assertEquals(200, (long)row[1], "warm-up not counted");
            assertTrue(row[2] > 0 && row[2] <= row[4] && row[4] <= row[3], "min <= typical <= max: " + Arrays.toString(row));
            assertTrue(row[4] <= row[7] && row[7] <= row[8] && row[8] <= row[3], "median <= p99 <= p99.9 <= max");
            assertEquals(sizes[i], (int)serverRows.get(i)[0]);
        }
        for (final Running side : List.of(client, server))
        {
            // perftest's lines in its layout, then vlink's; the run is the client's on both sides
            final String out = side.out.toString();
            for (final String line : List.of(
                "                    Send Latency Test\n",
                " Number of qps   : 1\t\tTransport type : IB\n",
                " Connection type : RC\t\tUsing SRQ      : OFF\n",
                " Mtu             : 4096[B]\n",
                " Link type       : IB\n",
                " SL              : 2\n",
                " Warm-up         : 0.20 s before the first size, 0.02 s before each other; not counted\n",
                " Measured        : 200 messages per size; latency is half the round trip\n",
                // tests keep Agrona's bounds checks on; the launcher turns them off for perf
                " Bounds checks   : on (Agrona checks every buffer access; the vlink launcher turns them off for perf)\n",
                " Warming up for 0.20 s (not counted)...\n"))
            {
                assertTrue(out.contains(line), "'" + line.trim() + "' in\n" + side);
            }
            assertEquals(1, out.lines().filter(l -> l.startsWith(" Warming up")).count(), "once, for the first size");
        }
        // each side's local address is the other's remote one, in perftest's form
        final String clientLocal = line(client.out.toString(), " local address: ");
        final String serverLocal = line(server.out.toString(), " local address: ");
        assertTrue(clientLocal.matches("LID 0x[0-9a-f]{2} QPN 0x[0-9a-f]{4} PSN 0x[0-9a-f]{4,6}"), clientLocal);
        assertEquals(clientLocal, line(server.out.toString(), " remote address: "));
        assertEquals(serverLocal, line(client.out.toString(), " remote address: "));
        assertNotEquals(clientLocal, serverLocal, "two ports, two LIDs");
        assertFalse(Files.exists(Path.of(file)), "the link's file is gone");

        final Map<String, Object> parsed = Json.object(Files.readString(json));
        assertEquals(true, parsed.get("ok"));
        assertEquals("send-lat", parsed.get("test"));
        // plain values: numbers as numbers, names as bare words, the units in the keys
        assertEquals("shm", parsed.get("link"));
        assertEquals("invoker", parsed.get("threads"));
        assertEquals(2L, ((Number)parsed.get("sl")).longValue());
        assertEquals(0.2, ((Number)parsed.get("warmup_seconds")).doubleValue(), 1e-9);
        assertEquals(200L, ((Number)parsed.get("iterations")).longValue());
        assertEquals(4096L, ((Number)parsed.get("mtu")).longValue());
        assertEquals(true, parsed.get("latency_is_half_round_trip"));
        @SuppressWarnings("unchecked")
        final Map<String, Object> local = (Map<String, Object>)parsed.get("local");
        assertTrue(local.get("lid") instanceof Number && local.get("qpn") instanceof Number, local.toString());
        final Map<String, Object> atServer = Json.object(Files.readString(serverJson));
        assertEquals("server", atServer.get("side"));
        assertEquals(200L, ((Number)atServer.get("iterations")).longValue(), "the server's JSON is the client's run");
        assertEquals(parsed.get("local"), atServer.get("remote"));
        @SuppressWarnings("unchecked")
        final List<Map<String, Object>> results = (List<Map<String, Object>>)parsed.get("results");
        assertEquals(sizes.length, results.size());
        assertEquals(64L, ((Number)results.get(5).get("bytes")).longValue());
        assertEquals(clientRows.get(5)[4], ((Number)results.get(5).get("t_typical_usec")).doubleValue(), 0.006);
        assertTrue(((Number)results.get(5).get("warmup_messages")).longValue() > 0, "warmed by time, counted apart");
        final List<double[]> serverCounts = rows(server.out.toString(), "t_min[usec]", 9);
        for (final double[] row : serverCounts)
        {
            assertEquals(200, (long)row[1], "the server times as many round trips as the client");
        }
    }

    private static String line(final String out, final String prefix)
    {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst()
            .orElseThrow(() -> new AssertionError("no '" + prefix + "' in\n" + out)).substring(prefix.length());
    }

    @Test
    void bandwidthOverUdpOnPerftestsPortSchemeAndRingLatencyBothPrint() throws Exception
    {
        final int port = freeUdpPort();
        final Running server = new Running("perf", "send-bw", "--server", "--port", String.valueOf(port),
            "--warmup", "0.1", "-n", "3000", "-s", "4096", "--peer-timeout", "30");
        final Running client = new Running("perf", "send-bw", "--connect", "127.0.0.1:" + port, "--warmup", "0.1",
            "-n", "3000", "-s", "4096", "--peer-timeout", "30");
        assertEquals(0, client.exitCode(), client + "\n--- the server\n" + server);
        assertEquals(0, server.exitCode(), server.toString());
        final double[] row = rows(client.out.toString(), "BW peak[MB/sec]", 5).get(0);
        assertEquals(4096, (int)row[0]);
        assertEquals(3000, (long)row[1]);
        assertTrue(row[3] > 0 && row[2] >= row[3], "peak >= average > 0: " + Arrays.toString(row));
        assertEquals(row[3] * 1024 * 1024 / 4096 / 1e6, row[4], row[4] * 0.01, "MsgRate agrees with the average");
        assertEquals(3000, (long)rows(server.out.toString(), "BW peak[MB/sec]", 5).get(0)[1], "the server got all");

        final String file = dir.resolve("ring.shm").toString();
        final Running ringServer = new Running("perf", "ring-lat", "--server", "--path", file, "-n", "500");
        final Running ringClient = new Running("perf", "ring-lat", "--path", file, "-n", "500", "-s", "64");
        assertEquals(0, ringClient.exitCode(), ringClient.toString());
        assertEquals(0, ringServer.exitCode(), ringServer.toString());
        assertEquals(64, (int)rows(ringClient.out.toString(), "t_min[usec]", 9).get(0)[0]);
        assertTrue(ringClient.out.toString().contains("bare rings, no engine"));
    }

    @Test
    void aServerWhoseClientVanishesSaysSoAndServesTheNextOne() throws Exception
    {
        final String file = dir.resolve("vanish.shm").toString();
        // the process check finds the killed client at once; the timeout only bounds a starved next client's start
        final Running server = new Running("perf", "send-lat", "--server", "--link", "shm", "--path", file,
            "--peer-timeout", "20");
        final Process doomed = child("perf", "send-lat", "--link", "shm", "--path", file, "-D", "60");
        try
        {
            awaitLine(doomed, "#bytes");
            server.awaitOut("#bytes");
        }
        finally
        {
            doomed.destroyForcibly();
            doomed.waitFor();
        }
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        while (!server.err.toString().contains("waiting for the next client"))
        {
            assertTrue(System.nanoTime() < deadline, server.toString());
            Thread.yield();
        }
        assertTrue(server.err.toString().startsWith("vlink perf: the client vanished ("), server.toString());

        final Process next = child("perf", "send-lat", "--link", "shm", "--path", file, "--warmup", "0.1", "-n", "100");
        try
        {
            assertTrue(next.waitFor(DEADLINE_S, TimeUnit.SECONDS));
            final String output = new String(next.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, next.exitValue(), output + "\n--- server\n" + server);
        }
        finally
        {
            next.destroyForcibly();
        }
        assertEquals(0, server.exitCode(), server.toString());
        assertEquals(100, (long)rows(server.out.toString(), "t_min[usec]", 9).get(0)[1]);
    }

    @Test
    void aClientWhoseServerVanishesExitsOneWithOneLine() throws Exception
    {
        final String file = dir.resolve("gone.shm").toString();
        final Process doomed = child("perf", "send-lat", "--server", "--link", "shm", "--path", file);
        try
        {
            // a peer timeout a starved machine cannot reach by itself (at a load of 15 on 2 cores, 2 s passed between
            // two messages of a live server, and the client rightly called one lost): the server's death is seen by
            // the link going down, not by the timeout
            final Running client = new Running("perf", "send-lat", "--link", "shm", "--path", file, "-D", "60",
                "--peer-timeout", "20");
            client.awaitOut("#bytes");
            doomed.destroyForcibly();
            doomed.waitFor();
            assertEquals(1, client.exitCode(), client.toString());
            final String err = client.err.toString();
            assertTrue(err.startsWith("vlink perf: the server vanished: "), err);
            assertEquals(1, err.lines().count(), err);

            final Cli nobody = Cli.run("perf", "send-lat", "--connect", "127.0.0.1:" + freeUdpPort());
            assertEquals(1, nobody.exitCode, nobody.toString());
            assertTrue(nobody.err.startsWith("vlink perf: the server vanished: no vlink perf server answered at "),
                nobody.toString());
        }
        finally
        {
            doomed.destroyForcibly();
            doomed.waitFor();
        }
    }

    @Test
    void usageErrorsAreOneLineAndAHint()
    {
        usage("unknown test 'send-rdma': use send-lat, send-bw or ring-lat", "send-rdma", "--server");
        usage("give --server, or --connect HOST[:PORT]", "send-lat");
        usage("--link shm needs --path FILE", "send-lat", "--server", "--link", "shm");
        usage("-s 5000: use 1 to 4096 bytes (one packet)", "send-lat", "--server", "-s", "5000");
        usage("-s and -a: give one of them", "send-lat", "--server", "-s", "64", "-a");
        usage("-n and -D: give one of them", "send-lat", "--server", "-n", "5", "-D", "1");
        usage("ring-lat measures the shm link's rings", "ring-lat", "--server", "--link", "udp");
        usage("--connect is for --link udp", "send-lat", "--link", "shm", "--path", "x.shm", "--connect", "h");
        usage("unknown idle strategy", "send-lat", "--server", "--idle", "nap");
        usage("--retry maybe: use on or off", "send-lat", "--server", "--retry", "maybe");
        usage("--retry: ring-lat measures the bare rings", "ring-lat", "--server", "--link", "shm", "--path", "x.shm",
            "--retry", "on");
        usage("--warmup -1.0: give 0 to 3600 seconds", "send-lat", "--server", "--warmup", "-1");
    }

    private static void usage(final String message, final String... args)
    {
        final String[] full = new String[args.length + 1];
        full[0] = "perf";
        System.arraycopy(args, 0, full, 1, args.length);
        final Cli cli = Cli.run(full);
        assertEquals(2, cli.exitCode, cli.toString());
        assertEquals("", cli.out);
        final List<String> lines = cli.err.lines().toList();
        assertEquals(2, lines.size(), cli.toString());
        assertTrue(lines.get(0).startsWith("vlink perf: ") && lines.get(0).contains(message), cli.toString());
        assertEquals("see 'vlink perf --help'", lines.get(1));
    }

    /**
     * The rows under the last header that names {@code column} (a server prints a run per client), split on white
     * space as perftest's parsers do.
     */
    private static List<double[]> rows(final String out, final String column, final int fields)
    {
        final List<String> lines = out.lines().toList();
        int at = lines.size() - 1;
        while (at >= 0 && !lines.get(at).contains(column))
        {
            at--;
        }
        assertTrue(at >= 0, "no header in\n" + out);
        assertTrue(lines.get(at).startsWith(" #bytes"), lines.get(at));
        final List<double[]> rows = new ArrayList<>();
        for (int i = at + 1; i < lines.size() && !lines.get(i).startsWith("---"); i++)
        {
            final String[] words = lines.get(i).trim().split("\\s+");
            assertEquals(fields, words.length, lines.get(i));
            rows.add(Arrays.stream(words).mapToDouble(Double::parseDouble).toArray());
        }
        return rows;
    }

    /** The vlink command in a JVM of its own, with the flags the launcher gives it. */
    private static List<String> command(final String... args)
    {
        return VlinkProcess.command(args);
    }

    private static Process child(final String... args) throws Exception
    {
        return new ProcessBuilder(command(args)).redirectErrorStream(true).start();
    }

    private static void awaitLine(final Process process, final String text) throws Exception
    {
        final BufferedReader reader =
            new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while (null != (line = reader.readLine()))
        {
            if (line.contains(text))
            {
                return;
            }
        }
        fail("the child ended before printing '" + text + "'");
    }

    private static int freeUdpPort() throws Exception
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
