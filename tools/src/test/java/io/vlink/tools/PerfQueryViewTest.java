package io.vlink.tools;

import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.status.CounterKey;
import io.vlink.nic.status.CounterType;
import io.vlink.nic.status.CountersFile;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@code vlink stat --perfquery} on a counters file whose counts are known: each port's IB counters in
 * {@code perfquery}'s layout (the same fields, order and columns as the real perfquery's output in
 * {@code src/test/resources/perfquery/}), the data in 4-byte words, the widths saturating, the discards by IB's
 * kind.
 */
class PerfQueryViewTest
{
    private static final Pattern FIELD = Pattern.compile("([A-Za-z0-9]+):(\\.*)(\\S+)");

    @TempDir
    File dir;

    private static String resource(final String name) throws IOException
    {
        try (InputStream in = PerfQueryViewTest.class.getResourceAsStream("/perfquery/" + name))
        {
            assertNotNull(in, name);
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** @return one port's block: its header, then the field lines by name, in order. */
    private static Map<String, String> fields(final List<String> block)
    {
        final Map<String, String> fields = new LinkedHashMap<>();
        for (final String line : block.subList(1, block.size()))
        {
            final Matcher field = FIELD.matcher(line);
            assertTrue(field.matches(), line);
            assertEquals(33, field.start(3), "the value starts at column 34, as libibmad writes it: " + line);
            fields.put(field.group(1), field.group(3));
        }
        return fields;
    }

    /** @return the blocks of the output, each from its '# Port' header. */
    private static List<List<String>> blocks(final String out)
    {
        final List<List<String>> blocks = new ArrayList<>();
        for (final String line : out.split("\n"))
        {
            if (line.startsWith("# Port "))
            {
                blocks.add(new ArrayList<>());
            }
            if (!blocks.isEmpty() && !line.isEmpty())
            {
                blocks.get(blocks.size() - 1).add(line);
            }
        }
        return blocks;
    }

    private static void set(final CountersFile file, final CounterType type, final int port, final int vl,
        final long value)
    {
        file.newCounter(type, port, vl, CounterKey.NONE).setRelease(value);
    }

    private static void discards(final CountersFile file, final int port, final DiscardReason reason, final long value)
    {
        file.newCounter(CounterType.DISCARDS, port, CounterKey.NONE, reason.id()).setRelease(value);
    }

    @Test
    void eachPortAsPerfqueryPrintsItWithIbsNamesUnitsAndKinds() throws IOException
    {
        try (CountersFile file = CountersFile.create(dir, "pq", 256, 4096, SystemEpochClock.INSTANCE))
        {
            file.newCounter(CounterType.ERRORS, CounterKey.NONE, CounterKey.NONE, CounterKey.NONE).setRelease(9);
            set(file, CounterType.TX_BYTES, 1, 0, 1000);
            set(file, CounterType.TX_BYTES, 1, 3, 24);
            set(file, CounterType.TX_BYTES, 1, 15, 256);
            set(file, CounterType.TX_PACKETS, 1, 0, 10);
            set(file, CounterType.TX_PACKETS, 1, 3, 1);
            set(file, CounterType.TX_PACKETS, 1, 15, 1);
            set(file, CounterType.RX_BYTES, 1, 2, 4096);
            set(file, CounterType.RX_PACKETS, 1, 2, 16);
            set(file, CounterType.CREDIT_STALLS, 1, 2, 77);
            set(file, CounterType.VL15_DROPS, 1, CounterKey.NONE, 7);
            set(file, CounterType.LINK_DOWNED, 1, CounterKey.NONE, 1);
            set(file, CounterType.LINK_ERROR_RECOVERY, 1, CounterKey.NONE, 2);
            set(file, CounterType.LINK_LENGTH_DROPS, 1, CounterKey.NONE, 1);
            set(file, CounterType.TX_FLUSHED_MESSAGES, 1, 4, 3);
            discards(file, 1, DiscardReason.DATA_BAD_CRC, 5);
            discards(file, 1, DiscardReason.FCP_BAD_LPCRC, 2);
            discards(file, 1, DiscardReason.DATA_STATE, 30);
            discards(file, 1, DiscardReason.FCP_STALE, 30);
            discards(file, 1, DiscardReason.VL15_FULL, 7);
            discards(file, 1, DiscardReason.NO_ROUTE, 4);
            discards(file, 1, DiscardReason.SL2VL_UNMAPPED, 1);
            discards(file, 1, DiscardReason.HOQ_LIFETIME, 2);
            set(file, CounterType.TX_PACKETS, 0, 1, 5);

            final Cli cli = Cli.run("stat", "--dir", dir.getPath(), "--perfquery");
            assertEquals(0, cli.exitCode, cli.toString());
            assertTrue(cli.out.startsWith("# vlink stat "), cli.out);
            final List<List<String>> blocks = blocks(cli.out);
            assertEquals(2, blocks.size(), cli.out);
            final long pid = ProcessHandle.current().pid();
            assertEquals("# Port counters: engine pq pid " + pid + " port 0 (CapMask: 0x400)", blocks.get(0).get(0));
            assertEquals("# Port counters: engine pq pid " + pid + " port 1 (CapMask: 0x400)", blocks.get(1).get(0));

            final Map<String, String> port1 = fields(blocks.get(1));
            final Map<String, String> real = fields(blocks(resource("perfquery-2-1.out")).get(0));
            assertEquals(List.copyOf(real.keySet()), List.copyOf(port1.keySet()), "perfquery's fields, in its order");
            final Map<String, String> expected = new LinkedHashMap<>();
            expected.put("PortSelect", "1");
            expected.put("CounterSelect", "0x0000");
            expected.put("SymbolErrorCounter", "0");
            expected.put("LinkErrorRecoveryCounter", "2");
            expected.put("LinkDownedCounter", "1");
            expected.put("PortRcvErrors", "8");          // bad CRC 5, bad LPCRC 2, a frame too short 1
            expected.put("PortRcvRemotePhysicalErrors", "0");
            expected.put("PortRcvSwitchRelayErrors", "5"); // no route 4, SL2VL to no VL 1
            expected.put("PortXmitDiscards", "5");         // head-of-queue lifetime 2, flushed at a link error 3
            expected.put("PortXmitConstraintErrors", "0");
            expected.put("PortRcvConstraintErrors", "0");
            expected.put("CounterSelect2", "0x00");
            expected.put("LocalLinkIntegrityErrors", "0");
            expected.put("ExcessiveBufferOverrunErrors", "0");
            expected.put("QP1Dropped", "0");
            expected.put("VL15Dropped", "7");
            expected.put("PortXmitData", "320");           // (1000 + 24 + 256) / 4: words, VL15 too
            expected.put("PortRcvData", "1024");
            expected.put("PortXmitPkts", "12");
            expected.put("PortRcvPkts", "16");
            expected.put("PortXmitWait", "0");             // not supported (CapMask without bit 12)
            assertEquals(expected, port1);
            assertEquals("5", fields(blocks.get(0)).get("PortXmitPkts"));

            final Cli x = Cli.run("stat", "--dir", dir.getPath(), "--perfquery", "-x");
            assertEquals(0, x.exitCode, x.toString());
            final List<List<String>> extended = blocks(x.out);
            assertEquals("# Port extended counters: engine pq pid " + pid + " port 1 (CapMask: 0x400 CapMask2: " +
                "0x0000000)", extended.get(1).get(0));
            final Map<String, String> ext1 = fields(extended.get(1));
            // IsExtendedWidthSupportedNoIETF: perfquery prints the fields before PortUnicastXmitPkts
            final List<String> realExt = List.copyOf(fields(blocks(resource("perfquery-x-2-1.out")).get(0)).keySet());
            assertEquals(realExt.subList(0, realExt.indexOf("PortUnicastXmitPkts")), List.copyOf(ext1.keySet()));
            assertEquals(List.of("1", "0x0000", "320", "1024", "12", "16"), List.copyOf(ext1.values()));
        }
    }

    @Test
    void portCountersStopAtTheirWidthWhileTheExtendedOnesGoOn()
    {
        try (CountersFile file = CountersFile.create(dir, "big", 64, 4096, SystemEpochClock.INSTANCE))
        {
            set(file, CounterType.TX_BYTES, 0, 0, 4 * ((1L << 32) + 5));
            set(file, CounterType.TX_PACKETS, 0, 0, (1L << 32) - 1);
            set(file, CounterType.LINK_DOWNED, 0, CounterKey.NONE, 300);
            discards(file, 0, DiscardReason.DATA_BAD_CRC, 70_000);

            final Map<String, String> basic = fields(blocks(Cli.run("stat", "--dir", dir.getPath(), "--perfquery").out)
                .get(0));
            assertEquals("4294967295", basic.get("PortXmitData"));
            assertEquals("4294967295", basic.get("PortXmitPkts"), "the largest value is a value");
            assertEquals("255", basic.get("LinkDownedCounter"));
            assertEquals("65535", basic.get("PortRcvErrors"));
            final Map<String, String> ext = fields(blocks(Cli.run("stat", "--dir", dir.getPath(), "--perfquery",
                "--extended").out).get(0));
            assertEquals("4294967301", ext.get("PortXmitData"));
        }
        assertEquals(15, PerfQueryView.saturated(15, 4));
        assertEquals(15, PerfQueryView.saturated(16, 4));
        assertEquals(0, PerfQueryView.saturated(-1, 8));
    }

    @Test
    void perfqueryTakesNoCounterFiltersAndExtendedNeedsIt()
    {
        assertEquals(2, Cli.run("stat", "--dir", dir.getPath(), "--extended").exitCode);
        assertEquals(2, Cli.run("stat", "--dir", dir.getPath(), "--perfquery", "--nonzero").exitCode);
        final Cli filtered = Cli.run("stat", "--dir", dir.getPath(), "--perfquery", "tx_");
        assertEquals(2, filtered.exitCode);
        assertEquals(Arrays.asList("vlink stat: --perfquery prints every IB counter of a port: give it without " +
            "FILTER, --counter or --nonzero", "see 'vlink stat --help'"), Arrays.asList(filtered.err.split("\n")));
        assertEquals("", filtered.out);
    }
}
