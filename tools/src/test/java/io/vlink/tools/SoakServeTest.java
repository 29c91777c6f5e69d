package io.vlink.tools;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink soak --serve} and {@code vlink soak --peer HOST:PORT} as two processes on 127.0.0.1, as on two hosts:
 * the run agreed over TCP, the link over UDP, both halves in the soak's summary and JSON; a soak refused (a key on
 * one side only) is told why and the server waits for the next; a server killed mid-run ends the soak with one line
 * naming it, exit 1; a soak killed mid-run ends the server the same way; Ctrl-C at the server stops both, each with
 * its verdict, exit 130.
 */
@Tag("long")
class SoakServeTest
{
    private static final Pattern SERVING = Pattern.compile("vlink soak: serving port B on 127\\.0\\.0\\.1:(\\d+) .*");

    @TempDir
    Path dir;

    private VlinkProcess server;
    private VlinkProcess soak;
    private int port;

    @AfterEach
    void stop()
    {
        for (final VlinkProcess process : new VlinkProcess[]{server, soak})
        {
            if (null != process)
            {
                process.process.destroyForcibly();
            }
        }
    }

    private void serve() throws Exception
    {
        server = VlinkProcess.start(dir.resolve("server.err"), "soak", "--serve", "127.0.0.1:0", "--threads",
            "invoker", "--dir", Files.createDirectories(dir.resolve("server")).toString());
        final Matcher serving = SERVING.matcher(server.awaitLine(SERVING.pattern()));
        assertTrue(serving.matches());
        port = Integer.parseInt(serving.group(1));
    }

    private void joinFor600s() throws Exception
    {
        soak = VlinkProcess.start(dir.resolve("soak.err"), "soak", "--peer", "127.0.0.1:" + port, "--seconds", "600",
            "--size", "512", "--vls", "2", "--threads", "invoker", "--dir",
            Files.createDirectories(dir.resolve("soak")).toString());
        soak.awaitLine(" *1s vl0=.*");
    }

