package io.vlink.core.credit;

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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FCP words, and every discard counted by its reason, never thrown.
 */
class DiscardTest
{
    private static CreditPort activePort(final int dataVls)
    {
        final CreditPort port = new CreditPort(new CreditConfig().dataVls(dataVls).bufferBlocks(256).automatic(false));
        port.up(0);
        port.arm(0);
        port.activate();
        return port;
    }

    @Test
    void aPortWritesTheWireSpecsVectorFromItsOwnCounters()
    {
        // FCTBS 0x123 (291 blocks sent on VL3) and FCCL 0x456 (an empty 1110-block buffer): wire.md's vector
        final CreditPort port = new CreditPort(new CreditConfig().dataVls(4).bufferBlocks(0x456).automatic(false));
        port.up(0);
        port.arm(0);
        port.activate();
        assertTrue(port.onFcp(Fcp.word(Fcp.OP_NORMAL, 0, 3, 2048), 0));
        for (int i = 0; i < 0x123 / 3; i++)
        {
            assertTrue(port.tryTransmit(3, 3));
        }
        assertTrue(port.tryTransmit(3, 0x123 % 3));
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[12]);
        assertEquals(Fcp.LENGTH, port.buildFcp(buffer, 2, 3, 0));
        final byte[] bytes = new byte[Fcp.LENGTH];
        buffer.getBytes(2, bytes);
        assertArrayEquals(HexFormat.of().parseHex("01233456d19f0000"), bytes);
    }

    @Test
    void fcpBytesAreCheckedThenApplied()
    {
        final CreditPort port = new CreditPort(new CreditConfig().dataVls(1).automatic(false));
        port.up(0);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);

        // wire.md: 100000ff 380c, Op 1, FCTBS 0, VL 0, FCCL 255: an Initialize port takes it
        buffer.putBytes(0, HexFormat.of().parseHex("100000ff380c0000"));
        assertTrue(port.onFcp(buffer, 0, 8, 0));
        assertEquals(255, port.transmitter().creditLimit(0));

        // one bit flipped in the FCCL: bad LPCRC, nothing moves
        buffer.putByte(3, (byte)0xfe);
        assertFalse(port.onFcp(buffer, 0, 8, 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_BAD_LPCRC));
        assertEquals(255, port.transmitter().creditLimit(0));

        // seven bytes: too short
        assertFalse(port.onFcp(buffer, 0, 7, 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_TOO_SHORT));

        // a good LPCRC over a reserved Op
        Fcp.encode(buffer, 0, Fcp.word(2, 0, 0, 300));
        assertFalse(port.onFcp(buffer, 0, 8, 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_RESERVED_OP));

        // a good FCP for VL15 and for VL1 of a one-VL port: only the credit layer can refuse these
        Fcp.encode(buffer, 0, Fcp.word(Fcp.OP_INIT, 0, 15, 300));
        assertFalse(port.onFcp(buffer, 0, 8, 0));
        Fcp.encode(buffer, 0, Fcp.word(Fcp.OP_INIT, 0, 1, 300));
        assertFalse(port.onFcp(buffer, 0, 8, 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_VL15));
        assertEquals(1, port.discards().get(DiscardReason.FCP_MISSING_VL));
        assertEquals(5, port.discards().fcpTotal());
        assertEquals(255, port.transmitter().creditLimit(0));
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
        final CreditPort port = activePort(4);
        final int word = Fcp.word(op, 100, 1, 200);
        assertEquals(DiscardReason.FCP_RESERVED_OP.id(), FcpCheck.validate(word, 4));
        assertEquals(FcpCheck.VALID, FcpCheck.validate(Fcp.word(Fcp.OP_INIT, 100, 3, 200), 4));
        assertFalse(port.onFcp(word, 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_RESERVED_OP));
        assertEquals(0, port.transmitter().creditLimit(1), "nothing applied");
        assertEquals(0, port.receiver().blocksReceived(1));
    }

    @Test
    void anFcpForVl15IsDiscarded()
    {
        final CreditPort port = activePort(15);
        assertFalse(port.onFcp(Fcp.word(0, 1, 15, 2), 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_VL15));
        assertTrue(port.onFcp(Fcp.word(0, 1, 14, 2), 0), "VL14 exists on a 15-VL port");
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 5, 8, 14})
    void anFcpForAVlThePortLacksIsDiscarded(final int vl)
    {
        final CreditPort port = activePort(4);
        assertFalse(port.onFcp(Fcp.word(0, 1, vl, 2), 0));
        assertEquals(1, port.discards().get(DiscardReason.FCP_MISSING_VL));
        assertEquals(0, port.fcpsReceived());
    }

    @Test
    void badCrcsAreCountedAndMoveNothing()
    {
        final CreditPort port = activePort(1);
        port.onBadFcp();
        port.onBadData();
        assertEquals(1, port.discards().get(DiscardReason.FCP_BAD_LPCRC));
        assertEquals(1, port.discards().get(DiscardReason.DATA_BAD_CRC));
        assertEquals(0, port.receiver().blocksReceived(0));
        assertEquals(256, port.receiver().freeBlocks(0));
        assertEquals(2, port.discards().total());
        assertEquals(1, port.discards().fcpTotal());
    }

    @Test
    void dataThatWouldOverflowIsDiscardedAndMovesNothing()
    {
        final CreditPort port = activePort(2);
        assertTrue(port.onData(1, 200));
        assertFalse(port.onData(1, 57), "a sender ignoring its credit");
        assertEquals(1, port.discards().get(DiscardReason.DATA_OVERFLOW));
        assertEquals(200, port.receiver().blocksReceived(1));
        assertEquals(56, port.receiver().freeBlocks(1));
        assertTrue(port.onData(1, 56));
        assertEquals(0, port.receiver().freeBlocks(1));
    }

    @Test
    void dataForAVlThePortLacksIsDiscarded()
    {
        final CreditPort port = activePort(2);
        assertFalse(port.onData(2, 1));
        assertFalse(port.onData(15, 1));
        assertEquals(2, port.discards().get(DiscardReason.DATA_MISSING_VL));
    }

    @Test
    void anSmpToAFullVl15BufferIsDroppedAndCounted()
    {
        final CreditPort port = new CreditPort(new CreditConfig().vl15Packets(2));
        assertFalse(port.onSmp(), "Down takes nothing");
        assertEquals(1, port.discards().get(DiscardReason.VL15_STATE));
        port.up(0);
        assertTrue(port.maySendSmp(), "VL15 needs no credit");
        assertTrue(port.onSmp(), "SMPs pass in Initialize");
        assertTrue(port.onSmp());
        assertFalse(port.onSmp());
        assertEquals(1, port.discards().get(DiscardReason.VL15_FULL));
        port.releaseSmp();
        assertTrue(port.onSmp());
        assertEquals(2, port.vl15().occupiedPackets());
    }

    @Test
    void theVl15BufferHoldsAtLeastOnePacket()
    {
        final Vl15Buffer minimal = new Vl15Buffer(1);
        assertTrue(minimal.accept());
        assertFalse(minimal.accept());
        assertThrows(IllegalArgumentException.class, () -> new Vl15Buffer(0));
    }
}
