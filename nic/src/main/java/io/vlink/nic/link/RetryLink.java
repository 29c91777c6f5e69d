package io.vlink.nic.link;

import io.vlink.core.retry.AckSchedule;
import io.vlink.core.retry.RetryReceiver;
import io.vlink.core.retry.RetrySender;
import io.vlink.nic.status.LinkCounters;
import org.agrona.CloseHelper;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Two cache lines before the transmitting thread's fields.
 */
abstract class RetryLinkPad1
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The transmitting thread's fields (its state machines are final fields of {@link RetryLink}).
 */
abstract class RetryLinkTransmitter extends RetryLinkPad1
{
    /** The peer incarnation the transmitting side's frames are for. */
    long txSession;
    long nowNs;
    int claimedType;
    int claimedLength;
    long seenPeerReplays;
    long seenRequests;
    boolean full;
    /** Frames held until acknowledged, published each duty cycle for any thread ({@link RetryLink#unacknowledged}). */
    volatile long heldFrames;
}

/**
 * Two cache lines between the transmitting and the receiving thread's fields.
 */
abstract class RetryLinkPad2 extends RetryLinkTransmitter
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The receiving thread's fields.
 */
abstract class RetryLinkReceiver extends RetryLinkPad2
{
    /** The peer incarnation the receiving side's sequence state belongs to. */
    long rxSession;
    FrameHandler handler;
    int delivered;
    boolean rejected;
    int replayRequests;
    int damagedRequests;
    int ackRequests;
}

/**
 * Two cache lines between the receiving thread's fields and the words it publishes.
 */
abstract class RetryLinkPad3 extends RetryLinkReceiver
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The words the receiving thread publishes to the transmitting thread (one writer each: release, acquire).
 */
abstract class RetryLinkShared extends RetryLinkPad3
{
    /** What to acknowledge: the receiving side's session tag (high 32 bits) and next expected sequence number. */
    volatile long rxAckWord;
    /** Acknowledgements asked of the transmitting side: replay requests (bits 63-32), those for a damaged frame
     * (31-16), plain ones (15-0). */
    volatile long rxRequests;
    /** The peer's latest acknowledgement: the tag of the session it came in (high 32 bits) and its value. */
    volatile long peerAckWord;
    /** Replay requests the peer sent (low 32 bits), those for a damaged frame (high): each published after its
     * {@link #peerAckWord}. */
    volatile long peerReplays;
}

/**
 * Two cache lines after the shared words.
 */
