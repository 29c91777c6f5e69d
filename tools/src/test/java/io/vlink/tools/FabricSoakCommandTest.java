package io.vlink.tools;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code vlink fabric soak}: a short soak of ibsim's two-switch fabric holds every invariant; a ring of switches
 * with one VL deadlocks under shift traffic and names the credit loop (exit 3); the same ring with the dateline SL
 * policy and SL 1 on VL 1 completes; each on one thread and with the switches on a second. Every run is bounded by a
 * packet count (or a second or two); the baseline's line and fields; faults refused on two threads.
 */
@Tag("long")
class FabricSoakCommandTest
{
    /** Five switches in a ring, each with one CA: shift sends every packet two hops clockwise. */
    private static final String RING = ring(5);

    @TempDir
    Path dir;

    private static String ring(final int n)
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++)
        {
            sb.append("Switch 3 \"S").append(i).append("\"\n")
                .append("[1] \"S").append((i + 1) % n).append("\"[2]\n")
                .append("[2] \"S").append((i + n - 1) % n).append("\"[1]\n")
                .append("[3] \"H").append(i).append("\"[1]\n\n");
        }
        for (int i = 0; i < n; i++)
        {
            sb.append("Ca 1 \"H").append(i).append("\"\n[1] \"S").append(i).append("\"[3]\n\n");
        }
        return sb.toString();
    }

    private String write(final String name, final String text) throws IOException
    {
        final Path file = dir.resolve(name);
        Files.writeString(file, text, StandardCharsets.UTF_8);
        return file.toString();
    }

    private String resource(final String name)
    {
        try (InputStream in = FabricSoakCommandTest.class.getResourceAsStream("/topology/" + name))
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

    @ParameterizedTest
    @ValueSource(strings = {"1", "2"})
    void aShortSoakOfTwoSwitchesAndFourHcasHoldsEveryInvariant(final String threads) throws IOException
    {
        final Path json = dir.resolve("soak.json");
        final Path report = dir.resolve("soak.html");
        final Cli cli = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--packets", "20000",
            "--seconds", "60", "--sls", "0,1", "--size", "128", "--json", json.toString(), "--report", report.toString(),
            "--dir", dir.toString(), "--threads", threads);
        assertEquals(0, cli.exitCode, cli.toString());
        assertTrue(cli.out.contains(", threads " + threads + "\n"), cli.out);
        assertTrue(cli.out.contains("invariant no_loss: held"), cli.out);
        assertTrue(cli.out.contains("Switch1[3]"), cli.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEquals(List.of("ok", "topology"), List.copyOf(summary.keySet()).subList(0, 2), "ok first, as soak's");
        assertEquals(true, summary.get("ok"));
        assertEquals(20000L, ((Number)summary.get("sent")).longValue());
        assertEquals(20000L, ((Number)summary.get("delivered")).longValue());
        assertEquals(null, summary.get("deadlock"));
        assertEquals(Long.parseLong(threads), ((Number)summary.get("threads")).longValue());
        assertEquals(null, summary.get("baseline_pkt_s"), "no baseline unless asked");
        @SuppressWarnings("unchecked")
        final Map<String, Object> invariants = (Map<String, Object>)summary.get("invariants");
        for (final Map.Entry<String, Object> inv : invariants.entrySet())
        {
            assertEquals(Boolean.TRUE, inv.getValue(), inv.getKey());
        }
        assertEquals(4, ((List<?>)summary.get("cas")).size());
        assertEquals(8, ((List<?>)summary.get("switch_ports")).size());
        assertTrue(Files.readString(report).contains("invariant fifo: held"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "2"})
    void aRingWithOneVlDeadlocksUnderShiftTrafficAndTheCreditLoopIsNamed(final String threads) throws IOException
    {
        final Path json = dir.resolve("ring.json");
        final Cli cli = Cli.run("fabric", "soak", write("ring5", RING), "--pattern", "shift", "--packets", "200000",
            "--seconds", "60", "--vl-buffer", "64", "--stall-ms", "300", "--json", json.toString(),
            "--dir", dir.toString(), "--threads", threads);
        assertEquals(3, cli.exitCode, cli.toString());
        assertTrue(cli.out.contains("credit loop: S"), cli.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEquals(false, summary.get("ok"));
        @SuppressWarnings("unchecked")
        final Map<String, Object> deadlock = (Map<String, Object>)summary.get("deadlock");
        final List<?> cycle = (List<?>)deadlock.get("cycle");
        // the loop runs around the ring: one input buffer of each switch, each fed by the one before
        assertEquals(5, cycle.size(), cycle.toString());
        for (final Object b : cycle)
        {
            @SuppressWarnings("unchecked")
            final Map<String, Object> buffer = (Map<String, Object>)b;
            assertEquals(0L, ((Number)buffer.get("vl")).longValue());
            assertEquals(2L, ((Number)buffer.get("port")).longValue(), "the input from the previous switch");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"1", "2"})
    void theSameRingWithTheDatelineSlPolicyAndSl1OnVl1Completes(final String threads) throws IOException
    {
        final String qos = write("qos.conf", "qos TRUE\nmax_op_vls 2\nqos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
        final Cli cli = Cli.run("fabric", "soak", write("ring5", RING), "--pattern", "shift", "--packets", "30000",
            "--seconds", "60", "--vl-buffer", "64", "--stall-ms", "300", "--qos", qos, "--sl-policy", "dateline:S0[1]",
            "--dir", dir.toString(), "--threads", threads);
        assertEquals(0, cli.exitCode, cli.toString());
        assertTrue(cli.out.contains("invariant no_deadlock: held"), cli.out);
        assertTrue(cli.out.contains("invariant credits_recovered: held"), cli.out);
    }

    @Test
    void anSlMapAssignsTheSameSlsAsTheDatelineAndCompletes() throws IOException
    {
        // OpenSM's LIDs (ibsim's GUIDs byte-swapped): S0 1, H0 2, S1 3, S2 4, H1 5, S3 6, S4 7, H2 8, H3 9, H4 10;
        // H_i sends to H_{i+2}, clockwise; the paths from H4 (to H1) and from H0 (to H2) cross S0[1] -> S1[2]
        final String map = write("sl.map", "# SRC DST SL\n10 5 1\n2 8 1\n");
        final String qos = write("qos.conf", "qos TRUE\nmax_op_vls 2\nqos_sl2vl 0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
        final Cli cli = Cli.run("fabric", "soak", write("ring5", RING), "--pattern", "shift", "--packets", "20000",
            "--seconds", "60", "--vl-buffer", "64", "--stall-ms", "300", "--qos", qos, "--sl-map", map,
            "--dir", dir.toString());
        assertEquals(0, cli.exitCode, cli.toString());
    }

    @Test
    void everyWireFaultOnOneSwitchToSwitchCableIsExplained() throws IOException
    {
        final Path json = dir.resolve("faults.json");
        final Cli cli = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--packets", "20000",
            "--seconds", "60", "--sls", "0,1", "--size", "128", "--seed", "7", "--faults",
            "drop-data=0.005,corrupt-data=0.005,drop-fcp=0.02,corrupt-fcp=0.02", "--fault-link", "Switch1[3]",
            "--json", json.toString(), "--dir", dir.toString());
        assertEquals(0, cli.exitCode, cli.toString());
        assertTrue(cli.out.contains(", threads 1, faults "), "auto runs faults on one thread: " + cli.out);
        assertTrue(cli.out.contains("faults (injected/detected) on Switch1[3]: drop-data "), cli.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEveryInvariantHeld(summary, cli);
        final Map<String, Object> injected = faults(summary, "injected");
        final Map<String, Object> detected = faults(summary, "detected");
        for (final String kind : new String[]{"drop-data", "corrupt-data", "drop-fcp", "corrupt-fcp"})
        {
            assertTrue(((Number)injected.get(kind)).longValue() > 0, kind + " ran: " + injected);
        }
        // a damaged packet is discarded at the port behind the faulty wire (its first hop), a damaged FCP too; a lost
        // FCP leaves nothing to detect
        assertEquals(injected.get("corrupt-data"), detected.get("corrupt-data"));
        assertEquals(injected.get("corrupt-fcp"), detected.get("corrupt-fcp"));
        assertEquals(injected.get("drop-data"), detected.get("drop-data"));
        assertEquals(null, detected.get("drop-fcp"));
        final long lost = ((Number)summary.get("sent")).longValue() - ((Number)summary.get("delivered")).longValue();
        assertEquals(((Number)injected.get("drop-data")).longValue() + ((Number)injected.get("corrupt-data")).longValue(),
            lost, "every packet lost was lost or damaged by the faulty wire");
    }

    @Test
    void everyFaultKindOnOneCaCableIsExplained() throws IOException
    {
        // 2 s of offered traffic: the receiver stalls (200 ms at +0.5 s and +1.5 s), the table replacements (at 1/3
        // and 2/3) and the bounce (at 1/2) are on the clock, apart; small buffers make a stall back up into the switch
        // at once
        final Path json = dir.resolve("ca-faults.json");
        final Cli cli = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--seconds", "2", "--sls", "0,1",
            "--size", "128", "--seed", "11", "--vl-buffer", "64", "--faults",
            "drop-data=0.005,corrupt-data=0.005,drop-fcp=0.02,corrupt-fcp=0.02,stall-receiver=200,retable=2," +
            "link-bounce=1,vl15-flood=3",
            "--fault-link", "Hca1[1]", "--json", json.toString(), "--dir", dir.toString());
        assertEquals(0, cli.exitCode, cli.toString());
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEveryInvariantHeld(summary, cli);
        final Map<String, Object> injected = faults(summary, "injected");
        final Map<String, Object> detected = faults(summary, "detected");
        assertEquals(8, injected.size(), injected.toString());
        for (final Map.Entry<String, Object> kind : injected.entrySet())
        {
            assertTrue(((Number)kind.getValue()).longValue() > 0, kind.getKey() + " ran: " + injected);
        }
        assertEquals(2L, ((Number)injected.get("stall-receiver")).longValue(), cli.out);
        final long stallsSeen = ((Number)detected.get("stall-receiver")).longValue();
        assertTrue(stallsSeen >= 1 && stallsSeen <= 2, "a stall backed up into the switch: " + cli.out);
        assertEquals(2L, ((Number)injected.get("retable")).longValue());
        assertEquals(2L, ((Number)detected.get("retable")).longValue(), "each replacement applied");
        assertEquals(1L, ((Number)injected.get("link-bounce")).longValue());
        assertEquals(1L, ((Number)detected.get("link-bounce")).longValue(), "the bounce went down and came back");
        assertEquals(injected.get("corrupt-data"), detected.get("corrupt-data"));
        assertEquals(injected.get("corrupt-fcp"), detected.get("corrupt-fcp"));
        // two floods (at +0.25 s and +1.25 s) of 4 + 3 SMPs into Switch1[1]'s 4-packet VL15 buffer: 3 dropped each
        assertEquals(6L, ((Number)injected.get("vl15-flood")).longValue(), cli.out);
        assertEquals(6L, ((Number)detected.get("vl15-flood")).longValue(), "each excess SMP dropped and counted");
    }

    /**
     * Twenty bounces of one cable in 2 s: each time both ends go down and come up, and what an end sent before it went
     * down (its normal FCPs) must be gone before the other comes up, or that one takes them for the new link's and
     * overruns the switch's 64-block buffer (data_overflow at Switch1[1]: without the wait, four runs of five).
     */
    @Test
    void aCableBouncedTwentyTimesComesBackEveryTimeWithNothingUnexplained() throws IOException
    {
        final Path json = dir.resolve("bounces.json");
        final Cli cli = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--seconds", "2", "--sls", "0,1",
            "--size", "128", "--seed", "11", "--vl-buffer", "64", "--faults", "link-bounce=20",
            "--fault-link", "Hca1[1]", "--json", json.toString(), "--dir", dir.toString());
        assertEquals(0, cli.exitCode, cli.toString());
        final Map<String, Object> summary = Json.object(Files.readString(json));
        assertEveryInvariantHeld(summary, cli);
        assertEquals(20L, ((Number)faults(summary, "injected").get("link-bounce")).longValue());
        assertEquals(20L, ((Number)faults(summary, "detected").get("link-bounce")).longValue());
    }

    private static void assertEveryInvariantHeld(final Map<String, Object> summary, final Cli cli)
    {
        @SuppressWarnings("unchecked")
        final Map<String, Object> invariants = (Map<String, Object>)summary.get("invariants");
        for (final Map.Entry<String, Object> inv : invariants.entrySet())
        {
            assertEquals(Boolean.TRUE, inv.getValue(), inv.getKey() + "\n" + cli.out);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> faults(final Map<String, Object> summary, final String which)
    {
        return (Map<String, Object>)((Map<String, Object>)summary.get("faults")).get(which);
    }

    @Test
    void theBaselineIsVlinkSoaksTwoPortsRunAfterTheFabricWithTheSameSizeAndWarmUp() throws IOException
    {
        final Path json = dir.resolve("baseline.json");
        // on one thread, as the short run below (the baseline is what this checks, not the switch thread)
        final Cli cli = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--seconds", "2", "--size", "256",
            "--warmup", "1", "--baseline", "--threads", "1", "--json", json.toString(), "--dir", dir.toString());
        assertEquals(0, cli.exitCode, cli.toString());
        final java.util.regex.Matcher line = java.util.regex.Pattern.compile(
            "(?m)^baseline: vlink soak, 2 ports back to back, threads (invoker|shared): ([0-9,]+) pkt/s after the " +
            "warm-up \\(([0-9,]+) over the run\\); fabric/baseline ([0-9]+\\.[0-9]{2}) after the warm-up " +
            "\\(([0-9]+\\.[0-9]{2}) over the runs\\)$").matcher(cli.out);
        assertTrue(line.find(), cli.out);
        final java.util.regex.Matcher fabricLine = java.util.regex.Pattern.compile(
            "delivered [0-9,]+ \\(([0-9,]+) pkt/s; ([0-9,]+) pkt/s after a 1\\.0 s warm-up\\)").matcher(cli.out);
        assertTrue(fabricLine.find(), cli.out);
        final Map<String, Object> summary = Json.object(Files.readString(json));
        final double baseline = ((Number)summary.get("baseline_pkt_s")).doubleValue();
        final double baselineSteady = ((Number)summary.get("baseline_pkt_s_after_warmup")).doubleValue();
        final double fabric = ((Number)summary.get("packets_per_second")).doubleValue();
        final double fabricSteady = ((Number)summary.get("packets_per_second_after_warmup")).doubleValue();
        assertTrue(baseline > 0 && baselineSteady > 0 && fabricSteady > 0, summary.toString());
        assertEquals(1.0, ((Number)summary.get("warmup_seconds")).doubleValue());
        assertEquals(line.group(1), summary.get("baseline_threads"));
        assertEquals(Long.parseLong(line.group(2).replace(",", "")), Math.round(baselineSteady));
        assertEquals(Long.parseLong(line.group(3).replace(",", "")), Math.round(baseline));
        assertEquals(Long.parseLong(fabricLine.group(1).replace(",", "")), Math.round(fabric));
        assertEquals(Long.parseLong(fabricLine.group(2).replace(",", "")), Math.round(fabricSteady));
        assertEquals(fabricSteady / baselineSteady, ((Number)summary.get("ratio")).doubleValue(), 1e-9);
        assertEquals(fabric / baseline, ((Number)summary.get("ratio_whole_run")).doubleValue(), 1e-9);
        assertEquals(Boolean.TRUE, summary.get("baseline_ok"));

        // a run shorter than twice the warm-up leaves out its first half; a negative warm-up is a usage error. On one
        // thread: with the switches on a second one, a 2-core machine at a load of 12 starves one of the threads past
        // the link timeout in about one run of four (a link reset: credits_recovered or discards_explained fails)
        final Path shortJson = dir.resolve("short.json");
        final Cli shortRun = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--seconds", "1", "--threads",
            "1", "--json", shortJson.toString(), "--dir", dir.toString());
        assertEquals(0, shortRun.exitCode, shortRun::toString);
        assertEquals(0.5, ((Number)Json.object(Files.readString(shortJson)).get("warmup_seconds")).doubleValue());
        final Cli negative = Cli.run("fabric", "soak", resource("net.2sw2path4hca"), "--warmup", "-1");
        assertEquals(2, negative.exitCode, negative.toString());
        assertTrue(negative.err.contains("--warmup -1.0: give 0 or more seconds"), negative.err);
    }

    @Test
    void threadMistakesAreUsageErrors() throws IOException
    {
        final String topology = resource("net.2sw2path4hca");
        Cli cli = Cli.run("fabric", "soak", topology, "--threads", "2", "--faults", "drop-data=0.1");
        assertEquals(2, cli.exitCode, cli.toString());
        assertEquals("vlink fabric soak: --threads 2 with --faults: faults act on the switches mid-run and run on " +
            "one thread; give --threads 1 or leave --threads out\nsee 'vlink fabric soak --help'\n",
            cli.err.replace("\r\n", "\n"));
        assertEquals("", cli.out);
        cli = Cli.run("fabric", "soak", topology, "--threads", "3");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --threads 3: use 1, 2 or auto\n"), cli.err);
    }

    @Test
    void faultMistakesAreUsageErrors() throws IOException
    {
        final String topology = resource("net.2sw2path4hca");
        Cli cli = Cli.run("fabric", "soak", topology, "--faults", "vl15-flood=1", "--fault-link", "Switch2[5]");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --fault-link Switch2[5]: stall-receiver, retable and " +
            "vl15-flood act on a CA port; give a cable with a CA at one end"), cli.err);
        cli = Cli.run("fabric", "soak", topology, "--faults", "link-bounce=1");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --faults link-bounce: give --fault-link NODE[PORT], the " +
            "cable to bounce"), cli.err);
        cli = Cli.run("fabric", "soak", topology, "--faults", "retable=1", "--fault-link", "Switch2[5]");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --fault-link Switch2[5]: stall-receiver, retable and " +
            "vl15-flood act on a CA port; give a cable with a CA at one end"), cli.err);
        cli = Cli.run("fabric", "soak", topology, "--fault-link", "Switch1[3]");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --fault-link Switch1[3]: it places --faults; give --faults too"), cli.err);
        cli = Cli.run("fabric", "soak", topology, "--faults", "drop-data=0.1", "--fault-link", "Switch1[4]");
        assertEquals(2, cli.exitCode, cli.toString());
        assertTrue(cli.err.startsWith("vlink fabric soak: --fault-link Switch1[4]: give NODE[PORT], a node's ID and a cabled port (port 4 of " +
            "\"Switch1\" is not cabled)"), cli.err);
        assertTrue(cli.err.contains("see 'vlink fabric soak --help'"), cli.err);
    }

    @Test
    void mistakesAreRefusedWithWhereAndHow() throws IOException
    {
        final String ring = write("ring5", RING);
        Cli cli = Cli.run("fabric", "soak", ring, "--pattern", "tornado");
        assertEquals(2, cli.exitCode);
        assertTrue(cli.err.contains("--pattern tornado: use uniform, permutation, all-to-one or shift"), cli.err);
        assertTrue(cli.err.contains("see 'vlink fabric soak --help'"), cli.err);
        cli = Cli.run("fabric", "soak", ring, "--sl-policy", "dateline:S0[3]");
        assertEquals(2, cli.exitCode);
        assertTrue(cli.err.contains("port 3 of \"S0\" is not cabled to a switch"), cli.err);
        cli = Cli.run("fabric", "soak", ring, "--sl-map", write("bad.map", "6 7\n6 99 1\n6 7 16\n"));
        assertEquals(1, cli.exitCode);
        assertTrue(cli.err.contains("bad.map:1:1: error: expected 'SRC_LID DST_LID SL', found 2 fields"), cli.err);
        assertTrue(cli.err.contains("bad.map:2:3: error: no port of the topology has LID 99"), cli.err);
        assertTrue(cli.err.contains("bad.map:3:5: error: SL '16' is not a number from 0 to 15"), cli.err);
        final String missing = dir.resolve("missing/out.json").toString();
        cli = Cli.run("fabric", "soak", ring, "--json", missing);
        assertEquals(1, cli.exitCode);
        assertEquals("vlink fabric soak: --json " + missing + ": No such file or directory\n", cli.err);
        assertEquals("", cli.out, "nothing ran");
    }
}
