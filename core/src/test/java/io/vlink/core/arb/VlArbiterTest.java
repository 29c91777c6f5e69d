package io.vlink.core.arb;

import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.QosConfig;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;

import static io.vlink.core.arb.VlArbiter.GRANT_FCP;
import static io.vlink.core.arb.VlArbiter.GRANT_NONE;
import static io.vlink.core.arb.VlArbiter.GRANT_VL15;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One test per rule of {@code vl-arbitration.md}, and seed 000's worked example (Figure 25-10) grant by grant.
 */
class VlArbiterTest
{
    private static final int KB4 = 4096;

    /** Seed 000 Figure 25-10: VLHighLimit 4, high 6:127,1:63,7:254, low 3:2,5:64, 4 KB packets everywhere. */
    static QosConfig seedFigure()
    {
        return QosConfig.builder()
            .dataVls(8)
            .highLimit(4)
            .vlarbHigh("6:127,1:63,7:254")
            .vlarbLow("3:2,5:64")
            .build();
    }

    static List<String> run(final VlArbiter arbiter, final SimulatedPort port, final int slots)
    {
        final List<String> grants = new ArrayList<>();
        for (int i = 0; i < slots; i++)
        {
            final int grant = arbiter.next();
            port.send(grant);
            grants.add(grant == GRANT_NONE ? "none" : grant == GRANT_FCP ? "fcp" :
                VlArbiter.describe(grant) + VlArbiter.vl(grant));
        }
        return grants;
    }

    @Test
    void seedWorkedExampleGrantByGrant()
    {
        final SimulatedPort port = new SimulatedPort();
        for (final int vl : new int[] {6, 1, 7, 3, 5})
        {
            port.enqueue(vl, KB4, 10);
        }
        final VlArbiter arbiter = new VlArbiter(seedFigure(), port);

        // VL6 127 -> 63, counter 4096 -> 3072
        assertEquals(VlArbiter.FROM_HIGH | 6, arbiter.next());
        port.send(VlArbiter.FROM_HIGH | 6);
        assertEquals(63, arbiter.highRemaining());
        assertEquals(3072, arbiter.highCounter());
        // VL6 63 -> -1: the entry is used up, the pointer moves to VL1 with 63; counter 2048
        assertEquals(VlArbiter.FROM_HIGH | 6, arbiter.next());
        port.send(VlArbiter.FROM_HIGH | 6);
        assertEquals(1, arbiter.highPointer());
        assertEquals(63, arbiter.highRemaining());
        assertEquals(2048, arbiter.highCounter());

        assertEquals(List.of("high1", "high7", "high7", "low3", "high7", "high7", "high6", "high6", "high1", "low5"),
            run(arbiter, port, 10));
    }

    @Test
    void seedWorkedExampleTwelveGrants()
    {
        final SimulatedPort port = new SimulatedPort();
        for (final int vl : new int[] {6, 1, 7, 3, 5})
        {
            port.enqueue(vl, KB4, 10);
        }
        assertEquals(List.of("high6", "high6", "high1", "high7", "high7", "low3",
            "high7", "high7", "high6", "high6", "high1", "low5"), run(new VlArbiter(seedFigure(), port), port, 12));
    }

    @Test
    void weightOverdrawsOnTheLastPacketAndTheEntryLosesNothingElse()
    {
        // 127 - 64 - 64 = -1: the second 4 KB packet starts with 63 blocks left and overdraws.
        final SimulatedPort port = new SimulatedPort().enqueue(0, KB4, 5).enqueue(1, KB4, 5);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(255).vlarbHigh("0:127,1:1").vlarbLow("0:0")
            .build();
        assertEquals(List.of("high0", "high0", "high1", "high0", "high0", "high1"),
            run(new VlArbiter(config, port), port, 6));
    }

