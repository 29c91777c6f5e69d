package io.vlink.core.wire;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The flyweights' static writers (one store per header, what a transmitter uses on its hot path) write exactly the
 * bytes the field-by-field setters write, and the RC SEND opcode of a slice is the one its place names.
 */
class StaticWritersTest
{
    @Property(seed = "5", tries = 300)
    void oneStoreWritesWhatTheSettersWrite(
        @ForAll @IntRange(min = 0, max = 15) final int vl,
        @ForAll @IntRange(min = 0, max = 15) final int sl,
        @ForAll @IntRange(min = 0, max = 3) final int lnh,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int dlid,
        @ForAll @IntRange(min = 0, max = Sizes.MAX_PKT_LEN) final int pktLen,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int slid,
        @ForAll @IntRange(min = 0, max = 255) final int opcode,
        @ForAll @IntRange(min = 0, max = 3) final int padCnt,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int pKey,
        @ForAll @IntRange(min = 0, max = BthFlyweight.MAX_QPN) final int destQp,
        @ForAll @IntRange(min = 0, max = BthFlyweight.MASK_24) final int psn,
        @ForAll @IntRange(min = 0, max = 7) final int offset)
    {
        final int length = offset + LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
        final UnsafeBuffer bySetters = new UnsafeBuffer(new byte[length]);
        new LrhFlyweight().wrap(bySetters, offset).vl(vl).lver(0).sl(sl).lnh(lnh).dlid(dlid).pktLen(pktLen).slid(slid);
        new BthFlyweight().wrap(bySetters, offset + LrhFlyweight.LENGTH).opcode(opcode).se(false).m(false)
            .padCnt(padCnt).tver(0).pKey(pKey).resv8a(0).destQp(destQp).ackReq(false).psn(psn);

        final UnsafeBuffer byWriters = new UnsafeBuffer(new byte[length]);
        LrhFlyweight.write(byWriters, offset, vl, sl, lnh, dlid, pktLen, slid);
        BthFlyweight.write(byWriters, offset + LrhFlyweight.LENGTH, opcode, padCnt, pKey, destQp, psn);
        assertArrayEquals(bySetters.byteArray(), byWriters.byteArray());

        // the fixed part and the per-packet part of the LRH word ORed together are the whole word
        final UnsafeBuffer byWords = new UnsafeBuffer(new byte[length]);
        byWords.putLong(offset, LrhFlyweight.word(0, 0, lnh, dlid, 0, slid) | LrhFlyweight.word(vl, sl, 0, 0, pktLen, 0),
            java.nio.ByteOrder.BIG_ENDIAN);
        assertEquals(bySetters.getLong(offset), byWords.getLong(offset));

        // the static field writers change their field only
        LrhFlyweight.vl(byWriters, offset, 15 - vl);
        LrhFlyweight.sl(byWriters, offset, 15 - sl);
        LrhFlyweight.pktLen(byWriters, offset, Sizes.MAX_PKT_LEN - pktLen);
        final LrhFlyweight lrh = new LrhFlyweight().wrap(byWriters, offset);
        assertEquals(15 - vl, lrh.vl());
        assertEquals(15 - sl, lrh.sl());
        assertEquals(Sizes.MAX_PKT_LEN - pktLen, lrh.pktLen());
        assertEquals(0, lrh.lver());
        assertEquals(lnh, lrh.lnh());
        assertEquals(dlid, lrh.dlid());
        assertEquals(slid, lrh.slid());
        assertEquals(padCnt, BthFlyweight.padCnt(byWriters, offset + LrhFlyweight.LENGTH));
    }

    @Property(seed = "6", tries = 50)
    void valuesAreMaskedToTheirFields(@ForAll @IntRange(min = 0, max = 7) final int offset)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + 20 + 4]);
        buffer.setMemory(0, buffer.capacity(), (byte)0x5A);
        BthFlyweight.write(buffer, offset, 0x1FF, 7, 0x1FFFF, 0x1FFFFFF, -1);
        final BthFlyweight bth = new BthFlyweight().wrap(buffer, offset);
        assertEquals(0xFF, bth.opcode());
        assertEquals(3, bth.padCnt());
        assertEquals(0xFFFF, bth.pKey());
        assertEquals(BthFlyweight.MAX_QPN, bth.destQp());
        assertEquals(BthFlyweight.MASK_24, bth.psn());
        assertEquals(0, bth.resv8a());
        assertEquals(0x5A, buffer.getByte(offset + BthFlyweight.LENGTH) & 0xFF, "nothing after the BTH is touched");
    }

    @Property(seed = "7", tries = 4)
    void theRcSendOpcodeOfEachSlice(@ForAll final boolean first, @ForAll final boolean last)
    {
        final int expected = first && last ? 0x04 : first ? 0x00 : last ? 0x02 : 0x01;
        assertEquals(expected, BthFlyweight.rcSendOpcode(first, last));
    }
}
