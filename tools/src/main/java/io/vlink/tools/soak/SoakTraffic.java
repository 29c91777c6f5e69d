package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.ReceiveHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

/**
 * The soak's data packets: how they are built on the sending side and checked on the receiving side, per data VL.
 * <p>
 * A data packet is a ready packet ({@code Port.postPacket}): LRH (8 bytes), BTH (12), then the soak header and a
 * fill pattern, then the ICRC the engine adds. The soak header, at byte 20:
 * <pre>
 * 20  int   CRC32C of bytes 24 .. size-4 (everything after this field up to the ICRC)
 * 24  int   (VL << 16) | size
 * 28  long  sequence number on the VL, from 0
 * 36  long  intended send time (the soak's clock)
 * 44  ...   fill: a seeded pattern per VL
 * </pre>
 * The receiver recomputes the CRC32C (damage that slipped past the link's CRCs), checks the VL and size, and follows
 * the sequence numbers (loss, duplication, reordering). Single-threaded: the soak's application thread both sends
 * and receives. Nothing is allocated per packet.
 */
public final class SoakTraffic implements ReceiveHandler
{
    /** LRH and BTH. */
    public static final int HEADERS = LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    /** The soak header: checksum, VL and size, sequence number, intended time. */
    public static final int SOAK_HEADER = 24;
    /** Bytes of the ICRC the engine appends. */
    public static final int ICRC = Sizes.ICRC_LENGTH;
    /** The smallest packet the soak sends: headers, soak header and ICRC. */
    public static final int MIN_SIZE = HEADERS + SOAK_HEADER + ICRC;
    /** The largest packet the soak sends (4 KiB, the largest MTU's worth). */
    public static final int MAX_SIZE = 4096;

    private static final int CRC_OFFSET = HEADERS;
    private static final int ID_OFFSET = CRC_OFFSET + 4;
    private static final int SEQ_OFFSET = ID_OFFSET + 4;
    private static final int TIME_OFFSET = SEQ_OFFSET + 8;

    private final int sizeMin;
    private final int sizeMax;
    private final SplittableRandom sizeRandom;
    private final UnsafeBuffer[] sendBuffers = new UnsafeBuffer[VlArbiter.VL_COUNT];
    private final int[] pendingSize = new int[VlArbiter.VL_COUNT];
    private final CRC32C sendCrc = new CRC32C();
    private final CRC32C receiveCrc = new CRC32C();
    private final byte[] scratch = new byte[MAX_SIZE];
    private final LatencyRecorder latency;
    private final NanoClock clock;
    private final UnsafeBuffer smp = new UnsafeBuffer(new byte[FLOOD_SMP_LENGTH]);

    /** Length of the SMPs the soak sends on VL15 as regular traffic (without ICRC). */
    public static final int SMP_LENGTH = 256;
    /**
     * Length of the flood's SMPs: the largest (a 4096-byte MTU), so that the VL15 buffer, sized in largest packets,
     * holds exactly its number of them.
     */
    public static final int FLOOD_SMP_LENGTH = 4096;

    // sending side, per VL
    final long[] sent = new long[VlArbiter.VL_COUNT];
    final long[] sentBytes = new long[VlArbiter.VL_COUNT];
    /** Data packets accepted over all VLs. */
    long dataSent;
    /** SMPs port A accepted on VL15, the floods' included. */
    long smpsSent;

    // receiving side, per VL
    final long[] expected = new long[VlArbiter.VL_COUNT];
    final long[] delivered = new long[VlArbiter.VL_COUNT];
    final long[] receivedBytes = new long[VlArbiter.VL_COUNT];
    final long[] intervalBytes = new long[VlArbiter.VL_COUNT];
    final long[] phaseBytes = new long[VlArbiter.VL_COUNT];
    final long[] gaps = new long[VlArbiter.VL_COUNT];
    final long[] outOfOrder = new long[VlArbiter.VL_COUNT];
    final long[] duplicated = new long[VlArbiter.VL_COUNT];
    final long[] damaged = new long[VlArbiter.VL_COUNT];
    long vl15Delivered;

