package io.vlink.tools.soak;

import io.vlink.core.arb.VlArbiter;
import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.DethFlyweight;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketHeader;
import io.vlink.core.wire.Sizes;
import io.vlink.core.wire.SmpFlyweight;
import io.vlink.nic.PacketHandler;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.SplittableRandom;
import java.util.zip.CRC32C;

import static java.nio.ByteOrder.BIG_ENDIAN;

/**
 * The soak's packets, as a real fabric carries them: how they are built on the sending side and checked on the
 * receiving side, per data VL (docs/soak.md, "The packets on the wire").
 * <p>
 * A data packet is a ready packet ({@code Port.postPacket}) of a reliable-connection SEND: LRH (8 bytes), BTH (12:
 * RC SEND Only, or First, Middle... Last for a message of several packets, P_Key 0xFFFF, destination QP
 * {@link #QPN_BASE} + VL, a PSN that advances by one per packet of the QP and wraps at 24 bits), then the soak header
 * and a fill pattern, then the ICRC the engine adds. Each VL's messages are 1 to {@link #MAX_MESSAGE_PACKETS}
 * packets long, the length drawn from the seed. The soak header, at byte 20:
 * <pre>
 * 20  int   CRC32C of bytes 24 .. size-4 (everything after this field up to the ICRC)
 * 24  long  sequence number on the VL, from 0
 * 32  int   (VL << 16) | size
 * 36  long  intended send time (the soak's clock)
 * 44  ...   fill: a seeded pattern per VL
 * </pre>
 * Big-endian, as every field on the wire.
 * The receiver recomputes the CRC32C (damage that slipped past the link's CRCs), checks the VL and size, and follows
 * the sequence numbers (loss, duplication, reordering).
 * <p>
 * VL15 carries subnet management packets: UD SEND Only to QP0 with a DETH (Q_Key 0, source QP 0) and a 256-byte SMP,
 * a Get of NodeInfo or PortInfo, LID-routed or directed-route in turn, with a transaction id that advances.
 * Single-threaded: the soak's application thread both sends and receives. Nothing is allocated per packet.
 */
public final class SoakTraffic implements PacketHandler
{
    /** LRH and BTH: an RC SEND has no other transport header. */
    public static final int HEADERS = LrhFlyweight.LENGTH + BthFlyweight.LENGTH;
    /** The destination QP of VL 0's data; VL n's goes to {@code QPN_BASE + n} (QP0 and QP1 are management QPs). */
    public static final int QPN_BASE = 0x10;
    /** The longest message, in packets. */
    public static final int MAX_MESSAGE_PACKETS = 4;
    /** Where the SMP starts: after the LRH, the BTH and the DETH. */
    public static final int SMP_OFFSET = HEADERS + DethFlyweight.LENGTH;
    /** The soak header: checksum, VL and size, sequence number, intended time. */
    public static final int SOAK_HEADER = 24;
    /** Bytes of the ICRC the engine appends. */
    public static final int ICRC = Sizes.ICRC_LENGTH;
    /** The smallest packet the soak sends: headers, soak header and ICRC. */
    public static final int MIN_SIZE = HEADERS + SOAK_HEADER + ICRC;
    /** The largest packet the soak sends (4 KiB, the largest MTU's worth). */
    public static final int MAX_SIZE = 4096;

    private static final int CRC_OFFSET = HEADERS;
    /** The CRC32C covers everything after its own field. */
    private static final int CHECKED_OFFSET = CRC_OFFSET + 4;
    private static final int SEQ_OFFSET = CHECKED_OFFSET;
    /**
     * At payload bytes 12-15, where an RPC-over-RDMA header has its message type (0..4): Wireshark's heuristic takes
     * a SEND message for RPC-over-RDMA when those bytes are a valid type, and {@code (VL << 16) | size} never is.
     */
    private static final int ID_OFFSET = SEQ_OFFSET + 8;
    private static final int TIME_OFFSET = ID_OFFSET + 4;
    /** DrSLID and DrDLID of a directed-route SMP, after its M_Key. */
    private static final int DR_LIDS_OFFSET = SmpFlyweight.M_KEY_OFFSET + 8;

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
    private final LrhFlyweight lrh = new LrhFlyweight();
    private final BthFlyweight bth = new BthFlyweight();
    private final SmpFlyweight smpHeader = new SmpFlyweight();
    private final int localLid;
    private final int peerLid;

