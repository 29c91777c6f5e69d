package io.vlink.core.retry;

/**
 * The receiving half of link-level retry (docs/engine.md, "Link-level retry"): frames are delivered exactly once and
 * in sequence order; anything else is discarded and, where it shows a loss, answered by a replay request from the
 * first gap (go-back-N: nothing past a gap is kept, so every frame is read in place, once).
 * <ul>
 *   <li>The expected frame is delivered; the caller then says whether the layer above took it
 *   ({@link #delivered()}) or found it damaged ({@link #rejected(long)}, a bad CRC: the link's CRC check asks for it
 *   again, as LLR does).</li>
 *   <li>An earlier one is a duplicate (the peer did not hear the acknowledgement in time): discarded; the caller
 *   acknowledges again.</li>
 *   <li>A later one shows a gap: discarded, and a replay request from the expected frame goes, at most once per
 *   {@code requestIntervalNs} while the gap stays (the replay itself may be lost, or the request).</li>
 *   <li>A later one marked as the sender's oldest means that the frames before it will never come (someone
 *   acknowledged them in this receiver's name: a forged acknowledgement on a link without a key): the receiver moves
 *   on to it rather than wait forever, and says how many it gave up.</li>
 *   <li>A frame rejected more than {@code rejectLimit} times in a row is let through as it is: a peer that sends the
 *   same damaged bytes again and again gets the link layer's behaviour without retry (the layer above discards
 *   it) instead of a link that stalls.</li>
 * </ul>
 * Sequence numbers are 32 bits and wrap (differences, as {@link RetrySender}). Single-threaded (the receiving
 * thread), allocation-free; the clock is passed in.
 */
public final class RetryReceiver
{
    /** {@link #onFrame}: the expected frame; deliver it, then call {@link #delivered()} or {@link #rejected}. */
    public static final int DELIVER = 0;
    /** {@link #onFrame}: a frame the sender no longer holds the predecessors of; {@link #skipped()} were given up.
     * Deliver it as {@link #DELIVER}. */
    public static final int DELIVER_AFTER_SKIP = 1;
    /** {@link #onFrame}: a frame delivered before; discard it and acknowledge again. */
    public static final int DUPLICATE = 2;
    /** {@link #onFrame}: a frame after a gap; discard it (a replay request is already on its way). */
    public static final int GAP = 3;
    /** {@link #onFrame}: a frame after a gap; discard it and request a replay from {@link #expected()}. */
    public static final int GAP_REQUEST = 4;
    /** {@link #rejected}: request a replay from {@link #expected()}. */
    public static final int REQUEST = 5;
    /** {@link #rejected}: the frame was rejected too often and is given up; {@link #expected()} moved past it. */
    public static final int GIVE_UP = 6;

    private final long requestIntervalNs;
    private final int rejectLimit;
    private final int initialSequence;
    private int expected;
    private boolean requested;
    private long requestNs;
    private int rejects;
    private int skipped;

    /**
     * @param requestIntervalNs the least time between two replay requests for the same gap.
     * @param rejectLimit       how many times in a row one frame may be rejected and asked for again: 0..1000.
     * @param initialSequence   the sequence number of the first frame of a session (the sender's).
     */
    public RetryReceiver(final long requestIntervalNs, final int rejectLimit, final int initialSequence)
    {
        if (requestIntervalNs <= 0)
        {
            throw new IllegalArgumentException("replay request interval " + requestIntervalNs + " ns: must be positive");
        }
        if (rejectLimit < 0 || rejectLimit > 1000)
        {
            throw new IllegalArgumentException("reject limit " + rejectLimit + ": use 0..1000");
        }
        this.requestIntervalNs = requestIntervalNs;
        this.rejectLimit = rejectLimit;
        this.initialSequence = initialSequence;
        reset();
    }

    /**
     * A new session: the initial sequence number is expected, nothing asked for.
     */
    public void reset()
    {
        expected = initialSequence;
        requested = false;
        rejects = 0;
        skipped = 0;
    }

    /**
     * @return the next sequence number expected: what the receiver acknowledges (every frame before it delivered).
     */
    public int expected()
    {
        return expected;
    }

    /**
     * @return after {@link #DELIVER_AFTER_SKIP}, how many frames were given up.
     */
    public int skipped()
    {
        return skipped;
    }

    /**
     * @param sequence the frame's sequence number.
     * @param oldest   whether the sender marked it as the oldest frame it holds.
     * @param nowNs    the time.
     * @return {@link #DELIVER}, {@link #DELIVER_AFTER_SKIP}, {@link #DUPLICATE}, {@link #GAP} or
     * {@link #GAP_REQUEST}.
     */
    public int onFrame(final int sequence, final boolean oldest, final long nowNs)
    {
        final int ahead = sequence - expected;
        if (0 == ahead)
        {
            return DELIVER;
        }
        if (ahead < 0)
        {
            return DUPLICATE;
        }
        if (oldest)
        {
            skipped = ahead;
            expected = sequence;
            requested = false;
            rejects = 0;
            return DELIVER_AFTER_SKIP;
        }
        if (requested && nowNs - requestNs < requestIntervalNs)
        {
            return GAP;
        }
        requested = true;
        requestNs = nowNs;
        return GAP_REQUEST;
    }

    /**
     * The frame just delivered was taken.
     */
    public void delivered()
    {
        expected++;
        requested = false;
        rejects = 0;
    }

    /**
     * The frame just delivered was damaged (the layer above found a bad CRC): ask for it again, up to the limit.
     *
     * @param nowNs the time.
     * @return {@link #REQUEST} (request a replay from {@link #expected()}) or {@link #GIVE_UP} (it counts as
     * delivered).
     */
    public int rejected(final long nowNs)
    {
        if (rejects >= rejectLimit)
        {
            delivered();
            return GIVE_UP;
        }
        rejects++;
        requested = true;
        requestNs = nowNs;
        return REQUEST;
    }
}
