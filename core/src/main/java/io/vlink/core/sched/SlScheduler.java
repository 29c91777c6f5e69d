package io.vlink.core.sched;

import io.vlink.core.config.Diagnostic;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.Sizes;
import org.agrona.BitUtil;

import java.util.ArrayList;
import java.util.List;

/**
 * SL arbitration table with queue-pair tenure (docs/injection.md, the IBM disclosure): decides which queue
 * pair's work becomes the next packet.
 * <p>
 * The table is a circular list of {@code SL:weight} entries, weights in bytes. Queue pairs are created with
 * an SL; each holds a bounded ring of messages (a length and a {@code long} handle the engine uses to find the
 * payload). {@link #next()} performs exactly the three steps of the spec, one packet per call:
 * <ol>
 * <li>choose the SL: the entry under the pointer keeps the turn while its remaining weight is positive and its
 * SL has a QP with work, else the first later entry (wrapping once) with a non-zero weight whose SL has work
 * becomes current with its full weight;</li>
 * <li>choose the QP: the SL's current QP keeps going while it has work and tenure left, else the next QP of
 * that SL in creation order with work becomes current with a full tenure;</li>
 * <li>the packet is {@code min(MTU, bytes left in the head message)}; it is subtracted from the entry's weight
 * and the QP's tenure (and one from its packet tenure); a weight at or below zero moves the pointer on, a
 * tenure at or below zero ends the QP's tenure.</li>
 * </ol>
 * Tenure belongs to the QP, not to the SL's turn: when the weight runs out mid-tenure, the same QP resumes when
 * the SL comes back.
 * <p>
 * Figures: bytes per SL and per QP, QP switches (a packet from a different QP than the previous packet; the
 * first packet is not a switch) and waits. A wait is counted in <em>packets</em>: the number of packets other
 * QPs generated between a QP having work (it was posted to while empty, or it generated its previous packet
 * and still has work) and its next packet. {@link #longestWait()} is the largest wait seen.
 * <p>
 * Single-threaded, allocation-free after construction: every queue pair and message lives in preallocated
 * primitive arrays. Posting to a full ring returns {@code false} (back-pressure).
 */
public final class SlScheduler
{
    /** The number of service levels. */
    public static final int SL_COUNT = LrhFlyweight.SL_COUNT;
    /** Returned by {@link #next()} when no QP has work. */
    public static final int NO_WORK = -1;
    /** A packet tenure of this value means "bytes only". */
    public static final int NO_PACKET_TENURE = 0;

    // per queue pair, one group of longs (one cache line): ring head and tail, bytes of the head message already
    // sliced, tenure left (bytes, packets), bytes generated, the packet count when its wait began
    private static final int HEAD = 0;
    private static final int TAIL = 1;
    private static final int OFFSET = 2;
    private static final int TENURE_BYTES = 3;
    private static final int TENURE_PACKETS = 4;
    private static final int BYTES = 5;
    private static final int WAIT_MARK = 6;
    private static final int QP_LONGS = 8;
    // per SL, ints: its QP count, the position of its current QP in its list (-1 before the first), that QP
    // (-1 before the first), how many of its QPs have work
    private static final int COUNT = 0;
    private static final int POSITION = 1;
    private static final int CURRENT_QP = 2;
    private static final int BACKLOGGED = 3;
    private static final int SL_INTS = 4;

    private final int[] entrySl;
    private final int[] entryWeight;
    // per SL, a bit per table entry of that SL with a non-zero weight (entryWords words an SL, one more than the entries
    // need, so that a search may start past the last entry): step 1's search for the next entry whose SL may generate
    // ORs the words of those SLs instead of visiting every entry
    private final long[] slEntries;
    private final int entryWords;
    private final int mtu;
    private final long tenureBytes;
    private final int tenurePackets;
    private final int maxQps;
    private final int ringCapacity;
    private final int ringMask;

