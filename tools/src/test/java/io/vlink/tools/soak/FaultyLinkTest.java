package io.vlink.tools.soak;

import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The fault-injecting wire: seeded (the same seed loses the same packets), each fault at about its probability,
 * exactly one bit flipped where the receiver's check covers it, data and FCPs told apart by frame type.
 */
class FaultyLinkTest
{
    private static final int FRAMES = 20_000;

    /**
     * Delivers FRAMES frames, alternating a 100-byte data packet on VL (i % 4) and an 8-byte FCP; retry-framed, each
     * behind a retry header and every fourth frame an acknowledgement (a header alone) besides.
     */
    private static final class Source implements Link
    {
        private final int header;
        private final UnsafeBuffer data;
        private final UnsafeBuffer fcp;
        private final UnsafeBuffer ack = new UnsafeBuffer(new byte[RetryLink.HEADER_LENGTH]);
        private int sent;
        int acks;

        Source()
        {
            this(false);
        }

        Source(final boolean retryFramed)
        {
            header = retryFramed ? RetryLink.HEADER_LENGTH : 0;
            data = new UnsafeBuffer(new byte[header + 100]);
            fcp = new UnsafeBuffer(new byte[header + 8]);
            if (retryFramed)
            {
                data.putInt(0, ('R' << 24) | (1 << 16), ByteOrder.BIG_ENDIAN);
                fcp.putInt(0, ('R' << 24) | (2 << 16), ByteOrder.BIG_ENDIAN);
                ack.putInt(0, ('R' << 24) | (3 << 16), ByteOrder.BIG_ENDIAN);
            }
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            int count = 0;
            while (count < frameLimit && sent < FRAMES)
            {
                if ((sent & 1) == 0)
                {
                    new LrhFlyweight().wrap(data, header).vl((sent >> 1) % 4);
                    handler.onFrame(DATA_FRAME, data, 0, data.capacity());
                }
                else
                {
                    handler.onFrame(header > 0 ? DATA_FRAME : LINK_FRAME, fcp, 0, fcp.capacity());
                }
                if (header > 0 && 0 == sent % 4)
                {
                    handler.onFrame(DATA_FRAME, ack, 0, ack.capacity());
                    acks++;
                }
                sent++;
                count++;
            }
            return count;
        }

        @Override
        public int maxFrameLength()
        {
            return MAX_DATA_FRAME_LENGTH;
        }

        @Override
        public int tryClaim(final int frameType, final int length)
        {
            return BACK_PRESSURED;
        }

        @Override
        public AtomicBuffer buffer()
        {
            return data;
        }

        @Override
        public boolean hasRoomFor(final int length)
        {
            return false;
        }

        @Override
        public void commit(final int offset)
        {
        }

        @Override
        public void abort(final int offset)
        {
        }

        @Override
        public void close()
        {
        }
    }

    private static List<String> run(final String faults, final long seed, final FaultyLink[] out)
    {
        final FaultyLink link = new FaultyLink(new Source(), FaultSpec.parse(faults), seed, 1);
        link.arm(true);
        final List<String> seen = new ArrayList<>();
        while (link.poll((type, buffer, offset, length) -> seen.add(type + ":" + flippedBits(buffer, offset, length)),
            64) > 0)
        {
            assertTrue(seen.size() <= FRAMES);
        }
        out[0] = link;
        return seen;
    }

    /** Bits set beyond the LRH's VL nibble (the source sends zeros but for it) and where they are. */
    private static String flippedBits(final DirectBuffer buffer, final int offset, final int length)
    {
        final StringBuilder bits = new StringBuilder();
        for (int i = 0; i < length; i++)
        {
            int b = buffer.getByte(offset + i) & 0xFF;
            if (0 == i && length > 8)
            {
                b &= 0x0F;
            }
            for (int bit = 0; bit < 8; bit++)
            {
                if ((b & (1 << bit)) != 0)
                {
                    bits.append(i).append('.').append(bit).append(' ');
                }
            }
        }
        return bits.toString();
    }

