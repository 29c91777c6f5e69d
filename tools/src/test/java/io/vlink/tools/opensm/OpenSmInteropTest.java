package io.vlink.tools.opensm;

import io.vlink.core.config.Result;
import io.vlink.core.credit.LineRate;
import io.vlink.core.fabric.LftReader;
import io.vlink.core.fabric.MinHopRouting;
import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.fabric.TopologyReader;
import io.vlink.core.fabric.UpDownRouting;
import io.vlink.tools.Cli;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * vlink against the real OpenSM 3.3.23 on ibsim 0.10, read back with infiniband-diags 44.0 ({@link RealTools}). One
 * OpenSM run per fabric, LMC and routing engine, and one per QoS file; everything is compared from that run, entry for
 * entry:
 * <ul>
 *     <li>the LIDs vlink gives the net file are the ones OpenSM gave (read back with ibnetdiscover, every output form
 *     of which vlink reads as the same fabric);</li>
 *     <li>OpenSM's {@code opensm-lfts.dump} (minhop, updn, ftree), ibroute's and dump_fts' tables load with the net
 *     file and with ibnetdiscover's output as the topology, and agree;</li>
 *     <li>{@code vlink fabric routes --routing minhop|updn} equals OpenSM's tables, and prints the same as
 *     {@code --lft} on OpenSM's dump;</li>
 *     <li>where OpenSM's routes have no credit loop, {@code vlink fabric soak --lft} with them holds every invariant;</li>
 *     <li>{@code vlink qos show} equals {@code smpquery vlarb} and {@code smpquery sl2vl} on a channel adapter port and
 *     two switch ports, for QoS files that cover explicit tables, defaults, max_op_vls, long tables, irregular spacing,
 *     out-of-range VLs and weights, short SL2VL lists and hex and octal values (the same files and outputs core's
 *     tests keep as fixtures, which are checked here against the live tools too).</li>
 * </ul>
 */
