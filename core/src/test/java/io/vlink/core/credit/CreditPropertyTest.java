package io.vlink.core.credit;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two ports full duplex, random traffic with lost and corrupted data packets and FCPs, across many 4096 wraps.
 * The receive buffers are modelled independently here (held packets, chunk-charged occupancy), so the property
 * "the transmitter never sends more than the receiver can hold" does not trust the class under test.
 */
class CreditPropertyTest
{
    private static final int[] DATA_VLS = {1, 2, 4, 8, 15};
    private static final int[] CHUNK_BYTES = {64, 128, 256};

    /** What travels on one direction of the wire. */
    private static final class Frame
    {
        final boolean fcp;
        final int word;
        final int vl;
        final int blocks;

        Frame(final boolean fcp, final int word, final int vl, final int blocks)
        {
            this.fcp = fcp;
            this.word = word;
            this.vl = vl;
            this.blocks = blocks;
        }
    }

    /** One direction: a sending port, a receiving port, the wire between them and the model of the buffer. */
    private static final class Direction
    {
        final CreditPort from;
        final CreditPort to;
        final ArrayDeque<Frame> wire = new ArrayDeque<>();
        final int[] modelFree;
        final int chunkBlocks;
        final List<int[]> held = new ArrayList<>();
        final int[] lostSinceSync;
        final long[] blocksSentPerVl;
        long blocksSent;
        long lostPackets;

        Direction(final CreditPort from, final CreditPort to, final int bufferBlocks, final int chunkBlocks)
        {
            this.from = from;
            this.to = to;
            this.chunkBlocks = chunkBlocks;
            modelFree = new int[from.dataVls()];
            Arrays.fill(modelFree, bufferBlocks);
            lostSinceSync = new int[from.dataVls()];
            blocksSentPerVl = new long[from.dataVls()];
        }

        int charge(final int blocks)
        {
            return (blocks + chunkBlocks - 1) / chunkBlocks * chunkBlocks;
        }

        void send(final int vl, final int blocks)
        {
            if (from.tryTransmit(vl, blocks))
            {
                wire.add(new Frame(false, 0, vl, blocks));
                blocksSent += blocks;
                blocksSentPerVl[vl] += blocks;
            }
        }

        void sendFcp(final int vl)
        {
            wire.add(new Frame(true, from.buildFcp(vl, 0), vl, 0));
        }

        void deliver()
        {
            final Frame frame = wire.poll();
            if (null == frame)
            {
                return;
            }
            if (frame.fcp)
            {
                assertTrue(to.onFcp(frame.word, 0), "a good FCP is applied");
                // every data packet sent before this FCP has now arrived or been lost: ABR is exact again
                lostSinceSync[frame.vl] = 0;
                return;
            }
            final int charge = charge(frame.blocks);
            assertTrue(charge <= modelFree[frame.vl],
                "overflow: VL" + frame.vl + " packet of " + frame.blocks + " blocks with " + modelFree[frame.vl] +
                " free");
            assertTrue(to.onData(frame.vl, frame.blocks), "accepted");
            modelFree[frame.vl] -= charge;
            held.add(new int[]{frame.vl, frame.blocks});
            assertEquals(modelFree[frame.vl], to.receiver().freeBlocks(frame.vl));
        }

        void lose(final boolean corrupt)
        {
            final Frame frame = wire.poll();
            if (null == frame)
            {
                return;
            }
            if (!frame.fcp)
            {
                lostSinceSync[frame.vl] += frame.blocks;
                lostPackets++;
                if (corrupt)
                {
                    to.onBadData();
                }
            }
            else if (corrupt)
            {
                to.onBadFcp();
            }
        }

        void release(final Random random)
        {
            if (!held.isEmpty())
            {
                final int[] packet = held.remove(random.nextInt(held.size()));
                to.release(packet[0], packet[1]);
                modelFree[packet[0]] += charge(packet[1]);
            }
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
        final CreditConfig config = new CreditConfig()
            .dataVls(dataVls).bufferBlocks(bufferBlocks).chunkBytes(chunkBytes).automatic(false);
        final CreditPort a = new CreditPort(config);
        final CreditPort b = new CreditPort(config);
        for (final CreditPort port : new CreditPort[]{a, b})
        {
            port.up(0);
            port.arm(0);
            port.activate();
        }
        final Direction ab = new Direction(a, b, bufferBlocks, chunkBlocks);
        final Direction ba = new Direction(b, a, bufferBlocks, chunkBlocks);
        final int full = Math.min(bufferBlocks / chunkBlocks, Credits.MAX_CREDIT);

        final int steps = 16_000 * (dataVls + 2);
        for (int step = 0; step < steps; step++)
        {
            final Direction d = random.nextBoolean() ? ab : ba;
            final int vl = random.nextInt(dataVls);
            final int op = random.nextInt(100);
            if (op < 32)
            {
                final int blocks = random.nextInt(4) == 0 ? 64 : 1 + random.nextInt(random.nextBoolean() ? 4 : 128);
                d.send(vl, blocks);
            }
            else if (op < 62)
            {
                d.deliver();
            }
            else if (op < 82)
            {
                d.release(random);
            }
            else if (op < 96)
            {
                d.sendFcp(vl);
            }
            else
            {
                d.lose(op >= 98);
            }
        }

        // enough traffic to wrap every 12-bit counter, both ways on every VL, at least twice (up to ~100 times)
        for (int vl = 0; vl < dataVls; vl++)
        {
            assertTrue(ab.blocksSentPerVl[vl] >= 2L * Credits.MODULUS, "a -> b VL" + vl + " " + ab.blocksSentPerVl[vl]);
            assertTrue(ba.blocksSentPerVl[vl] >= 2L * Credits.MODULUS, "b -> a VL" + vl + " " + ba.blocksSentPerVl[vl]);
        }
        assertTrue(ab.lostPackets > 0 && ba.lostPackets > 0, "the run lost data packets both ways");
        assertEquals(0, a.discards().get(DiscardReason.DATA_OVERFLOW) + b.discards().get(DiscardReason.DATA_OVERFLOW));

        // drain both wires without loss and give every packet back to the upper layer
        while (!ab.wire.isEmpty() || !ba.wire.isEmpty())
        {
            ab.deliver();
            ba.deliver();
        }
        while (!ab.held.isEmpty() || !ba.held.isEmpty())
        {
            ab.release(random);
            ba.release(random);
        }

        for (int vl = 0; vl < dataVls; vl++)
        {
            // the receiver's ABR trails the sender's FCTBS by exactly the blocks lost since the last FCTBS FCP
            assertEquals(ab.lostSinceSync[vl] & Credits.MASK,
                Credits.distance(a.transmitter().blocksSent(vl), b.receiver().blocksReceived(vl)));
            assertEquals(ba.lostSinceSync[vl] & Credits.MASK,
                Credits.distance(b.transmitter().blocksSent(vl), a.receiver().blocksReceived(vl)));
        }

        // FCPs a -> b, b -> a, a -> b: each carries its sender's FCTBS and FCCL
        for (int vl = 0; vl < dataVls; vl++)
        {
            final int lostBa = ba.lostSinceSync[vl];
            ab.sendFcp(vl);
            ab.deliver();
            ba.sendFcp(vl);
            ba.deliver();
            assertEquals(full, a.transmitter().available(vl), "a -> b window restored on VL" + vl);
            assertEquals(Math.max(0, full - lostBa), b.transmitter().available(vl));
            ab.sendFcp(vl);
            ab.deliver();
            assertEquals(full, b.transmitter().available(vl), "b -> a window restored on VL" + vl);
        }
    }
}
