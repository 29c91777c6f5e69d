package io.vlink.core.wire;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.agrona.concurrent.UnsafeBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random field values written through the flyweights, framed and checked, read back unchanged; neighbouring fields
 * sharing a byte do not disturb each other whatever order they are written in.
 */
class FlyweightRoundTripTest
{
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final GrhFlyweight grh = new GrhFlyweight();
    private final BthFlyweight bth = new BthFlyweight();
    private final PacketFramer framer = new PacketFramer();
    private final PacketChecker checker = new PacketChecker(4096);

    @Property(seed = "2", tries = 400)
    void everyFieldRoundTripsThroughAFramedPacket(
        @ForAll @IntRange(min = 0, max = 15) final int vl,
        @ForAll @IntRange(min = 0, max = 15) final int sl,
        @ForAll final boolean global,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int dlid,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int slid,
        @ForAll @IntRange(min = 0, max = 255) final int opcode,
        @ForAll final boolean se,
        @ForAll final boolean m,
        @ForAll @IntRange(min = 0, max = 3) final int padCnt,
        @ForAll @IntRange(min = 0, max = 15) final int tver,
        @ForAll @IntRange(min = 0, max = 0xFFFF) final int pKey,
        @ForAll @IntRange(min = 0, max = 0xFF_FFFF) final int destQp,
        @ForAll final boolean ackReq,
        @ForAll @IntRange(min = 0, max = 0xFF_FFFF) final int psn,
        @ForAll @IntRange(min = 0, max = 255) final int tClass,
        @ForAll @IntRange(min = 0, max = 0xF_FFFF) final int flowLabel,
        @ForAll @IntRange(min = 0, max = 255) final int hopLmt,
        @ForAll final long gidPrefix,
        @ForAll final long gidInterface,
        @ForAll @IntRange(min = 0, max = 64) final int payloadDwords,
        @ForAll @IntRange(min = 0, max = 7) final int offset)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[offset + 8 + 40 + 12 + 4 * payloadDwords + 4 + 2]);
        final int bthOffset = offset + LrhFlyweight.LENGTH + (global ? GrhFlyweight.LENGTH : 0);
        final int size = bthOffset - offset + BthFlyweight.LENGTH + 4 * payloadDwords + 4;

        // fields that share a byte are written in the reverse order of the reads
        bth.wrap(buffer, bthOffset).psn(psn).ackReq(ackReq).destQp(destQp).resv8a(0).pKey(pKey)
            .tver(tver).padCnt(padCnt).m(m).se(se).opcode(opcode);
        if (global)
        {
            grh.wrap(buffer, offset + LrhFlyweight.LENGTH).dgid(~gidPrefix, ~gidInterface).sgid(gidPrefix, gidInterface)
                .hopLmt(hopLmt).nxtHdr(GrhFlyweight.NXT_HDR_IBA).payLen(size - 48).flowLabel(flowLabel).tClass(tClass)
                .ipVer(GrhFlyweight.IP_VERSION_6);
        }
        lrh.wrap(buffer, offset).slid(slid).dlid(dlid).lnh(global ? 3 : 2).sl(sl).lver(0).vl(vl);
        for (int i = 0; i < payloadDwords; i++)
        {
            buffer.putInt(bthOffset + BthFlyweight.LENGTH + 4 * i, i * 0x9E3779B9);
        }

        assertEquals(size + 2, framer.frame(buffer, offset, size));
        assertEquals(PacketChecker.OK, PacketChecker.verdict(checker.check(buffer, offset, size + 2)));

        assertEquals(vl, lrh.vl());
        assertEquals(vl, LrhFlyweight.vl(buffer, offset));
        assertEquals(0, lrh.lver());
        assertEquals(sl, lrh.sl());
        assertEquals(sl, LrhFlyweight.sl(buffer, offset));
        assertEquals(0, lrh.reserved());
        assertEquals(global ? LrhFlyweight.LNH_GLOBAL : LrhFlyweight.LNH_LOCAL, LrhFlyweight.lnh(buffer, offset));
        assertEquals(dlid, lrh.dlid());
        assertEquals(size / 4, lrh.pktLen());
        assertEquals(slid, lrh.slid());
        assertEquals(slid, LrhFlyweight.slid(buffer, offset));

        assertEquals(opcode, bth.opcode());
        assertEquals(se, bth.se());
        assertEquals(m, bth.m());
        assertEquals(padCnt, bth.padCnt());
        assertEquals(tver, bth.tver());
        assertEquals(pKey, bth.pKey());
        assertEquals(0, bth.resv8a());
        assertEquals(destQp, bth.destQp());
        assertEquals(destQp, BthFlyweight.destQp(buffer, bthOffset));
        assertEquals(ackReq, bth.ackReq());
        assertEquals(psn, bth.psn());
        assertEquals(psn, BthFlyweight.psn(buffer, bthOffset));

        if (global)
        {
            assertEquals(GrhFlyweight.IP_VERSION_6, grh.ipVer());
            assertEquals(tClass, grh.tClass());
            assertEquals(flowLabel, grh.flowLabel());
            assertEquals(size - 48, grh.payLen());
            assertEquals(hopLmt, grh.hopLmt());
            assertEquals(gidPrefix, grh.sgidPrefix());
            assertEquals(gidInterface, grh.sgidInterfaceId());
            assertEquals(~gidPrefix, grh.dgidPrefix());
            assertEquals(~gidInterface, grh.dgidInterfaceId());

            // TClass, FlowLabel and HopLmt are variant: a router may change them without breaking the ICRC
            grh.tClass(tClass ^ 0xFF).flowLabel(flowLabel ^ 0xF_FFFF).hopLmt(hopLmt ^ 1);
            lrh.vl(vl ^ 1).dlid(dlid ^ 1).slid(slid ^ 1).sl(sl ^ 1);
            final int result = checker.check(buffer, offset, size + 2);
            assertEquals(PacketChecker.CRC_OK, PacketChecker.icrcStatus(result));
            assertEquals(PacketChecker.BAD_VCRC, PacketChecker.verdict(result));
        }
    }
}