    // queue pairs, indexed by creation order
    private int qpCount;
    private final int[] qpSl;
    private final int[] qpNumber;
    private final long[] qpState;
    private final int[] ringLength;
    private final long[] ringHandle;

    // SLs: their QPs in creation order (maxQps apart), and their group of ints
    private final int[] slQps;
    private final int[] slState;
    // a bit per SL with a backlogged QP (slBacklogged[sl] != 0), and per SL the table gives a non-zero weight
    private int backloggedSls;
    private final int servedSls;
    private final long[] slBytes;

    private int pointer;
    // the SL of the entry under the pointer
    private int currentSl;
    private long remainingWeight;
    private int previousQp = -1;
    private long packets;
    private long switches;
    private long longestWait;

    // the last packet produced by next()
    private int packetQp;
    private int packetSl;
    private int packetBytes;
    private int packetOffset;
    private long packetHandle;
    private boolean packetEndOfMessage;

    /**
     * @param sls           SL of each table entry, in table order (0..15).
     * @param weights       weight in bytes of each entry (0 = never served).
     * @param mtu           packet payload limit: 256, 512, 1024, 2048 or 4096.
     * @param tenureBytes   bytes a QP may generate before the next QP of its SL takes over (> 0).
     * @param tenurePackets packets a QP may generate per tenure, or {@link #NO_PACKET_TENURE}.
     * @param maxQps        queue pairs that may be created.
     * @param ringCapacity  messages each QP can hold queued (rounded up to a power of two).
     */
    public SlScheduler(
        final int[] sls,
        final int[] weights,
        final int mtu,
        final long tenureBytes,
        final int tenurePackets,
        final int maxQps,
        final int ringCapacity)
    {
        if (sls.length != weights.length || sls.length == 0)
        {
            throw new IllegalArgumentException("the table needs at least one entry and a weight per SL");
        }
        for (int i = 0; i < sls.length; i++)
        {
            checkSl(sls[i]);
            if (weights[i] < 0)
            {
                throw new IllegalArgumentException("entry " + i + ": weight must be >= 0: " + weights[i]);
            }
        }
        Sizes.checkMtu("mtu", mtu);
        if (tenureBytes <= 0 || tenurePackets < 0)
        {
            throw new IllegalArgumentException("tenure must be > 0 bytes and >= 0 packets");
        }
        if (maxQps <= 0 || ringCapacity <= 0 || ringCapacity > 1 << 30)
        {
            throw new IllegalArgumentException("maxQps and ringCapacity must be > 0");
        }
        this.entrySl = sls.clone();
        this.entryWeight = weights.clone();
        entryWords = (entrySl.length >>> 6) + 1;
        slEntries = new long[SL_COUNT * entryWords];
        int served = 0;
        for (int e = 0; e < entrySl.length; e++)
        {
            if (entryWeight[e] != 0)
            {
                served |= 1 << entrySl[e];
                slEntries[entrySl[e] * entryWords + (e >>> 6)] |= 1L << e;
            }
        }
        this.servedSls = served;
        this.mtu = mtu;
        this.tenureBytes = tenureBytes;
        this.tenurePackets = tenurePackets;
        this.maxQps = maxQps;
        this.ringCapacity = BitUtil.findNextPositivePowerOfTwo(ringCapacity);
        if ((long)maxQps * this.ringCapacity > Integer.MAX_VALUE - 8)
        {
            throw new IllegalArgumentException("maxQps * ringCapacity too large: " + maxQps + " * " + ringCapacity);
        }
        this.ringMask = this.ringCapacity - 1;

        qpSl = new int[maxQps];
        qpNumber = new int[maxQps];
        qpState = new long[maxQps * QP_LONGS];
        ringLength = new int[maxQps * this.ringCapacity];
        ringHandle = new long[maxQps * this.ringCapacity];

        slQps = new int[SL_COUNT * maxQps];
        slState = new int[SL_COUNT * SL_INTS];
        slBytes = new long[SL_COUNT];
        for (int sl = 0; sl < SL_COUNT; sl++)
        {
            slState[sl * SL_INTS + POSITION] = -1;
            slState[sl * SL_INTS + CURRENT_QP] = -1;
        }

        pointer = 0;
        currentSl = entrySl[0];
        remainingWeight = entryWeight[0];
    }

