package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Every LRH and BTH field of the packets the injector slices from messages (written as words straight into the
 * cells): immediate data with a pad, and a message by reference of more than one MTU (SEND First, Middle, Last),
 * PSNs running on per queue pair, payload bytes where they belong.
 */
class DataPacketHeadersTest
{
    @TempDir
    File dir;

    @Test
    void slicedPacketsCarryEveryHeaderFieldAsTheFlyweightsReadThem()
    {
        final UnsafeBuffer region = OffHeap.allocate(600);
        try (Engine engine = Engine.builder().name("headers").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8)).mtu(256).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(5, 3, 0xABCDEF);
            for (int i = 0; i < 600; i++)
            {
                region.putByte(i, (byte)i);
            }
            final MemoryRegion registered = engine.registerMemory(region);
            final UnsafeBuffer inline = new UnsafeBuffer(new byte[] {1, 2, 3});
            assertEquals(0, qp.offer(inline, 0, 3));
            assertEquals(1, qp.offer(registered, 0, 600));

            final List<String> got = new ArrayList<>();
            final LrhFlyweight lrh = new LrhFlyweight();
            final BthFlyweight bth = new BthFlyweight();
            Deadline.await(10, "delivered", () ->
            {
                b.poll(packet ->
                {
                    final MutableDirectBuffer raw = new UnsafeBuffer(packet.buffer(), packet.packetOffset(),
                        packet.packetLength());
                    lrh.wrap(raw, 0);
                    bth.wrap(raw, LrhFlyweight.LENGTH);
                    final int payload = packet.payloadLength();
                    assertEquals(packet.packetOffset() + 20, packet.payloadOffset());
                    assertEquals(packet.packetLength() - 20 - 4 - bth.padCnt(), packet.payloadLength());
                    got.add("vl=" + packet.vl() + " lrh.vl=" + lrh.vl() + " lver=" + lrh.lver() + " sl=" + lrh.sl() +
                        " rsv=" + lrh.reserved() + " lnh=" + lrh.lnh() + " dlid=" + lrh.dlid() + " pktlen=" +
                        lrh.pktLen() + " slid=" + lrh.slid() + " | op=" + bth.opcode() + " se=" + bth.se() +
                        " m=" + bth.m() + " pad=" + bth.padCnt() + " tver=" + bth.tver() + " pkey=" +
                        Integer.toHexString(bth.pKey()) + " resv8a=" + bth.resv8a() + " qp=" +
                        Integer.toHexString(bth.destQp()) + " ack=" + bth.ackReq() + " psn=" + bth.psn() +
                        " | first=" + raw.getByte(20) + " last=" + raw.getByte(20 + payload - 1) +
                        " padbytes=" + (bth.padCnt() == 0 ? 0 : raw.getByte(20 + payload)));
                }, 16);
                return got.size() == 4;
            }, engine::invoke);

            assertEquals(List.of(
                "vl=3 lrh.vl=3 lver=0 sl=3 rsv=0 lnh=2 dlid=2 pktlen=7 slid=1 | op=4 se=false m=false pad=1 tver=0 " +
                    "pkey=ffff resv8a=0 qp=abcdef ack=false psn=0 | first=1 last=3 padbytes=0",
                "vl=3 lrh.vl=3 lver=0 sl=3 rsv=0 lnh=2 dlid=2 pktlen=70 slid=1 | op=0 se=false m=false pad=0 tver=0 " +
                    "pkey=ffff resv8a=0 qp=abcdef ack=false psn=1 | first=0 last=-1 padbytes=0",
                "vl=3 lrh.vl=3 lver=0 sl=3 rsv=0 lnh=2 dlid=2 pktlen=70 slid=1 | op=1 se=false m=false pad=0 tver=0 " +
                    "pkey=ffff resv8a=0 qp=abcdef ack=false psn=2 | first=0 last=-1 padbytes=0",
                "vl=3 lrh.vl=3 lver=0 sl=3 rsv=0 lnh=2 dlid=2 pktlen=28 slid=1 | op=2 se=false m=false pad=0 tver=0 " +
                    "pkey=ffff resv8a=0 qp=abcdef ack=false psn=3 | first=0 last=87 padbytes=0"), got);
            EngineErrors.assertNone(engine.countersFile());
        }
        finally
        {
            OffHeap.free(region);
        }
    }
}