    @Test
    void highLimitIsCountedInDwords()
    {
        // Limit 1 = 1024 dwords = 4096 bytes. 2048-byte packets are 512 dwords: 1024 -> 512 -> 0 -> -512,
        // so three high packets start while the counter is not below zero, then the low table.
        final SimulatedPort port = new SimulatedPort().enqueue(0, 2048, 20).enqueue(1, 2048, 20);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(1).vlarbHigh("0:255").vlarbLow("1:32")
            .build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        assertEquals(List.of("high0", "high0", "high0", "low1", "high0"), run(arbiter, port, 5));
        assertEquals(1024 - 512, arbiter.highCounter());
    }

    /**
     * A decision with nothing queued on any VL of the tables grants nothing, ends a low turn and resets the high
     * counter, as the full walk of steps 1 to 4 does; the next packets start from a full counter.
     */
    @Test
    void anIdleDecisionEndsTheLowTurnAndResetsTheCounter()
    {
        idleBoundaryEndsTheLowTurnAndResetsTheCounter((arbiter, port) ->
            assertEquals(List.of("none"), run(arbiter, port, 1), "nothing queued: no grant"));
    }

    /**
     * What each decision asks: an idle port's {@link VlArbiter#next()} asks each VL the tables name once (not every
     * entry of both tables); a busy port's {@link VlArbiter#nextQueued()} walks the table without asking first
     * whether any VL has a packet, and grants what {@code next()} grants.
     */
    @Test
    void anIdleDecisionAsksEachTableVlOnceAndAQueuedOneSkipsThatWalk()
    {
        final QosConfig config = QosConfig.builder().dataVls(4).highLimit(0)
            .vlarbHigh("3:0").vlarbLow("0:64,1:64,2:64,3:64,1:64").build();
        final SimulatedPort port = new SimulatedPort();
        final int[] asked = new int[1];
        final ArbiterSource counted = new ArbiterSource()
        {
            public boolean hasVl15()
            {
                return port.hasVl15();
            }

            public boolean hasFcp()
            {
                return port.hasFcp();
            }

            public int headSize(final int vl)
            {
                asked[0]++;
                return port.headSize(vl);
            }

            public boolean canSend(final int vl, final int size)
            {
                return port.canSend(vl, size);
            }
        };
        assertEquals(GRANT_NONE, new VlArbiter(config, counted).next());
        assertEquals(4, asked[0], "VLs 0 to 3, once each");

        port.enqueue(2, 256, 1);
        asked[0] = 0;
        final int grant = new VlArbiter(config, counted).next();
        assertEquals(VlArbiter.FROM_LOW | 2, grant);
        assertEquals(3 + 3, asked[0], "VLs 0 to 2 whether any has a packet, then the low table's entries 0 to 2");
        asked[0] = 0;
        assertEquals(grant, new VlArbiter(config, counted).nextQueued());
        assertEquals(3, asked[0], "the low table's entries 0 to 2 only");
    }

    /**
     * {@link VlArbiter#idle()}, the boundary of a port whose caller knows it has nothing at all to send, leaves the
     * state the idle decision leaves, without asking the source: the same grants follow.
     */
    @Test
    void idleWithoutAskingTheSourceLeavesWhatTheIdleDecisionLeaves()
    {
        idleBoundaryEndsTheLowTurnAndResetsTheCounter((arbiter, port) -> arbiter.idle());
    }