    /**
     * The scheduler an engine's port runs: the given SL table, or every SL once with a weight of one MTU when none
     * is given; room for the port's queue pairs and one more per SL (the queue pair a port keeps per SL for ready
     * packets posted on it).
     *
     * @param sls           the SL table's SLs, or null for every SL once.
     * @param weights       each entry's weight in bytes, or null with {@code sls} null.
     * @param mtu           packet payload limit.
     * @param tenureBytes   a queue pair's tenure in bytes.
     * @param tenurePackets and in packets, or {@link #NO_PACKET_TENURE}.
     * @param maxQueuePairs queue pairs the port's application may create.
     * @param queueDepth    messages each queue pair holds.
     * @return the scheduler.
     */
    public static SlScheduler forPort(
        final int[] sls,
        final int[] weights,
        final int mtu,
        final long tenureBytes,
        final int tenurePackets,
        final int maxQueuePairs,
        final int queueDepth)
    {
        int[] tableSls = sls;
        int[] tableWeights = weights;
        if (null == tableSls)
        {
            tableSls = new int[SL_COUNT];
            tableWeights = new int[SL_COUNT];
            for (int sl = 0; sl < SL_COUNT; sl++)
            {
                tableSls[sl] = sl;
                tableWeights[sl] = mtu;
            }
        }
        return new SlScheduler(
            tableSls, tableWeights, mtu, tenureBytes, tenurePackets, portQueuePairs(maxQueuePairs), queueDepth);
    }

    /**
     * @param maxQueuePairs queue pairs a port's application may create.
     * @return queue pairs a port's scheduler holds: those and one per SL for ready packets ({@link #forPort}).
     */
    public static int portQueuePairs(final int maxQueuePairs)
    {
        return maxQueuePairs + SL_COUNT;
    }

    /**
     * Create a queue pair. Queue pairs of one SL take turns in the order they were created.
     *
     * @param qpNumber the caller's number for it (reported back by {@link #qpNumber(int)}).
     * @param sl       its service level, 0..15.
     * @return its index, 0, 1, 2, ... in creation order: the handle for {@link #post(int, int, long)}.
     */
    public int createQp(final int qpNumber, final int sl)
    {
        checkSl(sl);
        if (qpCount == maxQps)
        {
            throw new IllegalStateException("all " + maxQps + " queue pairs are already created");
        }
        final int qp = qpCount++;
        qpSl[qp] = sl;
        this.qpNumber[qp] = qpNumber;
        slQps[sl * maxQps + slState[sl * SL_INTS + COUNT]++] = qp;
        return qp;
    }

    /**
     * Queue a message on a queue pair.
     *
     * @param qp     index from {@link #createQp(int, int)}.
     * @param length message bytes (>= 0; a zero-length message is one empty packet).
     * @param handle the engine's reference to the payload, returned with each of its packets.
     * @return false when the QP's ring is full (back-pressure: nothing was queued).
     */
    public boolean post(final int qp, final int length, final long handle)
    {
        final int qk = qp * QP_LONGS;
        final long tail = qpState[qk + TAIL];
        final long head = qpState[qk + HEAD];
        if (tail - head == ringCapacity)
        {
            return false;
        }
        final int slot = qp * ringCapacity + (int)(tail & ringMask);
        ringLength[slot] = length;
        ringHandle[slot] = handle;
        qpState[qk + TAIL] = tail + 1;
        if (tail == head)
        {
            final int sl = qpSl[qp];
            if (0 == slState[sl * SL_INTS + BACKLOGGED]++)
            {
                backloggedSls |= 1 << sl;
            }
            qpState[qk + WAIT_MARK] = packets;
        }
        return true;
    }

