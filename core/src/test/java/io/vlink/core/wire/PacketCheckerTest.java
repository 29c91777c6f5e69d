package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32;

import static io.vlink.core.wire.PacketChecker.BAD_ICRC;
import static io.vlink.core.wire.PacketChecker.BAD_VCRC;
import static io.vlink.core.wire.PacketChecker.CRC_BAD;
import static io.vlink.core.wire.PacketChecker.CRC_NONE;
import static io.vlink.core.wire.PacketChecker.CRC_OK;
import static io.vlink.core.wire.PacketChecker.LENGTH_MISMATCH;
import static io.vlink.core.wire.PacketChecker.OK;
import static io.vlink.core.wire.PacketChecker.TOO_LONG;
import static io.vlink.core.wire.PacketChecker.TOO_SHORT;
import static io.vlink.core.wire.PacketChecker.icrcStatus;
import static io.vlink.core.wire.PacketChecker.vcrcStatus;
import static io.vlink.core.wire.PacketChecker.verdict;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PacketCheckerTest
{
    private final PacketChecker checker = new PacketChecker(4096);
    private final PacketFramer framer = new PacketFramer();

    private static UnsafeBuffer copy(final byte[] bytes, final int offset)
    {
        final byte[] array = new byte[bytes.length + offset + 5];
        System.arraycopy(bytes, 0, array, offset, bytes.length);
        return new UnsafeBuffer(array);
    }

    @Test
    void rcAckOfTheSpecChecksOk()
    {
        final int result = checker.check(copy(Packets.RC_ACK, 0), 0, Packets.RC_ACK.length);
        assertEquals(OK, verdict(result));
        assertEquals(CRC_OK, icrcStatus(result));
        assertEquals(CRC_OK, vcrcStatus(result));
    }

    @Test
    void icrcOfTheRcAckIsA8035550OnEveryKindOfBuffer()
    {
        final int expected = 0x505503A8; // bytes a8 03 55 50, low byte first
        final Icrc icrc = new Icrc();
        final int size = Packets.RC_ACK.length - 2;
        assertEquals(expected, icrc.compute(copy(Packets.RC_ACK, 3), 3, size));

        final ByteBuffer direct = BufferUtil.allocateDirectAligned(64, 64);
        final UnsafeBuffer overByteBuffer = new UnsafeBuffer(direct, 4, 40);
        overByteBuffer.putBytes(2, Packets.RC_ACK);
        assertEquals(expected, icrc.compute(overByteBuffer, 2, size));
        assertEquals(expected, icrc.compute(overByteBuffer, 2, size), "the reused view");

        final UnsafeBuffer rawMemory = new UnsafeBuffer(overByteBuffer.addressOffset(), 40);
        assertEquals(expected, icrc.compute(rawMemory, 2, size));

        final ByteBuffer heap = ByteBuffer.allocate(48);
        final UnsafeBuffer overHeap = new UnsafeBuffer(heap, 8, 40);
        overHeap.putBytes(1, Packets.RC_ACK);
        assertEquals(expected, icrc.compute(overHeap, 1, size));
    }

    @Test
    void icrcMasksOnlyTheVariantFieldsOfALocalPacket()
    {
        final byte[] masked = Packets.RC_ACK.clone();
        masked[0] |= (byte)0xF0;
        masked[8 + 4] = (byte)0xFF;
        final CRC32 crc32 = new CRC32();
        crc32.update(masked, 0, masked.length - 6);
        assertEquals((int)crc32.getValue(), new Icrc().compute(copy(Packets.RC_ACK, 0), 0, Packets.RC_ACK.length - 2));

        final UnsafeBuffer changedVariants = copy(Packets.RC_ACK, 0);
        changedVariants.putByte(0, (byte)0x70); // VL 7
        changedVariants.putByte(8 + 4, (byte)0x5A); // resv8a
        final int result = checker.check(changedVariants, 0, Packets.RC_ACK.length);
        assertEquals(CRC_OK, icrcStatus(result), "the ICRC does not see variant fields");
        assertEquals(CRC_BAD, vcrcStatus(result), "the VCRC does");
    }

    @Test
    void framingTheRcAckWithClearedCrcsReproducesIt()
    {
        final UnsafeBuffer buffer = copy(Packets.RC_ACK, 7);
        buffer.setMemory(7 + Packets.RC_ACK.length - 6, 6, (byte)0);
        buffer.putShort(7 + LrhFlyweight.PKT_LEN_OFFSET, (short)0);
        assertEquals(Packets.RC_ACK.length, framer.frame(buffer, 7, Packets.RC_ACK.length - 2));
        final byte[] framed = new byte[Packets.RC_ACK.length];
        buffer.getBytes(7, framed);
        assertArrayEquals(Packets.RC_ACK, framed);
    }

    @Test
    void everyFlippedBitIsCaught()
    {
        final int length = Packets.RC_ACK.length;
        for (int bit = 0; bit < length * 8; bit++)
        {
            final UnsafeBuffer buffer = copy(Packets.RC_ACK, 0);
            final int index = bit >>> 3;
            buffer.putByte(index, (byte)(buffer.getByte(index) ^ (1 << (bit & 7))));
            final int result = checker.check(buffer, 0, length);
            if (index == 1 && (bit & 7) == 0)
            {
                assertEquals(TOO_SHORT, verdict(result), "LNH 3 announces a GRH the packet is too short for");
                continue;
            }
            if (index == 1 && (bit & 7) == 1)
            {
                assertEquals(BAD_VCRC, verdict(result), "LNH 0: a raw packet");
                assertEquals(CRC_NONE, icrcStatus(result), "raw packets carry no ICRC");
                continue;
            }
            final boolean inPktLen = index == 4 || index == 5;
            if (inPktLen && verdict(result) != BAD_VCRC)
            {
                assertTrue(verdict(result) == LENGTH_MISMATCH, "bit " + bit + ": " + result);
                continue;
            }
            assertEquals(BAD_VCRC, verdict(result), "bit " + bit);
            assertEquals(CRC_BAD, vcrcStatus(result), "bit " + bit);
            final boolean inVcrc = index >= length - 2;
            final boolean variant = (index == 0 && (bit & 7) >= 4) || index == 12;
            assertEquals(inVcrc || variant ? CRC_OK : CRC_BAD, icrcStatus(result), "bit " + bit);
        }
    }

    @Test
    void badIcrcUnderAGoodVcrcIsBadIcrc()
    {
        final UnsafeBuffer buffer = copy(Packets.RC_ACK, 0);
        buffer.putByte(20, (byte)(buffer.getByte(20) ^ 0x10));
        buffer.putShort(Packets.RC_ACK.length - 2,
            (short)Crc16.compute(buffer, 0, Packets.RC_ACK.length - 2), ByteOrder.LITTLE_ENDIAN);
        final int result = checker.check(buffer, 0, Packets.RC_ACK.length);
        assertEquals(BAD_ICRC, verdict(result));
        assertEquals(CRC_BAD, icrcStatus(result));
        assertEquals(CRC_OK, vcrcStatus(result));
    }

    @Test
    void lengthThatDisagreesWithPktLenIsAMismatch()
    {
        final UnsafeBuffer buffer = copy(Packets.RC_ACK, 0);
        assertEquals(LENGTH_MISMATCH, verdict(checker.check(buffer, 0, Packets.RC_ACK.length - 4)));
        assertEquals(LENGTH_MISMATCH, verdict(checker.check(buffer, 0, Packets.RC_ACK.length + 4)));
        assertEquals(LENGTH_MISMATCH, verdict(checker.check(buffer, 0, Packets.RC_ACK.length - 1)));
        final int result = checker.check(buffer, 0, Packets.RC_ACK.length + 4);
        assertEquals(CRC_NONE, icrcStatus(result));
        assertEquals(CRC_NONE, vcrcStatus(result));
    }

    @Test
    void fewerBytesThanAnLrhAndVcrcIsTooShort()
    {
        for (int length = 0; length < 10; length++)
        {
            assertEquals(TOO_SHORT, verdict(checker.check(copy(Packets.RC_ACK, 0), 0, length)), "length " + length);
        }
    }

    @Test
    void ibaPacketTooSmallForItsHeadersIsTooShort()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[128]);
        new LrhFlyweight().wrap(buffer, 0).lnh(LrhFlyweight.LNH_GLOBAL).pktLen(10); // 40 bytes < LRH+GRH+BTH+ICRC
        assertEquals(TOO_SHORT, verdict(checker.check(buffer, 0, Sizes.wireLength(10))));
        new LrhFlyweight().wrap(buffer, 0).lnh(LrhFlyweight.LNH_LOCAL).pktLen(5); // 20 bytes < LRH+BTH+ICRC
        assertEquals(TOO_SHORT, verdict(checker.check(buffer, 0, Sizes.wireLength(5))));
    }

    @Test
    void packetBeyondTheMtuAndItsHeadersIsTooLong()
    {
        final PacketChecker small = new PacketChecker(256);
        assertEquals(256 + PacketChecker.HEADERS_ALLOWANCE, small.maxSize());
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[1024]);
        new LrhFlyweight().wrap(buffer, 0).lnh(LrhFlyweight.LNH_LOCAL);
        final int fits = small.maxSize();
        assertEquals(Sizes.wireLength(fits / 4), framer.frame(buffer, 0, fits));
        assertEquals(OK, verdict(small.check(buffer, 0, fits + 2)));
        assertEquals(TOO_LONG, verdict(small.check(buffer, 0, framer.frame(buffer, 0, fits + 4))));
        assertEquals(OK, verdict(checker.check(buffer, 0, fits + 6)), "a 4096 MTU takes it");
    }

    @Test
    void rawPacketHasOnlyAVcrc()
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        new LrhFlyweight().wrap(buffer, 0).vl(3).lnh(LrhFlyweight.LNH_RAW).dlid(9).slid(8);
        buffer.putInt(8, 0xCAFEBABE);
        assertEquals(14, framer.frame(buffer, 0, 12));
        final int result = checker.check(buffer, 0, 14);
        assertEquals(OK, verdict(result));
        assertEquals(CRC_NONE, icrcStatus(result));
        assertEquals(CRC_OK, vcrcStatus(result));
        assertEquals(0xCAFEBABE, buffer.getInt(8), "a raw packet's last dword is payload, not an ICRC");
    }

    @Test
    void onlyInfiniBandMtusAreAccepted()
    {
        assertThrows(IllegalArgumentException.class, () -> new PacketChecker(1500));
        assertThrows(IllegalArgumentException.class, () -> new PacketChecker(0));
    }

    @Test
    void framingRefusesSizesThatCannotBeAPacket()
    {
        final UnsafeBuffer buffer = copy(Packets.RC_ACK, 0);
        assertThrows(IllegalArgumentException.class, () -> framer.frame(buffer, 0, 26));
        assertThrows(IllegalArgumentException.class, () -> framer.frame(buffer, 0, 20));
        assertThrows(IndexOutOfBoundsException.class, () -> framer.frame(buffer, 0, 36));
    }

    @Property(seed = "44", tries = 1000)
    void anyBytesGetAVerdictWithoutThrowing(
        @ForAll @Size(min = 0, max = 400) final byte[] bytes,
        @ForAll @IntRange(min = 0, max = 3) final int lnh)
    {
        if (bytes.length > 6)
        {
            // make the PktLen agree with the length half of the time, so the CRC paths run too
            final int pktLen = (bytes.length - 2) / 4;
            if ((bytes[0] & 1) == 0 && (bytes.length - 2) % 4 == 0)
            {
                bytes[4] = (byte)(pktLen >>> 8);
                bytes[5] = (byte)pktLen;
            }
            bytes[1] = (byte)((bytes[1] & ~3) | lnh);
        }
        final int result = checker.check(new UnsafeBuffer(bytes), 0, bytes.length);
        final int verdict = verdict(result);
        assertTrue(verdict >= OK && verdict <= BAD_ICRC);
        if (verdict == OK)
        {
            assertEquals(CRC_OK, vcrcStatus(result));
        }
    }
}
