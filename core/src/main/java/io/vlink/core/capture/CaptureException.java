package io.vlink.core.capture;

import java.io.IOException;

/**
 * A file that cannot be read as a capture at all: not pcap, a link type other than ERF, a header cut short.
 * Damage inside a record is not an exception: {@link PcapReader} reports it per record and goes on.
 */
public final class CaptureException extends IOException
{
    public CaptureException(final String message)
    {
        super(message);
    }
}
