package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.MessageAssembler;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Messages larger than the MTU, posted by reference, go on the wire as RC SEND First, Middle..., Last (Only when
 * they fit), one PSN a packet across the 24-bit wrap, each packet's payload padded to a multiple of 4; they arrive
 * as those packets, and the receive handler's payload offsets and lengths put them back together byte for byte.
 * Immediate data (at most the IDC threshold, itself at most the MTU) is always one SEND Only.
 */
class LargeMessageTest
{
    private static final int MTU = 256;

    @TempDir
    File dir;

    @Test
    void messagesAroundTheMtuArriveAsRcSendPacketsAndReassemble()
    {
        final int[] lengths = {1, 3, MTU - 1, MTU, MTU + 1, MTU + 2, 2 * MTU - 3, 2 * MTU, 2 * MTU + 1, 5 * MTU + 7};
        final UnsafeBuffer memory = OffHeap.allocate(8 * MTU);
        final SplittableRandom random = new SplittableRandom(21);
        try (Engine engine = Engine.builder().name("large").directory(dir).threading(ThreadingMode.INVOKER).mtu(MTU)
            .idcThreshold(MTU).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(5, 2, 0x123456);
            qp.queue().nextPsn(BthFlyweight.MASK_24 - 3);            // the first PSNs run across the wrap to 0
            final MemoryRegion region = engine.registerMemory(memory);
            final UnsafeBuffer reassembled = new UnsafeBuffer(new byte[8 * MTU]);
            final MessageAssembler assembler = new MessageAssembler(reassembled, MTU);
            final List<String> packets = new ArrayList<>();
            final int[] psn = {-1};
            final int[] results = new int[1];

            for (final int length : lengths)
            {
                for (final boolean inline : new boolean[] {false, true})
                {
                    if (inline && length > MTU)
                    {
                        continue;
                    }
                    for (int i = 0; i < length; i++)
                    {
                        memory.putByte(i, (byte)random.nextInt(256));
                    }
                    packets.clear();
                    results[0] = MessageAssembler.MORE;
                    final long sequence = inline ? qp.offer(memory, 0, length) : qp.offer(region, 0, length);
                    assertEquals(true, sequence >= 0);
                    Deadline.await(10, "message of " + length + " bytes", () ->
                    {
                        b.poll(packet ->
                        {
                            packets.add(packet.opcode() + ":" + packet.payloadLength() + ":" + packet.padCount());
                            assertEquals(0x123456, packet.destQp());
                            assertEquals(2, packet.vl());
                            assertEquals(0, packet.packetLength() % 4, "a multiple of 4 on the wire");
                            assertEquals(20 + packet.payloadLength() + packet.padCount() + 4, packet.packetLength());
                            if (psn[0] >= 0)
                            {
                                assertEquals((psn[0] + 1) & BthFlyweight.MASK_24, packet.psn(), "one PSN a packet");
                            }
                            psn[0] = packet.psn();
                            results[0] = assembler.onPacket(packet);
                        }, 16);
                        return MessageAssembler.COMPLETE == results[0];
                    }, engine::invoke);

                    final List<String> expected = new ArrayList<>();
                    final int count = (length + MTU - 1) / MTU;
                    for (int p = 0; p < count; p++)
                    {
                        final int bytes = Math.min(MTU, length - p * MTU);
                        final int opcode = BthFlyweight.rcSendOpcode(0 == p, count - 1 == p);
                        expected.add(opcode + ":" + bytes + ":" + ((-bytes) & 3));
                    }
                    assertEquals(expected, packets, (inline ? "inline " : "by reference ") + length + " bytes");
                    assertEquals(length, assembler.messageLength());
                    for (int i = 0; i < length; i++)
                    {
                        assertEquals(memory.getByte(i), reassembled.getByte(i), length + " bytes, byte " + i);
                    }
                }
            }
            assertEquals(true, psn[0] < 100, "the PSNs wrapped: " + psn[0]);
            EngineErrors.assertNone(engine.countersFile());
        }
        finally
        {
            OffHeap.free(memory);
        }
    }
}
