package io.vlink.core.fuzz;

import io.vlink.core.wire.Icrc;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.GrhFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.PacketFramer;
import io.vlink.core.wire.Packets;
import io.vlink.core.wire.Sizes;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.BeforeAll;

import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the receive path's readers of data packets: {@link PacketChecker#check} and the LRH, BTH and GRH
 * readers, on arbitrary bytes at any offset (the end of the buffer included) and on mutated real packets. Agrona's
 * bounds checks are on in tests, so "nothing thrown" also proves that nothing is read outside the buffer.
 */
@AddLifecycleHook(FuzzTries.class)
class WireFuzzTest
{
    private static final List<byte[]> REAL = Packets.capturePackets();
    private final PacketChecker checker = new PacketChecker(4096);
    private final PacketChecker smallMtu = new PacketChecker(256);
    private final PacketFramer framer = new PacketFramer();
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final BthFlyweight bth = new BthFlyweight();
    private final GrhFlyweight grh = new GrhFlyweight();

    @BeforeAll
    static void boundsChecksAreOn()
    {
        assertNull(System.getProperty("agrona.disable.bounds.checks"), "the fuzz tests need Agrona's bounds checks");
    }

    @Property(tries = 2000, seed = "7001")
    void arbitraryBytesAtAnyOffset(
        @ForAll @Size(max = 300) final byte[] bytes, @ForAll final int offsetChoice, @ForAll final int lengthChoice)
    {
        // offset anywhere in the buffer, often near its end; length anything that stays inside it
        final int n = bytes.length;
        final int offset = Fuzz.offset(n, offsetChoice, 16);
        final int length = Fuzz.length(n, offset, lengthChoice);
        receive(new UnsafeBuffer(bytes), offset, length, HexFormat.of().formatHex(bytes));
    }

    @Property(tries = 2000, seed = "7002")
    void mutatedRealPackets(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final byte[] original = REAL.get(mutator.random().nextInt(REAL.size()));
        final byte[] packet = mutator.mutate(original, 1 + mutator.random().nextInt(4));
        // the packet at an offset in a buffer that ends right after it, or a few bytes later
        final int offset = mutator.random().nextInt(8);
        final byte[] bytes = new byte[offset + packet.length + mutator.random().nextInt(3)];
        System.arraycopy(packet, 0, bytes, offset, packet.length);
        receive(new UnsafeBuffer(bytes), offset, packet.length, "seed " + seed);
    }

