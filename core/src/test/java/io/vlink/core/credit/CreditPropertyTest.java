package io.vlink.core.credit;

import io.vlink.core.port.PortConfig;
import io.vlink.core.port.PortReceive;
import io.vlink.core.port.TestPort;
import io.vlink.core.port.TestSource;
import io.vlink.core.port.TestWire;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two ports' shipped datapaths full duplex, random traffic with lost and corrupted data packets and FCPs, across
 * many 4096 wraps, every step of each port's duty cycle (a credit half's turn, a transmit half's one-frame burst, one
 * frame received) interleaved at random. The receive buffers are modelled independently of the credit accounting
 * ({@link io.vlink.core.port.ModelBuffers}), so the property "the transmitter never sends more than the receiver can
 * hold" does not trust the classes under test: a packet the model has no room for is counted as an overflow.
 */
class CreditPropertyTest
{
    private static final int[] DATA_VLS = {1, 2, 4, 8, 15};
    private static final int[] CHUNK_BYTES = {64, 128, 256};
    /** The clock moves up to this much at a time: an FCP period is many such moves. */
    private static final int MAX_ADVANCE_NS = 500;

    /** One direction: a sending port, a receiving port and the wire between them. */
    private static final class Direction
    {
        final TestPort from;
        final TestPort to;
        final TestWire wire;
        final int[] lostSinceSync;
        final long[] blocksSentPerVl;
        long lostPackets;

        Direction(final TestPort from, final TestPort to)
        {
            this.from = from;
            this.to = to;
            this.wire = from.out;
            lostSinceSync = new int[from.dataVls()];
            blocksSentPerVl = new long[from.dataVls()];
        }

        /** A one-frame burst with a packet offered on the VL; the packet is taken back when it did not go. */
        void send(final int vl, final int blocks)
        {
            from.source.offer(vl, blocks);
            transmit();
            from.source.withdraw(vl);
        }

        void transmit()
        {
            final long before = from.out.committed;
            from.transmit();
            if (from.out.committed != before)
            {
                final TestWire.Frame frame = from.out.history.get(from.out.history.size() - 1);
                if (!frame.isFcp())
                {
                    blocksSentPerVl[frame.vl()] += frame.blocks();
                }
            }
        }

        void deliver(final long nowNs)
        {
            final TestWire.Frame frame = wire.poll();
            if (null != frame)
            {
                receive(frame, frame.bytes, nowNs);
            }
        }

        void receive(final TestWire.Frame frame, final byte[] bytes, final long nowNs)
        {
            final PortReceive receive = to.port.receiveHalf();
            if (0 == receive.frameLimit(1))
            {
                to.credit(nowNs);
            }
            receive.onFrame(frame.type, new UnsafeBuffer(bytes), 0, bytes.length);
            receive.endPoll();
            if (frame.isFcp() && Fcp.OK == Fcp.verdict(Fcp.decode(new UnsafeBuffer(bytes), 0, bytes.length)))
            {
                // every data packet sent before this FCP has now arrived or been lost: ABR is exact again (damage to
                // the two bytes after the LPCRC, which nothing checks, leaves the FCP good)
                lostSinceSync[frame.vl()] = 0;
            }
        }

        void lose(final boolean corrupt, final Random random, final long nowNs)
        {
            final TestWire.Frame frame = wire.poll();
            if (null == frame)
            {
                return;
            }
            if (!frame.isFcp())
            {
                lostSinceSync[frame.vl()] += frame.blocks();
                lostPackets++;
            }
            if (corrupt)
            {
                final byte[] damaged = frame.bytes.clone();
                damaged[random.nextInt(damaged.length)] ^= (byte)(1 << random.nextInt(8));
                receive(frame, damaged, nowNs);
            }
        }

        /** Everything the sender asked for goes, everything on the wire arrives and is applied. */
        void flush(final long nowNs)
        {
            from.credit(nowNs);
            for (long before = -1; before != from.out.committed; )
            {
                before = from.out.committed;
                transmit();
            }
            while (!wire.isEmpty())
            {
                deliver(nowNs);
            }
            to.credit(nowNs);
        }
    }

