package io.vlink.core.capture;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * The capture format of docs/wire.md ("Captures"): classic pcap with link type 197 (ERF), as Mellanox
 * {@code ibdump} writes and Wireshark reads. The encoders write into any {@link MutableDirectBuffer} at any offset,
 * so a file writer, a memory-mapped capture tap or a test all share them.
 * <pre>
 *  file:    | pcap file header (24) | record | record | ...
 *  record:  | pcap record header (16, little-endian) | ERF header (16) | packet bytes (no padding) |
 *
 *  ERF header:
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |        timestamp: 32.32 fixed-point seconds, little-endian    |
 *  +                                                               +
 *  |                                                               |
 *  +---------------+---------------+-------------------------------+
 *  |     type      |    flags      |     rlen (big-endian)         |
 *  +---------------+---------------+-------------------------------+
 *  |     lctr (0)                  |     wlen (big-endian)         |
 *  +-------------------------------+-------------------------------+
 * </pre>
 * type 21 for a data packet (LRH first), 25 for a link packet (FCP); flags 0x04 (varying length) | interface in
 * bits 1:0 | 0x10 if received with an error; rlen 16 + the packet length rounded up to 8; wlen the packet length.
 */
public final class Pcap
{
    /** Classic pcap, microsecond timestamps. */
    public static final int MAGIC_MICROS = 0xA1B2C3D4;
    /** Classic pcap, nanosecond timestamps (read, never written). */
    public static final int MAGIC_NANOS = 0xA1B23C4D;
    /** pcapng's section header block type: refused with a hint. */
    public static final int MAGIC_PCAPNG = 0x0A0D0D0A;
    public static final int VERSION_MAJOR = 2;
    public static final int VERSION_MINOR = 4;
    public static final int LINKTYPE_ERF = 197;
    public static final int SNAPLEN = 65535;

    public static final int FILE_HEADER_LENGTH = 24;
    public static final int RECORD_HEADER_LENGTH = 16;
    public static final int ERF_HEADER_LENGTH = 16;
    /** pcap record header and ERF header: the bytes before the packet in each record. */
    public static final int RECORD_OVERHEAD = RECORD_HEADER_LENGTH + ERF_HEADER_LENGTH;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_MAJOR_OFFSET = 4;
    public static final int VERSION_MINOR_OFFSET = 6;
    public static final int THISZONE_OFFSET = 8;
    public static final int SIGFIGS_OFFSET = 12;
    public static final int SNAPLEN_OFFSET = 16;
    public static final int LINKTYPE_OFFSET = 20;

    public static final int TS_SEC_OFFSET = 0;
    public static final int TS_SUBSEC_OFFSET = 4;
    public static final int INCL_LEN_OFFSET = 8;
    public static final int ORIG_LEN_OFFSET = 12;

    /** Offsets inside the ERF header. */
    public static final int ERF_TIMESTAMP_OFFSET = 0;
    public static final int ERF_TYPE_OFFSET = 8;
    public static final int ERF_FLAGS_OFFSET = 9;
    public static final int ERF_RLEN_OFFSET = 10;
    public static final int ERF_LCTR_OFFSET = 12;
    public static final int ERF_WLEN_OFFSET = 14;

    /** ERF type of an InfiniBand data packet, LRH first. */
    public static final int ERF_TYPE_INFINIBAND = 21;
    /** ERF type of an InfiniBand link packet (FCP). */
    public static final int ERF_TYPE_INFINIBAND_LINK = 25;
    /** Bit 7 of the ERF type: extension headers follow (not written by ibdump; refused per record). */
    public static final int ERF_TYPE_EXTENSION_BIT = 0x80;
    public static final int ERF_FLAG_INTERFACE_MASK = 0x03;
    public static final int ERF_FLAG_VARYING_LENGTH = 0x04;
    public static final int ERF_FLAG_RX_ERROR = 0x10;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private Pcap()
    {
    }

    /**
     * Writes the 24-byte pcap file header: magic {@code a1b2c3d4} little-endian, version 2.4, snaplen 65535, link
     * type 197.
     *
     * @param buffer to write into.
     * @param offset of the first byte.
     * @return {@link #FILE_HEADER_LENGTH}.
     */
    public static int writeFileHeader(final MutableDirectBuffer buffer, final int offset)
    {
        buffer.putInt(offset + MAGIC_OFFSET, MAGIC_MICROS, LITTLE_ENDIAN);
        buffer.putShort(offset + VERSION_MAJOR_OFFSET, (short)VERSION_MAJOR, LITTLE_ENDIAN);
        buffer.putShort(offset + VERSION_MINOR_OFFSET, (short)VERSION_MINOR, LITTLE_ENDIAN);
        buffer.putInt(offset + THISZONE_OFFSET, 0, LITTLE_ENDIAN);
        buffer.putInt(offset + SIGFIGS_OFFSET, 0, LITTLE_ENDIAN);
        buffer.putInt(offset + SNAPLEN_OFFSET, SNAPLEN, LITTLE_ENDIAN);
        buffer.putInt(offset + LINKTYPE_OFFSET, LINKTYPE_ERF, LITTLE_ENDIAN);
        return FILE_HEADER_LENGTH;
    }

    /**
     * @param packetLength bytes of the packet.
     * @return bytes of its record: {@code 32 + packetLength}.
     */
    public static int recordLength(final int packetLength)
    {
        return RECORD_OVERHEAD + packetLength;
    }