@Tag("real-tool")
class OpenSmInteropTest
{
    private static final String[] FABRICS = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port",
        "ring6", "mesh3x3", "fattree-dbl", "fattree-3", "irregular-1", "irregular-2"};
    private static final String[] QOS_FILES = {"defaults", "explicit", "maxop2", "maxop3", "long", "spacing", "range",
        "short", "hex"};

    private static final AtomicInteger RUNS = new AtomicInteger();
    private static final AtomicInteger ENTRIES = new AtomicInteger();
    private static final List<String> SOAKED = new ArrayList<>();
    private static final AtomicInteger TABLES = new AtomicInteger();
    private static final List<String> FABRICS_SEEN = new ArrayList<>();

    @TempDir
    Path dir;

    static Stream<Arguments> runs()
    {
        final List<Arguments> runs = new ArrayList<>();
        for (final String fabric : FABRICS)
        {
            for (final int lmc : new int[]{0, 1})
            {
                for (final String engine : new String[]{"minhop", "updn", "ftree"})
                {
                    runs.add(Arguments.of(fabric, lmc, engine, ""));
                }
            }
        }
        // up/down from a root given, on the fabrics where OpenSM finds none
        runs.add(Arguments.of("ring6", 0, "updn", "0x200000"));
        runs.add(Arguments.of("mesh3x3", 1, "updn", "0x200004"));
        return runs.stream();
    }

    private Path resource(final String path) throws IOException
    {
        final Path target = dir.resolve(path.substring(path.lastIndexOf('/') + 1));
        try (InputStream in = OpenSmInteropTest.class.getResourceAsStream(path))
        {
            Files.copy(in, target);
        }
        return target;
    }

    @ParameterizedTest(name = "{0} lmc {1} {2} {3}")
    @MethodSource("runs")
    void everyOutputOfOneOpenSmRunMatchesVlink(final String fabric, final int lmc, final String engine, final String root)
        throws IOException
    {
        final Path net = resource("/topology/" + fabric);
        final Topology topology = TopologyReader.read(net, LineRate.EDR_4X, lmc).orThrow();
        final List<String> options = new ArrayList<>(List.of("-R", engine, "-l", Integer.toString(lmc)));
        if (!root.isEmpty())
        {
            final Path roots = dir.resolve("roots");
            Files.writeString(roots, root + "\n");
            options.addAll(List.of("-a", roots.toString()));
        }
        try (RealTools tools = RealTools.start(net, dir.resolve("sim")))
        {
            final Path dump = tools.opensm(options.toArray(new String[0]));
            final String used = tools.engineUsed();
            final String what = fabric + " lmc " + lmc + " " + engine + (root.isEmpty() ? "" : " root " + root) +
                " (OpenSM used " + used + ")";
            final Routes opensm = load(what, Files.readString(dump), topology);

            // every ibnetdiscover form is the same fabric, with the LIDs vlink gave the net file (the forms depend on the
            // LIDs, not on the routes: every form after each minhop run, the default one after the others)
            final String[] forms = engine.equals("minhop") ? new String[]{"", "-g", "-s", "-f", "-m"} : new String[]{""};
            for (final String form : forms)
            {
                final String text = form.isEmpty() ? tools.diag("ibnetdiscover") : tools.diag("ibnetdiscover", form);
                final Result<Topology> read = TopologyReader.parse("ibnetdiscover" + form, text, LineRate.EDR_4X);
                assertEquals(List.of(), read.diagnostics(), what + " ibnetdiscover " + form);
                final Topology discovered = read.orThrow();
                assertSameFabric(what + " ibnetdiscover " + form, topology, discovered);
                assertSameTables(what + " dump with ibnetdiscover " + form, topology, opensm, discovered,
                    load(what, Files.readString(dump), discovered));
            }

            // dump_fts reaches every switch by directed route; ibroute by LID, which up/down may leave unrouted
            assertSameTables(what + " dump_fts", topology, opensm, topology, load(what, tools.diag("dump_fts"), topology));
            final StringBuilder ibroute = new StringBuilder();
            boolean everySwitch = true;
            for (final Topology.Node sw : topology.switches())
            {
                final String table = tools.diagAnyway("ibroute", Integer.toString(sw.baseLid(0)));
                everySwitch &= table.contains("valid lids dumped");
                ibroute.append(table);
            }
            if (everySwitch)
            {
                assertSameTables(what + " ibroute", topology, opensm, topology, load(what, ibroute.toString(), topology));
            }

            // vlink's own routing is OpenSM's, entry for entry
            if (used.equals("minhop") || used.equals("updn"))
            {
                final Routes ours = used.equals("updn") ? UpDownRouting.route(topology, roots(root)) :
                    MinHopRouting.route(topology);
                ENTRIES.addAndGet(assertSameTables(what + " vlink " + used, topology, opensm, topology, ours));
                final List<String> args = new ArrayList<>(List.of("fabric", "routes", net.toString(), "--lmc",
                    Integer.toString(lmc), "--routing", used));
                if (!root.isEmpty() && used.equals("updn"))
                {
                    args.addAll(List.of("--root", root));
                }
                final Cli routed = Cli.run(args.toArray(new String[0]));
                final Cli fromDump = Cli.run("fabric", "routes", net.toString(), "--lmc", Integer.toString(lmc), "--lft",
                    dump.toString());
                assertEquals(0, fromDump.exitCode, fromDump::toString);
                assertEquals(fromDump.out, routed.out, what + ": vlink fabric routes --routing " + used + " and --lft");
            }

            // a soak of the fabric on OpenSM's own tables wherever they have no credit loop: every engine's tables
            // (a run where OpenSM fell back to minhop has the minhop run's tables, soaked there), so up/down's and
            // ftree's on the trees, and up/down's from a given root on the ring and the mesh, where minhop's loop
            final boolean acyclic = CreditLoops.acyclic(topology, opensm);
            if (used.equals("minhop") && (fabric.equals("ring6") || fabric.equals("mesh3x3")))
            {
                assertFalse(acyclic, what + ": min-hop routes on a ring or a mesh close a credit loop");
            }
            if (engine.equals(used) && acyclic)
            {
                Files.createDirectories(dir.resolve("counters"));
                final Cli soak = Cli.run("fabric", "soak", net.toString(), "--lmc", Integer.toString(lmc), "--lft",
                    dump.toString(), "--packets", "2000", "--seconds", "60", "--sls", "0,1", "--threads", "1",
                    "--dir", dir.resolve("counters").toString());
                assertEquals(0, soak.exitCode, what + " soak: " + soak);
                assertTrue(soak.out.contains("invariant no_deadlock: held"), soak::toString);
                assertTrue(soak.out.contains("invariant no_loss: held"), soak::toString);
                synchronized (SOAKED)
                {
                    SOAKED.add(what);
                }
            }
            synchronized (FABRICS_SEEN)
            {
                if (!FABRICS_SEEN.contains(fabric))
                {
                    FABRICS_SEEN.add(fabric);
                }
            }
            RUNS.incrementAndGet();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"defaults", "explicit", "maxop2", "maxop3", "long", "spacing", "range", "short", "hex"})
    void qosShowEqualsSmpqueryOnACaPortAndTwoSwitchPorts(final String name) throws IOException
    {
        final Path net = resource("/topology/net.2sw2path4hca");
        final Path conf = resource("/opensm-3.3.23/qos/" + name + ".conf");
        try (RealTools tools = RealTools.start(net, dir.resolve("sim")))
        {
            tools.opensm("-R", "minhop", "-F", conf.toString());
            // Hca1 is LID 2; Switch1 is LID 1, its port 1 cabled to Hca1, its port 3 to Switch2; every port VLCap 8
            for (final String[] port : new String[][]{{"2", "1", "ca"}, {"1", "1", "swe"}, {"1", "3", "swe"}})
            {
                final String smpquery = tools.diag("smpquery", "vlarb", port[0], port[1]) +
                    tools.diag("smpquery", "sl2vl", port[0], port[1]);
                final Cli show = Cli.run("qos", "show", conf.toString(), "--port-type", port[2], "--vl-cap", "8",
                    "--lid", port[0], "--port", port[1], "--ports", "8");
                assertEquals(0, show.exitCode, show::toString);
                final String tables = show.out.substring(0, show.out.indexOf("VLHighLimit: "));
                assertEquals(smpquery, tables, name + " Lid " + port[0] + " port " + port[1]);
                TABLES.addAndGet(3);
                if (!port[1].equals("1") || port[2].equals("ca"))
                {
                    // the fixture core's tests compare against is what the tool prints today
                    final String fixture = "/opensm-3.3.23/qos/" + name + "/smpquery-%s-" + port[0] + "-" + port[1] +
                        ".out";
                    assertEquals(text(String.format(fixture, "vlarb")) + text(String.format(fixture, "sl2vl")),
                        smpquery, name + " fixture");
                }
            }
        }
    }

    @AfterAll
    static void summary()
    {
        System.out.println("OpenSM interop: " + RUNS.get() + " OpenSM runs on " + FABRICS_SEEN.size() + " fabrics " +
            FABRICS_SEEN + ", " + ENTRIES.get() + " LFT entries equal to vlink's, " + SOAKED.size() + " soaks on " +
            "OpenSM's tables held every invariant " + SOAKED + "; " + TABLES.get() + " VLArbitration/SL2VL tables equal to vlink qos " +
            "show over " + QOS_FILES.length + " QoS files");
    }

    private static String text(final String resource) throws IOException
    {
        try (InputStream in = OpenSmInteropTest.class.getResourceAsStream(resource))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static long[] roots(final String root)
    {
        return root.isEmpty() ? new long[0] : new long[]{Long.parseUnsignedLong(root.substring(2), 16)};
    }

    private static Routes load(final String what, final String text, final Topology topology)
    {
        final Result<Routes> result = LftReader.parse(what, text, topology);
        assertEquals(List.of(), result.diagnostics(), what);
        return result.orThrow();
    }

    private static Topology.Node twin(final Topology t, final Topology.Node node)
    {
        return t.nodes().stream().filter(n -> n.guid() == node.guid()).findFirst()
            .orElseThrow(() -> new AssertionError("no node with " + node + "'s GUID"));
    }

    private static void assertSameFabric(final String what, final Topology net, final Topology discovered)
    {
        assertEquals(net.nodes().size(), discovered.nodes().size(), what);
        assertEquals(net.links().size(), discovered.links().size(), what);
        for (final Topology.Node node : net.nodes())
        {
            final Topology.Node twin = twin(discovered, node);
            assertEquals(node.type(), twin.type(), what);
            for (int p = 0; p <= node.portCount(); p++)
            {
                if (p > 0 && null == node.link(p))
                {
                    continue;
                }
                assertEquals(node.baseLid(p), twin.baseLid(p), what + ": the LID of " + node + " port " + p);
                assertEquals(node.lmc(p), twin.lmc(p), what + ": the LMC of " + node + " port " + p);
                assertEquals(node.portGuid(p), twin.portGuid(p), what + ": the GUID of " + node + " port " + p);
                if (p > 0)
                {
                    assertEquals(node.link(p).remote().guid(), twin.link(p).remote().guid(), what);
                    assertEquals(node.link(p).remotePort(), twin.link(p).remotePort(), what);
                }
            }
        }
    }

    /** @return the entries compared (routes that exist). */
    private static int assertSameTables(
        final String what, final Topology t, final Routes expected, final Topology other, final Routes actual)
    {
        int entries = 0;
        for (final Topology.Node sw : t.switches())
        {
            final Topology.Node twin = twin(other, sw);
            for (int lid = 1; lid <= t.maxLid(); lid++)
            {
                assertEquals(expected.outPort(sw, lid), actual.outPort(twin, lid), what + ": " + sw + " lid " + lid);
                assertEquals(expected.hops(sw, lid), actual.hops(twin, lid), what + ": " + sw + " lid " + lid);
                entries += expected.outPort(sw, lid) == Routes.NO_ROUTE ? 0 : 1;
            }
        }
        return entries;
    }
}
