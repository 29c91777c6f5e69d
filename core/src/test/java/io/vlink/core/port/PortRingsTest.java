package io.vlink.core.port;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The two hand-offs between a port's halves, on one thread: the credit event ring keeps wire order, reads at most
 * what it is asked for and says how many events it has room for (a receive half takes no more frames than that);
 * the FCP request ring holds at most {@link FcpRequestRing#IN_FLIGHT} requests and hands them out oldest first, or
 * {@link FcpRequestRing#NONE}. Their cross-thread orderings are the jcstress tests' ({@code CreditEventRingOrder},
 * {@code FcpRequestRingPublication}).
 */
class PortRingsTest
{
    private static UnsafeBuffer ring(final int capacity, final int trailer)
    {
        return new UnsafeBuffer(BufferUtil.allocateDirectAligned(capacity + trailer, 64));
    }

    @Test
    void creditEventsComeOutInWireOrderAtMostTheLimitADutyCycle()
    {
        final CreditEventRing ring = new CreditEventRing(ring(1024, CreditEventRing.TRAILER_LENGTH));
        final List<String> seen = new ArrayList<>();
        final CreditEvents recorder = new CreditEvents()
        {
            @Override
            public void onFcp(final int word)
            {
                seen.add("fcp " + Integer.toHexString(word));
            }

            @Override
            public void onAccepted(final int vl, final int blocks)
            {
                seen.add("accepted vl " + vl + " " + blocks);
            }

            @Override
            public void onPeerClosed()
            {
                seen.add("closed");
            }

            @Override
            public int room()
            {
                return Integer.MAX_VALUE;
            }
        };
        assertTrue(ring.isEmpty());
        final int room = ring.room();
        assertEquals(1024 / PortConfig.RING_RECORD_LENGTH - 1, room, "Agrona's ring asks for room beyond each record");
        ring.onAccepted(3, 7);
        ring.onFcp(0x1ABC_3456);
        ring.onAccepted(14, CreditEventRing.MAX_BLOCKS);
        ring.onPeerClosed();
        assertEquals(room - 4, ring.room());
        assertFalse(ring.isEmpty());

        assertEquals(2, ring.read(recorder, 2));
        assertEquals(List.of("accepted vl 3 7", "fcp 1abc3456"), seen);
        assertEquals(2, ring.read(recorder, 256));
        assertEquals(List.of("accepted vl 3 7", "fcp 1abc3456", "accepted vl 14 65535", "closed"), seen);
        assertTrue(ring.isEmpty());
        assertEquals(room, ring.room());
    }

    @Test
    void aReceiveHalfThatTookMoreThanTheRoomWouldLoseCreditsSoTheRingRefusesLoudly()
    {
        final CreditEventRing ring = new CreditEventRing(ring(256, CreditEventRing.TRAILER_LENGTH));
        final int room = ring.room();
        for (int i = 0; i < room; i++)
        {
            ring.onAccepted(0, 1);
        }
        assertEquals(0, ring.room(), "as many as it said fit");
        final IllegalStateException full = assertThrows(IllegalStateException.class, () -> ring.onAccepted(0, 1));
        assertTrue(full.getMessage().startsWith("credit event ring full"), full.getMessage());
    }

    @Test
    void fcpRequestsWaitAtMostInFlightAndGoOldestFirst()
    {
        final FcpRequestRing ring = new FcpRequestRing(ring(FcpRequestRing.MIN_CAPACITY, FcpRequestRing.TRAILER_LENGTH));
        assertFalse(ring.hasRequest());
        assertEquals(FcpRequestRing.NONE, ring.take(), "none waits");
        int offered = 0;
        while (ring.hasRoom())
        {
            ring.offer(offered++);
        }
        assertEquals(FcpRequestRing.IN_FLIGHT, offered);
        assertTrue(ring.hasRequest());
        assertEquals(0, ring.take());
        assertTrue(ring.hasRoom(), "one taken, one more may wait");
        for (int expected = 1; expected < FcpRequestRing.IN_FLIGHT; expected++)
        {
            assertEquals(expected, ring.take());
        }
        assertFalse(ring.hasRequest());
        assertEquals(FcpRequestRing.NONE, ring.take());

        final IllegalArgumentException small = assertThrows(IllegalArgumentException.class,
            () -> new FcpRequestRing(ring(FcpRequestRing.MIN_CAPACITY / 2, FcpRequestRing.TRAILER_LENGTH)));
        assertEquals("an FCP request ring needs " + FcpRequestRing.MIN_CAPACITY + " bytes: " +
            FcpRequestRing.MIN_CAPACITY / 2, small.getMessage());
    }
}