    /**
     * @param sizeMin  the smallest packet size (LRH through ICRC), a multiple of 4.
     * @param sizeMax  the largest; equal to {@code sizeMin} for a fixed size.
     * @param seed     seeds the sizes and the fill pattern.
     * @param localLid SLID of the packets.
     * @param peerLid  DLID of the packets.
     * @param latency  where each delivered packet's latency goes.
     * @param clock    the clock of the intended send times, read at each delivery.
     */
    public SoakTraffic(
        final int sizeMin, final int sizeMax, final long seed, final int localLid, final int peerLid,
        final LatencyRecorder latency, final NanoClock clock)
    {
        this.sizeMin = sizeMin;
        this.sizeMax = sizeMax;
        this.latency = latency;
        this.clock = clock;
        final SplittableRandom random = new SplittableRandom(seed);
        this.sizeRandom = random.split();
        final LrhFlyweight lrh = new LrhFlyweight();
        final BthFlyweight bth = new BthFlyweight();
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MAX_SIZE]);
            lrh.wrap(buffer, 0).vl(vl).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(peerLid).slid(localLid);
            bth.wrap(buffer, LrhFlyweight.LENGTH).destQp(vl + 1);
            for (int i = HEADERS + SOAK_HEADER; i < MAX_SIZE; i++)
            {
                buffer.putByte(i, (byte)random.nextInt(256));
            }
            sendBuffers[vl] = buffer;
        }
        lrh.wrap(smp, 0).vl(LrhFlyweight.VL15).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(peerLid).slid(localLid);
    }

    /**
     * @return an SMP to send on VL15: its first {@link #SMP_LENGTH} bytes, or {@link #FLOOD_SMP_LENGTH} in a flood.
     */
    public DirectBuffer smp()
    {
        return smp;
    }

    /**
     * The next packet of a VL, stamped and checksummed: its size stays the same until it is accepted.
     *
     * @param vl         the data VL.
     * @param intendedNs its intended send time.
     * @return its length without the ICRC, to post from {@link #buffer(int)}.
     */
    public int prepare(final int vl, final long intendedNs)
    {
        int size = pendingSize[vl];
        if (0 == size)
        {
            size = sizeMin == sizeMax ? sizeMin : sizeMin + 4 * sizeRandom.nextInt((sizeMax - sizeMin) / 4 + 1);
            pendingSize[vl] = size;
        }
        final UnsafeBuffer buffer = sendBuffers[vl];
        buffer.putInt(ID_OFFSET, (vl << 16) | size);
        buffer.putLong(SEQ_OFFSET, sent[vl]);
        buffer.putLong(TIME_OFFSET, intendedNs);
        sendCrc.reset();
        sendCrc.update(buffer.byteArray(), ID_OFFSET, size - ICRC - ID_OFFSET);
        buffer.putInt(CRC_OFFSET, (int)sendCrc.getValue());
        return size - ICRC;
    }

    /**
     * @param vl the data VL.
     * @return the buffer {@link #prepare} filled.
     */
    public DirectBuffer buffer(final int vl)
    {
        return sendBuffers[vl];
    }

    /**
     * The prepared packet of a VL was accepted by the engine.
     *
     * @param vl the data VL.
     */
    public void accepted(final int vl)
    {
        sent[vl]++;
        dataSent++;
        sentBytes[vl] += pendingSize[vl];
        pendingSize[vl] = 0;
    }

    @Override
    public void onPacket(
        final DirectBuffer buffer, final int payloadOffset, final int payloadLength, final PacketHeader header)
    {
        // the soak checks whole packets (its ids and CRC count from the LRH)
        final int vl = header.vl();
        final int offset = header.packetOffset();
        final int length = header.packetLength();
        if (LrhFlyweight.VL15 == vl)
        {
            vl15Delivered++;
            return;
        }
        final long nowNs = clock.nanoTime();
        if (length < MIN_SIZE || length > MAX_SIZE)
        {
            damaged[vl]++;
            return;
        }
        final int checked = length - ICRC - ID_OFFSET;
        buffer.getBytes(offset + ID_OFFSET, scratch, 0, checked);
        receiveCrc.reset();
        receiveCrc.update(scratch, 0, checked);
        if ((int)receiveCrc.getValue() != buffer.getInt(offset + CRC_OFFSET) ||
            buffer.getInt(offset + ID_OFFSET) != ((vl << 16) | length))
        {
            // damage the link's CRCs did not catch: counted, and the packet is not trusted for anything else
            damaged[vl]++;
            return;
        }
        final long seq = buffer.getLong(offset + SEQ_OFFSET);
        final long next = expected[vl];
        if (seq == next)
        {
            expected[vl] = seq + 1;
        }
        else if (seq > next)
        {
            gaps[vl] += seq - next;
            expected[vl] = seq + 1;
        }
        else if (seq == next - 1)
        {
            duplicated[vl]++;
        }
        else
        {
            // a late packet: it filled a gap seen before
            outOfOrder[vl]++;
            gaps[vl]--;
        }
        delivered[vl]++;
        receivedBytes[vl] += length;
        intervalBytes[vl] += length;
        phaseBytes[vl] += length;
        latency.record(buffer.getLong(offset + TIME_OFFSET), nowNs);
    }

    /**
     * @param vl a data VL.
     * @return packets sent but not yet seen by sequence number (gaps inside and at the end of what arrived).
     */
    long missing(final int vl)
    {
        return gaps[vl] + (sent[vl] - expected[vl]);
    }
}
