package io.vlink.core.fuzz;

import io.vlink.core.crc.Crc16;
import io.vlink.core.credit.Credits;
import io.vlink.core.credit.DiscardReason;
import io.vlink.core.credit.LinkState;
import io.vlink.core.port.FrameSink;
import io.vlink.core.port.PortConfig;
import io.vlink.core.port.TestPort;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Fcp;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AddLifecycleHook;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;
import java.util.HexFormat;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fuzzes the flow-control packet's decoder and the credit layer that applies it: any bytes at any offset give a
 * verdict; a discarded FCP is counted once under its reason; a valid FCP among garbage still applies.
 */
@AddLifecycleHook(FuzzTries.class)
class FcpFuzzTest
{
    private static final int[] DATA_VLS = {1, 2, 4, 8, 15};

    @Property(tries = 3000, seed = "7101")
    void decodeGivesAVerdictForAnyBytes(
        @ForAll @Size(max = 24) final byte[] bytes, @ForAll final int offsetChoice, @ForAll final int lengthChoice)
    {
        final int n = bytes.length;
        final int offset = Fuzz.offset(n, offsetChoice, 10);
        final int length = Fuzz.length(n, offset, lengthChoice);
        final UnsafeBuffer buffer = new UnsafeBuffer(bytes);
        final String input = HexFormat.of().formatHex(bytes) + " at " + offset + " length " + length;

        final long result = Fcp.decode(buffer, offset, length);
        final int verdict = Fcp.verdict(result);
        final int word = Fcp.word(result);
        if (length < Fcp.LENGTH)
        {
            assertEquals(Fcp.TOO_SHORT, verdict, input);
        }
        else
        {
            final boolean lpcrcOk = Fcp.lpcrc(buffer, offset) == Crc16.ofWord(word);
            final int expected = !lpcrcOk ? Fcp.BAD_LPCRC : Fcp.op(word) > Fcp.OP_INIT ? Fcp.RESERVED_OP : Fcp.OK;
            assertEquals(expected, verdict, input);
            assertEquals(buffer.getInt(offset, ByteOrder.BIG_ENDIAN), word, input);
        }
        assertTrue(Fcp.verdictName(verdict).length() > 0 && Fcp.toString(word).startsWith("FCP"), input);
    }

    @Property(tries = 500, seed = "7102")
    void thePortCountsEveryDiscardAndStillAppliesValidFcps(@ForAll final long seed)
    {
        final Mutator mutator = new Mutator(seed);
        final Random random = mutator.random();
        final int dataVls = DATA_VLS[random.nextInt(DATA_VLS.length)];
        final TestPort port = new TestPort(PortConfig.builder().qos(QosConfig.opensmDefaults(dataVls))
            .bufferBlocks(256).automatic(false).build());
        port.up(0);
        port.arm(0);
        port.activate(0);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);

        for (int i = 0; i < 200; i++)
        {
            // a valid FCP for a VL the port has, a mutated one, or garbage; at any offset, any length up to the end
            final int kind = random.nextInt(3);
            final int vl = random.nextInt(dataVls);
            // a valid FCP moves neither FCTBS behind ABR nor FCCL behind CL (by more than the 2048-block window)
            final int fccl = Credits.add(port.creditLimit(vl), random.nextInt(Credits.MAX_CREDIT + 1));
            final int fctbs = Credits.add(port.receiver().blocksReceived(vl), random.nextInt(Credits.MAX_CREDIT + 1));
            final int valid = Fcp.word(Fcp.OP_NORMAL, fctbs, vl, fccl);
            final byte[] frame = new byte[Fcp.LENGTH];
            Fcp.encode(new UnsafeBuffer(frame), 0, valid);
            final byte[] bytes = kind == 0 ? frame : kind == 1 ? mutator.mutate(frame, 1 + random.nextInt(3)) :
                randomBytes(random);
            final int offset = random.nextInt(buffer.capacity() - Math.min(bytes.length, buffer.capacity()) + 1);
            final int length = Math.min(bytes.length, buffer.capacity() - offset);
            buffer.setMemory(0, buffer.capacity(), (byte)random.nextInt(256));
            buffer.putBytes(offset, bytes, 0, length);
            final String input = "seed " + seed + " frame " + i + ": " + HexFormat.of().formatHex(bytes, 0, length);

            final long discardsBefore = port.counters.discardsTotal();
            final long receivedBefore = port.counters.fcpReceived();
            final long decoded = Fcp.decode(buffer, offset, length);
            final DiscardReason expected = expectedReason(decoded, length, port);
            final boolean active = port.state() == LinkState.ACTIVE;
            final long reasonBefore = expected == null ? 0 : port.counters.discards(expected);

            port.receive(FrameSink.LINK_FRAME, buffer.byteArray(), offset, length, i);
            final boolean applied = port.counters.fcpReceived() != receivedBefore;
            assertEquals(expected == null, applied, input);
            if (applied)
            {
                assertEquals(receivedBefore + 1, port.counters.fcpReceived(), input);
                assertEquals(discardsBefore, port.counters.discardsTotal(), input);
                final int word = Fcp.word(decoded);
                assertEquals(Fcp.fccl(word), port.creditLimit(Fcp.vl(word)), input);
            }
            else
            {
                assertEquals(discardsBefore + 1, port.counters.discardsTotal(), input);
                assertEquals(reasonBefore + 1, port.counters.discards(expected), input + ": counted as " + expected);
            }
            if (kind == 0 && active)
            {
                assertTrue(applied, input);
                assertEquals(fccl, port.creditLimit(vl), input);
            }
        }
        assertEquals(port.counters.discardsTotal(), port.counters.fcpDiscardsTotal(), "only FCP reasons were counted");
    }

    private static DiscardReason expectedReason(final long decoded, final int length, final TestPort port)
    {
        final int dataVls = port.dataVls();
        final int verdict = Fcp.verdict(decoded);
        final int word = Fcp.word(decoded);
        if (length > Fcp.LENGTH)
        {
            return DiscardReason.FCP_TOO_LONG;
        }
        if (verdict == Fcp.TOO_SHORT)
        {
            return DiscardReason.FCP_TOO_SHORT;
        }
        if (verdict == Fcp.BAD_LPCRC)
        {
            return DiscardReason.FCP_BAD_LPCRC;
        }
        if (verdict == Fcp.RESERVED_OP)
        {
            return DiscardReason.FCP_RESERVED_OP;
        }
        if (Fcp.vl(word) == 15)
        {
            return DiscardReason.FCP_VL15;
        }
        final int vl = Fcp.vl(word);
        if (vl >= dataVls)
        {
            return DiscardReason.FCP_MISSING_VL;
        }
        if (Fcp.op(word) == Fcp.OP_INIT)
        {
            // Active: the peer initialized again, the port re-trains and applies it as in Initialize
            return null;
        }
        if (port.state() != LinkState.ACTIVE)
        {
            return DiscardReason.FCP_STATE;
        }
        final boolean stale = Credits.distance(Fcp.fctbs(word), port.receiver().blocksReceived(vl)) > Credits.MAX_CREDIT ||
            Credits.distance(Fcp.fccl(word), port.creditLimit(vl)) > Credits.MAX_CREDIT;
        return stale ? DiscardReason.FCP_STALE : null;
    }

    private static byte[] randomBytes(final Random random)
    {
        final byte[] bytes = new byte[random.nextInt(12)];
        random.nextBytes(bytes);
        return bytes;
    }
}
