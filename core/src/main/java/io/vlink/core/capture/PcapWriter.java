package io.vlink.core.capture;

import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Writes a pcap/ERF capture file ({@link Pcap}) through a {@link FileChannel}, batching records in a direct buffer.
 * Allocation-free per packet. Not thread-safe: one writer per capture.
 */
public final class PcapWriter implements AutoCloseable
{
    private static final int BUFFER_LENGTH = 64 * 1024;

    private final FileChannel channel;
    private final ByteBuffer byteBuffer = BufferUtil.allocateDirectAligned(BUFFER_LENGTH, 64);
    private final UnsafeBuffer buffer = new UnsafeBuffer(byteBuffer);
    private int position;

    /**
     * Creates (or truncates) a capture file and writes its header.
     *
     * @param file to write.
     * @throws IOException if the file cannot be written.
     */
    public PcapWriter(final Path file) throws IOException
    {
        channel = FileChannel.open(
            file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
        position = Pcap.writeFileHeader(buffer, 0);
    }

    /**
     * Appends a data packet (ERF type 21).
     *
     * @param epochNanos when the packet entered the wire.
     * @param iface      0 for what the first port sends, 1 for its peer.
     * @param rxError    true if it was received with an error.
     * @param packet     holding the packet, LRH first, VCRC last.
     * @param offset     of its first byte.
     * @param length     bytes on the wire.
     * @throws IOException if the file cannot be written.
     */
    public void writeData(
        final long epochNanos,
        final int iface,
        final boolean rxError,
        final DirectBuffer packet,
        final int offset,
        final int length) throws IOException
    {
        write(epochNanos, Pcap.ERF_TYPE_INFINIBAND, iface, rxError, packet, offset, length);
    }

    /**
     * Appends a flow-control packet (ERF type 25).
     *
     * @param epochNanos when the packet entered the wire.
     * @param iface      0 for what the first port sends, 1 for its peer.
     * @param rxError    true if it was received with an error.
     * @param packet     holding the 8-byte FCP.
     * @param offset     of its first byte.
     * @param length     bytes (8 for a whole FCP).
     * @throws IOException if the file cannot be written.
     */
    public void writeFcp(
        final long epochNanos,
        final int iface,
        final boolean rxError,
        final DirectBuffer packet,
        final int offset,
        final int length) throws IOException
    {
        write(epochNanos, Pcap.ERF_TYPE_INFINIBAND_LINK, iface, rxError, packet, offset, length);
    }

    private void write(
        final long epochNanos,
        final int erfType,
        final int iface,
        final boolean rxError,
        final DirectBuffer packet,
        final int offset,
        final int length) throws IOException
    {
        final int recordLength = Pcap.recordLength(length);
        if (recordLength > BUFFER_LENGTH)
        {
            throw new IllegalArgumentException("packet of " + length + " bytes is too long for a capture record");
        }
        if (position + recordLength > BUFFER_LENGTH)
        {
            flush();
        }
        position += Pcap.writeRecord(buffer, position, epochNanos, erfType, iface, rxError, packet, offset, length);
    }

    /**
     * Writes the batched records to the file.
     *
     * @throws IOException if the file cannot be written.
     */
    public void flush() throws IOException
    {
        byteBuffer.clear().limit(position);
        while (byteBuffer.hasRemaining())
        {
            channel.write(byteBuffer);
        }
        position = 0;
    }

    public void close() throws IOException
    {
        try
        {
            flush();
        }
        finally
        {
            channel.close();
        }
    }
}
