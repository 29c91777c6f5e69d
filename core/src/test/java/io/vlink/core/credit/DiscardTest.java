package io.vlink.core.credit;

import io.vlink.core.port.DirectPort;
import io.vlink.core.port.FrameSink;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.TestPort;
import io.vlink.core.port.TestWire;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FCP words, and every discard the shipped datapath counts by its reason, never thrown.
 */
class DiscardTest
{
    private static PortConfig config(final int dataVls, final int bufferBlocks)
    {
        return PortConfig.builder().qos(QosConfig.opensmDefaults(dataVls)).bufferBlocks(bufferBlocks)
            .automatic(false).build();
    }

    private static TestPort activePort(final int dataVls)
    {
        final TestPort port = new TestPort(config(dataVls, 256));
        port.up(0);
        port.arm(0);
        port.activate(0);
        return port;
    }

    @Test
    void aPortWritesTheWireSpecsVectorFromItsOwnCounters()
    {
        // FCTBS 0x123 (291 blocks sent on VL3) and FCCL 0x456 (an empty 1110-block buffer): wire.md's vector
        final TestPort port = new TestPort(config(4, 0x456));
        port.up(0);
        port.arm(0);
        port.activate(0);
        port.receiveFcp(Fcp.word(Fcp.OP_NORMAL, 0, 3, 2048), 0);
        for (int i = 0; i < 0x123 / 3; i++) // 291 = 97 * 3
        {
            assertTrue(port.trySend(3, 3));
        }
        // a period later every VL's FCP is due, VL3's with the FCTBS of now
        port.credit(port.config.fcpPeriodNs());
        port.transmit();
        byte[] bytes = null;
        for (TestWire.Frame frame; null != (frame = port.out.poll()); )
        {
            if (frame.isFcp() && 3 == frame.vl() && 0x123 == Fcp.fctbs(frame.word()))
            {
                bytes = frame.bytes;
            }
        }
        assertArrayEquals(HexFormat.of().parseHex("01233456d19f0000"), bytes);
    }

    @Test
    void fcpBytesAreCheckedThenApplied()
    {
        final TestPort port = new TestPort(config(1, 2048));
        port.up(0);
        final byte[] bytes = HexFormat.of().parseHex("100000ff380c0000");

        // wire.md: 100000ff 380c, Op 1, FCTBS 0, VL 0, FCCL 255: an Initialize port takes it
        port.receive(FrameSink.LINK_FRAME, bytes, 0, 8, 0);
        assertEquals(255, port.creditLimit(0));

        // one bit flipped in the FCCL: bad LPCRC, nothing moves
        bytes[3] = (byte)0xfe;
        port.receive(FrameSink.LINK_FRAME, bytes, 0, 8, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_BAD_LPCRC));
        assertEquals(255, port.creditLimit(0));

