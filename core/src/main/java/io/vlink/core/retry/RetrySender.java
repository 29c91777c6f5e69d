package io.vlink.core.retry;

/**
 * The transmitting half of link-level retry (docs/engine.md, "Link-level retry"), as Omni-Path's LTP retry and
 * Slingshot's LLR do it: every frame gets the next link sequence number and is held until the peer acknowledges it;
 * the peer acknowledges cumulatively (the next sequence number it expects) and asks for a replay from the first gap;
 * a replay, or a retry timer that finds no acknowledgement progress, sends everything held again from the oldest
 * frame on (go-back-N).
 * <p>
 * Sequence numbers are 32 bits and wrap: every comparison is a difference ({@code a - b < 0}, serial number
 * arithmetic), valid while fewer than 2^31 frames are held, which {@code capacity} bounds.
 * <pre>
 *   oldest        send              highest           next
 *     |  acked <-  |  sent, unacked  |  to send again  |  accepted, never sent  |
 *     [ held: next - oldest <= capacity                                          )
 * </pre>
 * {@code oldest} is the first frame not acknowledged, {@code send} the next to transmit, {@code highest} one past the
 * highest ever transmitted (frames from {@code send} to {@code highest} go again: retransmissions), {@code next} the
 * sequence number the next frame gets.
 * <p>
 * The timer: while frames are out and unacknowledged, no acknowledgement progress for {@code timeoutNs << backoff}
 * sends the oldest frame again, alone (a probe, as TCP does at a retransmission timeout): when the peer had it and
 * the acknowledgements were merely late, the answer acknowledges everything and nothing more goes again; when it
 * acknowledges less than was sent (the last frames were lost, and nothing after them showed the peer a gap), the rest
 * goes again from the new oldest frame. Each expiry doubles the wait (up to {@code 2^maxBackoff} times), progress
 * resets it, so a dead peer costs one frame every so often, never a storm. A peer that never acknowledges fills the
 * window: the caller then waits ({@link #canAccept()} is false) and the link layer's own timeout takes the link
 * down.
 * <p>
 * Single-threaded (the transmitting thread), allocation-free; the clock is passed in.
 */
public final class RetrySender
{
    /** {@link #onAck}, {@link #onReplayRequest}: an acknowledgement outside what was sent (stale, or forged). */
    public static final int INVALID = -1;

    private final int capacity;
    private final long timeoutNs;
    private final int maxBackoff;
    private final int initialSequence;
    private int oldest;
    private int send;
    private int highest;
    private int next;
    private long progressNs;
    private int backoff;
    private boolean probing;
    private int replayFrom;
    private long replayNs;
    private boolean replayed;

    /**
     * @param capacity        the most frames held (sent or queued, unacknowledged): 1..2^30.
     * @param timeoutNs       how long without acknowledgement progress before everything held is sent again.
     * @param maxBackoff      how many times an unanswered timer doubles its wait: 0..20.
     * @param initialSequence the sequence number of the first frame of a session (any int: they wrap).
     */
    public RetrySender(final int capacity, final long timeoutNs, final int maxBackoff, final int initialSequence)
    {
        if (capacity < 1 || capacity > 1 << 30)
        {
            throw new IllegalArgumentException("retry capacity " + capacity + " frames: use 1..2^30");
        }
        if (timeoutNs <= 0)
        {
            throw new IllegalArgumentException("retry timeout " + timeoutNs + " ns: must be positive");
        }
        if (maxBackoff < 0 || maxBackoff > 20)
        {
            throw new IllegalArgumentException("retry backoff " + maxBackoff + ": use 0..20 doublings");
        }
        this.capacity = capacity;
        this.timeoutNs = timeoutNs;
        this.maxBackoff = maxBackoff;
        this.initialSequence = initialSequence;
        reset();
    }

    /**
     * A new session: nothing held, the next frame is the initial sequence number again.
     */
    public void reset()
    {
        oldest = initialSequence;
        send = initialSequence;
        highest = initialSequence;
        next = initialSequence;
        backoff = 0;
        probing = false;
        replayed = false;
    }

    /**
     * @return whether a frame may be accepted now (fewer than {@code capacity} held).
     */
    public boolean canAccept()
    {
        return next - oldest < capacity;
    }

    /**
     * @return frames held: unacknowledged, sent or not.
     */
    public int held()
    {
        return next - oldest;
    }

