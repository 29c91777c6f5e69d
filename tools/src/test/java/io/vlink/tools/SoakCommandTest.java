package io.vlink.tools;

import io.vlink.tools.soak.ReportData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink soak} end to end, in-process: runs of a fixed number of packets without and with faults, over
 * loopback and UDP, the open-loop schedule, the files, and the usage errors. Counts are exact; what depends on the
 * clock (shares each second, the timed faults) is {@code SoakRunnerTest}'s, on a clock of its own.
 */
class SoakCommandTest
{
    @TempDir
    Path dir;

    private Cli last;

    private Map<String, Object> soak(final int expectedExit, final String... args) throws Exception
    {
        final Path json = dir.resolve("soak.json");
        final String[] full = new String[args.length + 5];
        full[0] = "soak";
        System.arraycopy(args, 0, full, 1, args.length);
        full[args.length + 1] = "--json";
        full[args.length + 2] = json.toString();
        full[args.length + 3] = "--dir";
        full[args.length + 4] = dir.toString();
        final Cli cli = Cli.run(full);
        last = cli;
        assertEquals(expectedExit, cli.exitCode, cli.toString());
        return Json.object(Files.readString(json));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(final Map<String, Object> json, final String key)
    {
        return (Map<String, Object>)json.get(key);
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> vls(final Map<String, Object> json)
    {
        return (List<Map<String, Object>>)json.get("vls");
    }

    private static long number(final Map<String, Object> json, final String key)
    {
        return ((Number)json.get(key)).longValue();
    }

    private static void assertEveryInvariant(final Map<String, Object> json)
    {
        assertEquals(true, json.get("ok"), json.toString());
        map(json, "invariants").forEach((name, held) -> assertEquals(true, held, name + " in " + json));
        for (final String key : List.of("no_loss", "fifo", "no_overflow", "credits_recovered"))
        {
            assertTrue(map(json, "invariants").containsKey(key), key);
        }
    }

    @Test
    void noFaultSoakHoldsEveryInvariantAndOffersExactlyThePacketsAskedFor() throws Exception
    {
        final Map<String, Object> json = soak(0, "--packets", "20000", "--size", "512", "--threads", "invoker");
        assertEveryInvariant(json);
        for (final String key : List.of("ok", "seconds", "link", "data_vls", "packet_size", "vls", "vl15", "fcp",
            "faults", "latency_ns", "invariants"))
        {
            assertTrue(json.containsKey(key), key);
        }
        assertEquals("loopback", json.get("link"));
        assertEquals(8L, number(json, "data_vls"));
        assertEquals(512L, number(json, "packet_size"));
        long sent = 0;
        double predicted = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            for (final String key : List.of("vl", "sent_packets", "sent_bytes", "received_packets", "received_bytes",
                "lost", "out_of_order", "duplicated", "credit_stalls", "share"))
            {
                assertTrue(vl.containsKey(key), key);
            }
            assertEquals(0L, number(vl, "lost"));
            assertEquals(number(vl, "sent_packets"), number(vl, "received_packets"), vl.toString());
            assertEquals(512 * number(vl, "sent_packets"), number(vl, "received_bytes"), vl.toString());
            // each packet of 512 bytes took 2 cells of 256 in the sender's buffer class of its VL
            assertEquals(2 * number(vl, "sent_packets"), number(vl, "injected_cells"), vl.toString());
            assertTrue(number(vl, "class_weight") >= 1, vl.toString());
            sent += number(vl, "sent_packets");
            predicted += ((Number)vl.get("predicted_share")).doubleValue();
        }
        assertEquals(20_000L, sent);
        assertEquals(1.0, predicted, 0.001);
        assertTrue(last.out.contains(" or 20000 packets,"), last.out);
        // every discard by reason, each with its cause (any would be VL15's, which has no credits)
        assertTrue(last.out.contains("\ndiscards: "), last.out);
        map(json, "discards").forEach((reason, entry) ->
            assertEquals("vl15_full", reason, "an unexpected discard in a run without faults: " + entry));
        // the seed's tables: VL0 high, VL4 weight 0 everywhere: reported, not driven
        assertEquals(false, vls(json).get(4).get("driven"));
        assertEquals(0L, number(vls(json).get(4), "sent_packets"));
        assertEquals(number(map(json, "vl15"), "sent"), number(map(json, "vl15"), "received"));
        // an SMP of 288 bytes takes 2 cells; VL15's class weighs the default 16
        assertEquals(2 * number(map(json, "vl15"), "sent"), number(map(json, "vl15"), "injected_cells"));
        assertEquals(16L, number(map(json, "vl15"), "class_weight"));
        assertTrue(last.out.contains("\ncells per buffer class (share / weight share): VL0 "), last.out);
        assertEquals(number(map(json, "fcp"), "sent"), number(map(json, "fcp"), "received"));
        final Map<String, Object> latency = map(json, "latency_ns");
        assertTrue(number(latency, "p50") > 0 && number(latency, "p50") <= number(latency, "p99") &&
            number(latency, "p99") <= number(latency, "p999") && number(latency, "p999") <= number(latency, "max"));
    }

    @Test
    void wireFaultsRetablesAndBouncesAreInjectedDetectedAndRecoveredFrom() throws Exception
    {
        // the kinds placed by packets; the timed ones (stall, flood) are SoakRunnerTest's, on a clock of its own
        final Path report = dir.resolve("faults.html");
        final Map<String, Object> json = soak(0, "--packets", "20000", "--size", "512", "--threads", "invoker",
            "--seed", "7", "--faults", "drop-data=0.002,corrupt-data=0.002,drop-fcp=0.01,corrupt-fcp=0.01,retable=2," +
            "link-bounce=2", "--report", report.toString());
        assertEveryInvariant(json);
        // the report: every time axis marks both retables and both bounces; each share panel's prediction steps at
        // each retable, to the variant's shares and back
        final List<ReportData.TimeAxis> axes = ReportData.timeAxes(Files.readString(report));
        assertFalse(axes.isEmpty());
        boolean changed = false;
        for (final ReportData.TimeAxis axis : axes)
        {
            final List<Double> retables = axis.faults.get("retable");
            assertEquals(2, retables.size(), axis.chart + " VL" + axis.vl);
            assertEquals(2, axis.faults.get("link-bounce").size(), axis.chart + " VL" + axis.vl);
            if ("share".equals(axis.chart))
            {
                assertEquals(3, axis.steps.size(), "VL" + axis.vl);
                assertEquals(retables.get(0), axis.steps.get(1)[0], 0.001);
                assertEquals(retables.get(1), axis.steps.get(2)[0], 0.001);
                assertEquals(axis.steps.get(0)[1], axis.steps.get(2)[1], 1e-9, "back to the configured tables");
                changed |= Math.abs(axis.steps.get(1)[1] - axis.steps.get(0)[1]) > 0.01;
            }
        }
        assertTrue(changed, "the variant's prediction differs for some VL");
        final Map<String, Object> injected = map(map(json, "faults"), "injected");
        final Map<String, Object> detected = map(map(json, "faults"), "detected");
        for (final String kind : List.of("drop-data", "corrupt-data", "corrupt-fcp", "retable", "link-bounce"))
        {
            assertTrue(number(injected, kind) > 0, kind + " injected: " + json);
            assertEquals(number(injected, kind), number(detected, kind), kind + "\n" + last);
        }
        assertTrue(number(injected, "drop-fcp") > 0);
        assertFalse(detected.containsKey("drop-fcp"));
        assertEquals(2L, number(injected, "retable"));
        assertEquals(2L, number(injected, "link-bounce"));
        assertEquals(2L, number(map(map(json, "faults"), "scheduled"), "link-bounce"));
        assertEquals(number(injected, "corrupt-fcp"), number(map(map(json, "discards"), "fcp_bad_lpcrc"), "count"));
        assertEquals("corrupt-fcp", map(map(json, "discards"), "fcp_bad_lpcrc").get("cause"));
        long sent = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            assertEquals(0L, number(vl, "lost"));
            assertEquals(number(vl, "sent_packets"), number(vl, "received_packets") + number(vl, "fault_lost"));
            sent += number(vl, "sent_packets");
        }
        assertEquals(20_000L, sent);
    }