    @Property(tries = 30, seed = "4096")
    void theTransmitterNeverOverflowsTheReceiverAndAnFctbsFcpRestoresTheWindow(@ForAll final long seed)
    {
        final Random random = new Random(seed);
        final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
        final int chunkBytes = CHUNK_BYTES[random.nextInt(CHUNK_BYTES.length)];
        final int chunkBlocks = chunkBytes / 64;
        // buffers from one MTU packet to beyond the 2048-block cap
        final int bufferBlocks = (128 + random.nextInt(4000)) / chunkBlocks * chunkBlocks;
        // an FCP per VL every 40 moves of the clock or so: the FCPs of every VL leave room for data on the wire; an
        // early FCP once a fraction of what the buffer advertises is freed
        final long fcpPeriodNs = 20L * MAX_ADVANCE_NS * dataVls;
        final int full = Math.min(bufferBlocks / chunkBlocks, Credits.MAX_CREDIT);
        final PortConfig config = PortConfig.builder().qos(QosConfig.opensmDefaults(dataVls))
            .bufferBlocks(bufferBlocks).chunkBytes(chunkBytes).automatic(false).fcpPeriodNs(fcpPeriodNs)
            .earlyFcpThresholdBlocks(1 + random.nextInt(Math.min(256, full / 2))).burst(1).build();
        final TestPort a = new TestPort(config);
        final TestPort b = new TestPort(config);
        for (final TestPort port : new TestPort[]{a, b})
        {
            port.out.history = new java.util.ArrayList<>();
            port.up(0);
            port.arm(0);
            port.activate(0);
        }
        final Direction ab = new Direction(a, b);
        final Direction ba = new Direction(b, a);

        long nowNs = 0;
        final int steps = 24_000 * (dataVls + 2);
        for (int step = 0; step < steps; step++)
        {
            final Direction d = random.nextBoolean() ? ab : ba;
            final int vl = random.nextInt(dataVls);
            final int op = random.nextInt(100);
            if (op < 30)
            {
                final int blocks = random.nextInt(4) == 0 ? 64 :
                    1 + random.nextInt(random.nextBoolean() ? 4 : TestSource.MAX_BLOCKS);
                d.send(vl, blocks);
            }
            else if (op < 66)
            {
                d.deliver(nowNs);
            }
            else if (op < 76)
            {
                d.to.credit(nowNs);
            }
            else if (op < 88)
            {
                d.to.buffers.releaseAny(random);
            }
            else if (op < 96)
            {
                nowNs += random.nextInt(MAX_ADVANCE_NS);
                d.from.credit(nowNs);
                d.transmit();
            }
            else
            {
                d.lose(op >= 98, random, nowNs);
            }
        }

        // enough traffic to wrap every 12-bit counter, both ways on every VL, at least twice
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertTrue(ab.blocksSentPerVl[vl] >= 2L * Credits.MODULUS, "a -> b VL" + vl + " " + ab.blocksSentPerVl[vl]);
            assertTrue(ba.blocksSentPerVl[vl] >= 2L * Credits.MODULUS, "b -> a VL" + vl + " " + ba.blocksSentPerVl[vl]);
        }
        assertTrue(ab.lostPackets > 0 && ba.lostPackets > 0, "the run lost data packets both ways");
        assertEquals(0, a.counters.discards(DiscardReason.DATA_OVERFLOW) +
            b.counters.discards(DiscardReason.DATA_OVERFLOW), "the model never had to refuse a packet");

        // drain both wires without loss, give every packet back to the consumer, apply it all
        while (!ab.wire.isEmpty() || !ba.wire.isEmpty())
        {
            ab.deliver(nowNs);
            ba.deliver(nowNs);
        }
        a.buffers.releaseAll();
        b.buffers.releaseAll();
        a.credit(nowNs);
        b.credit(nowNs);
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertEquals(b.buffers.free(vl), b.receiver().freeBlocks(vl), "b's accounting agrees with its buffer");
            assertEquals(a.buffers.free(vl), a.receiver().freeBlocks(vl));
            // the receiver's ABR trails the sender's FCTBS by exactly the blocks lost since the last FCTBS FCP
            assertEquals(ab.lostSinceSync[vl] & Credits.MASK,
                Credits.distance(a.transmitter().blocksSent(vl), b.receiver().blocksReceived(vl)));
            assertEquals(ba.lostSinceSync[vl] & Credits.MASK,
                Credits.distance(b.transmitter().blocksSent(vl), a.receiver().blocksReceived(vl)));
        }

        // a period later every VL's FCP is due: a -> b, b -> a, a -> b, each carrying its sender's FCTBS and FCCL
        final int[] lostBa = ba.lostSinceSync.clone();
        nowNs += fcpPeriodNs;
        ab.flush(nowNs);
        ba.flush(nowNs);
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertEquals(full, Credits.available(a.creditLimit(vl), a.transmitter().blocksSent(vl)),
                "a -> b window restored on VL" + vl);
            assertEquals(Math.max(0, full - lostBa[vl]),
                Credits.available(b.creditLimit(vl), b.transmitter().blocksSent(vl)));
        }
        nowNs += fcpPeriodNs;
        ab.flush(nowNs);
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertEquals(full, Credits.available(b.creditLimit(vl), b.transmitter().blocksSent(vl)),
                "b -> a window restored on VL" + vl);
        }
    }
}