    /**
     * Accept a frame (only when {@link #canAccept()}).
     *
     * @return its sequence number.
     */
    public int accept()
    {
        return next++;
    }

    /**
     * @return whether a frame waits to be transmitted (new, or to be sent again).
     */
    public boolean hasToSend()
    {
        return send != next && (!probing || send == oldest);
    }

    /**
     * @return the sequence number of the next frame to transmit (valid when {@link #hasToSend()}).
     */
    public int nextToSend()
    {
        return send;
    }

    /**
     * @param sequence a held frame's sequence number.
     * @return whether it is the oldest frame held: no frame before it can be sent again (the frame says so on the
     * wire, so that a receiver waiting for an earlier one, which someone else acknowledged, moves on).
     */
    public boolean isOldest(final int sequence)
    {
        return sequence == oldest;
    }

    /**
     * @return the sequence number of the oldest frame held (the next one, when nothing is held).
     */
    public int oldest()
    {
        return oldest;
    }

    /**
     * The frame {@link #nextToSend()} was transmitted.
     *
     * @param nowNs the time.
     * @return whether it was a retransmission.
     */
    public boolean onSent(final long nowNs)
    {
        final boolean again = send - highest < 0;
        if (!again)
        {
            if (oldest == highest)
            {
                // the first frame out after an idle spell starts the timer
                progressNs = nowNs;
            }
            highest = send + 1;
        }
        send++;
        return again;
    }

    /**
     * A cumulative acknowledgement: the peer holds every frame before {@code ack}.
     *
     * @param ack   the next sequence number the peer expects.
     * @param nowNs the time.
     * @return the frames released (0 for no progress), or {@link #INVALID} for an acknowledgement before the oldest
     * frame held (stale) or past the highest sent (forged, or another session's).
     */
    public int onAck(final int ack, final long nowNs)
    {
        final int released = ack - oldest;
        if (released < 0 || highest - ack < 0)
        {
            return INVALID;
        }
        if (0 != released)
        {
            oldest = ack;
            if (send - ack < 0)
            {
                // the peer holds more than was sent (again) since: skip it; after a probe, the rest goes again
                send = ack;
            }
            progressNs = nowNs;
            backoff = 0;
            probing = false;
        }
        return released;
    }

    /**
     * A replay request: the peer holds every frame before {@code ack} and lost (or found damaged) the one at
     * {@code ack}; everything from it is sent again. The timer restarts: the peer is alive and asked. A request for
     * the same frame within a timeout of the replay it asked for already is a repeat (the peer asks again while the
     * replay is still on its way behind the frames in flight): sending everything again for each repeat would only
     * fill the path with duplicates; a replay that was lost is sent again when the timer expires. A request for a
     * frame that arrived damaged is never a repeat: the replay it follows is over.
     *
     * @param ack     the first sequence number the peer lacks.
     * @param damaged whether the frame at {@code ack} arrived and failed its CRC (rather than a gap before it).
     * @param nowNs   the time.
     * @return 1 when the sender rewound, 0 when it was at the oldest frame already or the request repeats one being
     * answered, {@link #INVALID} as {@link #onAck}.
     */
    public int onReplayRequest(final int ack, final boolean damaged, final long nowNs)
    {
        if (INVALID == onAck(ack, nowNs))
        {
            return INVALID;
        }
        if (!damaged && replayed && ack == replayFrom && nowNs - replayNs < timeoutNs)
        {
            return 0;
        }
        progressNs = nowNs;
        probing = false;
        if (send == oldest)
        {
            return 0;
        }
        send = oldest;
        replayed = true;
        replayFrom = oldest;
        replayNs = nowNs;
        return 1;
    }

    /**
     * The retry timer, once per duty cycle.
     *
     * @param nowNs the time.
     * @return whether it expired: the oldest frame held goes again, alone, until an acknowledgement or a replay
     * request answers.
     */
    public boolean onTimer(final long nowNs)
    {
        if (oldest == highest || nowNs - progressNs < timeoutNs << backoff)
        {
            return false;
        }
        send = oldest;
        probing = true;
        progressNs = nowNs;
        if (backoff < maxBackoff)
        {
            backoff++;
        }
        return true;
    }

    /**
     * @return when the timer expires if nothing is acknowledged before, or {@link Long#MAX_VALUE} when no frame is
     * out.
     */
    public long timerDeadlineNs()
    {
        return oldest == highest ? Long.MAX_VALUE : progressNs + (timeoutNs << backoff);
    }
}
