package io.vlink.nic.link;

import io.vlink.nic.memory.OffHeap;
import io.vlink.nic.status.LinkCounters;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * A link over UDP: one packet per datagram, through a non-blocking {@link DatagramChannel} and direct buffers, so
 * that two processes or two hosts can be linked with the same engine code as the loopback peer.
 * <p>
 * One packet per datagram keeps the wire's failure model: a lost datagram is a lost packet, which the credit
 * protocol recovers from (FCTBS re-synchronisation). The frame type is told by the frame's length, as the wire's
 * delimiters would: 8 bytes is a link packet (FCP), anything else a data packet ({@code 4 * PktLen + 2} bytes).
 * <p>
 * <b>Sessions.</b> Every datagram carries a 32-byte link header:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------------------------------+---------------+---------------+
 *  |          magic 'VL'           |  version (1)  |     type      |
 *  +-------------------------------+---------------+-------------+-+
 *  |                         reserved (0)                      |R|E|
 *  +---------------------------------------------------------------+
 *  |                    sender's nonce (64 bits)                   |
 *  +---------------------------------------------------------------+
 *  |                   receiver's nonce (64 bits)                  |
 *  +---------------------------------------------------------------+
 *  |                    sequence number (64 bits)                  |
 *  +---------------------------------------------------------------+
 *  |        frame (type FRAME): a data packet or an FCP ...        |
 *  +---------------------------------------------------------------+
 *  |   MAC: SipHash-2-4 of everything above (authenticated only)   |
 *  +---------------------------------------------------------------+
 * </pre>
 * Each end picks a random 64-bit nonce when it opens (its incarnation). The two ends train a session with HELLO
 * datagrams: a HELLO names its sender's nonce and the nonce it has heard from the receiver (0 when none) and, in bit
 * E, whether the sender has taken the receiver as its peer, and in bit R whether its frames carry a {@link RetryLink}
 * header (ends that disagree never train a session: each would misread the other's frames). An end takes a peer's nonce only from a HELLO that echoes
 * its own nonce, which proves the sender read a datagram sent to this end's address; it answers a HELLO that does not
 * know its nonce with one that names it (at most once per HELLO interval, so it cannot be used to amplify traffic).
 * The session is the pair of nonces; frames flow once both ends hold it, and a frame is accepted only when it names
 * both. A datagram of another session (an old capture replayed, a guess, the peer's previous incarnation) is dropped
 * and counted ({@code link_session_drops}); so is a frame whose sequence number was seen before or is older than the
 * 64-datagram window ({@code link_replay_drops}). A restarted peer has a new nonce and trains a new session
 * ({@link #sessions()} counts them), which the link layer above sees as a peer that re-initialised.
 * <p>
 * With a {@link LinkKey} both ends share, every datagram ends with a SipHash-2-4 MAC of the header and frame;
 * a datagram whose MAC does not match is dropped and counted ({@code link_mac_drops}) before anything else is read.
 * Without a key the session is unforgeable only by those who cannot read the traffic (docs/engine.md, "What the
 * UDP link defends against").
 * <p>
 * The link trusts nothing it receives: a datagram from any source but the configured peer is dropped and counted;
 * the receive buffer is fixed, so a datagram longer than the longest packet is seen as too long (the kernel
 * truncates it into that buffer), dropped and counted; a bad magic, version, type or length is dropped and counted
 * ({@code link_length_drops}). Nothing is allocated per datagram.
 * <p>
 * Threads: the transmitting thread reads the session (the peer's nonce, published by the receiving thread with
 * release semantics) before each frame; the receiving thread trains the session and sends HELLOs from a buffer of its
 * own.
 */
public final class UdpLink implements Link
{
    /** Socket buffer sizes asked for (the kernel may cap them: see {@code net.core.rmem_max}). */
    public static final int SOCKET_BUFFER_LENGTH = 4 * 1024 * 1024;
    /** The shortest frame accepted: an FCP (a data packet is at least 10 bytes). */
    public static final int MIN_FRAME_LENGTH = LINK_FRAME_LENGTH;
    /** The link header in front of every frame. */
    public static final int HEADER_LENGTH = 32;
    /** The longest frame: the longest data packet with a {@link RetryLink} header in front. */
    public static final int MAX_FRAME_LENGTH = MAX_DATA_FRAME_LENGTH + RetryLink.HEADER_LENGTH;
    /** The MAC after every datagram of an authenticated link. */
    public static final int MAC_LENGTH = 8;
    /** How often an end that has no session yet repeats its HELLO. */
    public static final long DEFAULT_HELLO_INTERVAL_NS = 10_000_000L;

    public static final short MAGIC = 0x564C;
    public static final byte VERSION = 1;
    public static final byte TYPE_FRAME = 0;
    public static final byte TYPE_HELLO = 1;
    /** The sender is closing its end: the session is over (sent once, by {@link #close()}). */
    static final byte TYPE_BYE = 2;
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 2;
    public static final int TYPE_OFFSET = 3;
    public static final int FLAGS_OFFSET = 4;
    public static final int SENDER_OFFSET = 8;
    public static final int RECEIVER_OFFSET = 16;
    public static final int SEQUENCE_OFFSET = 24;
    static final int FLAG_ESTABLISHED = 1;
    /** In a HELLO: the sender's frames carry a {@link RetryLink} header; both ends must agree to train a session. */
    static final int FLAG_RETRY = 2;
    private static final int REPLAY_WINDOW = 64;
    private static final int SENT = 1;
    private static final int SOCKET_FULL = 0;
    private static final int SEND_FAILED = -1;

    private static final VarHandle SESSION_PEER;

    static
    {
        try
        {
            SESSION_PEER = MethodHandles.lookup().findVarHandle(UdpLink.class, "sessionPeer", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final DatagramChannel channel;
    private final InetSocketAddress peer;
    private final int maxFrameLength;
    private final LinkCounters counters;
    private final NanoClock clock;
    private final long helloIntervalNs;
    private final boolean authenticated;
    private final long k0;
    private final long k1;
    private final int macLength;
    private final long nonce;
    private final boolean retry;

    // transmitting thread
    private final UnsafeBuffer sendBuffer;
    private final ByteBuffer sendByteBuffer;
    private long txPeer;
    private long txSequence;
    private int claimedLength = -1;
    private boolean pending;

    /** The session's peer nonce once both ends hold it, else 0: written by the receiving thread (release). */
    @SuppressWarnings("unused")
    private volatile long sessionPeer;

    // receiving thread
    private final UnsafeBuffer receiveBuffer;
    private final ByteBuffer receiveByteBuffer;
    private final UnsafeBuffer helloBuffer;
    private final ByteBuffer helloByteBuffer;
    private long peerNonce;
    private long heardNonce;
    private boolean peerConfirmed;
    private long lastHelloNs;
    private boolean helloSent;
    private long rxHighest;
    private long rxWindow;
    private long sessions;

    private boolean closed;

    /**
     * Bind an unauthenticated UDP link.
     *
     * @param local          the local address to bind (port 0 picks a free port: see {@link #localAddress()}).
     * @param peer           the only address frames are accepted from and sent to.
     * @param maxFrameLength the longest frame, at most {@link #MAX_FRAME_LENGTH}.
     * @param counters       the port's counters (frames, drops, back-pressure).
     * @throws UncheckedIOException when the socket cannot be opened or bound.
     */
    public UdpLink(
        final InetSocketAddress local,
        final InetSocketAddress peer,
        final int maxFrameLength,
        final LinkCounters counters)
    {
        this(local, peer, maxFrameLength, counters, null, SystemNanoClock.INSTANCE, DEFAULT_HELLO_INTERVAL_NS);
    }

    /**
     * Bind a UDP link whose frames carry no {@link RetryLink} header: the constructor below, {@code retry} false.
     */
    public UdpLink(
        final InetSocketAddress local,
        final InetSocketAddress peer,
        final int maxFrameLength,
        final LinkCounters counters,
        final LinkKey key,
        final NanoClock clock,
        final long helloIntervalNs)
    {
        this(local, peer, maxFrameLength, counters, key, clock, helloIntervalNs, false);
    }

    /**
     * Bind a UDP link that carries the frames of a {@link RetryLink} (or not).
     *
     * @param local           the local address to bind (port 0 picks a free port: see {@link #localAddress()}).
     * @param peer            the only address frames are accepted from and sent to.
     * @param maxFrameLength  the longest frame, at most {@link #MAX_FRAME_LENGTH}.
     * @param counters        the port's counters (frames, drops, back-pressure).
     * @param key             the key both ends share to authenticate every datagram, or null for none.
     * @param clock           the clock HELLOs are paced by.
     * @param helloIntervalNs how often an end without a session repeats its HELLO.
     * @param retry           whether the frames carry a {@link RetryLink} header: both ends must say the same, or
     *                        they never train a session (each counts the other's HELLOs in {@code link_session_drops}).
     * @throws UncheckedIOException when the socket cannot be opened or bound.
     */
    public UdpLink(
        final InetSocketAddress local,
        final InetSocketAddress peer,
        final int maxFrameLength,
        final LinkCounters counters,
        final LinkKey key,
        final NanoClock clock,
        final long helloIntervalNs,
        final boolean retry)
    {
        this(null, local, peer, maxFrameLength, counters, key, clock, helloIntervalNs, Incarnations.next(), retry);
    }

    /**
     * A link over a channel the caller holds, with a nonce it chose: for the stress tests, which drive the receiving
     * thread's datagrams through {@link #receiveBuffer()} and {@link #onDatagram} without a socket each (HELLOs go
     * to the channel given, which may be closed: a failed send is counted, as on a lossy wire).
     *
     * @param channel        where HELLOs and frames are sent.
     * @param peer           the peer's address.
     * @param maxFrameLength the longest frame.
     * @param counters       the port's counters.
     * @param nonce          this end's nonce (non-zero).
     * @return the link, without a session.
     */
    public static UdpLink over(
        final DatagramChannel channel, final InetSocketAddress peer, final int maxFrameLength,
        final LinkCounters counters, final long nonce)
    {
        if (0 == nonce)
        {
            throw new IllegalArgumentException("a nonce is never 0");
        }
        return new UdpLink(channel, null, peer, maxFrameLength, counters, null, SystemNanoClock.INSTANCE,
            DEFAULT_HELLO_INTERVAL_NS, nonce, false);
    }

    private UdpLink(
        final DatagramChannel given,
        final InetSocketAddress local,
        final InetSocketAddress peer,
        final int maxFrameLength,
        final LinkCounters counters,
        final LinkKey key,
        final NanoClock clock,
        final long helloIntervalNs,
        final long nonce,
        final boolean retry)
    {
        if (maxFrameLength < MIN_FRAME_LENGTH || maxFrameLength > MAX_FRAME_LENGTH)
        {
            throw new IllegalArgumentException(
                "max frame length " + maxFrameLength + " outside " + MIN_FRAME_LENGTH + ".." + MAX_FRAME_LENGTH);
        }
        if (peer.isUnresolved())
        {
            throw new IllegalArgumentException("cannot resolve peer address " + peer);
        }
        if (helloIntervalNs <= 0)
        {
            throw new IllegalArgumentException("hello interval " + helloIntervalNs + " ns: must be positive");
        }
        this.peer = peer;
        this.maxFrameLength = maxFrameLength;
        this.counters = counters;
        this.clock = clock;
        this.helloIntervalNs = helloIntervalNs;
        this.authenticated = null != key;
        this.k0 = authenticated ? key.k0() : 0;
        this.k1 = authenticated ? key.k1() : 0;
        this.macLength = authenticated ? MAC_LENGTH : 0;
        this.nonce = nonce;
        this.retry = retry;
        this.channel = null != given ? given : bind(local, peer);
        sendBuffer = OffHeap.allocate(HEADER_LENGTH + maxFrameLength + macLength);
        sendByteBuffer = sendBuffer.byteBuffer();
         receiveBuffer = OffHeap.allocate(HEADER_LENGTH + maxFrameLength + macLength + 1);
        receiveByteBuffer = receiveBuffer.byteBuffer();
        helloBuffer = OffHeap.allocate(HEADER_LENGTH + MAC_LENGTH);
        helloByteBuffer = helloBuffer.byteBuffer();
    }

    private static DatagramChannel bind(final InetSocketAddress local, final InetSocketAddress peer)
    {
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
        return channel;
    }

    /**
     * @return where the receiving thread reads each datagram ({@link #onDatagram}), for the stress tests.
     */
    public UnsafeBuffer receiveBuffer()
    {
         return receiveBuffer;
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

    /**
     * @return this end's nonce: its incarnation, random for every link opened.
     */
    public long nonce()
    {
        return nonce;
    }

    @Override
    public long incarnation()
    {
        return nonce;
    }

    /**
     * @return the peer's nonce once both ends hold a session, else {@link #UNKNOWN_INCARNATION} (any thread).
     */
    @Override
    public long peerIncarnation()
    {
        return (long)SESSION_PEER.getAcquire(this);
    }

    /**
     * @return whether both ends hold a session, so frames flow (any thread).
     */
    public boolean established()
    {
        return 0 != (long)SESSION_PEER.getAcquire(this);
    }

    /**
     * @return sessions trained so far: 1 after the first, one more each time the peer restarts (receiving thread).
     */
    public long sessions()
    {
        return sessions;
    }

    /**
     * @return whether datagrams carry a keyed MAC.
     */
    public boolean authenticated()
    {
        return authenticated;
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
        if ((pending && 0 == flush()) || !session())
        {
            counters.backPressure().incrementRelease();
            return BACK_PRESSURED;
        }
        claimedLength = length;
        return HEADER_LENGTH;
    }

    /** Transmitting thread: the session to stamp frames with; a new session restarts the sequence. */
    private boolean session()
    {
        final long current = (long)SESSION_PEER.getAcquire(this);
        if (current != txPeer)
        {
            txPeer = current;
            txSequence = 0;
        }
        return 0 != current;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return (!pending || 0 != flush()) && session();
    }

    @Override
    public AtomicBuffer buffer()
    {
        return sendBuffer;
    }

    @Override
    public void commit(final int offset)
    {
        sendByteBuffer.limit(seal(sendBuffer, TYPE_FRAME, 0, txPeer, ++txSequence, claimedLength));
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
        final int sent = send(sendByteBuffer);
        if (SOCKET_FULL == sent)
        {
            return 0;
        }
        // A failed send loses the datagram, as a broken wire does (the peer's port closed, the network down): counted,
        // and the link layer above recovers as from any loss. The frame's cells were freed when it was copied here.
        pending = false;
        (SENT == sent ? counters.framesSent() : counters.sendErrors()).incrementRelease();
        return 1;
    }

    /**
     * One datagram to the peer: the buffer's bytes from 0 to its limit. The transmitting thread sends frames from its
     * buffer, the receiving thread HELLOs from its own, {@link #close()} a BYE once both have stopped.
     *
     * @param datagram the datagram.
     * @return {@link #SENT}, {@link #SOCKET_FULL} (nothing went: send it again) or {@link #SEND_FAILED} (lost).
     */
    private int send(final ByteBuffer datagram)
    {
        datagram.position(0);
        try
        {
            return 0 == channel.send(datagram, peer) ? SOCKET_FULL : SENT;
        }
        catch (final IOException ex)
        {
            return SEND_FAILED;
        }
    }

    /** Write the header (and the MAC) around a frame of {@code frameLength} bytes; return the datagram's length. */
    private int seal(
        final UnsafeBuffer buffer, final byte type, final int flags, final long receiver, final long sequence,
        final int frameLength)
    {
        buffer.putShort(MAGIC_OFFSET, MAGIC, ByteOrder.BIG_ENDIAN);
        buffer.putByte(VERSION_OFFSET, VERSION);
        buffer.putByte(TYPE_OFFSET, type);
        buffer.putInt(FLAGS_OFFSET, flags, ByteOrder.BIG_ENDIAN);
        buffer.putLong(SENDER_OFFSET, nonce, ByteOrder.BIG_ENDIAN);
        buffer.putLong(RECEIVER_OFFSET, receiver, ByteOrder.BIG_ENDIAN);
        buffer.putLong(SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        final int length = HEADER_LENGTH + frameLength;
        if (authenticated)
        {
            buffer.putLong(length, SipHash.hash(k0, k1, buffer, 0, length), ByteOrder.LITTLE_ENDIAN);
        }
        return length + macLength;
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
                // e.g. an ICMP port unreachable reported on the socket: nothing was received; counted, polled again
                counters.receiveErrors().incrementRelease();
                break;
            }
            if (null == from)
            {
                break;
            }
            counters.framesReceived().incrementRelease();
            if (!peer.equals(from))
            {
                counters.foreignDrops().incrementRelease();
                continue;
            }
            delivered += onDatagram(handler, receiveByteBuffer.position());
        }
        if (0 == (long)SESSION_PEER.getAcquire(this))
        {
            final long nowNs = clock.nanoTime();
            if (!helloSent || nowNs - lastHelloNs >= helloIntervalNs)
            {
                hello(nowNs);
            }
        }
        return delivered;
    }

    /** Receiving thread: one datagram from the peer's address; returns 1 if a frame was delivered. */
    public int onDatagram(final FrameHandler handler, final int length)
    {
        final UnsafeBuffer buffer = receiveBuffer;
        final int frameLength = length - HEADER_LENGTH - macLength;
        if (length < HEADER_LENGTH + macLength || frameLength > maxFrameLength ||
            buffer.getShort(MAGIC_OFFSET, ByteOrder.BIG_ENDIAN) != MAGIC || buffer.getByte(VERSION_OFFSET) != VERSION)
        {
            counters.lengthDrops().incrementRelease();
            return 0;
        }
        if (authenticated &&
            buffer.getLong(length - MAC_LENGTH, ByteOrder.LITTLE_ENDIAN) != SipHash.hash(k0, k1, buffer, 0, length - MAC_LENGTH))
        {
            counters.macDrops().incrementRelease();
            return 0;
        }
        final byte type = buffer.getByte(TYPE_OFFSET);
        final long sender = buffer.getLong(SENDER_OFFSET, ByteOrder.BIG_ENDIAN);
        final long receiver = buffer.getLong(RECEIVER_OFFSET, ByteOrder.BIG_ENDIAN);
        if (TYPE_BYE == type && 0 == frameLength)
        {
            if (0 != peerNonce && sender == peerNonce && receiver == nonce)
            {
                // only the session's own peer can end it (with a key, only one who holds the key)
                forgetPeer();
                handler.onPeerClosed();
            }
            else
            {
                counters.sessionDrops().incrementRelease();
            }
            return 0;
        }
        if (TYPE_HELLO == type && 0 == frameLength && 0 != sender)
        {
            if (retry != (0 != (buffer.getInt(FLAGS_OFFSET, ByteOrder.BIG_ENDIAN) & FLAG_RETRY)))
            {
                // the ends disagree on link-level retry: their frames would be misread, so no session
                counters.sessionDrops().incrementRelease();
                return 0;
            }
            onHello(sender, receiver, 0 != (buffer.getInt(FLAGS_OFFSET, ByteOrder.BIG_ENDIAN) & FLAG_ESTABLISHED));
            return 0;
        }
        if (TYPE_FRAME != type || frameLength < MIN_FRAME_LENGTH)
        {
            counters.lengthDrops().incrementRelease();
            return 0;
        }
        if (receiver != nonce || sender != peerNonce || 0 == peerNonce)
        {
            counters.sessionDrops().incrementRelease();
            return 0;
        }
        if (!fresh(buffer.getLong(SEQUENCE_OFFSET, ByteOrder.BIG_ENDIAN)))
        {
            counters.replayDrops().incrementRelease();
            return 0;
        }
        if (!peerConfirmed)
        {
            // a frame of the session proves the peer holds it
            peerConfirmed = true;
            SESSION_PEER.setRelease(this, peerNonce);
        }
        handler.onFrame(LINK_FRAME_LENGTH == frameLength ? LINK_FRAME : DATA_FRAME, buffer, HEADER_LENGTH, frameLength);
        return 1;
    }

    /** Receiving thread: the session's training. */
    private void onHello(final long sender, final long receiver, final boolean senderHoldsUs)
    {
        final long nowNs = clock.nanoTime();
        if (receiver != nonce)
        {
            // the sender does not know this end yet (it started, restarted, or is not who it claims): name ourselves,
            // at most once per interval
            heardNonce = sender;
            if (!helloSent || nowNs - lastHelloNs >= helloIntervalNs)
            {
                hello(nowNs);
            }
            return;
        }
        // the sender read a datagram sent to this address: it is the peer
        heardNonce = sender;
        boolean changed = false;
        if (sender != peerNonce)
        {
            forgetPeer();
            peerNonce = sender;
            sessions++;
            changed = true;
        }
        if (senderHoldsUs && !peerConfirmed)
        {
            peerConfirmed = true;
            SESSION_PEER.setRelease(this, peerNonce);
        }
        if (changed || !senderHoldsUs)
        {
            hello(nowNs);
        }
    }

    /** Receiving thread: a HELLO naming this end, the nonce heard from the peer, and whether we hold it. */
    private void hello(final long nowNs)
    {
        final int flags = (0 != peerNonce && peerNonce == heardNonce ? FLAG_ESTABLISHED : 0) | (retry ? FLAG_RETRY : 0);
        helloByteBuffer.limit(seal(helloBuffer, TYPE_HELLO, flags, heardNonce, 0, 0));
        lastHelloNs = nowNs;
        helloSent = true;
        if (SEND_FAILED == send(helloByteBuffer))
        {
            // a lost HELLO is repeated at the next interval, as on a lossy wire (this thread's own counter)
            counters.helloSendErrors().incrementRelease();
        }
    }

    /** Receiving thread: whether a sequence number is new within the window (and mark it seen). */
    private boolean fresh(final long sequence)
    {
        if (sequence <= 0)
        {
            return false;
        }
        if (sequence > rxHighest)
        {
            final long shift = sequence - rxHighest;
            rxWindow = shift >= REPLAY_WINDOW ? 1L : (rxWindow << shift) | 1L;
            rxHighest = sequence;
            return true;
        }
        final long age = rxHighest - sequence;
        if (age >= REPLAY_WINDOW || 0 != (rxWindow & (1L << age)))
        {
            return false;
        }
        rxWindow |= 1L << age;
        return true;
    }

    /** Receiving thread: no session until the next training. */
    private void forgetPeer()
    {
        peerNonce = 0;
        peerConfirmed = false;
        rxHighest = 0;
        rxWindow = 0;
        SESSION_PEER.setRelease(this, 0L);
    }

    /**
     * Tell the peer, once, that this end is closing (a BYE of the session, authenticated when the link is), then
     * release the socket and buffers. Called after the engine's threads stopped using the link.
     */
    @Override
    public void close()
    {
        close(true);
    }

    /**
     * Close as a process that was killed would: no BYE, the peer finds out from its link timeout. For tests that
     * stand in for a crashed peer.
     */
    void closeWithoutNotice()
    {
        close(false);
    }

    private void close(final boolean notice)
    {
        if (!closed)
        {
            closed = true;
            final long session = (long)SESSION_PEER.getAcquire(this);
            if (notice && 0 != session && channel.isOpen())
            {
                // a BYE not sent: the peer finds out from its link timeout instead
                helloByteBuffer.limit(seal(helloBuffer, TYPE_BYE, 0, session, 0, 0));
                send(helloByteBuffer);
            }
            closeQuietly(channel);
            OffHeap.free(sendBuffer);
            OffHeap.free(receiveBuffer);
            OffHeap.free(helloBuffer);
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
