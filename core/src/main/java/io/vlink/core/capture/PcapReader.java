package io.vlink.core.capture;

import org.agrona.DirectBuffer;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Reads a pcap/ERF capture ({@link Pcap}) record by record, as a cursor: {@link #next()} moves to the next record
 * and the accessors describe it; the packet bytes stay where they are in the file's buffer.
 * <p>
 * It survives damaged files. A file that is not a capture is refused when opened, with a {@link CaptureException}
 * saying why. Damage inside a record (a record cut short by the end of the file, an ERF header missing or
 * inconsistent, an unknown ERF type) is reported by {@link #error()} on that record and reading goes on with the
 * next record whenever the pcap framing still tells where it starts. Both byte orders of classic pcap are read,
 * with microsecond or nanosecond timestamps.
 * <p>
 * A capture whose writer was stopped without closing it ends in a half-written record or in the zero-filled,
 * unwritten part of a file that was extended ahead of its writer. Neither is damage: the capture ends there and
 * {@link #truncatedAt()} says where. The end of the capture is the first place where a record header is cut short
 * by the end of the file, where a record header gives a length of 0 (no record has one: an ERF record holds at
 * least its 16-byte ERF header), or where a record of a length a capture can hold (up to the snap length,
 * 65,535 bytes) is cut short by the end of the file. A longer length than any record can have is damage, reported
 * on that record, which is then the last one.
 */
public final class PcapReader implements AutoCloseable
{
    private final DirectBuffer buffer;
    private final int limit;
    private final ByteOrder order;
    private final boolean nanosecondTimestamps;
    private final MappedByteBuffer mapped;

    private int position = Pcap.FILE_HEADER_LENGTH;
    private int recordStart;
    private int recordLength;
    private int index;
    private long timestampNanos;
    private int erfType;
    private int erfFlags;
    private int rlen;
    private int wlen;
    private int packetOffset;
    private int packetLength;
    private String error;
    private int truncatedAt = -1;
    private String truncation;

    /**
     * Reads a capture held in memory.
     *
     * @param buffer holding the file's bytes from offset 0.
     * @param length of the file in bytes.
     * @throws CaptureException if the bytes are not a pcap capture with link type ERF.
     */
    public PcapReader(final DirectBuffer buffer, final int length) throws CaptureException
    {
        this(buffer, length, null);
    }

    private PcapReader(final DirectBuffer buffer, final int length, final MappedByteBuffer mapped)
        throws CaptureException
    {
        this.buffer = buffer;
        this.limit = length;
        this.mapped = mapped;

        if (length < Pcap.FILE_HEADER_LENGTH)
        {
            throw new CaptureException("not a pcap capture: " + length + " bytes, fewer than the " +
                Pcap.FILE_HEADER_LENGTH + "-byte pcap file header");
        }
        final int magic = buffer.getInt(Pcap.MAGIC_OFFSET, LITTLE_ENDIAN);
        if (magic == Pcap.MAGIC_MICROS || magic == Pcap.MAGIC_NANOS)
        {
            order = LITTLE_ENDIAN;
        }
        else if (Integer.reverseBytes(magic) == Pcap.MAGIC_MICROS || Integer.reverseBytes(magic) == Pcap.MAGIC_NANOS)
        {
            order = BIG_ENDIAN;
        }
        else if (magic == Pcap.MAGIC_PCAPNG)
        {
            throw new CaptureException("a pcapng capture: vlink reads classic pcap; convert it with " +
                "'editcap -F pcap IN OUT'");
        }
        else
        {
            throw new CaptureException(String.format(
                "not a pcap capture: the file starts with 0x%08x, not the pcap magic a1b2c3d4", Integer.reverseBytes(magic)));
        }
        nanosecondTimestamps = (buffer.getInt(Pcap.MAGIC_OFFSET, order)) == Pcap.MAGIC_NANOS;

        final int major = buffer.getShort(Pcap.VERSION_MAJOR_OFFSET, order) & 0xFFFF;
        if (major != Pcap.VERSION_MAJOR)
        {
            throw new CaptureException("unsupported pcap version " + major + "." +
                (buffer.getShort(Pcap.VERSION_MINOR_OFFSET, order) & 0xFFFF) + ": vlink reads version 2.x");
        }
        // the upper bits of the link-type field may carry FCS information: the type is the low 16 bits
        final int linkType = buffer.getInt(Pcap.LINKTYPE_OFFSET, order) & 0xFFFF;
        if (linkType != Pcap.LINKTYPE_ERF)
        {
            throw new CaptureException("link type " + linkType + " is not ERF (" + Pcap.LINKTYPE_ERF +
                "): vlink decodes InfiniBand captures as ibdump writes them");
        }
    }

    /**
     * Reads a capture from a stream (a pipe, standard input) into memory. The pcap file header is checked as soon as
     * it has arrived, so a stream that is not a capture is refused before the rest is read.
     *
     * @param in        the stream (not closed).
     * @param maxLength the most bytes to take: a longer stream is refused.
     * @return a reader positioned before the first record.
     * @throws CaptureException if the bytes are not a pcap capture with link type ERF, or there are too many.
     * @throws IOException      if the stream cannot be read.
     */
    public static PcapReader read(final InputStream in, final int maxLength) throws IOException
    {
        byte[] bytes = new byte[Math.min(maxLength, 64 * 1024)];
        int length = in.readNBytes(bytes, 0, Math.min(maxLength, Pcap.FILE_HEADER_LENGTH));
        new PcapReader(new UnsafeBuffer(bytes), length, null);
        while (true)
        {
            if (length == bytes.length)
            {
                if (length == maxLength)
                {
                    if (in.read() < 0)
                    {
                        break;
                    }
                    throw new CaptureException("a capture longer than " + maxLength + " bytes on a stream: save it " +
                        "to a file and decode the file");
                }
                bytes = Arrays.copyOf(bytes, (int)Math.min(maxLength, 2L * length));
            }
            final int n = in.read(bytes, length, bytes.length - length);
            if (n < 0)
            {
                break;
            }
            length += n;
        }
        return new PcapReader(new UnsafeBuffer(bytes, 0, length), length, null);
    }

    /**
     * Opens a capture file (memory-mapped, read-only).
     *
     * @param file to read.
     * @return a reader positioned before the first record.
     * @throws CaptureException if the file is not a pcap capture with link type ERF.
     * @throws IOException      if the file cannot be read.
     */
    public static PcapReader open(final Path file) throws IOException
    {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size > Integer.MAX_VALUE)
            {
                throw new CaptureException("capture of " + size + " bytes: vlink reads captures up to 2 GiB");
            }
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
            try
            {
                return new PcapReader(new UnsafeBuffer(mapped), (int)size, mapped);
            }
            catch (final CaptureException ex)
            {
                IoUtil.unmap(mapped);
                throw ex;
            }
        }
    }

    /**
     * Moves to the next record.
     *
     * @return true if there is one (possibly damaged: see {@link #error()}), false at the end of the file.
     */
    public boolean next()
    {
        final int remaining = limit - position;
        if (remaining <= 0)
        {
            return false;
        }
        final int recordStart = position;
        if (remaining < Pcap.RECORD_HEADER_LENGTH)
        {
            return truncate("a record header cut short: " + remaining + " of its 16 bytes");
        }
        final long inclLen = buffer.getInt(recordStart + Pcap.INCL_LEN_OFFSET, order) & 0xFFFF_FFFFL;
        if (inclLen == 0)
        {
            return truncate("a record header of length 0, the unwritten part of a capture file");
        }
        final int available = remaining - Pcap.RECORD_HEADER_LENGTH;
        if (inclLen > available && inclLen <= Pcap.SNAPLEN)
        {
            return truncate("a record cut short: its header says " + inclLen + " bytes, the file holds " + available);
        }
        index++;
        clear();
        this.recordStart = recordStart;
        this.recordLength = (int)Math.min(inclLen, available);
        final long seconds = buffer.getInt(recordStart + Pcap.TS_SEC_OFFSET, order) & 0xFFFF_FFFFL;
        final long subSeconds = buffer.getInt(recordStart + Pcap.TS_SUBSEC_OFFSET, order) & 0xFFFF_FFFFL;
        timestampNanos = seconds * 1_000_000_000L + (nanosecondTimestamps ? subSeconds : subSeconds * 1000);

        final int dataStart = recordStart + Pcap.RECORD_HEADER_LENGTH;
        final int captured;
        if (inclLen > available)
        {
            error = "truncated record: its header says " + inclLen + " bytes, the file holds " + available;
            captured = available;
            position = limit;
        }
        else
        {
            captured = (int)inclLen;
            position = dataStart + captured;
        }

        if (captured < Pcap.ERF_HEADER_LENGTH)
        {
            if (error == null)
            {
                error = "record of " + captured + " bytes, too short for the 16-byte ERF header";
            }
            packetOffset = dataStart + captured;
            return true;
        }

        timestampNanos = Pcap.epochNanos(buffer.getLong(dataStart + Pcap.ERF_TIMESTAMP_OFFSET, LITTLE_ENDIAN));
        final int type = buffer.getByte(dataStart + Pcap.ERF_TYPE_OFFSET) & 0xFF;
        erfType = type & ~Pcap.ERF_TYPE_EXTENSION_BIT;
        erfFlags = buffer.getByte(dataStart + Pcap.ERF_FLAGS_OFFSET) & 0xFF;
        rlen = buffer.getShort(dataStart + Pcap.ERF_RLEN_OFFSET, BIG_ENDIAN) & 0xFFFF;
        wlen = buffer.getShort(dataStart + Pcap.ERF_WLEN_OFFSET, BIG_ENDIAN) & 0xFFFF;

        packetOffset = dataStart + Pcap.ERF_HEADER_LENGTH;
        final int capturedPacket = captured - Pcap.ERF_HEADER_LENGTH;
        // the capture may hold padding after the packet (rlen counts it; some writers capture it): wlen decides
        packetLength = Math.min(wlen, capturedPacket);

        if (error != null)
        {
            return true;
        }
        if ((type & Pcap.ERF_TYPE_EXTENSION_BIT) != 0)
        {
            error = "ERF extension headers are not supported";
            packetLength = 0;
        }
        else if (erfType != Pcap.ERF_TYPE_INFINIBAND && erfType != Pcap.ERF_TYPE_INFINIBAND_LINK)
        {
            error = "ERF type " + erfType + " is neither InfiniBand data (21) nor link (25)";
        }
        else if (rlen < Pcap.ERF_HEADER_LENGTH)
        {
            error = "ERF rlen " + rlen + " is less than its own 16-byte header";
        }
        else if (rlen < Pcap.ERF_HEADER_LENGTH + wlen)
        {
            error = "ERF rlen " + rlen + " cannot hold a " + wlen + "-byte packet";
        }
        else if (rlen > Pcap.rlen(wlen))
        {
            error = "ERF rlen " + rlen + " does not fit wlen " + wlen + ": 16 + wlen rounded up to 8 is " + Pcap.rlen(wlen);
        }
        else if (wlen > capturedPacket)
        {
            error = "truncated packet: " + capturedPacket + " of its " + wlen + " bytes captured";
        }
        return true;
    }

    private boolean truncate(final String reason)
    {
        truncatedAt = position;
        truncation = reason;
        position = limit;
        return false;
    }

    private void clear()
    {
        timestampNanos = 0;
        erfType = -1;
        erfFlags = 0;
        rlen = 0;
        wlen = 0;
        packetOffset = position;
        packetLength = 0;
        error = null;
    }

    /**
     * @return where the capture ended before the end of the file (the byte offset of the half-written or unwritten
     * record), or -1 if every byte was read as records. Set when {@link #next()} returns false.
     */
    public int truncatedAt()
    {
        return truncatedAt;
    }

    /**
     * @return what was found at {@link #truncatedAt()}, or null.
     */
    public String truncation()
    {
        return truncation;
    }

    /**
     * Whether the current record is the last one a writer stopped without closing its file wrote: what follows it is
     * the unwritten part of the file (a record header of length 0, or fewer than 16 bytes left, all zero).
     *
     * @return true when nothing was written after the current record.
     */
    public boolean followedByUnwritten()
    {
        final int next = recordStart + Pcap.RECORD_HEADER_LENGTH + recordLength;
        final int remaining = limit - next;
        if (remaining >= Pcap.RECORD_HEADER_LENGTH)
        {
            return 0 == buffer.getInt(next + Pcap.INCL_LEN_OFFSET, order);
        }
        for (int i = next; i < limit; i++)
        {
            if (0 != buffer.getByte(i))
            {
                return false;
            }
        }
        return remaining > 0;
    }

    /**
     * @return the bytes the current record's header says it holds (its {@code incl_len}), as far as the file holds
     * them.
     */
    public int recordLength()
    {
        return recordLength;
    }

    /**
     * A record whose writer was stopped while it copied the record (a killed process's memory-mapped capture) has
     * its first bytes and then the zeros of the unwritten file: this is where they start.
     *
     * @return the current record's bytes up to its last byte that is not zero (0 for an all-zero record).
     */
    public int writtenLength()
    {
        final int dataStart = recordStart + Pcap.RECORD_HEADER_LENGTH;
        int end = dataStart + recordLength;
        while (end > dataStart && 0 == buffer.getByte(end - 1))
        {
            end--;
        }
        return end - dataStart;
    }

    /** @return the byte offset of the current record's header in the file. */
    public int recordOffset()
    {
        return recordStart;
    }

    /** @return the record's number, from 1. */
    public int index()
    {
        return index;
    }

    /** @return the record's time, nanoseconds since the epoch (from ERF's 32.32 timestamp when present). */
    public long timestampNanos()
    {
        return timestampNanos;
    }

    /** @return the ERF type without the extension bit, or -1 if the record has no ERF header. */
    public int erfType()
    {
        return erfType;
    }

    /** @return true for an InfiniBand data packet (ERF type 21). */
    public boolean isData()
    {
        return erfType == Pcap.ERF_TYPE_INFINIBAND;
    }

    /** @return true for a link packet, an FCP (ERF type 25). */
    public boolean isFcp()
    {
        return erfType == Pcap.ERF_TYPE_INFINIBAND_LINK;
    }

    public int erfFlags()
    {
        return erfFlags;
    }

    /** @return the interface the packet was seen on, bits 1:0 of the ERF flags. */
    public int iface()
    {
        return erfFlags & Pcap.ERF_FLAG_INTERFACE_MASK;
    }

    /** @return true if the capture marks the packet as received with an error. */
    public boolean rxError()
    {
        return (erfFlags & Pcap.ERF_FLAG_RX_ERROR) != 0;
    }

    public int rlen()
    {
        return rlen;
    }

    /** @return the packet's length on the wire, as the ERF header says. */
    public int wlen()
    {
        return wlen;
    }

    /** @return the buffer holding the file. */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    /** @return where the packet's bytes start in {@link #buffer()}. */
    public int packetOffset()
    {
        return packetOffset;
    }

    /** @return the packet bytes available: {@code wlen}, or fewer if the record is cut short. */
    public int packetLength()
    {
        return packetLength;
    }

    /** @return why the record is damaged, or null if it is sound. */
    public String error()
    {
        return error;
    }

    /** @return the byte order of the file's pcap headers. */
    public ByteOrder byteOrder()
    {
        return order;
    }

    public void close()
    {
        if (mapped != null)
        {
            IoUtil.unmap(mapped);
        }
    }
}
