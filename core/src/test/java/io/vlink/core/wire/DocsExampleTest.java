package io.vlink.core.wire;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The framing and checking example of {@code docs/wire.md}, as written there, so the documentation stays true.
 */
class DocsExampleTest
{
    @Test
    void frameThenCheckOnADirectBuffer()
    {
        final byte[] payload = new byte[64];
        for (int i = 0; i < payload.length; i++)
        {
            payload[i] = (byte)i;
        }

        final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(4096 + 256, 64));
        final LrhFlyweight lrh = new LrhFlyweight();
        final BthFlyweight bth = new BthFlyweight();
        final PacketFramer framer = new PacketFramer();

        lrh.wrap(buffer, 0).vl(1).lver(0).sl(1).lnh(LrhFlyweight.LNH_LOCAL).dlid(4).slid(1);
        bth.wrap(buffer, LrhFlyweight.LENGTH).opcode(0x04).padCnt(0).pKey(0xFFFF).destQp(0x12).ackReq(true).psn(7);
        buffer.putBytes(LrhFlyweight.LENGTH + BthFlyweight.LENGTH, payload, 0, 64);

        final int size = LrhFlyweight.LENGTH + BthFlyweight.LENGTH + 64 + Icrc.LENGTH;
        final int wireLength = framer.frame(buffer, 0, size);
        assertEquals(size + 2, wireLength);
        assertEquals(size / 4, lrh.pktLen());

        final PacketChecker checker = new PacketChecker(4096);
        final int result = checker.check(buffer, 0, wireLength);
        assertEquals(PacketChecker.OK, PacketChecker.verdict(result));
        assertEquals(1, LrhFlyweight.vl(buffer, 0));
        assertEquals(2, Sizes.blocks(Sizes.sizeOfPktLen(LrhFlyweight.pktLen(buffer, 0))), "88 bytes: two blocks");
    }
}
