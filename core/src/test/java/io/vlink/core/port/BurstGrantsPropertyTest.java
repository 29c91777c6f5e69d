package io.vlink.core.port;

import io.vlink.core.credit.CreditLimits;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The burst changes when the transmit half works, never what it grants: for random arbitration tables (data VLs,
 * weights with zeros, VLs beyond the port, the high limit, the low burst policy), random traffic on every VL and VL15,
 * FCP requests and credit limits that stall some VLs and free them later, {@link PortTransmit} at a burst of 32 (and of
 * a random size, with a random byte budget) puts exactly the frames onto the wire, in the same order, that it puts
 * there at a burst of 1, and counts the same credit stalls. The traffic comes in phases; each phase is drained (duty
 * cycles until one does nothing) before the next one's packets, FCP requests and credits arrive, so both runs see
 * every arrival at the same packet boundary.
 */
class BurstGrantsPropertyTest
{
    private static final int[] DATA_VLS = { 1, 2, 4, 8, 15 };

    @Property(tries = 200, seed = "29")
    void aBurstGrantsWhatPacketByPacketArbitrationGrants(@ForAll final long seed, @ForAll @IntRange(min = 2, max = 128)
        final int otherBurst)
    {
        final Random random = new Random(seed);
        final QosConfig qos = randomQos(random);
        final int bytes = random.nextBoolean() ? PortConfig.NO_BURST_BYTES : 64 * (1 + random.nextInt(256));
        final List<Phase> phases = phases(random, qos.dataVls());

        final Run one = new Run(qos, 1, PortConfig.NO_BURST_BYTES);
        final Run thirtyTwo = new Run(qos, 32, PortConfig.NO_BURST_BYTES);
        final Run other = new Run(qos, otherBurst, bytes);
        for (final Phase phase : phases)
        {
            one.apply(phase);
            thirtyTwo.apply(phase);
            other.apply(phase);
        }
        assertTrue(one.calls >= thirtyTwo.calls, "a larger burst takes no more duty cycles");
        thirtyTwo.assertSame(one, "burst 32");
        other.assertSame(one, "burst " + otherBurst + ", " + bytes + " bytes");
    }

    private static QosConfig randomQos(final Random random)
    {
        while (true)
        {
            final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
            final VlArbTable high = randomTable(random);
            final VlArbTable low = randomTable(random);
            if (high.hasValidEntry(dataVls) || low.hasValidEntry(dataVls))
            {
                final int limit = random.nextInt(4) == 0 ? QosConfig.HIGH_LIMIT_UNBOUNDED : random.nextInt(16);
                return QosConfig.builder().dataVls(dataVls).highLimit(limit).vlarbHigh(high).vlarbLow(low)
                    .lowBurst(random.nextBoolean() ? LowBurst.WEIGHT : LowBurst.PACKET).build();
            }
        }
    }

    /** 1..8 entries, VLs 0..14 (some beyond the port), weights 0..64 with zeros. */
    private static VlArbTable randomTable(final Random random)
    {
        final int entries = 1 + random.nextInt(8);
        final int[] pairs = new int[entries * 2];
        for (int i = 0; i < entries; i++)
        {
            pairs[2 * i] = random.nextInt(15);
            pairs[2 * i + 1] = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(64);
        }
        return VlArbTable.of(pairs);
    }

    /** What arrives at one packet boundary: packets (VL, blocks), FCP requests, credit limits (VL, CL). */
    private record Phase(int[][] packets, int[] fcpRequests, int[][] limits)
    {
    }