    /**
     * Discard every message queued on a queue pair, the one being sliced included: a link error flushed the port's
     * transmit path (docs/engine.md, "A peer's life and death"). The table's pointer and weight and the queue pair's
     * tenure stay as they are; its SL stops counting as backlogged when no other queue pair of it has work.
     *
     * @param qp index from {@link #createQp(int, int)}.
     * @return messages discarded.
     */
    public int flush(final int qp)
    {
        final int qk = qp * QP_LONGS;
        final long head = qpState[qk + HEAD];
        final long tail = qpState[qk + TAIL];
        if (tail == head)
        {
            return 0;
        }
        qpState[qk + HEAD] = tail;
        qpState[qk + OFFSET] = 0;
        final int sl = qpSl[qp];
        if (0 == --slState[sl * SL_INTS + BACKLOGGED])
        {
            backloggedSls &= ~(1 << sl);
        }
        return (int)(tail - head);
    }

    /**
     * Produce the next packet: the three steps of the spec. On success the packet is described by
     * {@link #packetQp()}, {@link #packetSl()}, {@link #packetBytes()}, {@link #packetOffset()},
     * {@link #packetHandle()} and {@link #packetEndOfMessage()}.
     *
     * @return the packet's bytes, or {@link #NO_WORK} when no QP reachable through the table has work.
     */
    public int next()
    {
        return next(0);
    }

    /**
     * {@link #next()} for an engine whose injectors can refuse work: the SLs in {@code blockedSls} (bit {@code sl})
     * count as having no work for this step, so one SL whose injector is full (its VL stalled on credits) does not
     * hold up the others.
     *
     * @param blockedSls a bit per SL that may not generate a packet now.
     * @return the packet's bytes, or {@link #NO_WORK} when no QP reachable through the table has work.
     */
    public int next(final int blockedSls)
    {
        // the SLs that may generate a packet now: with work, not blocked. When none the table serves is among them,
        // the scan of step 1 would find none (how every burst of an engine ends): answer without it
        final int eligible = backloggedSls & ~blockedSls;
        if (0 == (eligible & servedSls))
        {
            return NO_WORK;
        }

        // step 1: choose the SL
        int sl = currentSl;
        if (remainingWeight <= 0 || 0 == (eligible & 1 << sl))
        {
            sl = nextEntry(eligible);
            if (sl < 0)
            {
                return NO_WORK;
            }
        }

        // step 2: choose the QP within the SL
        final long[] qpState = this.qpState;
        final int sk = sl * SL_INTS;
        int qp = slState[sk + CURRENT_QP];
        int qk = qp * QP_LONGS;
        if (qp < 0 || qpState[qk + TAIL] == qpState[qk + HEAD] || !hasTenure(qk))
        {
            qp = nextQp(sl);
            qk = qp * QP_LONGS;
        }

        // step 3: slice the head message
        final long head = qpState[qk + HEAD];
        final int slot = qp * ringCapacity + (int)(head & ringMask);
        final int length = ringLength[slot];
        final int offset = (int)qpState[qk + OFFSET];
        final int bytes = Math.min(mtu, length - offset);
        final boolean end = offset + bytes >= length;
        packetQp = qp;
        packetSl = sl;
        packetBytes = bytes;
        packetOffset = offset;
        packetHandle = ringHandle[slot];
        packetEndOfMessage = end;
        if (end)
        {
            qpState[qk + OFFSET] = 0;
            qpState[qk + HEAD] = head + 1;
            if (head + 1 == qpState[qk + TAIL] && 0 == --slState[sk + BACKLOGGED])
            {
                backloggedSls &= ~(1 << sl);
            }
        }
        else
        {
            qpState[qk + OFFSET] = offset + bytes;
        }

        qpState[qk + TENURE_BYTES] -= bytes;
        if (tenurePackets != NO_PACKET_TENURE)
        {
            qpState[qk + TENURE_PACKETS]--;
        }
        final long weight = remainingWeight - bytes;
        if (weight > 0)
        {
            remainingWeight = weight;
        }
        else
        {
            final int e = pointer + 1 == entrySl.length ? 0 : pointer + 1;
            pointer = e;
            currentSl = entrySl[e];
            remainingWeight = entryWeight[e];
        }

        // figures
        if (previousQp != qp)
        {
            if (previousQp >= 0)
            {
                // the first packet (no previous QP) is not a switch
                switches++;
            }
            previousQp = qp;
        }
        final long count = packets;
        final long wait = count - qpState[qk + WAIT_MARK];
        if (wait > longestWait)
        {
            longestWait = wait;
        }
        packets = count + 1;
        qpState[qk + WAIT_MARK] = count + 1;
        qpState[qk + BYTES] += bytes;
        slBytes[sl] += bytes;
        return bytes;
    }

