package io.vlink.nic;

import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.ring.ReceiveRing;
import io.vlink.nic.ring.ReceiveRings;
import io.vlink.nic.status.ApplicationCounters;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application's poll over a port's receive rings: VL15 first, then the data VLs in turn, and the rings' stored
 * count ({@link ReceiveRings#stored()}), by which a poll that has taken every packet stored stops looking (and, when
 * nothing waits, does not look at all) with the turn where a look at every ring would have left it.
 */
class PortPollerTest
{
    private static final int DATA_VLS = 4;

    @TempDir
    File dir;

    private CountersFile file;
    private ApplicationCounters counters;
    private final ReceiveRing[] byVl = new ReceiveRing[16];
    private ReceiveRings rings;
    private final PortPoller poller = new PortPoller();
    private final UnsafeBuffer packet = new UnsafeBuffer(new byte[64]);
    private final List<Integer> vls = new ArrayList<>();

    @BeforeEach
    void setUp()
    {
        file = CountersFile.create(dir, "poller", 512, 4096, SystemEpochClock.INSTANCE);
        counters = new PortCounterSet(file, 0, DATA_VLS).application();
        for (int vl = 0; vl < DATA_VLS; vl++)
        {
            byVl[vl] = new ReceiveRing(8, 128);
        }
        byVl[15] = new ReceiveRing(8, 128);
        rings = new ReceiveRings(byVl);
    }

    @AfterEach
    void tearDown()
    {
        for (final ReceiveRing ring : byVl)
        {
            if (null != ring)
            {
                ring.close();
            }
        }
        file.close();
    }

    private void store(final int... onVls)
    {
        for (final int vl : onVls)
        {
            LrhFlyweight.vl(packet, 0, vl);
            rings.store(vl, packet, 0, 64);
        }
    }

    private List<Integer> poll(final int limit)
    {
        vls.clear();
        final int delivered = poller.poll(rings, DATA_VLS, counters, header -> vls.add(header.vl()), limit);
        assertEquals(vls.size(), delivered);
        return List.copyOf(vls);
    }

    @Test
    void vl15FirstThenTheDataVlsInTurnAndNothingLookedAtOnceAllIsTaken()
    {
        assertEquals(List.of(), poll(10), "nothing stored");
        store(1, 3, 15, 1);
        assertEquals(List.of(15, 1), poll(2), "VL15, then from VL0 on; the limit ends the turn at VL1");
        assertEquals(List.of(3, 1), poll(10), "from VL2 on, round to VL1");
        assertEquals(List.of(), poll(10));

        store(0, 2);
        assertEquals(List.of(2, 0), poll(10), "the turn still starts at VL2: a poll that took all began there");
        store(1, 2);
        assertEquals(List.of(2, 1), poll(10), "and again: stopping once all was taken leaves the turn where it was");
        assertEquals(4 + 2 + 2, counters.deliveredPackets(1).get() + counters.deliveredPackets(2).get() +
            counters.deliveredPackets(3).get() + counters.deliveredPackets(0).get() + counters.deliveredPackets(15).get());
    }

    @Test
    void aPacketWhoseHandlerThrewIsTakenAndCounted()
    {
        store(2);
        assertThrows(IllegalStateException.class, () -> poller.poll(rings, DATA_VLS, counters, header ->
        {
            throw new IllegalStateException("the application's handler");
        }, 10));
        assertEquals(List.of(), poll(10), "the ring let it go: nothing waits");
        store(2);
        assertEquals(List.of(2), poll(10), "and the next is seen");
    }

    @Test
    void aHandlerThatPollsThePortAgainIsRefusedAndNoPacketIsDeliveredTwice()
    {
        store(2, 2, 2);
        final List<Integer> nested = new ArrayList<>();
        final IllegalStateException refused = assertThrows(IllegalStateException.class, () -> poller.poll(
            rings, DATA_VLS, counters, header -> poller.poll(rings, DATA_VLS, counters, h -> nested.add(h.vl()), 10),
            10));
        assertTrue(refused.getMessage().contains("from its own handler"), refused.getMessage());
        assertEquals(List.of(), nested, "the nested poll delivered nothing");
        assertEquals(List.of(2, 2), poll(10), "the first packet was taken by the refused poll; the other two wait");
        assertEquals(List.of(), poll(10));
        store(1);
        assertEquals(List.of(1), poll(10), "after a refusal the port polls as before");
    }
}
