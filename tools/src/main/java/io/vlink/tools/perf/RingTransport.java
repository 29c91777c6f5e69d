package io.vlink.tools.perf;

import io.vlink.core.wire.BthFlyweight;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.status.CountersFile;
import io.vlink.nic.status.CountersFileDescriptor;
import io.vlink.nic.status.PortCounterSet;
import org.agrona.BitUtil;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.SystemEpochClock;

import java.nio.file.Path;

/**
 * {@code vlink perf ring-lat}: the baseline of the shm link, its two mapped rings with no engine. A message of s bytes
 * travels as one frame of the length the engine's packet for it has on the wire (LRH, BTH, payload padded to 4 bytes,
 * ICRC, VCRC), written in place and read in place, exactly as the engine's arbiter and receive agent use the link; no
 * queue pair, injection, arbitration, CRC, credit or receive buffer.
 */
public final class RingTransport implements PerfTransport
{
    private final CountersFile countersFile;
    private final ShmLink link;
    private final String description;
    private MessageHandler handler;
    private final io.vlink.nic.link.FrameHandler receiver =
        (type, buffer, offset, length) -> handler.onMessage(buffer, offset);
    private long peerIncarnation = Link.UNKNOWN_INCARNATION;

    /**
     * @param file the link's file.
     * @param role A for the server, B for the client.
     */
    public RingTransport(final Path file, final ShmLink.Role role)
    {
        // room for one port's counters (one data VL) and to spare
        countersFile = CountersFile.create(CountersFileDescriptor.defaultDirectory(),
            "perf-ring-" + role.name().toLowerCase(java.util.Locale.ROOT) + "-" + ProcessHandle.current().pid(), 128, 4096,
            SystemEpochClock.INSTANCE);
        try
        {
            link = ShmLink.open(file, role, ShmLink.DEFAULT_CAPACITY, new PortCounterSet(countersFile, 0, 1).link());
        }
        catch (final RuntimeException ex)
        {
            countersFile.close();
            throw ex;
        }
        description = "shm " + file.toAbsolutePath() + " (bare rings, no engine)";
    }

    /**
     * @param length a message's length.
     * @return the length of the engine's packet for it on the wire, LRH through VCRC.
     */
    static int frameLength(final int length)
    {
        return Sizes.LRH_LENGTH + BthFlyweight.LENGTH + BitUtil.align(length, Sizes.DWORD_LENGTH) + Sizes.ICRC_LENGTH +
            Sizes.VCRC_LENGTH;
    }

    @Override
    public boolean ready()
    {
        final long peer = link.peerIncarnation();
        if (Link.UNKNOWN_INCARNATION != peer && Link.UNKNOWN_INCARNATION == peerIncarnation)
        {
            peerIncarnation = peer;
        }
        return Link.UNKNOWN_INCARNATION != peer;
    }

    @Override
    public Address address(final int sl)
    {
        return null;
    }

    @Override
    public int mtu()
    {
        return 0;
    }

    @Override
    public int maxInline(final int sl)
    {
        return PerfPeer.MAX_SIZE; // every message is written in place into the ring
    }

    @Override
    public boolean offer(final DirectBuffer message, final int length, final int sl)
    {
        final int frame = frameLength(length);
        final int offset = link.tryClaim(Link.DATA_FRAME, frame);
        if (Link.BACK_PRESSURED == offset)
        {
            return false;
        }
        link.buffer().putBytes(offset, message, 0, length);
        link.commit(offset);
        return true;
    }

    @Override
    public int poll(final MessageHandler handler)
    {
        this.handler = handler;
        return link.poll(receiver, 64);
    }

    @Override
    public boolean flushed()
    {
        return true; // a committed frame is in the peer's ring
    }

    @Override
    public int duty()
    {
        return 0;
    }

    @Override
    public String peerGone()
    {
        return PerfTransport.gone(link, peerIncarnation);
    }

    @Override
    public String describe()
    {
        return description;
    }

    @Override
    public String diagnosis()
    {
        // the rings hold every frame committed until it is read: nothing between the two sides drops one
        return "bare rings: no link layer between the sides, nothing is dropped on the way";
    }

    @Override
    public void close()
    {
        link.close();
        countersFile.close();
    }
}
