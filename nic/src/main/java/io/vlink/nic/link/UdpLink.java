package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.PortCounters;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * A link over UDP: one packet per datagram, through a non-blocking {@link DatagramChannel} and direct buffers, so
 * that two processes or two hosts can be linked with the same engine code as the loopback peer.
 * <p>
 * One packet per datagram keeps the wire's failure model: a lost datagram is a lost packet, which the credit
 * protocol recovers from (FCTBS re-synchronisation). The frame type is told by length, as the wire's delimiters
 * would: 8 bytes is a link packet (FCP), anything else a data packet ({@code 4 * PktLen + 2} bytes, never 8).
 * <p>
 * The link is an attack surface and trusts nothing it receives: a datagram from any source but the configured peer
 * is dropped and counted; the receive buffer is fixed ({@code maxFrameLength + 1} bytes), so a datagram longer
 * than the longest packet is seen as too long (the kernel truncates it into that buffer), dropped and counted;
 * no received byte is ever used as a length or offset here. Nothing is allocated per datagram.
 */
public final class UdpLink implements Link
{
    /** Socket buffer sizes asked for (the kernel may cap them: see {@code net.core.rmem_max}). */
    public static final int SOCKET_BUFFER_LENGTH = 4 * 1024 * 1024;
    /** The shortest frame accepted: an FCP (a data packet is at least 10 bytes). */
    public static final int MIN_FRAME_LENGTH = LINK_FRAME_LENGTH;

    private final DatagramChannel channel;
    private final InetSocketAddress peer;
    private final int maxFrameLength;
    private final PortCounters counters;
    private final UnsafeBuffer sendBuffer;
    private final ByteBuffer sendByteBuffer;
    private final UnsafeBuffer receiveBuffer;
    private final ByteBuffer receiveByteBuffer;
    private int claimedLength = -1;
    private boolean pending;
    private boolean closed;

    /**
     * Bind a UDP link.
     *
     * @param local          the local address to bind (port 0 picks a free port: see {@link #localAddress()}).
     * @param peer           the only address frames are accepted from and sent to.
     * @param maxFrameLength the longest frame, at most {@link Link#MAX_DATA_FRAME_LENGTH}.
     * @param counters       the port's counters (frames, drops, back-pressure).
     * @throws UncheckedIOException when the socket cannot be opened or bound.
     */
    public UdpLink(
        final InetSocketAddress local,
        final InetSocketAddress peer,
        final int maxFrameLength,
        final PortCounters counters)
    {
        if (maxFrameLength < MIN_FRAME_LENGTH || maxFrameLength > MAX_DATA_FRAME_LENGTH)
        {
            throw new IllegalArgumentException(
                "max frame length " + maxFrameLength + " outside " + MIN_FRAME_LENGTH + ".." + MAX_DATA_FRAME_LENGTH);
        }
        if (peer.isUnresolved())
        {
            throw new IllegalArgumentException("cannot resolve peer address " + peer);
        }
        this.peer = peer;
        this.maxFrameLength = maxFrameLength;
        this.counters = counters;
        DatagramChannel channel = null;
        try
        {
            channel = DatagramChannel.open(
                peer.getAddress() instanceof java.net.Inet6Address ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET);
            channel.setOption(StandardSocketOptions.SO_RCVBUF, SOCKET_BUFFER_LENGTH);
            channel.setOption(StandardSocketOptions.SO_SNDBUF, SOCKET_BUFFER_LENGTH);
            channel.bind(local);
            channel.configureBlocking(false);
        }
        catch (final IOException ex)
        {
            closeQuietly(channel);
            throw new UncheckedIOException("cannot bind UDP link to " + local + ": " + ex.getMessage(), ex);
        }
        this.channel = channel;
        sendBuffer = OffHeap.allocate(maxFrameLength);
        sendByteBuffer = sendBuffer.byteBuffer();
        receiveBuffer = OffHeap.allocate(maxFrameLength + 1);
        receiveByteBuffer = receiveBuffer.byteBuffer();
    }

    /**
     * @return the bound local address (with the port chosen when bound to port 0).
     */
    public InetSocketAddress localAddress()
    {
        try
        {
            return (InetSocketAddress)channel.getLocalAddress();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @return the configured peer.
     */
    public InetSocketAddress peer()
    {
        return peer;
    }

    @Override
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        if (length < MIN_FRAME_LENGTH || length > maxFrameLength ||
            (LINK_FRAME == frameType) != (LINK_FRAME_LENGTH == length))
        {
            throw new IllegalArgumentException("frame type " + frameType + " with length " + length +
                ": link frames are 8 bytes, data frames " + (MIN_FRAME_LENGTH + 2) + ".." + maxFrameLength + ", not 8");
        }
        if (pending && 0 == flush())
        {
            counters.linkBackPressure.incrementRelease();
            return BACK_PRESSURED;
        }
        claimedLength = length;
        return 0;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return !pending || 0 != flush();
    }

    @Override
    public AtomicBuffer buffer()
    {
        return sendBuffer;
    }

    @Override
    public void commit(final int offset)
    {
        sendByteBuffer.limit(claimedLength).position(0);
        claimedLength = -1;
        pending = true;
        flush();
    }

    @Override
    public void abort(final int offset)
    {
        claimedLength = -1;
    }

    @Override
    public int flush()
    {
        if (!pending)
        {
            return 0;
        }
        try
        {
            if (0 == channel.send(sendByteBuffer, peer))
            {
                return 0;
            }
            pending = false;
            counters.linkFramesSent.incrementRelease();
            return 1;
        }
        catch (final IOException ex)
        {
            // The datagram is lost, as on a broken wire; the error handler records why, once.
            pending = false;
            throw new UncheckedIOException("UDP send to " + peer + " failed: " + ex.getMessage(), ex);
        }
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        int delivered = 0;
        for (int i = 0; i < frameLimit; i++)
        {
            receiveByteBuffer.clear();
            final SocketAddress from;
            try
            {
                from = channel.receive(receiveByteBuffer);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("UDP receive failed: " + ex.getMessage(), ex);
            }
            if (null == from)
            {
                break;
            }

            counters.linkFramesReceived.incrementRelease();
            final int length = receiveByteBuffer.position();
            if (!peer.equals(from))
            {
                counters.linkForeignDrops.incrementRelease();
            }
            else if (length < MIN_FRAME_LENGTH || length > maxFrameLength)
            {
                counters.linkLengthDrops.incrementRelease();
            }
            else
            {
                handler.onFrame(LINK_FRAME_LENGTH == length ? LINK_FRAME : DATA_FRAME, receiveBuffer, 0, length);
                delivered++;
            }
        }
        return delivered;
    }

    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            closeQuietly(channel);
            OffHeap.free(sendBuffer);
            OffHeap.free(receiveBuffer);
        }
    }

    private static void closeQuietly(final DatagramChannel channel)
    {
        if (null != channel)
        {
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // closing: nothing left to do with the socket
            }
        }
    }
}
