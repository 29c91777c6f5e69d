package io.vlink.tools.soak;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The Linux kernel's count of datagrams it dropped at a UDP socket of 127.0.0.1 (a full receive buffer): the last
 * column of {@code /proc/net/udp}, for the tests that must know a flood overflowed a socket.
 */
final class UdpDrops
{
    private static final Path TABLE = Path.of("/proc/net/udp");

    private UdpDrops()
    {
    }

    /**
     * @return whether this system keeps the table.
     */
    static boolean readable()
    {
        return Files.isReadable(TABLE);
    }

    /**
     * @param port a UDP port bound on 127.0.0.1.
     * @return the datagrams the kernel dropped at it, or -1 when no such socket is in the table.
     */
    static long of(final int port)
    {
        final String local = String.format(Locale.ROOT, "0100007F:%04X", port);
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(TABLE);
        }
        catch (final IOException ex)
        {
            return -1;
        }
        for (final String line : lines)
        {
            final String[] fields = line.trim().split("\\s+");
            if (fields.length > 2 && local.equals(fields[1]))
            {
                return Long.parseLong(fields[fields.length - 1]);
            }
        }
        return -1;
    }
}
