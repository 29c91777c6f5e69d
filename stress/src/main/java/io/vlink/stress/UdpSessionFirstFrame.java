package io.vlink.stress;

import io.vlink.nic.link.FrameHandler;
import io.vlink.nic.link.Link;
import io.vlink.nic.link.UdpLink;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * A new UDP session's nonce, from the receiving thread that trains it to the threads that use it: the link has heard
 * the peer's HELLO (it knows the peer's nonce, the session is not confirmed); the receiving thread takes the
 * session's first frame, which confirms it: the peer's nonce is published (release) for the transmitting thread and
 * {@code peerIncarnation()}, then the frame is delivered to the receive agent, which hands it on (a release store,
 * as its ring to the credit agent). A thread that got the frame (acquire) and then asks for the peer's incarnation
 * sees the session: the link layer never acts on a frame of a session the link does not show yet.
 * <p>
 * The datagrams are written into the link's receive buffer and handed to {@code onDatagram}, as {@code poll} does
 * after a socket read; the HELLO the link answers with goes to a closed channel (a failed send, counted).
 * <p>
 * r1 = 1 if the frame was seen delivered, r2 = 1 if {@code peerIncarnation()} then was the peer's nonce (0: none).
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "neither yet")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the session published; the frame not delivered yet")
@Outcome(id = "1, 1", expect = ACCEPTABLE_INTERESTING, desc = "the frame, and the session it belongs to")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "a frame delivered before its session was published")
@Outcome(expect = FORBIDDEN, desc = "a peer incarnation that was never the peer's nonce")
@State
public class UdpSessionFirstFrame implements FrameHandler
{
    private static final long NONCE = 0x0A0A_0A0A_0A0A_0A0AL;
    private static final long PEER = 0x0B0B_0B0B_0B0B_0B0BL;
    private static final DatagramChannel CLOSED = closedChannel();
    private static final InetSocketAddress NOWHERE = new InetSocketAddress("127.0.0.1", 9);
    private static final VarHandle DELIVERED;

    static
    {
        try
        {
            DELIVERED = MethodHandles.lookup().findVarHandle(UdpSessionFirstFrame.class, "delivered", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final UdpLink link = UdpLink.over(CLOSED, NOWHERE, 64, Frames.COUNTERS, NONCE);
    private final int frameLength;
    @SuppressWarnings("unused")
    private int delivered;

    public UdpSessionFirstFrame()
    {
        final UnsafeBuffer datagram = link.receiveBuffer();
        // the peer's HELLO, naming this end: the link takes the peer's nonce (and answers, into the closed channel)
        link.onDatagram(this, header(datagram, UdpLink.TYPE_HELLO, 0));
        // the session's first frame, an 8-byte FCP, waiting in the receive buffer
        datagram.putLong(UdpLink.HEADER_LENGTH, 0x1234_5678_9ABC_DEF0L);
        frameLength = header(datagram, UdpLink.TYPE_FRAME, 1) + Link.LINK_FRAME_LENGTH;
    }

    /** The receiving thread: the datagram a socket read put in the buffer. */
    @Actor
    public void receive()
    {
        link.onDatagram(this, frameLength);
    }

    /** The credit agent: the frame from the receive agent, then the link's session. */
    @Actor
    public void observe(final II_Result r)
    {
        r.r1 = (int)DELIVERED.getAcquire(this);
        final long peer = link.peerIncarnation();
        r.r2 = PEER == peer ? 1 : 0 == peer ? 0 : -1;
    }

    @Override
    public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        DELIVERED.setRelease(this, 1);
    }

    /** Write a datagram's header from the peer to this end; return its length. */
    private static int header(final UnsafeBuffer datagram, final byte type, final long sequence)
    {
        datagram.putShort(UdpLink.MAGIC_OFFSET, UdpLink.MAGIC, ByteOrder.BIG_ENDIAN);
        datagram.putByte(UdpLink.VERSION_OFFSET, UdpLink.VERSION);
        datagram.putByte(UdpLink.TYPE_OFFSET, type);
        datagram.putInt(UdpLink.FLAGS_OFFSET, 0, ByteOrder.BIG_ENDIAN);
        datagram.putLong(UdpLink.SENDER_OFFSET, PEER, ByteOrder.BIG_ENDIAN);
        datagram.putLong(UdpLink.RECEIVER_OFFSET, NONCE, ByteOrder.BIG_ENDIAN);
        datagram.putLong(UdpLink.SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        return UdpLink.HEADER_LENGTH;
    }

    private static DatagramChannel closedChannel()
    {
        try
        {
            final DatagramChannel channel = DatagramChannel.open();
            channel.close();
            return channel;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