    @Test
    void theSameSeedDamagesTheSamePacketsAndEachFaultComesAtItsProbability()
    {
        final String faults = "drop-data=0.05,corrupt-data=0.05,drop-fcp=0.05,corrupt-fcp=0.05";
        final FaultyLink[] first = new FaultyLink[1];
        final FaultyLink[] second = new FaultyLink[1];
        final FaultyLink[] other = new FaultyLink[1];
        final List<String> a = run(faults, 42, first);
        assertEquals(a, run(faults, 42, second));
        assertNotEquals(a, run(faults, 43, other));

        long dropped = 0;
        long corrupted = 0;
        for (int vl = 0; vl < 4; vl++)
        {
            dropped += first[0].droppedData(vl);
            corrupted += first[0].corruptedData(vl);
            assertTrue(first[0].droppedData(vl) > 0, "VL " + vl);
        }
        final int half = FRAMES / 2;
        assertEquals(half * 0.05, dropped, half * 0.015);
        assertEquals(half * 0.05, first[0].droppedFcps(), half * 0.015);
        assertEquals((half - dropped) * 0.05, corrupted, half * 0.015);
        assertEquals(FRAMES - dropped - first[0].droppedFcps(), a.size());

        // exactly one bit flipped per damaged frame; an FCP's flip within the word and LPCRC (bytes 0-5)
        long damagedData = 0;
        long damagedFcps = 0;
        for (final String frame : a)
        {
            final String[] parts = frame.split(":", 2);
            final String bits = parts[1].trim();
            if (!bits.isEmpty())
            {
                assertEquals(1, bits.split(" ").length, frame);
                if (parts[0].equals(Integer.toString(Link.LINK_FRAME)))
                {
                    assertTrue(Integer.parseInt(bits.substring(0, bits.indexOf('.'))) < 6, frame);
                    damagedFcps++;
                }
                else
                {
                    damagedData++;
                }
            }
        }
        // a flip into a data packet's VL nibble is masked out above: at most a handful
        assertTrue(corrupted - damagedData >= 0 && corrupted - damagedData < corrupted / 10);
        assertEquals(first[0].corruptedFcps(), damagedFcps);
    }

    @Test
    void disarmedOrCutTheWireBehavesAsToldAndSmpsAreLeftAlone()
    {
        final FaultyLink link = new FaultyLink(new Source(), FaultSpec.parse("drop-data=1,drop-fcp=1"), 1, 0);
        final int[] frames = new int[3];
        link.poll((type, buffer, offset, length) -> frames[0]++, 100);
        assertEquals(100, frames[0], "not armed: nothing is lost");
        link.arm(true);
        link.poll((type, buffer, offset, length) -> frames[1]++, 100);
        assertEquals(0, frames[1], "armed with P = 1: everything is lost");
        link.arm(false);
        link.cut(true);
        link.poll((type, buffer, offset, length) -> frames[2]++, 100);
        assertEquals(50, frames[2], "cut: data lost, FCPs pass");
        long bounced = 0;
        for (int vl = 0; vl < 4; vl++)
        {
            bounced += link.bounceLost(vl);
        }
        assertEquals(50, bounced);
    }

    @Test
    void belowRetryTheFaultsActOnTheCarriedPacketsAndAcknowledgementsPassAboveItOnlyTheCut()
    {
        final Source source = new Source(true);
        final FaultyLink wire = new FaultyLink(source, FaultSpec.parse("drop-data=0.05,corrupt-data=0.05," +
            "drop-fcp=0.05,corrupt-fcp=0.05"), 42, 1, FaultyLink.Placement.WIRE);
        wire.arm(true);
        wire.cut(true);
        final int[] acks = {0};
        final long[] flips = {0, 0};
        while (wire.poll((type, buffer, offset, length) ->
        {
            final int kind = buffer.getByte(offset + 1);
            if (3 == kind)
            {
                assertEquals(RetryLink.HEADER_LENGTH, length);
                acks[0]++;
                return;
            }
            // the header is never touched: a flip is in the packet the frame carries
            assertEquals(('R' << 24) | (kind << 16), buffer.getInt(offset, ByteOrder.BIG_ENDIAN));
            final String bits = flippedBits(buffer, offset + RetryLink.HEADER_LENGTH, length - RetryLink.HEADER_LENGTH);
            if (!bits.isEmpty())
            {
                flips[2 == kind ? 1 : 0]++;
                if (2 == kind)
                {
                    assertTrue(Integer.parseInt(bits.substring(0, bits.indexOf('.'))) < 6, bits);
                }
            }
        }, 64) > 0)
        {
            assertTrue(acks[0] <= source.acks);
        }
        assertEquals(source.acks, acks[0], "every acknowledgement passes, even armed and cut");
        long dropped = 0;
        for (int vl = 0; vl < 4; vl++)
        {
            dropped += wire.droppedData(vl);
            assertEquals(0, wire.bounceLost(vl), "the cut is the port's, above retry");
        }
        final int half = FRAMES / 2;
        assertEquals(half * 0.05, dropped, half * 0.015);
        assertEquals(half * 0.05, wire.droppedFcps(), half * 0.015);
        assertEquals(wire.corruptedFcps(), flips[1]);
        assertTrue(flips[0] > 0 && flips[0] <= wire.corruptedData(0) + wire.corruptedData(1) + wire.corruptedData(2) +
            wire.corruptedData(3));

        final FaultyLink port = new FaultyLink(new Source(), FaultSpec.parse("drop-data=1,drop-fcp=1"), 1, 0,
            FaultyLink.Placement.PORT);
        port.arm(true);
        final int[] frames = {0, 0};
        port.poll((type, buffer, offset, length) -> frames[0]++, 100);
        assertEquals(100, frames[0], "above retry: no wire fault");
        port.cut(true);
        port.poll((type, buffer, offset, length) -> frames[1]++, 100);
        assertEquals(50, frames[1], "cut: data lost, FCPs pass");
    }
}