    /**
     * Writes the 32 bytes that precede a packet in a record, so a caller that places the packet itself (a
     * memory-mapped tap copying straight from the wire buffer) need not copy it twice.
     *
     * @param buffer       to write into.
     * @param offset       of the record's first byte; the packet goes at {@code offset + 32}.
     * @param epochNanos   when the packet entered the wire, nanoseconds since the epoch.
     * @param erfType      {@link #ERF_TYPE_INFINIBAND} or {@link #ERF_TYPE_INFINIBAND_LINK}.
     * @param iface        the interface, 0..3: 0 for what the first port sends, 1 for its peer.
     * @param rxError      true if the packet was received with an error (flag 0x10).
     * @param packetLength bytes of the packet (wlen).
     * @return {@link #RECORD_OVERHEAD}.
     */
    public static int writeRecordHeader(
        final MutableDirectBuffer buffer,
        final int offset,
        final long epochNanos,
        final int erfType,
        final int iface,
        final boolean rxError,
        final int packetLength)
    {
        final long seconds = Math.floorDiv(epochNanos, NANOS_PER_SECOND);
        final long nanos = Math.floorMod(epochNanos, NANOS_PER_SECOND);

        buffer.putInt(offset + TS_SEC_OFFSET, (int)seconds, LITTLE_ENDIAN);
        buffer.putInt(offset + TS_SUBSEC_OFFSET, (int)(nanos / 1000), LITTLE_ENDIAN);
        buffer.putInt(offset + INCL_LEN_OFFSET, ERF_HEADER_LENGTH + packetLength, LITTLE_ENDIAN);
        buffer.putInt(offset + ORIG_LEN_OFFSET, ERF_HEADER_LENGTH + packetLength, LITTLE_ENDIAN);

        final int erf = offset + RECORD_HEADER_LENGTH;
        buffer.putLong(erf + ERF_TIMESTAMP_OFFSET, erfTimestamp(epochNanos), LITTLE_ENDIAN);
        buffer.putByte(erf + ERF_TYPE_OFFSET, (byte)erfType);
        buffer.putByte(erf + ERF_FLAGS_OFFSET, (byte)erfFlags(iface, rxError));
        buffer.putShort(erf + ERF_RLEN_OFFSET, (short)rlen(packetLength), BIG_ENDIAN);
        buffer.putShort(erf + ERF_LCTR_OFFSET, (short)0, BIG_ENDIAN);
        buffer.putShort(erf + ERF_WLEN_OFFSET, (short)packetLength, BIG_ENDIAN);
        return RECORD_OVERHEAD;
    }

    /**
     * Writes one whole record: headers then the packet's bytes.
     *
     * @param buffer       to write into.
     * @param offset       of the record's first byte.
     * @param epochNanos   when the packet entered the wire, nanoseconds since the epoch.
     * @param erfType      {@link #ERF_TYPE_INFINIBAND} or {@link #ERF_TYPE_INFINIBAND_LINK}.
     * @param iface        the interface, 0..3.
     * @param rxError      true if the packet was received with an error.
     * @param packet       holding the packet.
     * @param packetOffset of its first byte.
     * @param packetLength its length in bytes, VCRC included for data.
     * @return bytes written: {@link #recordLength(int)}.
     */
    public static int writeRecord(
        final MutableDirectBuffer buffer,
        final int offset,
        final long epochNanos,
        final int erfType,
        final int iface,
        final boolean rxError,
        final DirectBuffer packet,
        final int packetOffset,
        final int packetLength)
    {
        writeRecordHeader(buffer, offset, epochNanos, erfType, iface, rxError, packetLength);
        buffer.putBytes(offset + RECORD_OVERHEAD, packet, packetOffset, packetLength);
        return RECORD_OVERHEAD + packetLength;
    }

    /**
     * @param packetLength bytes of the packet.
     * @return the ERF rlen: 16 + the packet length rounded up to 8.
     */
    public static int rlen(final int packetLength)
    {
        return ERF_HEADER_LENGTH + ((packetLength + 7) & ~7);
    }

    /**
     * @param iface   the interface, 0..3.
     * @param rxError true if received with an error.
     * @return the ERF flags byte.
     */
    public static int erfFlags(final int iface, final boolean rxError)
    {
        return ERF_FLAG_VARYING_LENGTH | (iface & ERF_FLAG_INTERFACE_MASK) | (rxError ? ERF_FLAG_RX_ERROR : 0);
    }

    /**
     * @param epochNanos nanoseconds since the epoch.
     * @return the ERF 32.32 fixed-point timestamp, rounded to the nearest 2^-32 s.
     */
    public static long erfTimestamp(final long epochNanos)
    {
        final long seconds = Math.floorDiv(epochNanos, NANOS_PER_SECOND);
        final long nanos = Math.floorMod(epochNanos, NANOS_PER_SECOND);
        final long fraction = ((nanos << 32) + NANOS_PER_SECOND / 2) / NANOS_PER_SECOND;
        // a fraction rounded up to 2^32 carries into the seconds
        return (seconds << 32) + fraction;
    }

    /**
     * @param erfTimestamp an ERF 32.32 fixed-point timestamp.
     * @return nanoseconds since the epoch, rounded to the nearest.
     */
    public static long epochNanos(final long erfTimestamp)
    {
        final long seconds = erfTimestamp >>> 32;
        final long fraction = erfTimestamp & 0xFFFF_FFFFL;
        return seconds * NANOS_PER_SECOND + ((fraction * NANOS_PER_SECOND + (1L << 31)) >>> 32);
    }
}