abstract class RetryLinkPad4 extends RetryLinkShared
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * Link-level retry over a link that can lose frames (docs/engine.md, "Link-level retry"), as Omni-Path's LTP retry
 * and Slingshot's LLR do on a wire: every frame carries a link sequence number and is held in a bounded off-heap
 * {@link ReplayBuffer} until the peer acknowledges it; the peer acknowledges cumulatively, on the frames it sends
 * anyway or on an acknowledgement of its own when nothing goes its way ({@link AckSchedule}), and asks for a replay
 * from the first gap, or from a frame whose CRC failed ({@link #rejectFrame()}); a retry timer with backoff sends
 * everything held again when no acknowledgement comes. A frame lost on the way is a retransmission, not a loss: the
 * layer above sees every frame once, in order, and its credits stay exact. A full replay buffer is back-pressure,
 * never a drop; a peer that never acknowledges leaves the sender waiting until the link layer's own timeout takes the
 * link down. The rules are {@code core}'s {@link RetrySender} and {@link RetryReceiver}.
 * <p>
 * It wraps the link that carries its frames (UDP, shared memory, or any other) and adds a 24-byte header in front
 * of each frame; an acknowledgement is the header alone. Big-endian:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------+-+-+-+---------------+
 *  |  magic 'R'    |     kind      | reserved  |D|O|P|A| reserved (0)  |
 *  +---------------+---------------+-------------+-+-+-+---------------+
 *  |               sequence number (frames; 0 in an acknowledgement)   |
 *  +-------------------------------------------------------------------+
 *  |      acknowledgement: the next sequence number this end expects   |
 *  +-------------------------------------------------------------------+
 *  |                           reserved (0)                            |
 *  +-------------------------------------------------------------------+
 *  |                  the sender's incarnation (64 bits)               |
 *  +-------------------------------------------------------------------+
 *  |     the frame: a data packet (kind 1) or an FCP (kind 2) ...      |
 *  +-------------------------------------------------------------------+
 * </pre>
 * Kind 3 is an acknowledgement (no frame). Flags: A, the acknowledgement field is valid; P, it is a replay request
 * (everything from that sequence number again); D, with P: the frame there arrived and failed its CRC (so the replay
 * that brought it is over: never taken for a repeat); O, this frame is the oldest its sender holds (no earlier one can
 * come again). Each direction's sequence numbers start at 0 for every pair of incarnations (a peer that restarts starts a
 * new session on both sides) and wrap at 2^32. Over UDP the link's session and MAC cover the header: with a key,
 * acknowledgements and replay requests are authenticated like data (docs/engine.md, "What the UDP link defends
 * against").
 * <p>
 * Threads: the transmitting thread ({@link #tryClaim}, {@link #commit}, {@link #flush()}, which the arbiter calls
 * every duty cycle) owns the replay buffer and the sender's state and sends every frame, acknowledgements included;
 * the receiving thread ({@link #poll}) owns the receiver's state. They share four words, each written by the
 * receiving thread with release semantics and read by the transmitting thread with acquire (docs/concurrency.md,
 * hand-offs 29 and 30): what to acknowledge and when, and what the peer acknowledged.
 */
public final class RetryLink extends RetryLinkPad4 implements Link
{
    /** The retry header in front of every frame. */
    public static final int HEADER_LENGTH = 24;
    /** Default bytes of the replay buffer: more than a full credit window of 8 data VLs (8 x 128 KiB). */
    public static final int DEFAULT_REPLAY_BUFFER_BYTES = 4 * 1024 * 1024;
    /** The smallest replay buffer: 64 KiB. */
    public static final int MIN_REPLAY_BUFFER_BYTES = 64 * 1024;
    /** The largest replay buffer: 1 GiB. */
    public static final int MAX_REPLAY_BUFFER_BYTES = 1 << 30;
    /** Default retry timeout: no acknowledgement progress this long sends everything held again. */
    public static final long DEFAULT_RETRY_TIMEOUT_NS = 10_000_000L;
    /** The smallest retry timeout. */
    public static final long MIN_RETRY_TIMEOUT_NS = 100_000L;
    /** The largest retry timeout. */
    public static final long MAX_RETRY_TIMEOUT_NS = 1_000_000_000L;
    /**
     * Doublings of an unanswered retry timer: at most twice the timeout between two probes, so that a probe that a
     * flooded socket drops is sent again several times before the peer's link timeout (default 200 ms: ten probes at
     * the default 10 ms) takes the link down; a silent peer costs one frame every two timeouts.
     */
    public static final int MAX_BACKOFF = 1;
    /** Times in a row one frame may fail its CRC and be asked for again before it is let through as it is. */
    public static final int REJECT_LIMIT = 16;
    /** The most frames received before an acknowledgement of its own goes (when none rode on a frame). */
    static final int ACK_BATCH = 256;
    /** Frames sent again (or held back by the wire) per duty cycle by default: the arbiter's default burst. */
    public static final int DEFAULT_BURST = 64;
    /** Bytes of the replay buffer per frame slot: a frame slot for each 256 bytes. */
    static final int BYTES_PER_SLOT = 256;

    public static final byte MAGIC = 'R';
    static final byte KIND_DATA = 1;
    public static final byte KIND_LINK = 2;
    public static final byte KIND_ACK = 3;
    public static final int FLAG_ACK = 1;
    public static final int FLAG_REPLAY = 2;
    public static final int FLAG_OLDEST = 4;
    static final int FLAG_DAMAGED = 8;
    static final int MAGIC_OFFSET = 0;
    static final int KIND_OFFSET = 1;
    static final int FLAGS_OFFSET = 3;
    public static final int SEQUENCE_OFFSET = 4;
    public static final int ACK_OFFSET = 8;
    public static final int INCARNATION_OFFSET = 16;
    private static final int REQUEST_ACK = 0;
    private static final int REQUEST_GAP = 1;
    private static final int REQUEST_DAMAGED = 2;
    /** Every session's first sequence number, both ways. */
    static final int INITIAL_SEQUENCE = 0;

    private static final VarHandle RX_ACK_WORD;
    private static final VarHandle RX_REQUESTS;
    private static final VarHandle PEER_ACK_WORD;
    private static final VarHandle PEER_REPLAYS;
    private static final VarHandle HELD_FRAMES;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            RX_ACK_WORD = lookup.findVarHandle(RetryLinkShared.class, "rxAckWord", long.class);
            RX_REQUESTS = lookup.findVarHandle(RetryLinkShared.class, "rxRequests", long.class);
            PEER_ACK_WORD = lookup.findVarHandle(RetryLinkShared.class, "peerAckWord", long.class);
            PEER_REPLAYS = lookup.findVarHandle(RetryLinkShared.class, "peerReplays", long.class);
            HELD_FRAMES = lookup.findVarHandle(RetryLinkTransmitter.class, "heldFrames", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Link wire;
    private final LinkCounters counters;
    private final NanoClock clock;
    private final long incarnation;
    private final int maxFrameLength;
    private final int burst;
    private final ReplayBuffer replay;
    private final RetrySender sender;
    private final AckSchedule acks;
    private final RetryReceiver receiver;
    private final FrameHandler wireHandler = new WireHandler();
    private boolean closed;

    /**
     * @param wire              the link that carries the frames (its longest frame includes {@link #HEADER_LENGTH}).
     * @param counters          the port's counters.
     * @param clock             the clock of the retry timer and the acknowledgement delay.
     * @param replayBufferBytes bytes of frames held until acknowledged: a power of two from
     *                          {@link #MIN_REPLAY_BUFFER_BYTES} to {@link #MAX_REPLAY_BUFFER_BYTES} (one frame slot per
     *                          256 bytes).
     * @param retryTimeoutNs    no acknowledgement progress this long sends the oldest frame held again (the wait
     *                          doubling once while unanswered); a repeated replay request is answered after it.
     * @param burst             frames sent (again) per duty cycle besides the new ones, so that a replay goes at
     *                          the pace of the traffic: the arbiter's burst, 1..4096.
     */
    public RetryLink(
        final Link wire,
        final LinkCounters counters,
        final NanoClock clock,
        final int replayBufferBytes,
        final long retryTimeoutNs,
        final int burst)
    {
        this(wire, counters, clock, checkReplayBuffer(replayBufferBytes), replayBufferBytes / BYTES_PER_SLOT,
            checkRetryTimeout(retryTimeoutNs), checkBurst(burst));
    }

    private static int checkBurst(final int burst)
    {
        if (burst < 1 || burst > 4096)
        {
            throw new IllegalArgumentException("burst " + burst + ": use 1..4096 frames a duty cycle");
        }
        return burst;
    }

    private static int checkReplayBuffer(final int bytes)
    {
        if (bytes < MIN_REPLAY_BUFFER_BYTES || bytes > MAX_REPLAY_BUFFER_BYTES || Integer.bitCount(bytes) != 1)
        {
            throw new IllegalArgumentException("replay buffer " + bytes + " bytes: use a power of two from 64 KiB to 1 GiB");
        }
        return bytes;
    }

    private static long checkRetryTimeout(final long nanos)
    {
        if (nanos < MIN_RETRY_TIMEOUT_NS || nanos > MAX_RETRY_TIMEOUT_NS)
        {
            throw new IllegalArgumentException("retry timeout " + nanos + " ns: use " + MIN_RETRY_TIMEOUT_NS + ".." +
                MAX_RETRY_TIMEOUT_NS);
        }
        return nanos;
    }

    /**
     * A link with a replay buffer of any size, for the stress tests (a jcstress state is made hundreds of thousands of
     * times): {@code bytes} and {@code slots} powers of two.
     */
    public static RetryLink small(
        final Link wire, final LinkCounters counters, final NanoClock clock, final int bytes, final int slots)
    {
        return new RetryLink(wire, counters, clock, bytes, slots, MAX_RETRY_TIMEOUT_NS, DEFAULT_BURST);
    }

    private RetryLink(
        final Link wire,
        final LinkCounters counters,
        final NanoClock clock,
        final int replayBufferBytes,
        final int slots,
        final long retryTimeoutNs,
        final int burst)
    {
        this.burst = burst;
        this.maxFrameLength = wire.maxFrameLength() - HEADER_LENGTH;
        if (maxFrameLength < LINK_FRAME_LENGTH)
        {
            throw new IllegalArgumentException("the wire's frames (" + wire.maxFrameLength() +
                " bytes) leave no room for the retry header");
        }
        this.wire = wire;
        this.counters = counters;
        this.clock = clock;
        this.incarnation = wire.incarnation();
        this.replay = new ReplayBuffer(replayBufferBytes, slots);
        this.sender = new RetrySender(slots, retryTimeoutNs, MAX_BACKOFF, INITIAL_SEQUENCE);
        this.acks = new AckSchedule(Math.max(1, Math.min(slots / 8, ACK_BATCH)), retryTimeoutNs / 16, INITIAL_SEQUENCE);
        this.receiver = new RetryReceiver(retryTimeoutNs / 8, REJECT_LIMIT, INITIAL_SEQUENCE);
        this.txSession = wire.peerIncarnation();
        this.rxSession = Link.UNKNOWN_INCARNATION;
        this.nowNs = clock.nanoTime();
        RX_ACK_WORD.setRelease(this, word(rxSession, INITIAL_SEQUENCE));
        PEER_ACK_WORD.setRelease(this, word(txSession, INITIAL_SEQUENCE));
    }

    /**
     * Link-level retry over a wire, which it then owns: a wire it cannot wrap (a bad setting, no memory) is closed.
     *
     * @param wire              the link that carries the frames.
     * @param counters          the port's counters.
     * @param clock             the clock of the retry timer.
     * @param replayBufferBytes bytes of frames held until acknowledged.
     * @param retryTimeoutNs    the retry timeout.
     * @param burst             frames sent (again) per duty cycle besides the new ones: the arbiter's burst.
     * @return the link with retry.
     */
    public static RetryLink over(
        final Link wire,
        final LinkCounters counters,
        final NanoClock clock,
        final int replayBufferBytes,
        final long retryTimeoutNs,
        final int burst)
    {
        try
        {
            return new RetryLink(wire, counters, clock, replayBufferBytes, retryTimeoutNs, burst);
        }
        catch (final RuntimeException | Error ex)
        {
            CloseHelper.quietClose(wire);
            throw ex;
        }
    }

    /**
     * What a frame of a link with retry carries, for a wrapper below the retry layer (a fault injector) that acts on
     * data packets and FCPs only: the packet starts {@link #HEADER_LENGTH} bytes into the frame.
     *
     * @param buffer the frame's buffer.
     * @param offset where the frame starts.
     * @param length its length.
     * @return {@link Link#DATA_FRAME} or {@link Link#LINK_FRAME}, or 0 for an acknowledgement or a malformed frame.
     */
    public static int carried(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length <= HEADER_LENGTH || buffer.getByte(offset + MAGIC_OFFSET) != MAGIC)
        {
            return 0;
        }
        final int kind = buffer.getByte(offset + KIND_OFFSET);
        return KIND_DATA == kind ? DATA_FRAME : KIND_LINK == kind ? LINK_FRAME : 0;
    }

    /** A session's tag (the low 32 bits of the peer's incarnation) and a sequence number, in one word. */
    private static long word(final long session, final int sequence)
    {
        return (session << 32) | (sequence & 0xFFFF_FFFFL);
    }

    private static boolean sameSession(final long word, final long session)
    {
        return (int)(word >>> 32) == (int)session;
    }

    /**
     * @return the link that carries the frames.
     */
    public Link wire()
    {
        return wire;
    }

    /**
     * @return the most frames held until acknowledged (one per 256 bytes of the replay buffer).
     */
    public int windowFrames()
    {
        return replay.slots();
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The transmitting thread

    @Override
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    @Override
    public AtomicBuffer buffer()
    {
        return replay.buffer();
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        final int frame = Math.min(length, maxFrameLength);
        // a new frame goes straight out: not while frames wait to be sent (again) first, which flush() paces, nor
        // when the wire is full
        return room(frame) && !sender.hasToSend() && wire.hasRoomFor(frame + HEADER_LENGTH);
    }

    /** Room in the replay buffer (a new session first); a refusal starts a back-pressure episode. */
    private boolean room(final int length)
    {
        if (wire.peerIncarnation() != txSession)
        {
            newTxSession();
        }
        if (sender.canAccept() && replay.hasRoom(length))
        {
            full = false;
            return true;
        }
        if (!full)
        {
            full = true;
            counters.replayFull().incrementRelease();
        }
        return false;
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        if (length < 1 || length > maxFrameLength || (LINK_FRAME != frameType && DATA_FRAME != frameType))
        {
            throw new IllegalArgumentException("frame type " + frameType + " with length " + length +
                ": frames are 1.." + maxFrameLength + " bytes of type data or link");
        }
        if (!room(length))
        {
            counters.backPressure().incrementRelease();
            return BACK_PRESSURED;
        }
        claimedType = frameType;
        claimedLength = length;
        return replay.claim(length);
    }

    @Override
    public void commit(final int offset)
    {
        final boolean alone = !sender.hasToSend();
        replay.commit(sender.accept(), claimedType, claimedLength);
        if (alone)
        {
            pump(1);
        }
    }

    @Override
    public void abort(final int offset)
    {
        claimedLength = 0;
    }

    /**
     * The transmitting side's duty: the wire's own, a new session, the peer's acknowledgements and replay requests,
     * the retry timer, what waits to be sent (again), and an acknowledgement of its own when one is due.
     */
    @Override
    public int flush()
    {
        int work = wire.flush();
        if (wire.peerIncarnation() != txSession)
        {
            newTxSession();
        }
        nowNs = clock.nanoTime();
        // the count first: a replay request read goes with the acknowledgement published before it, or a newer one
        final long replays = (long)PEER_REPLAYS.getAcquire(this);
        final long peerAck = (long)PEER_ACK_WORD.getAcquire(this);
        if (sameSession(peerAck, txSession))
        {
            final int result = replays != seenPeerReplays ?
                sender.onReplayRequest((int)peerAck, (replays >>> 32) != (seenPeerReplays >>> 32), nowNs) :
                sender.onAck((int)peerAck, nowNs);
            if (result > 0)
            {
                work++;
            }
            replay.release(sender.oldest(), 0 == sender.held());
        }
        seenPeerReplays = replays;
        if (sender.onTimer(nowNs))
        {
            counters.retryTimeouts().incrementRelease();
            work++;
        }
        work += pump(burst);
        final long held = sender.held();
        if (held != (long)HELD_FRAMES.get(this))
        {
            HELD_FRAMES.setRelease(this, held);
        }
        return work + acknowledge();
    }

    @Override
    public long unacknowledged()
    {
        return (long)HELD_FRAMES.getAcquire(this);
    }

    /**
     * Send what waits (new frames, or frames to send again), in sequence order, while the wire takes them, at most
     * {@code limit}: a replay goes a burst per duty cycle, so the frames on their way past a loss (which the peer
     * discards) stay few.
     */
    private int pump(final int limit)
    {
        int sent = 0;
        while (sent < limit && sender.hasToSend())
        {
            final int sequence = sender.nextToSend();
            final int length = replay.length(sequence);
            final int offset = wire.hasRoomFor(HEADER_LENGTH + length) ?
                wire.tryClaim(DATA_FRAME, HEADER_LENGTH + length) : BACK_PRESSURED;
            if (offset < 0)
            {
                break;
            }
            if (wire.peerIncarnation() != txSession)
            {
                // the peer restarted since the last look: this frame was for its previous incarnation
                wire.abort(offset);
                newTxSession();
                break;
            }
            final AtomicBuffer buffer = wire.buffer();
            final int kind = LINK_FRAME == replay.type(sequence) ? KIND_LINK : KIND_DATA;
            header(buffer, offset, kind, sender.isOldest(sequence) ? FLAG_OLDEST : 0, sequence,
                (long)RX_ACK_WORD.getAcquire(this));
            buffer.putBytes(offset + HEADER_LENGTH, replay.buffer(), replay.offset(sequence), length);
            wire.commit(offset);
            if (sender.onSent(nowNs))
            {
                counters.retransmits().incrementRelease();
            }
            sent++;
        }
        return sent;
    }

    /** An acknowledgement of its own, when asked for (a duplicate, a gap, a damaged frame) or due. */
    private int acknowledge()
    {
        // the requests first: a replay request read goes with an acknowledgement at least as new as its gap
        final long requests = (long)RX_REQUESTS.getAcquire(this);
        final long ackWord = (long)RX_ACK_WORD.getAcquire(this);
        if (!sameSession(ackWord, txSession) ||
            (requests == seenRequests && !acks.due((int)ackWord, nowNs)))
        {
            return 0;
        }
        final int offset = wire.hasRoomFor(HEADER_LENGTH) ? wire.tryClaim(DATA_FRAME, HEADER_LENGTH) : BACK_PRESSURED;
        if (offset < 0)
        {
            return 0;
        }
        final boolean replayRequest = (int)(requests >>> 32) != (int)(seenRequests >>> 32);
        final boolean damaged = (requests & 0xFFFF_0000L) != (seenRequests & 0xFFFF_0000L);
        header(wire.buffer(), offset, KIND_ACK, replayRequest ? (damaged ? FLAG_REPLAY | FLAG_DAMAGED : FLAG_REPLAY) : 0,
            0, ackWord);
        wire.commit(offset);
        seenRequests = requests;
        counters.acksSent().incrementRelease();
        return 1;
    }

    /** Write a retry header with this end's acknowledgement, when it is one of the session. */
    private void header(
        final AtomicBuffer buffer, final int offset, final int kind, final int flags, final int sequence,
        final long ackWord)
    {
        final boolean ack = sameSession(ackWord, txSession);
        buffer.putInt(offset, (MAGIC << 24) | (kind << 16) |
            (ack ? flags | FLAG_ACK : flags & ~(FLAG_REPLAY | FLAG_DAMAGED)), ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + SEQUENCE_OFFSET, sequence, ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + ACK_OFFSET, ack ? (int)ackWord : 0, ByteOrder.BIG_ENDIAN);
        buffer.putInt(offset + ACK_OFFSET + 4, 0, ByteOrder.BIG_ENDIAN);
        buffer.putLong(offset + INCARNATION_OFFSET, incarnation, ByteOrder.BIG_ENDIAN);
        if (ack)
        {
            acks.stamped((int)ackWord);
        }
    }

    /** Transmitting thread: the peer is another incarnation (or none): nothing held is for it. */
    private void newTxSession()
    {
        txSession = wire.peerIncarnation();
        sender.reset();
        acks.reset(INITIAL_SEQUENCE);
        replay.clear();
        seenPeerReplays = (long)PEER_REPLAYS.getAcquire(this);
        seenRequests = (long)RX_REQUESTS.getAcquire(this);
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The receiving thread

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        this.handler = handler;
        delivered = 0;
        wire.poll(wireHandler, frameLimit);
        return delivered;
    }

    @Override
    public void rejectFrame()
    {
        rejected = true;
    }

    /** The frames off the wire, through the receiver's rules. */
    private final class WireHandler implements FrameHandler
    {
        @Override
        public void onFrame(final int frameType, final DirectBuffer buffer, final int offset, final int length)
        {
            onWireFrame(buffer, offset, length);
        }

        @Override
        public void onPeerClosed()
        {
            handler.onPeerClosed();
        }
    }

    private void onWireFrame(final DirectBuffer buffer, final int offset, final int length)
    {
        final int first = length >= HEADER_LENGTH ? buffer.getInt(offset, ByteOrder.BIG_ENDIAN) : 0;
        final int kind = (first >> 16) & 0xFF;
        if ((first >>> 24) != MAGIC || kind < KIND_DATA || kind > KIND_ACK || (KIND_ACK == kind) != (HEADER_LENGTH == length))
        {
            counters.lengthDrops().incrementRelease();
            return;
        }
        final long session = buffer.getLong(offset + INCARNATION_OFFSET, ByteOrder.BIG_ENDIAN);
        if (session != rxSession)
        {
            // the peer's first frame of a new incarnation: a new session, from sequence number 0
            rxSession = session;
            receiver.reset();
            RX_ACK_WORD.setRelease(this, word(session, receiver.expected()));
        }
        final int flags = first & 0xFF;
        if (0 != (flags & FLAG_ACK))
        {
            PEER_ACK_WORD.setRelease(this, word(session, buffer.getInt(offset + ACK_OFFSET, ByteOrder.BIG_ENDIAN)));
            if (0 != (flags & FLAG_REPLAY))
            {
                // after the acknowledgement it goes with: the transmitting side rewinds at least to it
                PEER_REPLAYS.setRelease(this, (long)PEER_REPLAYS.get(this) + 1 +
                    (0 != (flags & FLAG_DAMAGED) ? 1L << 32 : 0));
            }
        }
        if (KIND_ACK == kind)
        {
            return;
        }
        final int sequence = buffer.getInt(offset + SEQUENCE_OFFSET, ByteOrder.BIG_ENDIAN);
        final int verdict = sequence == receiver.expected() ? RetryReceiver.DELIVER :
            receiver.onFrame(sequence, 0 != (flags & FLAG_OLDEST), clock.nanoTime());
        switch (verdict)
        {
            case RetryReceiver.DELIVER_AFTER_SKIP:
                counters.retryFailures().getAndAddRelease(receiver.skipped());
                deliver(KIND_LINK == kind ? LINK_FRAME : DATA_FRAME, buffer, offset, length);
                break;
            case RetryReceiver.DELIVER:
                deliver(KIND_LINK == kind ? LINK_FRAME : DATA_FRAME, buffer, offset, length);
                break;
            case RetryReceiver.DUPLICATE:
                counters.duplicates().incrementRelease();
                request(REQUEST_ACK);
                break;
            case RetryReceiver.GAP_REQUEST:
                counters.outOfOrder().incrementRelease();
                counters.replayRequests().incrementRelease();
                request(REQUEST_GAP);
                break;
            default:
                counters.outOfOrder().incrementRelease();
                break;
        }
    }

    private void deliver(final int frameType, final DirectBuffer buffer, final int offset, final int length)
    {
        rejected = false;
        handler.onFrame(frameType, buffer, offset + HEADER_LENGTH, length - HEADER_LENGTH);
        delivered++;
        if (!rejected)
        {
            receiver.delivered();
        }
        else if (RetryReceiver.REQUEST == receiver.rejected(clock.nanoTime()))
        {
            counters.replayRequests().incrementRelease();
            request(REQUEST_DAMAGED);
            return;
        }
        else
        {
            counters.retryFailures().incrementRelease();
        }
        RX_ACK_WORD.setRelease(this, word(rxSession, receiver.expected()));
    }

    /** Ask the transmitting side for an acknowledgement now: a plain one, or a replay request for a gap or a frame
     * that arrived damaged. */
    private void request(final int kind)
    {
        if (REQUEST_ACK == kind)
        {
            ackRequests++;
        }
        else
        {
            replayRequests++;
            if (REQUEST_DAMAGED == kind)
            {
                damagedRequests++;
            }
        }
        RX_REQUESTS.setRelease(this, ((long)replayRequests << 32) | ((damagedRequests & 0xFFFFL) << 16) |
            (ackRequests & 0xFFFFL));
    }

    // ---------------------------------------------------------------------------------------------------------------

    @Override
    public long incarnation()
    {
        return wire.incarnation();
    }

    @Override
    public long peerIncarnation()
    {
        return wire.peerIncarnation();
    }

    @Override
    public long peerHeartbeat()
    {
        return wire.peerHeartbeat();
    }

    /**
     * Close the wire and free the replay buffer. Idempotent.
     */
    @Override
    public void close()
    {
        if (!closed)
        {
            closed = true;
            wire.close();
            replay.close();
        }
    }
}
