package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every sample topology (ibsim's examples) read, routed with min-hop, built as a fabric in one process and run
 * briefly: every CA port sends to every other, on two SLs; everything arrives, in order per (source, destination,
 * SL), nothing is discarded, and every link's credits are back once the fabric is idle.
 */
class FabricTest
{
    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"net", "net.1", "net.2sw2path", "net.2sw2path4hca", "net.2sw2path4hca2port"})
    void everySampleTopologyDeliversEveryPacketInOrder(final String name)
    {
        final FabricConfiguration.Builder settings = Fabric.builder().name(name).directory(dir.toFile());
        try (FabricHarness h = new FabricHarness(FabricHarness.topology(name), settings))
        {
            h.bringUp();
            final int rounds = 20;
            long expected = 0;
            for (int round = 0; round < rounds; round++)
            {
                for (final Fabric.Endpoint from : h.fabric.endpoints())
                {
                    for (final Fabric.Endpoint to : h.fabric.endpoints())
                    {
                        if (from != to)
                        {
                            for (int sl = 0; sl < 2; sl++)
                            {
                                assertTrue(h.send(from, to.lid(), sl, 64 + 64 * (round % 4)));
                                expected++;
                            }
                        }
                    }
                }
                h.step();
            }
            final long total = expected;
            h.stepUntil(20_000, "every packet delivered", () -> h.delivered == total);
            assertEquals(0, h.wrongOrder.size(), h.wrongOrder.toString());
            for (final Switch sw : h.fabric.switches())
            {
                for (final DiscardReason reason : DiscardReason.values())
                {
                    if (DiscardReason.FCP_STATE == reason)
                    {
                        // a port that comes up after its peer armed discards the peer's normal FCPs that arrive while it
                        // still owes the peer its init FCP (docs/flow-control.md, "Link training", rule 1): at most the
                        // burst the peer sent on arming, one per data VL
                        for (int p = 1; p <= sw.ports(); p++)
                        {
                            assertTrue(sw.counters(p).discards(reason.id()).get() <= sw.dataVls(),
                                sw.name() + "[" + p + "]");
                        }
                        continue;
                    }
                    assertEquals(0, h.discards(sw, reason), sw.name() + " " + reason);
                }
            }
            // idle: every input FIFO empty
            for (final Switch sw : h.fabric.switches())
            {
                for (int p = 1; p <= sw.ports(); p++)
                {
                    for (int vl = 0; vl < 16; vl++)
                    {
                        assertEquals(0, sw.queued(p, vl));
                    }
                }
            }
        }
    }
}
