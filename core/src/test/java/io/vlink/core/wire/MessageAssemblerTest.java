package io.vlink.core.wire;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Messages sliced at the MTU into RC SEND packets (Only, or First, Middle..., Last, PSNs by one, pad to a multiple of
 * 4) are put back together byte for byte, across the 24-bit PSN wrap; every broken rule drops the message in
 * progress and is named.
 */
class MessageAssemblerTest
{
    private static final int MTU = 256;

    private final UnsafeBuffer packet = new UnsafeBuffer(new byte[MTU + 64]);
    private final PacketHeader header = new PacketHeader();
    private final UnsafeBuffer into = new UnsafeBuffer(new byte[4 * MTU]);
    private final MessageAssembler assembler = new MessageAssembler(into, MTU);

    private PacketHeader packet(final int opcode, final int psn, final byte[] message, final int from, final int bytes)
    {
        final int pad = (-bytes) & 3;
        final int size = 20 + bytes + pad + 4;
        LrhFlyweight.write(packet, 0, 1, 1, LrhFlyweight.LNH_LOCAL, 2, Sizes.dwords(size), 1);
        BthFlyweight.write(packet, 8, opcode, pad, 0xFFFF, 9, psn);
        packet.putBytes(20, message, from, bytes);
        return header.wrap(packet, 0, size);
    }

    /** Slices as a sender at the MTU does; returns the PSN after the message. */
    private int send(final byte[] message, final int length, final int firstPsn, final int[] results)
    {
        int psn = firstPsn;
        int n = 0;
        for (int offset = 0; offset < length || 0 == offset; offset += MTU)
        {
            final int bytes = Math.min(MTU, length - offset);
            final int opcode = BthFlyweight.rcSendOpcode(0 == offset, offset + bytes == length);
            results[n++] = assembler.onPacket(packet(opcode, psn, message, offset, bytes));
            psn = (psn + 1) & BthFlyweight.MASK_24;
            if (0 == length)
            {
                break;
            }
        }
        return psn;
    }

    @Test
    void messagesAroundTheMtuComeBackWhole()
    {
        final SplittableRandom random = new SplittableRandom(3);
        final byte[] message = new byte[4 * MTU];
        int psn = BthFlyweight.MASK_24 - 5;                // the PSNs wrap from 0xFFFFFF to 0 on the way
        for (final int length : new int[] {1, 3, 4, 5, MTU - 1, MTU, MTU + 1, MTU + 3, 2 * MTU - 1, 2 * MTU,
            2 * MTU + 1, 3 * MTU + 2, 4 * MTU})
        {
            for (int i = 0; i < length; i++)
            {
                message[i] = (byte)random.nextInt(256);
            }
            final int packets = (length + MTU - 1) / MTU;
            final int[] results = new int[packets];
            psn = send(message, length, psn, results);
            for (int p = 0; p < packets - 1; p++)
            {
                assertEquals(MessageAssembler.MORE, results[p], "length " + length + " packet " + p);
            }
            assertEquals(MessageAssembler.COMPLETE, results[packets - 1], "length " + length);
            assertEquals(length, assembler.messageLength());
            for (int i = 0; i < length; i++)
            {
                assertEquals(message[i], into.getByte(i), "length " + length + " byte " + i);
            }
            assertFalse(assembler.inMessage());
            assertEquals(psn, assembler.expectedPsn());
        }
        assertTrue(psn < 100, "the PSNs wrapped: " + psn);
    }

    @Test
    void everyBrokenRuleDropsTheMessageAndIsNamed()
    {
        final byte[] bytes = new byte[4 * MTU + 8];
        assertEquals(MessageAssembler.UNEXPECTED_OPCODE,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_MIDDLE, 0, bytes, 0, MTU)), "a Middle without a First");
        assertEquals(MessageAssembler.UNEXPECTED_OPCODE,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_LAST, 0, bytes, 0, 8)), "a Last without a First");

        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 7, bytes, 0, MTU)));
        assertTrue(assembler.inMessage());
        assertEquals(8, assembler.expectedPsn());
        assertEquals(MessageAssembler.OUT_OF_SEQUENCE,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_LAST, 9, bytes, 0, 8)), "PSN 8 was lost");
        assertFalse(assembler.inMessage());
        assertEquals(-1, assembler.expectedPsn());

        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 20, bytes, 0, MTU)));
        assertEquals(MessageAssembler.UNEXPECTED_OPCODE,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_ONLY, 21, bytes, 0, 8)), "an Only inside a message");

        assertEquals(MessageAssembler.BAD_LENGTH,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 30, bytes, 0, MTU - 4)), "a First below the MTU");
        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 31, bytes, 0, MTU)));
        assertEquals(MessageAssembler.BAD_LENGTH,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_MIDDLE, 32, bytes, 0, 8)), "a Middle below the MTU");
        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 33, bytes, 0, MTU)));
        assertEquals(MessageAssembler.BAD_LENGTH,
            assembler.onPacket(packet(BthFlyweight.RC_SEND_LAST, 34, bytes, 0, 0)), "an empty Last");

        // 4 MTUs fit the buffer, a fifth does not
        int psn = 40;
        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, psn++, bytes, 0, MTU)));
        for (int i = 0; i < 3; i++)
        {
            assertEquals(MessageAssembler.MORE,
                assembler.onPacket(packet(BthFlyweight.RC_SEND_MIDDLE, psn++, bytes, 0, MTU)));
        }
        assertEquals(MessageAssembler.TOO_LONG, assembler.onPacket(packet(BthFlyweight.RC_SEND_LAST, psn, bytes, 0, 4)));

        // an acknowledge is not a SEND: ignored, the message in progress goes on
        assertEquals(MessageAssembler.MORE, assembler.onPacket(packet(BthFlyweight.RC_SEND_FIRST, 50, bytes, 0, MTU)));
        assertEquals(MessageAssembler.NOT_SEND, assembler.onPacket(packet(0x11, 77, bytes, 0, 4)));
        assertEquals(MessageAssembler.COMPLETE, assembler.onPacket(packet(BthFlyweight.RC_SEND_LAST, 51, bytes, 0, 5)));
        assertEquals(MTU + 5, assembler.messageLength());
        assertEquals("PSN out of sequence", MessageAssembler.resultName(MessageAssembler.OUT_OF_SEQUENCE));
    }

    @Test
    void theMtuIsAnInfiniBandMtu()
    {
        assertEquals("mtu 300 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096",
            assertThrows(IllegalArgumentException.class, () -> new MessageAssembler(into, 300)).getMessage());
    }
}