    /** Length of the SMPs the soak sends on VL15 (LRH, BTH, DETH and the 256-byte MAD, without ICRC). */
    public static final int SMP_LENGTH = SMP_OFFSET + SmpFlyweight.LENGTH;
    /**
     * Length of the flood's SMPs: the largest (a 4096-byte MTU), so that the VL15 buffer, sized in largest packets,
     * holds exactly its number of them. The SMP is followed by zeros up to that length.
     */
    public static final int FLOOD_SMP_LENGTH = 4096;

    // the transport state of each VL's queue pair
    private final SplittableRandom messageRandom;
    private final int[] psn = new int[VlArbiter.VL_COUNT];
    private final int[] messageLeft = new int[VlArbiter.VL_COUNT];
    private final int[] pendingOpcode = new int[VlArbiter.VL_COUNT];
    private int smpPsn;
    private long smpTransactionId;

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
        this.localLid = localLid;
        this.peerLid = peerLid;
        final SplittableRandom random = new SplittableRandom(seed);
        this.sizeRandom = random.split();
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[MAX_SIZE]);
            lrh.wrap(buffer, 0).vl(vl).sl(0).lnh(LrhFlyweight.LNH_LOCAL).dlid(peerLid).slid(localLid);
            bth.wrap(buffer, LrhFlyweight.LENGTH).pKey(BthFlyweight.DEFAULT_P_KEY).destQp(QPN_BASE + vl);
            for (int i = HEADERS + SOAK_HEADER; i < MAX_SIZE; i++)
            {
                buffer.putByte(i, (byte)random.nextInt(256));
            }
            sendBuffers[vl] = buffer;
        }
        // a real requester starts each connection at a random PSN; so does the soak, from the seed
        this.messageRandom = random.split();
        for (int vl = 0; vl < VlArbiter.VL_COUNT; vl++)
        {
            psn[vl] = messageRandom.nextInt(BthFlyweight.MASK_24 + 1);
        }
        smpPsn = messageRandom.nextInt(BthFlyweight.MASK_24 + 1);
        smpTransactionId = messageRandom.nextLong() & 0xFFFF_FFFFL;
        bth.wrap(smp, LrhFlyweight.LENGTH).opcode(BthFlyweight.UD_SEND_ONLY).pKey(BthFlyweight.DEFAULT_P_KEY).destQp(0);
        new DethFlyweight().wrap(smp, HEADERS).qKey(0).srcQp(0);
    }

    /**
     * The next SMP to send on VL15, headed and numbered: its transaction id and PSN stay the same until it is
     * accepted ({@link #smpAccepted()}). The soak's SMPs cycle through four requests: Get NodeInfo and Get PortInfo
     * (port 1), each LID-routed and directed-route (a route of no hops, the permissive LID 0xFFFF in the LRH, as a
     * subnet manager sweeps its first link).
     *
     * @param flood whether the SMP is one of a flood's, padded to {@link #FLOOD_SMP_LENGTH}.
     * @return its length without the ICRC, to post from {@link #smp()}.
     */
    public int prepareSmp(final boolean flood)
    {
        final int kind = (int)(smpTransactionId & 3);
        final boolean directed = kind >= 2;
        final int attribute = 0 == (kind & 1) ? SmpFlyweight.ATTRIBUTE_NODE_INFO : SmpFlyweight.ATTRIBUTE_PORT_INFO;
        lrh.wrap(smp, 0).vl(LrhFlyweight.VL15).sl(0).lnh(LrhFlyweight.LNH_LOCAL)
            .dlid(directed ? LrhFlyweight.PERMISSIVE_LID : peerLid)
            .slid(directed ? LrhFlyweight.PERMISSIVE_LID : localLid);
        bth.wrap(smp, LrhFlyweight.LENGTH).psn(smpPsn);
        smpHeader.wrap(smp, SMP_OFFSET).request(
            directed ? SmpFlyweight.MGMT_CLASS_DIRECTED_ROUTE : SmpFlyweight.MGMT_CLASS_LID_ROUTED,
            SmpFlyweight.METHOD_GET, smpTransactionId, attribute,
            SmpFlyweight.ATTRIBUTE_PORT_INFO == attribute ? 1 : 0);
        if (directed)
        {
            // DrSLID and DrDLID: the permissive LID, the route is directed from end to end
            smp.putInt(SMP_OFFSET + DR_LIDS_OFFSET, -1);
        }
        return flood ? FLOOD_SMP_LENGTH : SMP_LENGTH;
    }

    /**
     * The prepared SMP was accepted by the engine: the next one takes the next transaction id and PSN.
     */
    public void smpAccepted()
    {
        smpsSent++;
        smpTransactionId++;
        smpPsn = (smpPsn + 1) & BthFlyweight.MASK_24;
    }

    /**
     * @return the SMP {@link #prepareSmp} filled.
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
        final UnsafeBuffer buffer = sendBuffers[vl];
        if (0 == size)
        {
            size = sizeMin == sizeMax ? sizeMin : sizeMin + 4 * sizeRandom.nextInt((sizeMax - sizeMin) / 4 + 1);
            pendingSize[vl] = size;
            final int opcode;
            if (0 == messageLeft[vl])
            {
                messageLeft[vl] = 1 + messageRandom.nextInt(MAX_MESSAGE_PACKETS);
                opcode = 1 == messageLeft[vl] ? BthFlyweight.RC_SEND_ONLY : BthFlyweight.RC_SEND_FIRST;
            }
            else
            {
                opcode = 1 == messageLeft[vl] ? BthFlyweight.RC_SEND_LAST : BthFlyweight.RC_SEND_MIDDLE;
            }
            pendingOpcode[vl] = opcode;
            // the responder acknowledges a message's end
            bth.wrap(buffer, LrhFlyweight.LENGTH).opcode(opcode).psn(psn[vl])
                .ackReq(BthFlyweight.RC_SEND_ONLY == opcode || BthFlyweight.RC_SEND_LAST == opcode);
        }
        buffer.putLong(SEQ_OFFSET, sent[vl], BIG_ENDIAN);
        buffer.putInt(ID_OFFSET, (vl << 16) | size, BIG_ENDIAN);
        buffer.putLong(TIME_OFFSET, intendedNs, BIG_ENDIAN);
        sendCrc.reset();
        sendCrc.update(buffer.byteArray(), CHECKED_OFFSET, size - ICRC - CHECKED_OFFSET);
        buffer.putInt(CRC_OFFSET, (int)sendCrc.getValue(), BIG_ENDIAN);
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
        messageLeft[vl]--;
        psn[vl] = (psn[vl] + 1) & BthFlyweight.MASK_24;
    }

    /**
     * @param vl a data VL.
     * @return the opcode of the VL's prepared packet.
     */
    int pendingOpcode(final int vl)
    {
        return pendingOpcode[vl];
    }

    /**
     * Start a VL's queue pair at another PSN (tests: the 24-bit wrap).
     *
     * @param vl       a data VL.
     * @param firstPsn the PSN of its next packet.
     */
    void startPsn(final int vl, final int firstPsn)
    {
        psn[vl] = firstPsn & BthFlyweight.MASK_24;
    }

    @Override
    public void onPacket(final PacketHeader header)
    {
        final DirectBuffer buffer = header.buffer();
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
        final int checked = length - ICRC - CHECKED_OFFSET;
        buffer.getBytes(offset + CHECKED_OFFSET, scratch, 0, checked);
        receiveCrc.reset();
        receiveCrc.update(scratch, 0, checked);
        if ((int)receiveCrc.getValue() != buffer.getInt(offset + CRC_OFFSET, BIG_ENDIAN) ||
            buffer.getInt(offset + ID_OFFSET, BIG_ENDIAN) != ((vl << 16) | length))
        {
            // damage the link's CRCs did not catch: counted, and the packet is not trusted for anything else
            damaged[vl]++;
            return;
        }
        final long seq = buffer.getLong(offset + SEQ_OFFSET, BIG_ENDIAN);
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
        latency.record(buffer.getLong(offset + TIME_OFFSET, BIG_ENDIAN), nowNs);
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
