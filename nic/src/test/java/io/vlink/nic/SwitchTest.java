package io.vlink.nic;

import io.vlink.core.credit.Credits;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.status.PortCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The switch's rules, each on its own: SL2VL per (input, output) pair with the VL rewritten and both CRCs right on
 * every hop, VL15 to port 0 (and a held SMA's full VL15 buffer), unrouted and unmappable packets discarded and counted, the head-of-queue lifetime,
 * head-of-line blocking within a VL relieved by a second VL, and credits on every hop.
 */
class SwitchTest
{
    /** One switch (LID 1), three CAs A, B, C (LIDs 2, 3, 4). */
    private static final String STAR = String.join("\n",
        "Switch 4 \"S\"",
        "[1] \"A\"[1]",
        "[2] \"B\"[1]",
        "[3] \"C\"[1]",
        "",
        "Ca 1 \"A\"",
        "[1] \"S\"[1]",
        "",
        "Ca 1 \"B\"",
        "[1] \"S\"[2]",
        "",
        "Ca 1 \"C\"",
        "[1] \"S\"[3]",
        "");

    @TempDir
    Path dir;

    private FabricConfiguration.Builder settings(final String name)
    {
        return Fabric.builder().name(name).directory(dir.toFile());
    }

    @Test
    void sl2vlPerPairRewritesTheVlAndBothCrcsHoldOnEveryHop()
    {
        // CAs send SL s on VL s mod 4; switches send it on VL 3 - (s mod 4): every hop changes the VL
        final QosConfig ca = QosConfig.builder().dataVls(4).sl2vl(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3).build();
        final QosConfig swe = QosConfig.builder().dataVls(4).sl2vl(3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0).build();
        final List<HopCheckLink> checks = new ArrayList<>();
        final FabricConfiguration.Builder settings = settings("sl2vl").qos(ca, swe, QosConfig.opensmDefaults(4))
            .linkWrapper((node, port, link) ->
            {
                // the frames this end receives were sent by the node at the other end of the cable
                final Topology.Node sender = node.link(port).remote();
                final QosConfig qos = sender.isSwitch() ? swe : ca;
                final HopCheckLink check = new HopCheckLink(link, qos::sl2vl);
                checks.add(check);
                return check;
            });
        try (FabricHarness h = new FabricHarness(FabricHarness.topology("net.2sw2path4hca"), settings))
        {
            h.bringUp();
            long sent = 0;
            for (int sl = 0; sl < 16; sl++)
            {
                for (final Fabric.Endpoint from : h.fabric.endpoints())
                {
                    for (final Fabric.Endpoint to : h.fabric.endpoints())
                    {
                        if (from != to && sl != 15)
                        {
                            assertTrue(h.send(from, to.lid(), sl, 128));
                            sent++;
                        }
                    }
                }
                h.step();
            }
            final long total = sent;
            h.stepUntil(20_000, "delivery", () -> h.delivered == total);
            long checked = 0;
            for (final HopCheckLink check : checks)
            {
                assertEquals(0, check.failures, check.firstFailure);
                checked += check.checked;
            }
            // each packet crosses two or three links (CA, one or two switches, CA)
            assertTrue(checked >= 2 * total, checked + " frames checked");
            // the destination CA receives each SL on the last switch's VL for it
            for (final Fabric.Endpoint to : h.fabric.endpoints())
            {
                final long[] perVl = h.deliveredOnVl.get(to.lid());
                for (int vl = 0; vl < 4; vl++)
                {
                    // SLs 0..14: VL 3 gets SL 0, 4, 8, 12 (4 SLs) ... VL 0 gets SL 3, 7, 11 (3 SLs)
                    final long sls = 3 - vl == 3 ? 3 : 4;
                    assertEquals(sls * 3, perVl[vl], to + " VL " + vl);
                }
            }
        }
    }

    @Test
    void vl15ToTheSwitchLidEndsAtPort0AndOtherSmpsAreForwardedOnVl15()
    {
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR), settings("vl15")))
        {
            h.bringUp();
            final Switch sw = h.switchNamed("S");
            final Fabric.Endpoint a = h.endpoint("A");
            assertTrue(h.sendSmp(a, sw.lid()));
            assertTrue(h.sendSmp(a, sw.lid()));
            assertTrue(h.sendSmp(a, h.endpoint("C").lid()));
            h.stepUntil(1_000, "SMPs", () -> sw.counters(Switch.MANAGEMENT_PORT).deliveredPackets(15).get() == 2 &&
                h.vl15Delivered == 1);
            assertEquals(2, sw.counters(Switch.MANAGEMENT_PORT).deliveredPackets(15).get());
            assertEquals(1, sw.counters(3).txPackets(15).get(), "forwarded out of port 3 on VL15");
            assertEquals(0, h.discards(sw, DiscardReason.NO_ROUTE));
        }
    }

    @Test
    void aHeldSmaLetsTheVl15BufferFillDropsAndCountsTheRestAndTakesWhatWaitedOnceReleased()
    {
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR), settings("held")))
        {
            h.bringUp();
            final Switch sw = h.switchNamed("S");
            final Fabric.Endpoint a = h.endpoint("A");
            final PortCounters in = sw.counters(1);
            final PortCounters sma = sw.counters(Switch.MANAGEMENT_PORT);
            sw.holdManagement(true);
            // the VL15 buffer holds 4 largest packets: 4 SMPs of the MTU wait, the next 3 find it full
            final int smps = EngineConfiguration.DEFAULT_VL15_PACKETS + 3;
            for (int i = 0; i < smps; i++)
            {
                while (!h.sendSmp(a, sw.lid(), EngineConfiguration.DEFAULT_MTU))
                {
                    h.step();
                }
            }
            // data goes on meanwhile
            assertTrue(h.send(a, h.endpoint("B").lid(), 0, 256));
            h.stepUntil(2_000, "SMPs stored or dropped and the data delivered",
                () -> in.rxPackets(15).get() + in.vl15Drops().get() == smps && h.delivered == 1);
            assertEquals(EngineConfiguration.DEFAULT_VL15_PACKETS, in.rxPackets(15).get());
            assertEquals(3, in.vl15Drops().get());
            assertEquals(3, h.discards(sw, DiscardReason.VL15_FULL));
            assertEquals(0, sma.deliveredPackets(15).get(), "the SMA took nothing while held");
            assertEquals(EngineConfiguration.DEFAULT_VL15_PACKETS, sw.queued(1, 15));

            sw.holdManagement(false);
            h.stepUntil(1_000, "the SMA took what waited",
                () -> sma.deliveredPackets(15).get() == EngineConfiguration.DEFAULT_VL15_PACKETS);
            assertEquals(0, sw.queued(1, 15));
            // a directed-route SMP (the permissive DLID) ends at the switch's SMA too
            assertTrue(h.sendSmp(a, LrhFlyweight.PERMISSIVE_LID));
            h.stepUntil(1_000, "the directed-route SMP",
                () -> sma.deliveredPackets(15).get() == EngineConfiguration.DEFAULT_VL15_PACKETS + 1);
            assertEquals(0, h.discards(sw, DiscardReason.NO_ROUTE));
        }
    }

    @Test
    void unroutedAndUnmappablePacketsAreDiscardedAndCountedOnTheirInputPort()
    {
        // the CA maps every SL to VL 0; the switch maps SL 2 to VL15 and SL 3 to VL 5, which its 4-VL ports lack
        final QosConfig ca = QosConfig.builder().dataVls(4).sl2vl(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).build();
        final QosConfig swe = QosConfig.builder().dataVls(4).sl2vl(0, 1, 15, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).build();
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR),
            settings("discards").qos(ca, swe, QosConfig.opensmDefaults(4))))
        {
            h.bringUp();
            final Switch sw = h.switchNamed("S");
            final Fabric.Endpoint a = h.endpoint("A");
            final int b = h.endpoint("B").lid();
            assertTrue(h.send(a, 99, 0, 64));         // no such LID
            assertTrue(h.send(a, 99, 1, 64));
            assertTrue(h.send(a, b, 2, 64));          // SL 2 -> VL15
            assertTrue(h.send(a, b, 3, 64));          // SL 3 -> VL 5
            assertTrue(h.send(a, sw.lid(), 0, 64));   // data to the switch: port 0 runs no data VL
            assertTrue(h.send(a, b, 0, 64));          // and one that goes
            assertTrue(h.send(a, b, 1, 64));
            h.stepUntil(1_000, "delivery", () -> h.delivered == 2);
            final PortCounters in = sw.counters(1);
            assertEquals(2, in.discards(DiscardReason.NO_ROUTE.id()).get());
            assertEquals(3, in.discards(DiscardReason.SL2VL_UNMAPPED.id()).get());
            assertEquals(5, h.discards(sw, DiscardReason.NO_ROUTE) + h.discards(sw, DiscardReason.SL2VL_UNMAPPED));
            assertEquals(0, h.gaps);
            idleCreditsAreWhole(h);
        }
    }

    @Test
    void aHeadOlderThanTheLifetimeIsDiscardedAndCounted()
    {
        final FabricConfiguration.Builder settings = settings("hoq").vlBufferBlocks(128).hoqLifetimeNs(200_000);
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR), settings))
        {
            h.bringUp();
            final Switch sw = h.switchNamed("S");
            final Fabric.Endpoint a = h.endpoint("A");
            final Fabric.Endpoint c = h.endpoint("C");
            h.paused.add(c);
            int sent = 0;
            for (int i = 0; i < 60; i++)
            {
                sent += h.send(a, c.lid(), 0, 256) ? 1 : 0;
            }
            // C's buffer (32 packets of 4 blocks) fills; the rest waits at the switch's input, past its lifetime
            h.stepUntil(5_000, "a lifetime discard", () -> sw.counters(1).discards(DiscardReason.HOQ_LIFETIME.id()).get() > 0);
            h.paused.clear();
            final long posted = sent;
            h.stepUntil(20_000, "every packet delivered or discarded", () ->
                h.delivered + sw.counters(1).discards(DiscardReason.HOQ_LIFETIME.id()).get() == posted);
            assertTrue(h.delivered >= 32, h.delivered + " delivered");
            assertEquals(0, h.wrongOrder.size(), h.wrongOrder.toString());
            assertEquals(sw.counters(1).discards(DiscardReason.HOQ_LIFETIME.id()).get(), h.gaps,
                "what is missing is exactly what the switch discarded");
            idleCreditsAreWhole(h);
        }
    }

    @Test
    void withoutALifetimeHeadsWaitAsLongAsTheyMust()
    {
        final FabricConfiguration.Builder settings = settings("nohoq").vlBufferBlocks(128);
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR), settings))
        {
            h.bringUp();
            final Fabric.Endpoint c = h.endpoint("C");
            h.paused.add(c);
            for (int i = 0; i < 60; i++)
            {
                assertTrue(h.send(h.endpoint("A"), c.lid(), 0, 256));
            }
            for (int i = 0; i < 5_000; i++)
            {
                h.step();
            }
            h.paused.clear();
            h.stepUntil(20_000, "every packet delivered", () -> h.delivered == 60);
            assertEquals(0, h.gaps);
        }
    }

    @Test
    void headOfLineBlockingWithinAVlIsRelievedByASecondVl()
    {
        // SL 0 on VL 0, SL 1 on VL 1 everywhere
        final QosConfig qos = QosConfig.builder().dataVls(2).sl2vl(0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0).build();
        try (FabricHarness h = new FabricHarness(FabricHarness.parse("star", STAR),
            settings("hol").qos(qos, qos, qos).vlBufferBlocks(128)))
        {
            h.bringUp();
            final Fabric.Endpoint a = h.endpoint("A");
            final Fabric.Endpoint b = h.endpoint("B");
            final Fabric.Endpoint c = h.endpoint("C");
            h.paused.add(c);
            for (int i = 0; i < 80; i++)
            {
                assertTrue(h.send(a, c.lid(), 0, 256));   // more than C's and the switch's buffers hold
            }
            for (int i = 0; i < 10; i++)
            {
                assertTrue(h.send(a, b.lid(), 0, 256));   // behind them on VL 0
            }
            for (int i = 0; i < 200; i++)
            {
                h.step();
            }
            assertEquals(0, h.deliveredTo.getOrDefault(b.lid(), 0L), "B's VL 0 packets wait behind C's");
            for (int i = 0; i < 10; i++)
            {
                assertTrue(h.send(a, b.lid(), 1, 256));   // the same destination on VL 1
            }
            h.stepUntil(1_000, "B's VL 1 packets", () -> h.deliveredTo.getOrDefault(b.lid(), 0L) == 10);
            assertEquals(10, h.deliveredOnVl.get(b.lid())[1]);
            h.paused.clear();
            h.stepUntil(20_000, "everything", () -> h.delivered == 100);
            assertEquals(0, h.gaps);
            assertEquals(0, h.wrongOrder.size());
        }
    }

    @Test
    void creditsHoldOnEveryHopWhileAReceiverStallsAndComeBackWhole()
    {
        final FabricConfiguration.Builder settings = settings("credits").vlBufferBlocks(128);
        try (FabricHarness h = new FabricHarness(FabricHarness.topology("net.2sw2path4hca"), settings))
        {
            h.bringUp();
            final Fabric.Endpoint slow = h.endpoint("Hca4");
            h.paused.add(slow);
            long sent = 0;
            for (int round = 0; round < 40; round++)
            {
                for (final Fabric.Endpoint from : h.fabric.endpoints())
                {
                    if (from != slow)
                    {
                        sent += h.send(from, slow.lid(), 0, 512) ? 1 : 0;
                    }
                }
                h.step();
            }
            for (int i = 0; i < 2_000; i++)
            {
                h.step();
            }
            // nothing overflowed anywhere: every hop held the packets its credits let through, no more
            for (final Switch sw : h.fabric.switches())
            {
                assertEquals(0, h.discards(sw, DiscardReason.DATA_OVERFLOW), sw.name());
                for (int p = 1; p <= sw.ports(); p++)
                {
                    assertTrue(sw.counters(p).rxFreeBlocks(0).get() >= 0);
                }
            }
            assertEquals(0, slow.port().counters().discards(DiscardReason.DATA_OVERFLOW.id()).get());
            assertTrue(h.delivered == 0 && slow.port().pending(0) > 0, "the slow CA holds what its buffer took");
            h.paused.clear();
            final long total = sent;
            h.stepUntil(50_000, "delivery", () -> h.delivered == total);
            assertEquals(0, h.gaps);
            idleCreditsAreWhole(h);
        }
    }

    /**
     * Once idle and a few FCP periods on, every sender on every cable, both ways, holds the whole window its
     * receiver's buffer allows: credits came back on every hop.
     */
    private static void idleCreditsAreWhole(final FabricHarness h)
    {
        for (int i = 0; i < 3_000; i++)
        {
            h.step();   // 3 ms: three FCP periods of the engine's default
        }
        assertEquals(List.of(), h.unrecoveredCredits());
    }
}