    @Test
    void aServedSoakHoldsEveryInvariantWithBothHalvesInItsSummaryAndTheServerSaysTheVerdict() throws Exception
    {
        serve();
        final Path key = dir.resolve("vlink.key");
        Files.writeString(key, "000102030405060708090a0b0c0d0e0f\n");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
        final Cli refused = Cli.run("soak", "--peer", "127.0.0.1:" + port, "--key", key.toString(), "--packets", "10");
        assertEquals(1, refused.exitCode, refused::toString);
        assertEquals("vlink soak: the peer at 127.0.0.1:" + port + " refused the soak: the soak authenticates the " +
            "link (--key) and this peer does not: give both the same --key FILE\n", refused.err);

        final Path json = dir.resolve("soak.json");
        final Path counters = Files.createDirectories(dir.resolve("soak"));
        final Cli cli = Cli.run("soak", "--peer", "127.0.0.1:" + port, "--packets", "3000", "--vls", "4", "--sizes",
            "64-2048", "--threads", "invoker", "--faults", "drop-data=0.001,link-bounce=1", "--json", json.toString(),
            "--dir", counters.toString());
        assertEquals(0, cli.exitCode, cli::toString);
        assertTrue(cli.out.startsWith("vlink soak: 10 s or 3000 packets, link udp to the peer at 127.0.0.1:" + port +
            " (retry on),"), cli.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEquals(true, summary.get("ok"), summary.toString());
        assertEquals("udp", summary.get("link"));
        assertEquals("127.0.0.1:" + port, summary.get("peer"));
        assertEquals(server.process.pid(), ((Number)summary.get("peer_pid")).longValue());
        long sent = 0;
        long received = 0;
        long faultLost = 0;
        for (final Object vl : (List<?>)summary.get("vls"))
        {
            @SuppressWarnings("unchecked") final Map<String, Object> v = (Map<String, Object>)vl;
            sent += ((Number)v.get("sent_packets")).longValue();
            received += ((Number)v.get("received_packets")).longValue();
            faultLost += ((Number)v.get("fault_lost")).longValue();
        }
        assertEquals(3000, sent);
        assertEquals(sent, received + faultLost, "port B's receive counts, from the server, add up");
        assertTrue(received > 0);

        assertEquals(0, server.awaitExit(), server.stderr());
        final String out = server.stdout();
        assertTrue(out.matches("(?s).*\nvlink soak: joined by 127\\.0\\.0\\.1:\\d+: 10\\.0 s or 3000 packets, 4 " +
            "data VLs, packets 64-2048 B, seed 1, faults drop-data=0\\.001,link-bounce=1; link UDP 127\\.0\\.0\\.1:" +
            port + " to 127\\.0\\.0\\.1:\\d+, retry on\nsoak: ok; the summary is the soak's, at 127\\.0\\.0\\.1:\\d+"), out);
        assertTrue(server.stderr().matches("vlink soak: refused the soak from 127\\.0\\.0\\.1:\\d+: the soak " +
            "authenticates the link \\(--key\\) and this peer does not: give both the same --key FILE; waiting for " +
            "the next soak\n"), server.stderr());
        assertEquals(List.of(), files("server"), "the server's engine removed its counters file");
        assertEquals(List.of(), files("soak"));
    }

    @Test
    void aServerKilledMidRunEndsTheSoakWithOneLineNamingIt() throws Exception
    {
        serve();
        joinFor600s();
        killAndExpectOneLine(server, soak, "vlink soak: the peer at 127\\.0\\.0\\.1:" + port + " \\(port B\\) went " +
            "away before the soak ended: .+", "soak");
    }

    @Test
    void aSoakKilledMidRunEndsTheServerWithOneLineNamingIt() throws Exception
    {
        serve();
        joinFor600s();
        killAndExpectOneLine(soak, server, "vlink soak: the soak at 127\\.0\\.0\\.1:\\d+ \\(port A\\) went away " +
            "before it ended: .+", "server");
    }

    /**
     * Kill one side (SIGKILL): the other ends with exit 1 and one line on stderr (besides a warning about the socket
     * buffers), and its engine removes its counters file.
     */
    private void killAndExpectOneLine(
        final VlinkProcess killed, final VlinkProcess survivor, final String line, final String survivorDir)
        throws Exception
    {
        assertTrue(killed.process.destroyForcibly().waitFor(VlinkProcess.DEADLINE_S, TimeUnit.SECONDS));
        assertEquals(1, survivor.awaitExit(), survivor.stderr());
        final List<String> lines = survivor.stderr().lines().filter(said -> !said.startsWith("warning: ")).toList();
        assertEquals(1, lines.size(), survivor.stderr());
        assertTrue(lines.get(0).matches(line), lines.get(0));
        assertEquals(List.of(), files(survivorDir), "the engine that lived removed its counters file");
    }

    @Test
    void ctrlCAtTheServerStopsBothWithTheirVerdicts() throws Exception
    {
        serve();
        joinFor600s();
        VlinkProcess.signal("INT", server.process.pid());
        assertEquals(130, soak.awaitExit(), soak.stderr());
        final String out = soak.stdout();
        assertTrue(out.matches("(?s).*\nsoak: interrupted at the peer \\(Ctrl-C there\\) after \\d+\\.\\d s of traffic " +
            "\\(every invariant held for what ran\\)"), out);
        assertEquals(130, server.awaitExit(), server.stderr());
        final String served = server.stdout();
        assertTrue(served.matches("(?s).*\nsoak: interrupted \\(every invariant held for what ran\\); the summary " +
            "is the soak's, at 127\\.0\\.0\\.1:\\d+"), served);
    }

    private List<Path> files(final String sub) throws Exception
    {
        try (Stream<Path> files = Files.list(dir.resolve(sub)))
        {
            return files.toList();
        }
    }
}