    private static List<Phase> phases(final Random random, final int dataVls)
    {
        final List<Phase> phases = new ArrayList<>();
        final int count = 1 + random.nextInt(6);
        final int[] limit = new int[dataVls];
        for (int p = 0; p < count; p++)
        {
            final int[][] packets = new int[random.nextInt(300)][];
            for (int i = 0; i < packets.length; i++)
            {
                final int vl = random.nextInt(12) == 0 ? LrhFlyweight.VL15 : random.nextInt(dataVls);
                final int blocks = random.nextBoolean() ? 1 : 1 + random.nextInt(TestSource.MAX_BLOCKS);
                packets[i] = new int[]{ vl, blocks };
            }
            final int[] fcps = new int[random.nextInt(8)];
            for (int i = 0; i < fcps.length; i++)
            {
                fcps[i] = Fcp.word(Fcp.OP_NORMAL, 0, random.nextInt(dataVls), random.nextInt(1 << 12));
            }
            // each VL's CL grows by a random amount (or not at all): some VLs stall until a later phase frees them
            final int[][] limits = new int[dataVls][];
            for (int vl = 0; vl < dataVls; vl++)
            {
                limit[vl] = (limit[vl] + (random.nextInt(3) == 0 ? 0 : random.nextInt(2000))) & 0xFFF;
                limits[vl] = new int[]{ vl, limit[vl] };
            }
            phases.add(new Phase(packets, fcps, limits));
        }
        return phases;
    }

    /** One transmit half with its source, wire, FCP requests and credit limits. */
    private static final class Run
    {
        private final TestSource source = new TestSource();
        private final TestWire wire = new TestWire();
        private final TestCounters counters = new TestCounters();
        private final FcpRequestRing fcpRequests = new FcpRequestRing(new UnsafeBuffer(
            ByteBuffer.allocateDirect(FcpRequestRing.MIN_CAPACITY + FcpRequestRing.TRAILER_LENGTH)));
        private final CreditLimits limits = new CreditLimits();
        private final PortTransmit transmit;
        private final int dataVls;
        private long calls;

        Run(final QosConfig qos, final int burst, final int burstBytes)
        {
            dataVls = qos.dataVls();
            wire.history = new ArrayList<>();
            transmit = new PortTransmit(PortConfig.builder().qos(qos).burst(burst).burstBytes(burstBytes).build(),
                wire, source, fcpRequests, limits, counters.transmit(), null);
            transmit.linkState(LinkState.ACTIVE);
        }

        void apply(final Phase phase)
        {
            for (final int[] packet : phase.packets)
            {
                source.offer(packet[0], packet[1]);
            }
            for (final int request : phase.fcpRequests)
            {
                if (fcpRequests.hasRoom())
                {
                    fcpRequests.offer(request);
                }
            }
            for (final int[] limit : phase.limits)
            {
                limits.publish(limit[0], limit[1]);
            }
            // duty cycles until one does nothing: every packet that may go has gone
            for (int guard = 0; guard < 1_000_000; guard++)
            {
                calls++;
                if (0 == transmit.transmit())
                {
                    return;
                }
            }
            throw new AssertionError("the transmit half did not settle");
        }

        void assertSame(final Run expected, final String what)
        {
            assertEquals(expected.wire.history.size(), wire.history.size(), what + ": frames sent");
            for (int i = 0; i < wire.history.size(); i++)
            {
                final TestWire.Frame want = expected.wire.history.get(i);
                final TestWire.Frame got = wire.history.get(i);
                assertEquals(want.type, got.type, what + ": frame " + i + "'s type");
                assertArrayEquals(want.bytes, got.bytes, what + ": frame " + i + " (VL" + want.vl() + ")");
            }
            final long[] stalls = new long[dataVls];
            final long[] expectedStalls = new long[dataVls];
            for (int vl = 0; vl < dataVls; vl++)
            {
                stalls[vl] = counters.creditStalls(vl);
                expectedStalls[vl] = expected.counters.creditStalls(vl);
                assertEquals(expected.source.queued(vl), source.queued(vl), what + ": VL" + vl + " left queued");
            }
            assertEquals(Arrays.toString(expectedStalls), Arrays.toString(stalls), what + ": credit stalls per VL");
        }
    }
}
