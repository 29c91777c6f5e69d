package io.vlink.nic.capture;

import org.agrona.DirectBuffer;

/**
 * Where a capture's pcap bytes go. Implemented over Chronicle Bytes ({@link MappedCaptureFile}), whose classes
 * load only when a capture is opened.
 */
interface CaptureFile extends AutoCloseable
{
    /**
     * Append bytes.
     *
     * @param buffer the bytes.
     * @param offset first byte.
     * @param length how many.
     */
    void append(DirectBuffer buffer, int offset, int length);

    /**
     * @return bytes written so far.
     */
    long length();

    /**
     * Flush, unmap and cut the file to the bytes written.
     */
    @Override
    void close();
}
