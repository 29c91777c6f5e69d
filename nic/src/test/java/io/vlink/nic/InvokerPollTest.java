package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link Port#poll} in invoker mode, where it looks at the rings only while it has taken fewer packets than the
 * receive agent stored, and stops once it has them all: packets on several VLs, polled one at a time with no duty
 * cycle between the polls, all arrive, each VL in order; a handler that throws consumes its packet and the rest still
 * come.
 */
class InvokerPollTest
{
    private static final int[] SLS = {1, 2, 3};
    private static final int EACH = 3;

    @TempDir
    File dir;

    /** Three messages on each of three SLs (three VLs) from port 0, all stored at port 1 before the first poll. */
    private static Port sendAndStore(final Engine engine)
    {
        final Port a = engine.port(0);
        final Port b = engine.port(1);
        Deadline.await(10, "both ports active",
            () -> a.linkState() == LinkState.ACTIVE && b.linkState() == LinkState.ACTIVE, engine::invoke);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[16]);
        for (final int sl : SLS)
        {
            final QueuePair qp = a.createQueuePair(10 + sl, sl, 20 + sl);
            for (int i = 0; i < EACH; i++)
            {
                message.putInt(0, sl * 100 + i);
                assertEquals(i, qp.offer(message, 0, 16));
            }
        }
        Deadline.await(10, "every message stored at port 1", () ->
        {
            int stored = 0;
            for (int vl = 0; vl < b.dataVls(); vl++)
            {
                stored += b.pending(vl);
            }
            return SLS.length * EACH == stored;
        }, engine::invoke);
        return b;
    }

    private Engine engine()
    {
        return Engine.builder().name("invoker-poll").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(8)).build();
    }

    @Test
    void packetsOnSeveralVlsPolledOneAtATimeAllArriveEachVlInOrder()
    {
        try (Engine engine = engine())
        {
            final Port b = sendAndStore(engine);
            final List<Integer> got = new ArrayList<>();
            for (int i = 0; i < SLS.length * EACH; i++)
            {
                assertEquals(1, b.poll(packet -> got.add(packet.buffer().getInt(packet.payloadOffset())), 1),
                    "poll " + i + " after " + got);
            }
            assertEquals(0, b.poll(packet -> got.add(-1), 16), "nothing left");
            for (final int sl : SLS)
            {
                assertEquals(List.of(sl * 100, sl * 100 + 1, sl * 100 + 2),
                    got.stream().filter(v -> v / 100 == sl).toList(), "SL " + sl + " in order: " + got);
            }
        }
    }

    @Test
    void aHandlerThatThrowsConsumesItsPacketAndTheRestStillCome()
    {
        try (Engine engine = engine())
        {
            final Port b = sendAndStore(engine);
            assertThrows(IllegalStateException.class, () -> b.poll(packet ->
            {
                throw new IllegalStateException("the application's handler failed");
            }, 16));
            final List<Integer> got = new ArrayList<>();
            assertEquals(SLS.length * EACH - 1, b.poll(packet -> got.add(packet.buffer().getInt(packet.payloadOffset())),
                16), "all but the one the handler threw on: " + got);
            assertEquals(0, b.poll(packet -> got.add(-1), 16));
        }
    }
}
