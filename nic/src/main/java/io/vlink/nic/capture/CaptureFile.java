package io.vlink.nic.capture;

import org.agrona.DirectBuffer;

import java.io.IOException;

/**
 * Where a capture's pcap bytes go. Implemented over Chronicle Bytes ({@link MappedCaptureFile}), whose classes
 * load only when a capture is opened.
 */
interface CaptureFile extends AutoCloseable
{
    /**
     * Append bytes: a whole record, or nothing when the file cannot take it.
     *
     * @param buffer the bytes.
     * @param offset first byte.
     * @param length how many.
     * @throws IOException if the file cannot grow to hold them (nothing of them is written).
     */
    void append(DirectBuffer buffer, int offset, int length) throws IOException;

    /**
     * @return bytes written so far.
     */
    long length();

    /**
     * Flush, unmap and cut the file to the bytes written.
     *
     * @throws IOException if the file cannot be cut.
     */
    @Override
    void close() throws IOException;
}
