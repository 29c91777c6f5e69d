package io.vlink.tools.fabric;

import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.PacketHandler;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The fabric soak's packets: built per source CA port, checked per destination. A packet is a ready packet
 * ({@code Port.postPacket}): LRH, BTH, then at byte 20
 * <pre>
 * 20  int   CRC32C of bytes 24 .. size-4
 * 24  int   source index (the soak's numbering of CA ports)
 * 28  int   destination index
 * 32  int   SL
 * 36  long  sequence number per (source, destination, SL), from 0
 * 44  long  intended send time (the soak's clock)
 * 52  ...   fill: a seeded pattern per source
 * </pre>
 * The receiver recomputes the CRC32C (damage the link CRCs missed), checks that it is the destination, and follows
 * the sequence numbers per (source, destination, SL): loss, duplication, reordering. Single-threaded, nothing
 * allocated per packet.
 */
final class FabricTraffic implements PacketHandler
{
    /** LRH and BTH. */
    static final int HEADERS = LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    /** The smallest packet: headers, the soak header and the ICRC, rounded to a dword. */
    static final int MIN_SIZE = HEADERS + 32 + Sizes.ICRC_LENGTH;
    /** The largest packet. */
    static final int MAX_SIZE = 4096;

    private static final int CRC_OFFSET = HEADERS;
    private static final int SRC_OFFSET = CRC_OFFSET + 4;
    private static final int DST_OFFSET = SRC_OFFSET + 4;
    private static final int SL_OFFSET = DST_OFFSET + 4;
    private static final int SEQ_OFFSET = SL_OFFSET + 4;
    private static final int TIME_OFFSET = SEQ_OFFSET + 8;
    private static final long HIGHEST_LATENCY_NS = 60_000_000_000L;

    private final int n;
    private final int size;
    private final int[] lids;
    private final UnsafeBuffer[] buffers;
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final CRC32C sendCrc = new CRC32C();
    private final CRC32C receiveCrc = new CRC32C();
    private final byte[] scratch = new byte[MAX_SIZE];
    private final NanoClock clock;
    private final long[] nextSeq;
    private final long[] expectedSeq;

    final long[] sent;
    final long[] sentTo;
    final long[] received;
    /** Per (source, destination), {@code source * n + destination}: packets sent, packets received. */
    final long[] pairSent;
    final long[] pairReceived;
    final long[] gaps;
    final long[] outOfOrder;
    final long[] damaged;
    final Histogram[] latency;
    long sentTotal;
    long receivedTotal;
    /** The index of the CA port whose packets {@link #onPacket} is handed now. */
    int receiver;

    /**
     * @param lids  each CA port's LID, by index.
     * @param size  the packet size S (LRH through ICRC).
     * @param seed  seeds the fill.
     * @param clock the clock of the intended send times.
     */
    FabricTraffic(final int[] lids, final int size, final long seed, final NanoClock clock)
    {
        this.n = lids.length;
        this.lids = lids.clone();
        this.size = size;
        this.clock = clock;
        this.nextSeq = new long[n * n * 16];
        this.expectedSeq = new long[n * n * 16];
        this.sent = new long[n];
        this.sentTo = new long[n];
        this.received = new long[n];
        this.pairSent = new long[n * n];
        this.pairReceived = new long[n * n];
        this.gaps = new long[n];
        this.outOfOrder = new long[n];
        this.damaged = new long[n];
        this.latency = new Histogram[n];
        this.buffers = new UnsafeBuffer[n];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < n; i++)
        {
            latency[i] = new Histogram(1, HIGHEST_LATENCY_NS, 2);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MAX_SIZE]);
            for (int b = TIME_OFFSET + 8; b < MAX_SIZE; b++)
            {
                buffer.putByte(b, (byte)random.nextInt(256));
            }
            buffers[i] = buffer;
        }
    }

    /**
     * Stamp the next packet of a source to a destination on an SL.
     *
     * @return its length without the ICRC, to post from {@link #buffer(int)}.
     */
    int prepare(final int src, final int dst, final int sl, final long intendedNs)
    {
        final UnsafeBuffer buffer = buffers[src];
        final int flow = flow(src, dst, sl);
        lrh.wrap(buffer, 0).vl(0).sl(sl).lnh(LrhFlyweight.LNH_LOCAL).dlid(lids[dst]).slid(lids[src]);
        buffer.putInt(SRC_OFFSET, src);
        buffer.putInt(DST_OFFSET, dst);
        buffer.putInt(SL_OFFSET, sl);
        buffer.putLong(SEQ_OFFSET, nextSeq[flow]);
        buffer.putLong(TIME_OFFSET, intendedNs);
        sendCrc.reset();
        sendCrc.update(buffer.byteArray(), SRC_OFFSET, size - Sizes.ICRC_LENGTH - SRC_OFFSET);
        buffer.putInt(CRC_OFFSET, (int)sendCrc.getValue());
        return size - Sizes.ICRC_LENGTH;
    }

    DirectBuffer buffer(final int src)
    {
        return buffers[src];
    }

    /** The prepared packet was accepted by the source's port. */
    void accepted(final int src, final int dst, final int sl)
    {
        nextSeq[flow(src, dst, sl)]++;
        sent[src]++;
        sentTo[dst]++;
        pairSent[src * n + dst]++;
        sentTotal++;
    }

    @Override
    public void onPacket(final PacketHeader header)
    {
        final DirectBuffer buffer = header.buffer();
        // whole packets: the soak header and its CRC count from the LRH
        final int vl = header.vl();
        final int offset = header.packetOffset();
        final int length = header.packetLength();
        final int at = receiver;
        if (LrhFlyweight.VL15 == vl)
        {
            return;
        }
        if (length != size)
        {
            damaged[at]++;
            return;
        }
        final int checked = length - Sizes.ICRC_LENGTH - SRC_OFFSET;
        buffer.getBytes(offset + SRC_OFFSET, scratch, 0, checked);
        receiveCrc.reset();
        receiveCrc.update(scratch, 0, checked);
        final int src = buffer.getInt(offset + SRC_OFFSET);
        final int dst = buffer.getInt(offset + DST_OFFSET);
        final int sl = buffer.getInt(offset + SL_OFFSET);
        if ((int)receiveCrc.getValue() != buffer.getInt(offset + CRC_OFFSET) || dst != at || src < 0 || src >= n ||
            sl < 0 || sl > 15)
        {
            damaged[at]++;
            return;
        }
        final int flow = flow(src, dst, sl);
        final long seq = buffer.getLong(offset + SEQ_OFFSET);
        final long next = expectedSeq[flow];
        if (seq >= next)
        {
            gaps[at] += seq - next;
            expectedSeq[flow] = seq + 1;
        }
        else
        {
            // a late or repeated packet: not FIFO
            outOfOrder[at]++;
        }
        received[at]++;
        pairReceived[src * n + dst]++;
        receivedTotal++;
        long ns = clock.nanoTime() - buffer.getLong(offset + TIME_OFFSET);
        ns = Math.max(1, Math.min(HIGHEST_LATENCY_NS, ns));
        latency[at].recordValue(ns);
    }

    private int flow(final int src, final int dst, final int sl)
    {
        return (src * n + dst) * 16 + sl;
    }
}