    @Test
    void udpSoakRunsPortBInAPeerProcessHoldsEveryInvariantAndLeavesNoFile() throws Exception
    {
        final Map<String, Object> json = soak(0, "--packets", "3000", "--link", "udp", "--threads", "shared", "--vls",
            "4", "--sizes", "64-2048", "--faults", "drop-data=0.001,link-bounce=1");
        assertEveryInvariant(json);
        assertEquals("udp", json.get("link"));
        final long peer = number(json, "peer_pid");
        assertNotEquals(ProcessHandle.current().pid(), peer, "port B ran in another process");
        assertFalse(ProcessHandle.of(peer).map(ProcessHandle::isAlive).orElse(false), "the peer was reaped");
        assertNull(json.get("peer"), "a peer process of this host has no address");
        try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(dir))
        {
            assertEquals(List.of(dir.resolve("soak.json")), left.toList(), "the channel and the counters files are gone");
        }
        assertEquals(4L, number(json, "data_vls"));
        assertEquals(1L, number(map(map(json, "faults"), "detected"), "link-bounce"));
        long sent = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            sent += number(vl, "sent_packets");
        }
        assertEquals(3000L, sent);
    }

    @Test
    void shmSoakRunsPortBInAPeerProcessHoldsEveryInvariantAndLeavesNoFile() throws Exception
    {
        final Map<String, Object> json = soak(0, "--packets", "3000", "--link", "shm", "--threads", "shared", "--vls",
            "4", "--sizes", "64-2048", "--faults", "drop-data=0.001,link-bounce=1");
        assertEveryInvariant(json);
        assertEquals("shm", json.get("link"));
        final long peer = number(json, "peer_pid");
        assertNotEquals(ProcessHandle.current().pid(), peer, "port B ran in another process");
        assertFalse(ProcessHandle.of(peer).map(ProcessHandle::isAlive).orElse(false), "the peer was reaped");
        assertEquals(1L, number(map(map(json, "faults"), "detected"), "link-bounce"));
        long sent = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            sent += number(vl, "sent_packets");
        }
        assertEquals(3000L, sent);
        try (java.util.stream.Stream<java.nio.file.Path> left = java.nio.file.Files.list(dir))
        {
            assertEquals(List.of(dir.resolve("soak.json")), left.toList(), "the link's file and the counters files are gone");
        }
    }

    @Test
    void shmSoakWithThePeerInjectsAndDetectsTheWireAndTimedFaults() throws Exception
    {
        // the peer holds its receiving for a flood, its wire loses and damages packets, its port bounces
        final Map<String, Object> json = soak(0, "--seconds", "2.5", "--link", "shm", "--threads", "shared", "--vls",
            "2", "--size", "512", "--faults",
            "drop-data=0.002,corrupt-data=0.002,corrupt-fcp=0.01,vl15-flood=10,retable=1,link-bounce=1",
            "--allow-fewer-faults");
        assertEveryInvariant(json);
        final Map<String, Object> injected = map(map(json, "faults"), "injected");
        final Map<String, Object> detected = map(map(json, "faults"), "detected");
        for (final String kind : List.of("drop-data", "corrupt-data", "corrupt-fcp", "vl15-flood", "retable", "link-bounce"))
        {
            assertEquals(number(injected, kind), number(detected, kind), kind);
        }
        assertTrue(number(injected, "drop-data") > 0 && number(injected, "corrupt-data") > 0, injected.toString());
        assertEquals(1L, number(injected, "link-bounce"));
        assertNotEquals(ProcessHandle.current().pid(), number(json, "peer_pid"));
        assertTrue(number(map(json, "latency_ns"), "p50") > 0, "the peer's latencies are in the summary");
    }

    @Test
    void aLoopbackSoakHasNoPeerProcess() throws Exception
    {
        final Map<String, Object> json = soak(0, "--packets", "1000", "--threads", "invoker", "--vls", "2");
        assertNull(json.get("peer_pid"), json.toString());
    }

    @Test
    void anAuthenticatedUdpSoakHoldsEveryInvariantAndAKeyNeedsUdp(@org.junit.jupiter.api.io.TempDir final java.nio.file.Path dir)
        throws Exception
    {
        final java.nio.file.Path key = dir.resolve("vlink.key");
        java.nio.file.Files.writeString(key, "# test key\n000102030405060708090a0b0c0d0e0f\n");
        java.nio.file.Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        final Map<String, Object> json = soak(0, "--packets", "2000", "--link", "udp", "--key", key.toString(),
            "--threads", "shared", "--vls", "2", "--sizes", "64-1024");
        assertEveryInvariant(json);
        assertUsage("a key authenticates the UDP link; add --link udp", "--key", key.toString());
        java.nio.file.Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        assertUsage("readable by others; make it private: chmod 600", "--link", "udp", "--key", key.toString());
    }

    @Test
    void splitThreadsHoldEveryInvariant() throws Exception
    {
        // transmit and receive agents on a thread each, beside the soak's own thread, on a 2-core machine
        final Map<String, Object> json = soak(0, "--packets", "3000", "--threads", "split", "--size", "256",
            "--faults", "drop-data=0.001", "--allow-fewer-faults");
        assertEveryInvariant(json);
        long sent = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            assertEquals(number(vl, "sent_packets"), number(vl, "received_packets") + number(vl, "fault_lost"));
            sent += number(vl, "sent_packets");
        }
        assertEquals(3000L, sent);
    }

    @Test
    void openLoopRateSendsTheSchedule() throws Exception
    {
        final Map<String, Object> json = soak(0, "--seconds", "0.5", "--threads", "invoker", "--rate", "20000",
            "--size", "256");
        assertEveryInvariant(json);
        // 20,000 packets a second over 7 driven VLs: a packet every 350 us on each, those intended in the first
        // 0.5 s (1429 a VL), however late the run is with them
        for (final Map<String, Object> vl : vls(json))
        {
            assertEquals(Boolean.TRUE.equals(vl.get("driven")) ? 1429L : 0L, number(vl, "sent_packets"));
        }
    }

    @Test
    void reportAndCaptureAreWritten() throws Exception
    {
        final Path report = dir.resolve("soak.html");
        final Path capture = dir.resolve("soak.pcap");
        soak(0, "--packets", "2000", "--size", "512", "--report", report.toString(), "--capture", capture.toString());
        final String html = Files.readString(report);
        assertTrue(html.startsWith("<!DOCTYPE html>") && html.contains("<svg"), html);
        assertFalse(html.contains("http://") && html.contains("<script src"), "self-contained");
        final Cli decode = Cli.run("decode", capture.toString());
        assertEquals(0, decode.exitCode, decode.err);
    }

    @Test
    void badOptionsAreUsageErrors()
    {
        assertUsage("unknown kind 'drop-everything'", "--faults", "drop-everything=1");
        assertUsage("out of range", "--faults", "drop-data=2");
        assertUsage("multiple of 4 from 48", "--size", "4097");
        assertUsage("multiple of 4 from 48", "--size", "20");
        assertUsage("MIN is larger than MAX", "--sizes", "4096-64");
        assertUsage("write MIN-MAX", "--sizes", "64");
        assertUsage("not both", "--size", "64", "--sizes", "64-128");
        assertUsage("use loopback, udp or shm", "--link", "carrier-pigeon");
        assertUsage("--peer host.invalid: cannot resolve the host 'host.invalid'", "--peer", "host.invalid");
        assertUsage("--peer 127.0.0.1:x: 'x' is not a port (0 to 65535)", "--peer", "127.0.0.1:x");
        assertUsage("--peer 127.0.0.1: a peer on another host is reached over UDP; drop --link shm or give --link udp",
            "--peer", "127.0.0.1", "--link", "shm");
        assertUsage("--serve: --seconds belongs to the soak that joins (vlink soak --peer HOST:PORT --seconds ...): " +
            "it gives the run", "--serve", "--seconds", "3");
        assertUsage("--serve: --link shm: a soak on another host joins over UDP; drop --link", "--serve", "--link",
            "shm");
        assertUsage("--port-type swe: it picks the qos_<type>_ options of a --qos file", "--port-type", "swe");
        assertUsage("use auto, shared, split, dedicated or invoker", "--threads", "many");
        assertUsage("use spin, backoff, yield or sleep", "--idle", "nap");
        assertUsage("1, 2, 4, 8 or 15 data VLs", "--vls", "3");
        assertUsage("positive number of seconds", "--seconds", "0");
        assertUsage("positive number of packets", "--rate", "-5");
        assertUsage("--packets 0: give a positive number of packets", "--packets", "0");
        assertUsage("--retry maybe: use on or off (link-level retry; default: on over udp, off otherwise)", "--retry",
            "maybe");
    }

    private static void assertUsage(final String message, final String... args)
    {
        final String[] full = new String[args.length + 1];
        full[0] = "soak";
        System.arraycopy(args, 0, full, 1, args.length);
        final Cli cli = Cli.run(full);
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink soak: ") && cli.err.contains(message), cli.toString());
        assertTrue(cli.err.endsWith("\nsee 'vlink soak --help'\n") && 2 == cli.err.lines().count(),
            "one line and the hint: " + cli.err);
        assertEquals("", cli.out);
    }
}