    /**
     * Step 1 when the entry under the pointer loses the turn: the first later entry (wrapping once) with a non-zero
     * weight whose SL is {@code eligible} becomes current with its full weight.
     *
     * @return its SL, or -1 when there is none (the caller checked there is).
     */
    private int nextEntry(final int eligible)
    {
        // the entries after the pointer, then from the first (the pointer's own last: the later ones had nothing)
        int e = firstEntry(eligible, pointer + 1);
        if (e < 0)
        {
            e = firstEntry(eligible, 0);
            if (e < 0)
            {
                return -1;
            }
        }
        final int sl = entrySl[e];
        pointer = e;
        currentSl = sl;
        remainingWeight = entryWeight[e];
        return sl;
    }

    /** @return the first entry from {@code from} on with a non-zero weight whose SL is {@code eligible}, or -1. */
    private int firstEntry(final int eligible, final int from)
    {
        final long[] slEntries = this.slEntries;
        final int words = entryWords;
        long mask = -1L << from;
        for (int w = from >>> 6; w < words; w++)
        {
            long word = 0;
            for (int sls = eligible; sls != 0; sls &= sls - 1)
            {
                word |= slEntries[Integer.numberOfTrailingZeros(sls) * words + w];
            }
            word &= mask;
            if (word != 0)
            {
                return (w << 6) + Long.numberOfTrailingZeros(word);
            }
            mask = -1L;
        }
        return -1;
    }

    /**
     * Step 2 when the SL's current QP has no work or no tenure left: the next QP of the SL in creation order that has
     * work (round robin, starting after the current one and ending with it) becomes current with a full tenure.
     *
     * @return that QP.
     */
    private int nextQp(final int sl)
    {
        final int sk = sl * SL_INTS;
        final int count = slState[sk + COUNT];
        final int base = sl * maxQps;
        int position = slState[sk + POSITION];
        for (int i = 1; i <= count; i++)
        {
            int p = position + i;
            if (p >= count)
            {
                p -= count;
            }
            if (hasWork(slQps[base + p]))
            {
                position = p;
                break;
            }
        }
        final int qp = slQps[base + position];
        slState[sk + POSITION] = position;
        slState[sk + CURRENT_QP] = qp;
        qpState[qp * QP_LONGS + TENURE_BYTES] = tenureBytes;
        qpState[qp * QP_LONGS + TENURE_PACKETS] = tenurePackets;
        return qp;
    }

    private boolean hasWork(final int qp)
    {
        return qpState[qp * QP_LONGS + TAIL] != qpState[qp * QP_LONGS + HEAD];
    }

    private boolean hasTenure(final int qk)
    {
        return qpState[qk + TENURE_BYTES] > 0 &&
            (tenurePackets == NO_PACKET_TENURE || qpState[qk + TENURE_PACKETS] > 0);
    }

