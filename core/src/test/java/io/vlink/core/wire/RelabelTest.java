package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A switch's VL rewrite: the VL field changes, the VCRC is recomputed over the new bytes, the ICRC is untouched and
 * still right, and the packet passes the receiving port's checks; both CRCs checked against their definitions.
 */
class RelabelTest
{
    @Test
    void relabelChangesTheVlAndVcrcAndLeavesTheIcrc()
    {
        final SplittableRandom random = new SplittableRandom(15);
        final PacketFramer framer = new PacketFramer();
        final PacketChecker checker = new PacketChecker(4096);
        final Icrc icrc = new Icrc();
        for (final int size : new int[]{24, 64, 68, 260, 4096})
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[size + 2]);
            for (int i = 0; i < size; i++)
            {
                buffer.putByte(i, (byte)random.nextInt(256));
            }
            new LrhFlyweight().wrap(buffer, 0).vl(2).lver(0).sl(5).lnh(LrhFlyweight.LNH_LOCAL).dlid(7).slid(9);
            framer.frame(buffer, 0, size);
            final int icrcBefore = buffer.getInt(size - 4, ByteOrder.LITTLE_ENDIAN);
            for (int vl = 0; vl < 16; vl++)
            {
                final int arrived = buffer.getShort(size, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                assertEquals(size + 2, PacketFramer.relabel(buffer, 0, size, vl, arrived));
                assertEquals(vl, LrhFlyweight.vl(buffer, 0));
                assertEquals(5, LrhFlyweight.sl(buffer, 0));
                assertEquals(icrcBefore, buffer.getInt(size - 4, ByteOrder.LITTLE_ENDIAN), "ICRC untouched");
                assertEquals(icrc.compute(buffer, 0, size), icrcBefore, "ICRC by its definition");
                assertEquals(Crc16.compute(buffer, 0, size),
                    buffer.getShort(size, ByteOrder.LITTLE_ENDIAN) & 0xFFFF, "VCRC by its definition");
                assertEquals(PacketChecker.OK, PacketChecker.verdict(checker.check(buffer, 0, size + 2)));
            }
        }
    }
}