        // seven bytes: too short; nine: too long, whatever the first eight
        port.receive(FrameSink.LINK_FRAME, bytes, 0, 7, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_TOO_SHORT));
        port.receive(FrameSink.LINK_FRAME, new byte[9], 0, 9, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_TOO_LONG));

        // a good LPCRC over a reserved Op
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        Fcp.encode(buffer, 0, Fcp.word(2, 0, 0, 300));
        port.receive(FrameSink.LINK_FRAME, bytes, 0, 8, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_RESERVED_OP));
        assertEquals(4, port.counters.fcpMalformed(), "the receive half's: malformed");

        // a good FCP for VL15 and for VL1 of a one-VL port: only the credit layer can refuse these
        port.receiveFcp(Fcp.word(Fcp.OP_INIT, 0, 15, 300), 0);
        port.receiveFcp(Fcp.word(Fcp.OP_INIT, 0, 1, 300), 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_VL15));
        assertEquals(1, port.counters.discards(DiscardReason.FCP_MISSING_VL));
        assertEquals(2, port.counters.fcpDiscarded(), "the credit half's: well-formed, refused");
        assertEquals(6, port.counters.fcpDiscardsTotal());
        assertEquals(255, port.creditLimit(0));
        assertEquals(1, port.counters.fcpReceived());
    }

    @Test
    void reasonIdsAreStableUniqueAndDense()
    {
        final Set<String> labels = new HashSet<>();
        for (final DiscardReason reason : DiscardReason.values())
        {
            assertSame(reason, DiscardReason.get(reason.id()));
            assertTrue(labels.add(reason.label()), "unique label " + reason.label());
        }
        assertEquals(DiscardReason.values().length, DiscardReason.count());
        assertNull(DiscardReason.get(-1));
        assertNull(DiscardReason.get(DiscardReason.count()));
        // ids are a contract with counters files: these must never change
        assertEquals(0, DiscardReason.FCP_RESERVED_OP.id());
        assertEquals(1, DiscardReason.FCP_BAD_LPCRC.id());
        assertEquals(5, DiscardReason.DATA_OVERFLOW.id());
        assertEquals(9, DiscardReason.VL15_FULL.id());
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 7, 15})
    void aReservedOpIsDiscardedAndCounted(final int op)
    {
        final TestPort port = activePort(4);
        final int word = Fcp.word(op, 100, 1, 200);
        assertEquals(DiscardReason.FCP_RESERVED_OP.id(), FcpCheck.validate(word, 4));
        assertEquals(FcpCheck.VALID, FcpCheck.validate(Fcp.word(Fcp.OP_INIT, 100, 3, 200), 4));
        port.receiveFcp(word, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_RESERVED_OP));
        assertEquals(0, port.creditLimit(1), "nothing applied");
        assertEquals(0, port.receiver().blocksReceived(1));
    }

    @Test
    void anFcpForVl15IsDiscarded()
    {
        final TestPort port = activePort(15);
        port.receiveFcp(Fcp.word(0, 1, 15, 2), 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_VL15));
        port.receiveFcp(Fcp.word(0, 1, 14, 2), 0);
        assertEquals(2, port.creditLimit(14), "VL14 exists on a 15-VL port");
        assertEquals(1, port.counters.fcpReceived());
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5, 8, 14})
    void anFcpForAVlThePortLacksIsDiscarded(final int vl)
    {
        final TestPort port = activePort(4);
        port.receiveFcp(Fcp.word(0, 1, vl, 2), 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_MISSING_VL));
        assertEquals(0, port.counters.fcpReceived());
    }

    @Test
    void badCrcsAreCountedAndMoveNothing()
    {
        final TestPort port = activePort(1);
        final byte[] data = port.source.frame(0, 2).clone();
        data[20] ^= 1;
        port.receive(FrameSink.DATA_FRAME, data, 0, data.length, 0);
        final byte[] fcp = new byte[Fcp.LENGTH];
        Fcp.encode(new UnsafeBuffer(fcp), 0, Fcp.word(Fcp.OP_NORMAL, 0, 0, 100));
        fcp[1] ^= 1;
        port.receive(FrameSink.LINK_FRAME, fcp, 0, fcp.length, 0);
        assertEquals(1, port.counters.discards(DiscardReason.FCP_BAD_LPCRC));
        assertEquals(1, port.counters.discards(DiscardReason.DATA_BAD_CRC));
        assertEquals(0, port.receiver().blocksReceived(0));
        assertEquals(256, port.receiver().freeBlocks(0));
        assertEquals(2, port.counters.discardsTotal());
        assertEquals(1, port.counters.fcpDiscardsTotal());
    }

    @Test
    void dataThatWouldOverflowIsDiscardedAndMovesNothing()
    {
        final TestPort port = activePort(2);
        for (int i = 0; i < 3; i++)
        {
            port.receiveData(1, 66, 0);
        }
        port.receiveData(1, 2, 0);
        assertEquals(200, port.receiver().blocksReceived(1));
        port.receiveData(1, 57, 0);
        assertEquals(1, port.counters.discards(DiscardReason.DATA_OVERFLOW), "a sender ignoring its credit");
        assertEquals(200, port.receiver().blocksReceived(1));
        assertEquals(56, port.receiver().freeBlocks(1));
        assertEquals(56, port.counters.rxFreeBlocks(1));
        port.receiveData(1, 56, 0);
        assertEquals(0, port.receiver().freeBlocks(1));
        assertEquals(5, port.counters.rxPackets(1));
    }

    @Test
    void dataForAVlThePortLacksIsDiscarded()
    {
        final TestPort port = activePort(2);
        port.receiveData(2, 1, 0);
        port.receiveData(14, 1, 0);
        assertEquals(2, port.counters.discards(DiscardReason.DATA_MISSING_VL));
    }

    @Test
    void anSmpToAFullVl15BufferIsDroppedAndCounted()
    {
        final TestPort port = new TestPort(config(1, 2048), 2, DirectPort.Events.QUEUED);
        port.receiveData(15, 1, 0);
        assertEquals(1, port.counters.discards(DiscardReason.VL15_STATE), "Down takes nothing");
        port.up(0);
        assertTrue(port.trySend(15, 1), "VL15 needs no credit");
        port.receiveData(15, 1, 0);
        port.receiveData(15, 1, 0);
        assertEquals(2, port.buffers.smpsHeld(), "SMPs pass in Initialize");
        port.receiveData(15, 1, 0);
        assertEquals(1, port.counters.discards(DiscardReason.VL15_FULL));
        assertEquals(1, port.counters.vl15Drops());
        port.buffers.releaseSmp();
        port.receiveData(15, 1, 0);
        assertEquals(2, port.buffers.smpsHeld());
        assertEquals(3, port.counters.rxPackets(15));
    }
}