    /**
     * A high packet, an idle boundary, a low turn under the weight policy, another idle boundary, then a backlog on
     * both VLs: the boundary must reset the counter and end the turn, so the backlog starts from a full counter.
     */
    private static void idleBoundaryEndsTheLowTurnAndResetsTheCounter(
        final BiConsumer<VlArbiter, SimulatedPort> idleBoundary)
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 2048, 1);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(1).vlarbHigh("0:255").vlarbLow("1:32")
            .lowBurst(LowBurst.WEIGHT).build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        assertEquals(List.of("high0"), run(arbiter, port, 1));
        assertEquals(512, arbiter.highCounter());
        idleBoundary.accept(arbiter, port);
        assertEquals(1024, arbiter.highCounter(), "reset at the idle boundary");

        // a low turn under the weight policy, interrupted by an empty moment
        port.enqueue(1, 256, 1);
        assertEquals(List.of("low1"), run(arbiter, port, 1));
        assertTrue(arbiter.lowTurnInProgress());
        idleBoundary.accept(arbiter, port);
        assertFalse(arbiter.lowTurnInProgress(), "ended at the idle boundary");
        assertEquals(1024, arbiter.highCounter());

        // from the full counter: three 2 KB high packets before the low table's turn
        port.enqueue(0, 2048, 5).enqueue(1, 2048, 5);
        assertEquals(List.of("high0", "high0", "high0", "low1"), run(arbiter, port, 4));
    }

    @Test
    void highLimitZeroSendsOneHighPacketThenTheLowTable()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 256, 20).enqueue(1, 256, 20);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(0).vlarbHigh("0:255").vlarbLow("1:4")
            .build();
        assertEquals(List.of("high0", "low1", "high0", "low1", "high0", "low1"),
            run(new VlArbiter(config, port), port, 6));
    }

    @Test
    void highLimit255IsUnboundedAndStarvesTheLowTable()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, KB4, 300).enqueue(1, KB4, 10);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(255).vlarbHigh("0:4").vlarbLow("1:255")
            .build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        final List<String> grants = run(arbiter, port, 300);
        assertFalse(grants.contains("low1"), "255 = unbounded: the low table never gets a turn while high can send");
        // once the high VL is empty the low table sends (work conservation)
        assertEquals(List.of("low1", "low1"), run(arbiter, port, 2));
    }

    @Test
    void highLimit254IsBounded()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, KB4, 300).enqueue(1, KB4, 10);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(254).vlarbHigh("0:4").vlarbLow("1:255")
            .build();
        final List<String> grants = run(new VlArbiter(config, port), port, 300);
        // 254 * 1024 dwords / 1024 per packet: packets 1..255 start with the counter >= 0.
        assertEquals(255, grants.indexOf("low1"));
    }

    @Test
    void weightZeroEntriesAreSkipped()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 10).enqueue(1, 64, 10).enqueue(2, 64, 10);
        final QosConfig config = QosConfig.builder().dataVls(4).highLimit(255).vlarbHigh("0:0,1:1,2:0,0:1")
            .vlarbLow("0:0").build();
        assertEquals(List.of("high1", "high0", "high1", "high0"), run(new VlArbiter(config, port), port, 4));
    }

    @Test
    void entriesForVlsThePortLacksAreSkippedNeverRemapped()
    {
        // data_vls 2: entries for VL3 and VL7 are invalid; VL3's and VL7's traffic is never sent through them,
        // and their turns are not given to another VL.
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 10).enqueue(1, 64, 10).enqueue(3, 64, 10);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(255).vlarbHigh("3:5,0:1,7:9,1:2")
            .vlarbLow("0:0").build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        assertEquals(1, arbiter.highPointer(), "the start pointer sits on the first valid entry");
        assertEquals(List.of("high0", "high1", "high1", "high0", "high1", "high1"), run(arbiter, port, 6));
        assertEquals(10, port.queued(3));
    }

    @Test
    void creditsBlockAVlAndItsEntryLosesItsTurn()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 128, 10).enqueue(1, 128, 10).credits(0, 3);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(255).vlarbHigh("0:10,1:2").vlarbLow("0:0")
            .build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        // VL0 sends one 2-block packet (3 -> 1 credit left), then cannot cover 2 blocks: VL1 becomes current.
        assertEquals(List.of("high0", "high1", "high1"), run(arbiter, port, 3));
        port.credits(0, 100);
        // VL0's entry comes round again with its full weight: 10 blocks = five 2-block packets.
        assertEquals(List.of("high0", "high0", "high0", "high0", "high0", "high1"), run(arbiter, port, 6));
    }

    @Test
    void nothingSendableLeavesPointerAndWeightAlone()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 128, 1).credits(0, 0);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(4).vlarbHigh("0:10,1:2").vlarbLow("1:3")
            .build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        assertEquals(GRANT_NONE, arbiter.next());
        assertEquals(0, arbiter.highPointer());
        assertEquals(10, arbiter.highRemaining());
        assertEquals(0, arbiter.lowPointer());
        assertEquals(3, arbiter.lowRemaining());
    }

    @Test
    void vl15AndFcpPreemptBetweenPacketsWithoutTouchingTheTables()
    {
        final SimulatedPort port = new SimulatedPort();
        for (final int vl : new int[] {6, 1, 7, 3, 5})
        {
            port.enqueue(vl, KB4, 10);
        }
        final VlArbiter arbiter = new VlArbiter(seedFigure(), port);
        assertEquals(List.of("high6", "high6", "high1"), run(arbiter, port, 3));
        port.addFcp(1).enqueue(15, 256, 2);
        final int counter = arbiter.highCounter();
        // VL15 first, then the FCP, then the data sequence resumes exactly where it was.
        assertEquals(GRANT_VL15, arbiter.next());
        port.send(GRANT_VL15);
        assertEquals(GRANT_VL15, arbiter.next());
        port.send(GRANT_VL15);
        assertEquals(GRANT_FCP, arbiter.next());
        port.send(GRANT_FCP);
        assertEquals(counter, arbiter.highCounter());
        assertEquals(List.of("high7", "high7", "low3", "high7", "high7", "high6", "high6", "high1", "low5"),
            run(arbiter, port, 9));
        assertEquals(2, port.sentPackets(15));
        assertEquals(1, port.sentFcps());
    }

    @Test
    void vl15IsNeverCreditChecked()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(15, 256, 1).credits(0, 0).credits(1, 0);
        final VlArbiter arbiter = new VlArbiter(QosConfig.seedExample(), port);
        assertEquals(GRANT_VL15, arbiter.next());
    }

    @Test
    void fcpPreemptsDataOnASingleVlPort()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 256, 3);
        final VlArbiter arbiter = new VlArbiter(QosConfig.opensmDefaults(1), port);
        assertEquals(List.of("single0"), run(arbiter, port, 1));
        port.addFcp(1);
        assertEquals(List.of("fcp", "single0", "single0", "none"), run(arbiter, port, 4));
    }

    @Test
    void singleVlPortIgnoresTheTables()
    {
        // The tables give VL0 nothing (weight 0 everywhere), yet a one-VL port sends VL0 whenever it can.
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 3).credits(0, 2);
        final QosConfig config = QosConfig.builder().dataVls(1).vlarbHigh("0:0").vlarbLow("0:0").build();
        final VlArbiter arbiter = new VlArbiter(config, port);
        assertEquals(List.of("single0", "single0", "none"), run(arbiter, port, 3));
        assertEquals(VlArbiter.FROM_SINGLE, VlArbiter.source(VlArbiter.FROM_SINGLE | 0));
    }

    @Test
    void lowBurstWeightKeepsTheLowEntryUntilItsWeightIsUsed()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 20).enqueue(1, 64, 20).enqueue(2, 64, 20);
        final QosConfig config = QosConfig.builder().dataVls(4).highLimit(0).vlarbHigh("0:255").vlarbLow("1:3,2:2")
            .lowBurst(LowBurst.WEIGHT).build();
        assertEquals(List.of("high0", "low1", "low1", "low1", "high0", "low2", "low2", "high0", "low1"),
            run(new VlArbiter(config, port), port, 9));
    }

    @Test
    void lowBurstPacketSendsOneLowPacketAndKeepsTheEntrysWeight()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 20).enqueue(1, 64, 20).enqueue(2, 64, 20);
        final QosConfig config = QosConfig.builder().dataVls(4).highLimit(0).vlarbHigh("0:255").vlarbLow("1:3,2:2")
            .lowBurst(LowBurst.PACKET).build();
        assertEquals(List.of("high0", "low1", "high0", "low1", "high0", "low1", "high0", "low2", "high0", "low2",
            "high0", "low1"), run(new VlArbiter(config, port), port, 12));
    }

    @Test
    void lowTurnEndsWhenTheEntryCannotSend()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(0, 64, 20).enqueue(1, 64, 2).enqueue(2, 64, 20);
        final QosConfig config = QosConfig.builder().dataVls(4).highLimit(0).vlarbHigh("0:255").vlarbLow("1:5,2:2")
            .build();
        // VL1 has only two packets: its turn ends early, back to high; its entry lost its remaining weight
        // when the next low choice moves on to VL2.
        assertEquals(List.of("high0", "low1", "low1", "high0", "low2", "low2", "high0", "low2"),
            run(new VlArbiter(config, port), port, 8));
    }

    @Test
    void tableReplacementTakesEffectAtTheNextBoundaryFromTheStartState()
    {
        final SimulatedPort port = new SimulatedPort();
        for (final int vl : new int[] {0, 1, 6, 7, 3, 5})
        {
            port.enqueue(vl, KB4, 20);
        }
        final VlArbiter arbiter = new VlArbiter(seedFigure(), port);
        assertEquals(List.of("high6", "high6", "high1", "high7"), run(arbiter, port, 4));
        assertTrue(arbiter.highCounter() < 4096);

        arbiter.replace(QosConfig.builder().dataVls(8).highLimit(0).vlarbHigh("0:64").vlarbLow("1:128").build());
        assertEquals(0, arbiter.highPointer());
        assertEquals(64, arbiter.highRemaining());
        assertEquals(0, arbiter.highCounter());
        assertFalse(arbiter.lowTurnInProgress());
        assertEquals(List.of("high0", "low1", "low1", "high0"), run(arbiter, port, 4));

        // and back: the seed's sequence restarts from its first grant
        arbiter.replace(seedFigure());
        assertEquals(List.of("high6", "high6", "high1", "high7", "high7", "low3"), run(arbiter, port, 6));
    }

    @Test
    void workConservingHighTableSendsWhenTheLowTableCannot()
    {
        // The counter is expired, the low table's VL is empty: step 4 sends from the high table.
        final SimulatedPort port = new SimulatedPort().enqueue(0, KB4, 10);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(0).vlarbHigh("0:255").vlarbLow("1:64")
            .build();
        assertEquals(List.of("high0", "high0", "high0", "high0"), run(new VlArbiter(config, port), port, 4));
    }

    @Test
    void workConservingLowTableSendsWhenTheHighTableCannot()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(1, 64, 3);
        final QosConfig config = QosConfig.builder().dataVls(2).highLimit(6).vlarbHigh("0:255").vlarbLow("1:1")
            .build();
        assertEquals(List.of("low1", "low1", "low1", "none"), run(new VlArbiter(config, port), port, 4));
    }

    @Test
    void vlInNeitherTableNeverSends()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(4, 64, 3);
        final VlArbiter arbiter = new VlArbiter(QosConfig.seedExample(), port);
        assertEquals(GRANT_NONE, arbiter.next());
    }

    @Test
    void lastSizeIsTheChargedHeadPacketAndThePortCountsWhatItSent()
    {
        final SimulatedPort port = new SimulatedPort().enqueue(1, 256, 2).enqueue(2, 512, 1);
        final VlArbiter arbiter = new VlArbiter(QosConfig.seedExample(), port);
        assertEquals(List.of("low1", "low1", "low2", "none"), run(arbiter, port, 4));
        assertEquals(512, arbiter.lastSize());
        assertEquals(2, port.sentPackets(1));
        assertEquals(512, port.sentBytes(1));
        assertEquals(1, port.sentPackets(2));
        assertEquals(512, port.sentBytes(2));
    }
}
