package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class EngineSmokeTest
{
    @TempDir
    File dir;

    @Test
    void linkComesUpAndAMessageCrosses()
    {
        try (Engine engine = Engine.builder().name("smoke").directory(dir).threading(ThreadingMode.INVOKER).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "both ports active",
                () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(1, 3, 2);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            message.setMemory(0, 100, (byte)7);
            assertEquals(0, qp.offer(message, 0, 100));
            final List<String> got = new ArrayList<>();
            Deadline.await(10, "delivery", () ->
            {
                b.poll(packet ->
                    got.add(packet.vl() + ":" + packet.packetLength() + ":" + packet.buffer().getByte(packet.payloadOffset())), 10);
                return !got.isEmpty();
            }, engine::invoke);
            assertEquals(List.of("3:124:7"), got);
            assertEquals(1, qp.completed());
        }
    }
}