    /**
     * Configuration check: an SL that has queue pairs but no table entry with a non-zero weight is never
     * served (the IBM disclosure: every SL in use must appear in the table at least once).
     *
     * @param file     the configuration's name, for the diagnostics.
     * @param lineOfSl the line to report for each SL (e.g. where its first QP was declared), or null for 0.
     * @return one warning per such SL, in ascending SL order; empty when the table covers every SL in use.
     */
    public List<Diagnostic> check(final String file, final int[] lineOfSl)
    {
        final List<Diagnostic> warnings = new ArrayList<>();
        for (int sl = 0; sl < SL_COUNT; sl++)
        {
            if (slState[sl * SL_INTS + COUNT] == 0)
            {
                continue;
            }
            boolean listed = false;
            boolean served = false;
            for (int e = 0; e < entrySl.length; e++)
            {
                if (entrySl[e] == sl)
                {
                    listed = true;
                    served |= entryWeight[e] != 0;
                }
            }
            if (!served)
            {
                final int line = lineOfSl == null ? 0 : lineOfSl[sl];
                final String why = listed ? "only entries of weight 0 in" : "is absent from";
                warnings.add(new Diagnostic(file, line, 0, Diagnostic.Severity.WARNING,
                    "SL " + sl + " has queue pairs but " + why + " the SL arbitration table, so it is never " +
                    "served; add an entry such as " + sl + ":" + mtu));
            }
        }
        return warnings;
    }

    private static void checkSl(final int sl)
    {
        if (sl < 0 || sl >= SL_COUNT)
        {
            throw new IllegalArgumentException("SL must be 0..15: " + sl);
        }
    }

    /** @return the queue pair (index) of the last packet. */
    public int packetQp()
    {
        return packetQp;
    }

    /** @return the SL of the last packet. */
    public int packetSl()
    {
        return packetSl;
    }

    /** @return the payload bytes of the last packet. */
    public int packetBytes()
    {
        return packetBytes;
    }

    /** @return where in its message the last packet's bytes start. */
    public int packetOffset()
    {
        return packetOffset;
    }

    /** @return the handle of the message the last packet belongs to. */
    public long packetHandle()
    {
        return packetHandle;
    }

    /** @return true when the last packet was the last of its message. */
    public boolean packetEndOfMessage()
    {
        return packetEndOfMessage;
    }

    /** @return queue pairs created. */
    public int qpCount()
    {
        return qpCount;
    }

    /**
     * @param qp index.
     * @return the caller's number given at creation.
     */
    public int qpNumber(final int qp)
    {
        return qpNumber[qp];
    }

    /**
     * @param qp index.
     * @return its SL.
     */
    public int qpSl(final int qp)
    {
        return qpSl[qp];
    }

    /**
     * @param qp index.
     * @return messages queued (the head one included while partly sliced).
     */
    public int queuedMessages(final int qp)
    {
        return (int)(qpState[qp * QP_LONGS + TAIL] - qpState[qp * QP_LONGS + HEAD]);
    }

    /**
     * @param qp index.
     * @return payload bytes it has generated.
     */
    public long qpBytes(final int qp)
    {
        return qpState[qp * QP_LONGS + BYTES];
    }

    /**
     * @param sl service level.
     * @return payload bytes it has generated.
     */
    public long slBytes(final int sl)
    {
        return slBytes[sl];
    }

    /** @return packets generated. */
    public long packets()
    {
        return packets;
    }

    /** @return packets whose QP differs from the previous packet's QP. */
    public long switches()
    {
        return switches;
    }

    /** @return the longest wait seen, in packets generated by other QPs while a QP had work. */
    public long longestWait()
    {
        return longestWait;
    }

    /**
     * @param qp index.
     * @return how long it has waited so far (packets by others) if it has work, else 0.
     */
    public long currentWait(final int qp)
    {
        return hasWork(qp) ? packets - qpState[qp * QP_LONGS + WAIT_MARK] : 0;
    }

    /** @return the table entry under the pointer. */
    public int pointer()
    {
        return pointer;
    }

    /** @return the remaining weight (bytes) of the entry under the pointer. */
    public long remainingWeight()
    {
        return remainingWeight;
    }

    /** @return the MTU. */
    public int mtu()
    {
        return mtu;
    }

    /** @return the per-QP message ring capacity (a power of two). */
    public int ringCapacity()
    {
        return ringCapacity;
    }
}
