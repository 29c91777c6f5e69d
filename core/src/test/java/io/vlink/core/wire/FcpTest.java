package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

class FcpTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[16]);

    private byte[] encoded(final int word)
    {
        assertEquals(Fcp.LENGTH, Fcp.encode(buffer, 3, word));
        final byte[] bytes = new byte[Fcp.LENGTH];
        buffer.getBytes(3, bytes);
        return bytes;
    }

    @Test
    void vectorsOfTheSpec()
    {
        final int word = Fcp.word(0, 0x123, 3, 0x456);
        assertEquals(0x01233456, word);
        assertArrayEquals(HexFormat.of().parseHex("01233456d19f0000"), encoded(word));
        assertArrayEquals(HexFormat.of().parseHex("100000ff380c0000"), encoded(Fcp.word(Fcp.OP_INIT, 0, 0, 255)));
        assertArrayEquals(HexFormat.of().parseHex("00000000b3620000"), encoded(0));
    }

    @Test
    void fieldsOfTheSpecVector()
    {
        final int word = 0x01233456;
        assertEquals(0, Fcp.op(word));
        assertEquals(0x123, Fcp.fctbs(word));
        assertEquals(3, Fcp.vl(word));
        assertEquals(0x456, Fcp.fccl(word));
    }

    @Test
    void decodesTheSpecVector()
    {
        buffer.putBytes(0, HexFormat.of().parseHex("01233456d19f0000"));
        final long result = Fcp.decode(buffer, 0, 8);
        assertEquals(Fcp.OK, Fcp.verdict(result));
        assertEquals(0x01233456, Fcp.word(result));
        assertEquals(0x9FD1, Fcp.lpcrc(buffer, 0));
    }

    @Test
    void reservedBytesAreIgnoredOnReceipt()
    {
        buffer.putBytes(0, HexFormat.of().parseHex("01233456d19fabcd"));
        assertEquals(Fcp.OK, Fcp.verdict(Fcp.decode(buffer, 0, 8)));
    }

    @Test
    void everyFlippedBitOfTheFirstSixBytesIsCaught()
    {
        for (int bit = 0; bit < 48; bit++)
        {
            Fcp.encode(buffer, 0, Fcp.word(1, 0xABC, 7, 0x123));
            buffer.putByte(bit >>> 3, (byte)(buffer.getByte(bit >>> 3) ^ (1 << (bit & 7))));
            assertEquals(Fcp.BAD_LPCRC, Fcp.verdict(Fcp.decode(buffer, 0, 8)), "bit " + bit);
        }
    }

    @Test
    void reservedOpWithAGoodLpcrcIsReserved()
    {
        for (int op = 2; op < 16; op++)
        {
            final int word = Fcp.word(op, 1, 1, 1);
            Fcp.encode(buffer, 0, word);
            final long result = Fcp.decode(buffer, 0, 8);
            assertEquals(Fcp.RESERVED_OP, Fcp.verdict(result), "op " + op);
            assertEquals(op, Fcp.op(Fcp.word(result)));
        }
    }

    @Test
    void shortFcpIsTooShortAndStillShowsItsWord()
    {
        Fcp.encode(buffer, 0, 0x01233456);
        for (int length = 0; length < Fcp.LENGTH; length++)
        {
            final long result = Fcp.decode(buffer, 0, length);
            assertEquals(Fcp.TOO_SHORT, Fcp.verdict(result));
            assertEquals(length >= 4 ? 0x01233456 : 0, Fcp.word(result));
        }
    }

    @Test
    void fieldsAreMaskedToTheirWidths()
    {
        final int word = Fcp.word(0x11, 0x1FFF, 0x1F, 0x1FFF);
        assertEquals(1, Fcp.op(word));
        assertEquals(0xFFF, Fcp.fctbs(word));
        assertEquals(0xF, Fcp.vl(word));
        assertEquals(0xFFF, Fcp.fccl(word));
    }

    @Property(seed = "25", tries = 500)
    void roundTripOfEveryField(
        @ForAll @IntRange(min = 0, max = 1) final int op,
        @ForAll @IntRange(min = 0, max = 4095) final int fctbs,
        @ForAll @IntRange(min = 0, max = 15) final int vl,
        @ForAll @IntRange(min = 0, max = 4095) final int fccl,
        @ForAll @IntRange(min = 0, max = 8) final int offset)
    {
        Fcp.encode(buffer, offset, Fcp.word(op, fctbs, vl, fccl));
        assertEquals(0, buffer.getShort(offset + Fcp.RESERVED_OFFSET));
        final long result = Fcp.decode(buffer, offset, Fcp.LENGTH);
        assertEquals(Fcp.OK, Fcp.verdict(result));
        final int word = Fcp.word(result);
        assertEquals(op, Fcp.op(word));
        assertEquals(fctbs, Fcp.fctbs(word));
        assertEquals(vl, Fcp.vl(word));
        assertEquals(fccl, Fcp.fccl(word));
    }

    @Property(seed = "26", tries = 500)
    void anyEightBytesGetAVerdictWithoutThrowing(@ForAll final long bytes)
    {
        buffer.putLong(0, bytes);
        final int verdict = Fcp.verdict(Fcp.decode(buffer, 0, Fcp.LENGTH));
        final boolean lpcrcMatches = Fcp.lpcrc(buffer, 0) == Crc16.ofWord(Fcp.word(Fcp.decode(buffer, 0, 8)));
        if (!lpcrcMatches)
        {
            assertEquals(Fcp.BAD_LPCRC, verdict);
        }
        else
        {
            assertEquals(Fcp.op(Fcp.word(Fcp.decode(buffer, 0, 8))) <= 1 ? Fcp.OK : Fcp.RESERVED_OP, verdict);
        }
    }
}
