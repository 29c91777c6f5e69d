package io.vlink.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink soak} end to end, in-process (issue 7): short soaks without and with every fault kind, over loopback
 * and UDP, and the usage errors. Each run is bounded by the soak's own deadlines.
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
    void noFaultSoakHoldsEveryInvariantAndSharesFollowTheArbiter() throws Exception
    {
        final Map<String, Object> json = soak(0, "--seconds", "3");
        assertEveryInvariant(json);
        for (final String key : List.of("ok", "seconds", "link", "data_vls", "packet_size", "vls", "vl15", "fcp",
            "faults", "latency_ns", "invariants"))
        {
            assertTrue(json.containsKey(key), key);
        }
        assertEquals("loopback", json.get("link"));
        assertEquals(8L, number(json, "data_vls"));
        assertEquals(4096L, number(json, "packet_size"));
        long received = 0;
        for (final Map<String, Object> vl : vls(json))
        {
            for (final String key : List.of("vl", "sent_packets", "sent_bytes", "received_packets", "received_bytes",
                "lost", "out_of_order", "duplicated", "credit_stalls", "share"))
            {
                assertTrue(vl.containsKey(key), key);
            }
            assertEquals(0L, number(vl, "lost"));
            assertEquals(number(vl, "sent_packets"), number(vl, "received_packets"), vl.toString());
            final double share = ((Number)vl.get("share")).doubleValue();
            final double predicted = ((Number)vl.get("predicted_share")).doubleValue();
            assertEquals(predicted, share, 0.02, "VL " + vl.get("vl") + " share\n" + last);
            received += number(vl, "received_packets");
        }
        assertTrue(received > 1000, "traffic flowed: " + received);
        // the seed's tables: VL0 high, VL4 weight 0 everywhere: reported, not driven
        assertEquals(false, vls(json).get(4).get("driven"));
        assertEquals(0L, number(vls(json).get(4), "sent_packets"));
        assertTrue(number(map(json, "vl15"), "sent") > 0);
        assertTrue(number(map(json, "fcp"), "received") > 0);
        final Map<String, Object> latency = map(json, "latency_ns");
        assertTrue(number(latency, "p50") > 0 && number(latency, "p50") <= number(latency, "p99") &&
            number(latency, "p99") <= number(latency, "p999") && number(latency, "p999") <= number(latency, "max"));
    }
}
