package io.vlink.core.wire;

import io.vlink.core.capture.PcapReader;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Test fixtures: the real capture's packets and the spec's vectors.
 */
public final class Packets
{
    /** Frame 11 of the capture, an RC Acknowledge, the whole packet as spec wire.md gives it. */
    public static final byte[] RC_ACK = HexFormat.of().parseHex("00020004000700011140ffff0087040800d40a551f000001a80355503081");
    public static final String CAPTURE_RESOURCE = "/captures/infiniband.pcap";

    private Packets()
    {
    }

    public static byte[] captureBytes()
    {
        try (InputStream in = Packets.class.getResourceAsStream(CAPTURE_RESOURCE))
        {
            if (in == null)
            {
                throw new IllegalStateException(CAPTURE_RESOURCE + " missing from the test class path");
            }
            return in.readAllBytes();
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @return every packet of the real capture, in order, as its own array.
     */
    public static List<byte[]> capturePackets()
    {
        final byte[] file = captureBytes();
        final List<byte[]> packets = new ArrayList<>();
        try (PcapReader reader = new PcapReader(new UnsafeBuffer(file), file.length))
        {
            while (reader.next())
            {
                if (reader.error() != null)
                {
                    throw new IllegalStateException("record " + reader.index() + ": " + reader.error());
                }
                final byte[] packet = new byte[reader.packetLength()];
                reader.buffer().getBytes(reader.packetOffset(), packet);
                packets.add(packet);
            }
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
        return packets;
    }
}
