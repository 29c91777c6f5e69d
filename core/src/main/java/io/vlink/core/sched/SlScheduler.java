package io.vlink.core.sched;

import io.vlink.core.config.Diagnostic;
import org.agrona.BitUtil;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * SL arbitration table with queue-pair tenure (spec {@code injection.md}, seed 002): decides which queue
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
    public static final int SL_COUNT = 16;
    /** Returned by {@link #next()} when no QP has work. */
    public static final int NO_WORK = -1;
    /** A packet tenure of this value means "bytes only". */
    public static final int NO_PACKET_TENURE = 0;

    private final int[] entrySl;
    private final int[] entryWeight;
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
    private final long[] qpHead;
    private final long[] qpTail;
    private final int[] qpHeadOffset;
    private final long[] qpTenureBytesLeft;
    private final int[] qpTenurePacketsLeft;
    private final long[] qpBytes;
    private final long[] qpWaitMark;
    private final int[] ringLength;
    private final long[] ringHandle;

    // SLs: their QPs in creation order, the current QP (an index into that list, -1 before the first), how many have work
    private final int[][] slQps;
    private final int[] slQpCount;
    private final int[] slCurrent;
    private final int[] slBacklogged;
    // a bit per SL with a backlogged QP (slBacklogged[sl] != 0), and per SL the table gives a non-zero weight
    private int backloggedSls;
    private final int servedSls;
    private final long[] slBytes;

    private int pointer;
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
        if (!isValidMtu(mtu))
        {
            throw new IllegalArgumentException("mtu must be 256, 512, 1024, 2048 or 4096: " + mtu);
        }
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
        int served = 0;
        for (int e = 0; e < entrySl.length; e++)
        {
            served |= entryWeight[e] != 0 ? 1 << entrySl[e] : 0;
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
        qpHead = new long[maxQps];
        qpTail = new long[maxQps];
        qpHeadOffset = new int[maxQps];
        qpTenureBytesLeft = new long[maxQps];
        qpTenurePacketsLeft = new int[maxQps];
        qpBytes = new long[maxQps];
        qpWaitMark = new long[maxQps];
        ringLength = new int[maxQps * this.ringCapacity];
        ringHandle = new long[maxQps * this.ringCapacity];

        slQps = new int[SL_COUNT][maxQps];
        slQpCount = new int[SL_COUNT];
        slCurrent = new int[SL_COUNT];
        slBacklogged = new int[SL_COUNT];
        slBytes = new long[SL_COUNT];
        Arrays.fill(slCurrent, -1);

        pointer = 0;
        remainingWeight = entryWeight[0];
    }

    /**
     * @param mtu a candidate MTU in bytes.
     * @return true for the InfiniBand MTUs 256, 512, 1024, 2048 and 4096.
     */
    public static boolean isValidMtu(final int mtu)
    {
        return mtu >= 256 && mtu <= 4096 && Integer.bitCount(mtu) == 1;
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
        slQps[sl][slQpCount[sl]++] = qp;
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
        final long tail = qpTail[qp];
        final long head = qpHead[qp];
        if (tail - head == ringCapacity)
        {
            return false;
        }
        final int slot = qp * ringCapacity + (int)(tail & ringMask);
        ringLength[slot] = length;
        ringHandle[slot] = handle;
        qpTail[qp] = tail + 1;
        if (tail == head)
        {
            final int sl = qpSl[qp];
            if (0 == slBacklogged[sl]++)
            {
                backloggedSls |= 1 << sl;
            }
            qpWaitMark[qp] = packets;
        }
        return true;
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
        // no SL the table serves has work outside blockedSls: the scan of step 1 would find none (how every
        // burst of an engine ends), so answer without it; the state is untouched either way
        if (0 == (backloggedSls & servedSls & ~blockedSls))
        {
            return NO_WORK;
        }

        // step 1: choose the SL
        final int entries = entrySl.length;
        if (remainingWeight <= 0 || slBacklogged[entrySl[pointer]] == 0 || (blockedSls & (1 << entrySl[pointer])) != 0)
        {
            int found = -1;
            for (int i = 1; i <= entries; i++)
            {
                int e = pointer + i;
                if (e >= entries)
                {
                    e -= entries;
                }
                if (entryWeight[e] != 0 && slBacklogged[entrySl[e]] != 0 && (blockedSls & (1 << entrySl[e])) == 0)
                {
                    found = e;
                    break;
                }
            }
            if (found < 0)
            {
                return NO_WORK;
            }
            pointer = found;
            remainingWeight = entryWeight[found];
        }
        final int sl = entrySl[pointer];

        // step 2: choose the QP within the SL
        final int[] qps = slQps[sl];
        final int count = slQpCount[sl];
        int position = slCurrent[sl];
        int qp = position < 0 ? -1 : qps[position];
        if (qp < 0 || !hasWork(qp) || !hasTenure(qp))
        {
            // round robin in creation order, starting after the current QP and ending with it

            for (int i = 1; i <= count; i++)
            {
                int p = position + i;
                if (p >= count)
                {
                    p -= count;
                }
                if (hasWork(qps[p]))
                {
                    position = p;
                    break;
                }
            }
            qp = qps[position];
            slCurrent[sl] = position;
            qpTenureBytesLeft[qp] = tenureBytes;
            qpTenurePacketsLeft[qp] = tenurePackets;
        }

        // step 3: slice the head message
        final long head = qpHead[qp];
        final int slot = qp * ringCapacity + (int)(head & ringMask);
        final int length = ringLength[slot];
        final int offset = qpHeadOffset[qp];
        final int bytes = Math.min(mtu, length - offset);
        packetQp = qp;
        packetSl = sl;
        packetBytes = bytes;
        packetOffset = offset;
        packetHandle = ringHandle[slot];
        packetEndOfMessage = offset + bytes >= length;
        if (packetEndOfMessage)
        {
            qpHeadOffset[qp] = 0;
            qpHead[qp] = head + 1;
            if (head + 1 == qpTail[qp])
            {
                if (0 == --slBacklogged[sl])
                {
                    backloggedSls &= ~(1 << sl);
                }
            }
        }
        else
        {
            qpHeadOffset[qp] = offset + bytes;
        }

        remainingWeight -= bytes;
        qpTenureBytesLeft[qp] -= bytes;
        if (tenurePackets != NO_PACKET_TENURE)
        {
            qpTenurePacketsLeft[qp]--;
        }
        if (remainingWeight <= 0)
        {
            pointer = pointer + 1 == entries ? 0 : pointer + 1;
            remainingWeight = entryWeight[pointer];
        }

        // figures
        if (previousQp >= 0 && previousQp != qp)
        {
            switches++;
        }
        previousQp = qp;
        final long wait = packets - qpWaitMark[qp];
        if (wait > longestWait)
        {
            longestWait = wait;
        }
        packets++;
        qpWaitMark[qp] = packets;
        qpBytes[qp] += bytes;
        slBytes[sl] += bytes;
        return bytes;
    }

    private boolean hasWork(final int qp)
    {
        return qpTail[qp] != qpHead[qp];
    }

    private boolean hasTenure(final int qp)
    {
        return qpTenureBytesLeft[qp] > 0 && (tenurePackets == NO_PACKET_TENURE || qpTenurePacketsLeft[qp] > 0);
    }

    /**
     * Configuration check: an SL that has queue pairs but no table entry with a non-zero weight is never
     * served (seed 002: every SL in use must appear in the table at least once).
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
            if (slQpCount[sl] == 0)
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
        return (int)(qpTail[qp] - qpHead[qp]);
    }

    /**
     * @param qp index.
     * @return payload bytes it has generated.
     */
    public long qpBytes(final int qp)
    {
        return qpBytes[qp];
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
        return hasWork(qp) ? packets - qpWaitMark[qp] : 0;
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