    @Property(tries = 1000, seed = "7003")
    void reframedMutantsCheckOk(@ForAll final long seed)
    {
        // mutate the headers and payload, then frame again (PktLen, ICRC, VCRC): the checker must accept what the
        // framer builds, whatever the LNH and headers say, as long as the size fits the MTU
        final Mutator mutator = new Mutator(seed);
        final byte[] original = REAL.get(mutator.random().nextInt(REAL.size()));
        final byte[] packet = mutator.mutate(original, 1 + mutator.random().nextInt(3));
        final int size = (packet.length - Sizes.VCRC_LENGTH) & ~3;
        if (size < LrhFlyweight.LENGTH)
        {
            return;
        }
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[size + Sizes.VCRC_LENGTH]);
        buffer.putBytes(0, packet, 0, Math.min(packet.length, size));
        final int lnh = LrhFlyweight.lnh(buffer, 0);
        if (size < Icrc.minSize(lnh))
        {
            return;
        }
        assertEquals(size + Sizes.VCRC_LENGTH, framer.frame(buffer, 0, size));
        final int result = checker.check(buffer, 0, size + Sizes.VCRC_LENGTH);
        assertEquals(PacketChecker.OK, PacketChecker.verdict(result), "seed " + seed);
        receive(buffer, 0, size + Sizes.VCRC_LENGTH, "seed " + seed);
    }

    @Property(tries = 1000, seed = "7004")
    void everySingleBitErrorIsCaught(@ForAll final long seed)
    {
        // CRC-16 and CRC-32 detect every single-bit error: a real packet with one bit flipped never checks OK
        final Mutator mutator = new Mutator(seed);
        final byte[] packet = REAL.get(mutator.random().nextInt(REAL.size())).clone();
        final int bit = mutator.random().nextInt(packet.length * 8);
        packet[bit >>> 3] ^= (byte)(1 << (bit & 7));
        final int verdict = PacketChecker.verdict(checker.check(new UnsafeBuffer(packet), 0, packet.length));
        assertNotEquals(PacketChecker.OK, verdict, "seed " + seed + " bit " + bit);
    }

    /** What a receive path does with bytes off the wire: check, then read the headers the length holds. */
    private void receive(final UnsafeBuffer buffer, final int offset, final int length, final String input)
    {
        for (final PacketChecker c : new PacketChecker[] {checker, smallMtu})
        {
            final int result = c.check(buffer, offset, length);
            final int verdict = PacketChecker.verdict(result);
            assertTrue(verdict >= PacketChecker.OK && verdict <= PacketChecker.BAD_ICRC, input);
            assertTrue(PacketChecker.icrcStatus(result) <= PacketChecker.CRC_BAD, input);
            assertTrue(PacketChecker.vcrcStatus(result) <= PacketChecker.CRC_BAD, input);
            if (verdict == PacketChecker.OK)
            {
                final int pktLen = LrhFlyweight.pktLen(buffer, offset);
                assertEquals(Sizes.wireLength(pktLen), length, input);
                assertTrue(Sizes.sizeOfPktLen(pktLen) <= c.maxSize(), input);
                assertEquals(PacketChecker.CRC_OK, PacketChecker.vcrcStatus(result), input);
            }
            if (verdict >= PacketChecker.TOO_SHORT && verdict <= PacketChecker.TOO_LONG)
            {
                assertEquals(result, verdict, "no CRC status when the length kept the CRCs from being checked");
            }
        }

        if (length < LrhFlyweight.LENGTH)
        {
            return;
        }
        lrh.wrap(buffer, offset);
        final int lnh = lrh.lnh();
        assertTrue(lrh.vl() <= 15 && lrh.sl() <= 15 && lrh.lver() <= 15 && lrh.reserved() <= 3, input);
        assertTrue(lrh.pktLen() <= LrhFlyweight.PKT_LEN_MASK && lrh.dlid() <= 0xFFFF && lrh.slid() <= 0xFFFF, input);
        assertEquals(lrh.vl(), LrhFlyweight.vl(buffer, offset));
        assertEquals(lrh.pktLen(), LrhFlyweight.pktLen(buffer, offset));
        int bthOffset = offset + LrhFlyweight.LENGTH;
        if (lnh == LrhFlyweight.LNH_GLOBAL)
        {
            if (length < LrhFlyweight.LENGTH + GrhFlyweight.LENGTH)
            {
                return;
            }
            grh.wrap(buffer, bthOffset);
            assertTrue(grh.ipVer() <= 15 && grh.tClass() <= 255 && grh.flowLabel() <= 0xF_FFFF, input);
            assertTrue(grh.payLen() <= 0xFFFF && grh.nxtHdr() <= 255 && grh.hopLmt() <= 255, input);
            final String gids = GrhFlyweight.gid(grh.sgidPrefix(), grh.sgidInterfaceId()) +
                GrhFlyweight.gid(grh.dgidPrefix(), grh.dgidInterfaceId());
            assertTrue(gids.length() > 0 && grh.toString().startsWith("GRH"), input);
            bthOffset += GrhFlyweight.LENGTH;
        }
        if (LrhFlyweight.isIba(lnh) && offset + length - bthOffset >= BthFlyweight.LENGTH)
        {
            bth.wrap(buffer, bthOffset);
            assertTrue(bth.opcode() <= 255 && bth.padCnt() <= 3 && bth.tver() <= 15 && bth.pKey() <= 0xFFFF, input);
            assertTrue(bth.destQp() <= BthFlyweight.MASK_24 && bth.psn() <= BthFlyweight.MASK_24, input);
            assertEquals(bth.opcode(), BthFlyweight.opcode(buffer, bthOffset));
            assertEquals(bth.destQp(), BthFlyweight.destQp(buffer, bthOffset));
            assertEquals(bth.psn(), BthFlyweight.psn(buffer, bthOffset));
            assertTrue(bth.toString().startsWith("BTH"), input);
        }
        assertTrue(lrh.toString().startsWith("LRH"), input);
    }
}
