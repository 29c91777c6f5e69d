package io.vlink.nic;

import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ForwardingLink;
import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Whatever bytes arrive, the receive path discards and counts them, never throws, never reads out of bounds, and
 * the link goes on working: random frames of every length (and damaged copies of real packets) are mixed into
 * what port 1 receives, with a fixed seed.
 */
class GarbageOnTheWireTest
{
    @TempDir
    File dir;

    /** Hands the receiver a random frame before each real one while {@code on}. */
    static final class GarbageLink extends ForwardingLink
    {
        private final Random random = new Random(1234);
        private final UnsafeBuffer garbage = new UnsafeBuffer(new byte[MAX_DATA_FRAME_LENGTH]);
        volatile boolean on;
        long frames;
        private FrameHandler handler;
        private final FrameHandler mixer = this::onFrame;

        GarbageLink(final Link link)
        {
            super(link);
        }

        private void onFrame(final int frameType, final org.agrona.DirectBuffer buffer, final int offset, final int length)
        {
            if (on)
            {
                // a random frame: random bytes, or a real packet with a flipped bit, truncated or extended
                final int kind = random.nextInt(3);
                int garbageLength;
                if (kind == 0)
                {
                    garbageLength = 1 + random.nextInt(MAX_DATA_FRAME_LENGTH);
                    for (int i = 0; i < garbageLength; i++)
                    {
                        garbage.putByte(i, (byte)random.nextInt());
                    }
                }
                else
                {
                    garbageLength = Math.max(1, Math.min(MAX_DATA_FRAME_LENGTH,
                        length + (kind == 1 ? 0 : random.nextInt(9) - 4)));
                    garbage.putBytes(0, buffer, offset, Math.min(length, garbageLength));
                    final int bit = random.nextInt(garbageLength * 8);
                    garbage.putByte(bit >> 3, (byte)(garbage.getByte(bit >> 3) ^ (1 << (bit & 7))));
                }
                // never an 8-byte frame: a random FCP passes its 16-bit LPCRC once in 65,536 and would then be a
                // valid credit update (that is the protocol's own limit, not the engine's)
                if (8 == garbageLength)
                {
                    garbageLength = 9;
                }
                frames++;
                handler.onFrame(
                    random.nextBoolean() ? DATA_FRAME : LINK_FRAME, garbage, 0, garbageLength);
            }
            handler.onFrame(frameType, buffer, offset, length);
        }

        @Override
        public int poll(final FrameHandler handler, final int frameLimit)
        {
            this.handler = handler;
            return delegate.poll(mixer, Math.max(1, frameLimit / 2));
        }
    }

    @Test
    void randomAndDamagedFramesAreDiscardedAndCountedAndTrafficGoesOn()
    {
        final GarbageLink[] wrappers = new GarbageLink[2];
        final int[] made = {0};
        try (Engine engine = Engine.builder().name("garbage").directory(dir).threading(ThreadingMode.INVOKER)
            .linkWrapper((link) -> wrappers[made[0]++] = new GarbageLink(link)).build())
        {
            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(1, 1, 1);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[200]);
            final long[] next = {0};
            final PacketHandler handler = packet ->
            {
                assertEquals(1, packet.vl());
                assertEquals(next[0]++, packet.buffer().getLong(packet.payloadOffset()), "FIFO, nothing damaged delivered");
            };

            wrappers[1].on = true;
            long posted = 0;
            final long deadline = System.nanoTime() + 60_000_000_000L;
            while (wrappers[1].frames < 20_000)
            {
                message.putLong(0, posted);
                if (qp.offer(message, 0, 200) >= 0)
                {
                    posted++;
                }
                engine.invoke();
                b.poll(handler, 64);
                assertTrue(System.nanoTime() < deadline, "timed out");
            }
            wrappers[1].on = false;
            final long total = posted + 1_000;
            final long[] postedBox = {posted};
            Deadline.await(30, "traffic after the garbage", () -> next[0] == total, () ->
            {
                if (postedBox[0] < total)
                {
                    message.putLong(0, postedBox[0]);
                    if (qp.offer(message, 0, 200) >= 0)
                    {
                        postedBox[0]++;
                    }
                }
                engine.invoke();
                b.poll(handler, 64);
            });

            EngineErrors.assertNone(engine.countersFile());
            long discards = 0;
            for (int reason = 0; reason < DiscardReason.count(); reason++)
            {
                discards += b.counters().discards(reason).get();
            }
            assertEquals(wrappers[1].frames, discards, "every garbage frame discarded and counted, nothing else");
            assertEquals(0, b.counters().discards(DiscardReason.DATA_OVERFLOW.id()).get());
            assertTrue(b.counters().discards(DiscardReason.DATA_BAD_CRC.id()).get() > 10_000);
        }
    }
}
