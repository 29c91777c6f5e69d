package io.vlink.nic.capture;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The capture file maps a window at a time: records that cross a window's end move the window, and the file holds
 * every byte in order, cut to its length on close.
 */
class MappedCaptureFileTest
{
    @TempDir
    Path dir;

    @Test
    void recordsAcrossManyWindowsArriveWholeAndInOrder() throws Exception
    {
        final Path path = dir.resolve("windows.pcap");
        final int window = 64 * 1024;
        final int maxRecord = 4_200;
        final SplittableRandom random = new SplittableRandom(13);
        final byte[] expected = new byte[40 * window];
        int length = 0;
        final UnsafeBuffer record = new UnsafeBuffer(new byte[maxRecord + 8]);
        try (MappedCaptureFile file = new MappedCaptureFile(path, window, maxRecord))
        {
            while (true)
            {
                final int bytes = 1 + random.nextInt(maxRecord);
                final int at = random.nextInt(8);
                if (length + bytes > expected.length)
                {
                    break;
                }
                for (int i = 0; i < bytes; i++)
                {
                    final byte b = (byte)random.nextInt(256);
                    record.putByte(at + i, b);
                    expected[length + i] = b;
                }
                file.append(record, at, bytes);
                length += bytes;
                assertEquals(length, file.length());
            }
        }
        final byte[] written = Files.readAllBytes(path);
        assertEquals(length, written.length, "cut to the bytes written");
        assertArrayEquals(Arrays.copyOf(expected, length), written);
    }
}
