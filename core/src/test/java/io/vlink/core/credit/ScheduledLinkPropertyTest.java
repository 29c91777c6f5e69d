package io.vlink.core.credit;

import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two ports' shipped datapaths whose only FCPs are the ones their {@link FcpSchedule}s send (periodic and early), on a
 * lossy wire, with receivers that drain slowly: the link comes up, never overflows a buffer, counts every loss and
 * keeps moving (no credit deadlock), and once the wire is clean again the periodic FCPs restore the full window.
 */
class ScheduledLinkPropertyTest
{
    private static final int[] DATA_VLS = {1, 2, 4, 8, 15};

    @Property(tries = 20, seed = "65536")
    void aScheduledLinkOnALossyWireNeverOverflowsAndNeverStalls(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
        final int chunkBytes = 64 << random.nextInt(3);
        final int chunkBlocks = chunkBytes / 64;
        final int bufferBlocks = (256 + random.nextInt(4000)) / chunkBlocks * chunkBlocks;
        final PortConfig config = PortConfig.builder().qos(QosConfig.opensmDefaults(dataVls))
            .bufferBlocks(bufferBlocks).chunkBytes(chunkBytes)
            .fcpInterval(LineRate.EDR_4X, PortConfig.DEFAULT_FCP_INTERVAL_SYMBOLS)
            .earlyFcpThresholdBlocks(1 + random.nextInt(256)).build();
        final TestLink link = new TestLink(config, 100);
        link.random = random;
        link.lossChance = random.nextInt(3) * 0.02;
        for (final TestLink.Side side : new TestLink.Side[]{link.a, link.b})
        {
            side.wantsToSend = true;
            side.holdReceived = true;
            side.releaseChance = 0.2 + random.nextDouble() * 0.8;
        }
        link.a.port.up(link.now());
        link.b.port.up(link.now());

        final int steps = 20_000;
        link.steps(steps / 2);
        final long aHalf = link.a.dataReceived();
        final long bHalf = link.b.dataReceived();
        link.steps(steps / 2);
        assertTrue(link.a.dataReceived() > aHalf && link.b.dataReceived() > bHalf, "still moving in the second half");

        for (final TestLink.Side side : new TestLink.Side[]{link.a, link.b})
        {
            assertEquals(LinkState.ACTIVE, side.port.state());
            assertEquals(0, side.port.counters.discards(DiscardReason.DATA_OVERFLOW));
            assertEquals(0, side.dataSentWhileNotActive);
        }
        // every data packet sent was received or lost on the wire: nothing else disappears
        assertEquals(link.a.dataSent, link.b.dataReceived() + link.a.dataLost);
        assertEquals(link.b.dataSent, link.a.dataReceived() + link.b.dataLost);

        // clean wire, idle senders, everything released: within two FCP periods the window is whole again
        link.lossChance = 0;
        link.a.wantsToSend = false;
        link.b.wantsToSend = false;
        link.a.releaseChance = 1;
        link.b.releaseChance = 1;
        link.steps(2 * (int)(config.fcpPeriodNs() / 100) + link.a.port.buffers.held() +
            link.b.port.buffers.held() + 4);
        final int full = Math.min(bufferBlocks / chunkBlocks, Credits.MAX_CREDIT);
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertEquals(full, Credits.available(link.a.port.creditLimit(vl),
                link.a.port.transmitter().blocksSent(vl)), "a VL" + vl);
            assertEquals(full, Credits.available(link.b.port.creditLimit(vl),
                link.b.port.transmitter().blocksSent(vl)), "b VL" + vl);
        }
    }
}
