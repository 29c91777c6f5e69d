package io.vlink.nic.capture;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Why a capture stopped: its file could not be created, grow or be written (a full file system, a directory that is
 * gone, a mapped store the file system could not back). The engine goes on without the capture; the file keeps every
 * whole record written before the failure ({@link #records()}) and decodes. The engine's error log holds this
 * exception, {@code capture_errors} counts it, and {@code Engine.captureFailure()} returns it, so that an application
 * tells a failed output from a failed data path.
 */
public final class CaptureStoppedException extends IOException
{
    private static final long serialVersionUID = 1L;

    private final transient Path file;
    private final long records;

    /**
     * @param file    the capture file.
     * @param records whole records written before the failure.
     * @param what    what the capture was doing.
     * @param cause   what failed.
     */
    CaptureStoppedException(final Path file, final long records, final String what, final Throwable cause)
    {
        super("capture " + file + " stopped after " + records + " records: " + what + ": " + cause.getMessage() +
            "; the engine goes on without it", cause);
        this.file = file;
        this.records = records;
    }

    /**
     * @return the capture file.
     */
    public Path file()
    {
        return file;
    }

    /**
     * @return whole records the file keeps.
     */
    public long records()
    {
        return records;
    }
}
