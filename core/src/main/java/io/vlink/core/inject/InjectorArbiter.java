package io.vlink.core.inject;

/**
 * Injector arbitration of seed 004 (spec {@code injection.md}): which injector puts the next packet into the
 * shared {@link CellBuffer}.
 * <p>
 * <b>Priority</b> (seed 004, Fig. 4A). Each injector works on one command at a time, immediate data (IDC) or
 * DMA ({@link #command}). Its water marks follow the command: a DMA command uses the injector's own
 * {@code (low, high)} pair, an IDC the one global IDC pair. The priority is re-evaluated whenever the injector's
 * occupied cell count (OCC, all its cells) or its command changes, in the order of the flow chart: a priority
 * timer that has run out (the injector has been high for at least its timer, on the injected clock) makes it
 * low; else OCC at or above the high mark makes it low; else OCC at or below the low mark makes it high (the
 * timer restarts); in between it keeps its priority. The injector is also evaluated whenever it is considered
 * for selection: an expired timer demotes it there (it loses that selection), and a demoted injector whose OCC
 * is at or below its low mark is judged by its marks again at the next consideration. So a timer demotion
 * sticks while the OCC sits between the marks (it ends the advantage hysteresis gave it) and never strands an
 * idle injector. {@link #reset} makes every injector high.
 * <p>
 * <b>Selection</b> (Fig. 4B), one packet per {@link #select}:
 * <ol>
 * <li>among the enabled buffer classes (one of its injectors has a packet ready that fits in the cells the
 * class has available: reserved plus its share of the shared pool), weighted round robin counted in cells:
 * the class under the pointer keeps the turn while its credit is positive; each packet subtracts its cells
 * (the last may overdraw, the debt carries into the next turn, so packet size cannot skew the shares); a new
 * turn adds the class's weight; a class found not enabled forfeits a positive credit;</li>
 * <li>within the class, a high-priority injector with a packet ready, else a low-priority one; among equals
 * the first from the class's start point: after the previously chosen injector (round robin, the default) or
 * the class's first injector (first available). If the chosen injector's packet does not fit in the cells its
 * class has available, it is refused (a <em>stall</em>), the class counts as not enabled for this selection
 * and, under round robin, the injector keeps its place at the head of the class: smaller packets of its class
 * cannot overtake it for ever. With every class's reserved cells at least the cells of its largest packet
 * (the default: 17 cells of 256 bytes, a 4096-byte MTU packet with headers), no injector waits unboundedly.</li>
 * </ol>
 * The chosen injector's cells are claimed at once; its packet is then consumed (call {@link #ready} for its
 * next packet).
 * <p>
 * Figures: OCC per injector and IDC cells apart, cells per class (from the {@link CellBuffer}), priority
 * changes, timer demotions, stalls (the injector chosen within its class had a packet ready and was refused
 * because its class lacked cells), cells injected per class and each class's share.
 * <p>
 * Single-threaded (the injecting thread of the {@link CellBuffer} contract), allocation-free after
 * construction. OCC changes reach the arbiter through {@link CellBuffer#reclaim}'s handler ({@link #select}
 * passes itself), so reclaim a buffer shared with an arbiter through the arbiter (or with it as the handler).
 * <p>
 * <b>Implementation.</b> Per class, bitmasks over the class's injectors (one {@code long} per 64): ready,
 * high priority, and "demoted by its timer" (the only low injectors a consideration may promote). Stage 2
 * visits only ready injectors that are high or timer-demoted, from the start point, with
 * {@link Long#numberOfTrailingZeros}: the same injectors, in the same order, with the same side effects as a
 * scan of every member, because a consideration changes nothing for any other injector.
 */
public final class InjectorArbiter implements CellBuffer.ReleaseHandler
{
    /** Returned by {@link #select} when no injector can inject. */
    public static final int NONE = -1;

    private final CellBuffer cells;
    private final int injectors;
    private final int classes;
    private final int[] injectorClass;
    private final int[] ownLow;
    private final int[] ownHigh;
    private final int idcLow;
    private final int idcHigh;
    private final long[] timerNs;
    private final int[] classWeight;
    private final boolean[] roundRobin;

    // per class: its injectors in class order, and where its words start in the bitmasks
    private final int[][] classMembers;
    private final int[] members;
    private final int[] memberBase;
    private final int[] memberCount;
    private final int[] wordBase;
    private final boolean[] singleWord;
    // per injector: its word in the class bitmasks << 6 | its bit there (1L << slot: a shift takes the low 6 bits)
    private final int[] slot;
    private final long[] readyBits;
    private final long[] highBits;
    private final long[] timerLowBits;

    // per injector: the marks of its current command, its command, when it became high, its packet
    private final int[] lowMark;
    private final int[] highMark;
    private final boolean[] idc;
    private final long[] highSince;
    private final int[] readySize;

    private final int[] classStart;
    private final long[] classCredit;
    private final long[] refusedStamp;
    private long selections;
    private int classPointer;
    private long now;

    private int claimedCell = CellBuffer.NO_CELL;
    private int claimedSize;
    private long priorityChanges;
    private long timerDemotions;
    private final long[] stalls;
    private long totalStalls;
    private final long[] classInjected;

    /**
     * Every injector starts high priority with its timer started at time 0 and DMA marks (call {@link #reset}
     * to start the timers at another time, {@link #command} for IDC).
     *
     * @param config marks, timers, classes, weights and policies.
     * @param cells  the buffer the injectors share (built from the same config).
     */
    public InjectorArbiter(final InjectionConfig config, final CellBuffer cells)
    {
        this.cells = cells;
        injectors = config.injectors;
        classes = config.classes;
        injectorClass = config.injectorClass.clone();
        ownLow = config.lowMark.clone();
        ownHigh = config.highMark.clone();
        idcLow = config.idcLowMark;
        idcHigh = config.idcHighMark;
        timerNs = config.priorityTimerNs.clone();
        classWeight = config.classWeight.clone();
        roundRobin = new boolean[classes];
        memberCount = new int[classes];
        for (int i = 0; i < injectors; i++)
        {
            memberCount[injectorClass[i]]++;
        }
        classMembers = new int[classes][];
        wordBase = new int[classes];
        singleWord = new boolean[classes];
        int words = 0;
        for (int c = 0; c < classes; c++)
        {
            classMembers[c] = new int[memberCount[c]];
            wordBase[c] = words;
            singleWord[c] = memberCount[c] <= 64;
            words += Math.max(1, (memberCount[c] + 63) >>> 6);
            roundRobin[c] = config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN;
        }
        slot = new int[injectors];
        members = new int[injectors];
        memberBase = new int[classes];
        for (int c = 1; c < classes; c++)
        {
            memberBase[c] = memberBase[c - 1] + memberCount[c - 1];
        }
        final int[] position = new int[classes];
        for (int i = 0; i < injectors; i++)
        {
            final int c = injectorClass[i];
            final int p = position[c]++;
            classMembers[c][p] = i;
            members[memberBase[c] + p] = i;
            slot[i] = (wordBase[c] + (p >>> 6)) << 6 | (p & 63);
        }
        readyBits = new long[words];
        highBits = new long[words];
        timerLowBits = new long[words];

        lowMark = ownLow.clone();
        highMark = ownHigh.clone();
        idc = new boolean[injectors];
        highSince = new long[injectors];
        readySize = new int[injectors];
        classStart = new int[classes];
        classCredit = new long[classes];
        refusedStamp = new long[classes];
        stalls = new long[injectors];
        classInjected = new long[classes];
        for (int i = 0; i < injectors; i++)
        {
            highBits[slot[i] >>> 6] |= 1L << slot[i];
        }
        classCredit[0] = classWeight[0];
    }

    /**
     * Reset (seed 004: a reset makes every injector high priority); timers restart at {@code nowNs}.
     *
     * @param nowNs the injected clock.
     */
    public void reset(final long nowNs)
    {
        now = nowNs;
        for (int i = 0; i < injectors; i++)
        {
            if (!isHigh(i))
            {
                raise(i);
                priorityChanges++;
            }
            highSince[i] = nowNs;
        }
    }

    /**
     * The injector starts a command; its water marks follow the command type.
     *
     * @param injector which.
     * @param isIdc    true for immediate data (the global marks), false for DMA (its own marks).
     */
    public void command(final int injector, final boolean isIdc)
    {
        if (idc[injector] != isIdc)
        {
            idc[injector] = isIdc;
            lowMark[injector] = isIdc ? idcLow : ownLow[injector];
            highMark[injector] = isIdc ? idcHigh : ownHigh[injector];
            evaluate(injector);
        }
    }

    /**
     * The injector has its next packet ready.
     *
     * @param injector which.
     * @param size     the packet's bytes (> 0).
     */
    public void ready(final int injector, final int size)
    {
        if (size <= 0)
        {
            throw new IllegalArgumentException("packet size must be > 0: " + size);
        }
        readySize[injector] = size;
        final int at = slot[injector];
        readyBits[at >>> 6] |= 1L << at;
    }

    /**
     * The injector has no packet ready (any announced one is withdrawn).
     *
     * @param injector which.
     */
    public void idle(final int injector)
    {
        final int at = slot[injector];
        readySize[injector] = 0;
        readyBits[at >>> 6] &= ~(1L << at);
    }

    /**
     * Choose the injector of the next packet and claim its cells: reclaims freed cells first, then the two
     * stages. The packet's first cell is {@link #claimedCell()}, its size {@link #claimedSize()}.
     *
     * @param nowNs the injected clock (for the priority timers).
     * @return the injector, or {@link #NONE} when no injector has a packet that fits.
     */
    public int select(final long nowNs)
    {
        now = nowNs;
        final CellBuffer cells = this.cells;
        final int returned = cells.returned();
        if (returned != 0)
        {
            // the reclaim, with this arbiter as its handler: each packet's injector re-evaluated as its OCC drops
            for (int k = 0; k < returned; k++)
            {
                evaluate(cells.reclaimOne());
            }
            cells.reclaimed();
        }
        claimedCell = CellBuffer.NO_CELL;
        final int c = classPointer;
        if (classCredit[c] > 0 && singleWord[c])
        {
            // the common case: the class under the pointer has credit and at most 64 injectors; its first
            // candidate (ready, and high or timer-demoted) from the start point is chosen at once when it is high
            // with its timer running and its packet fits. Nothing has changed yet otherwise: the full path decides
            final int w = wordBase[c];
            final long high = highBits[w];
            final long candidates = readyBits[w] & (high | timerLowBits[w]);
            if (candidates != 0)
            {
                final long after = candidates & (-1L << classStart[c]);
                final int q = Long.numberOfTrailingZeros(after != 0 ? after : candidates);
                final int i = members[memberBase[c] + q];
                if ((high & (1L << q)) != 0 && nowNs - highSince[i] < timerNs[i])
                {
                    final int size = readySize[i];
                    final int used = cells.cellsFor(size);
                    if (cells.fits(c, used))
                    {
                        if (roundRobin[c])
                        {
                            classStart[c] = q + 1 == memberCount[c] ? 0 : q + 1;
                        }
                        injectHigh(c, w, 1L << q, i, size, used);
                        return i;
                    }
                }
            }
        }
        return anyReady() ? selectFrom(c, ++selections) : NONE;
    }

    /**
     * {@link #inject} for the fast path's injector: high with its timer running at this {@code now}, so its
     * evaluation after the claim (timer, then marks) can only find its OCC at or above the high mark.
     */
    private void injectHigh(final int c, final int w, final long bit, final int injector, final int size, final int used)
    {
        final CellBuffer cells = this.cells;
        claimedCell = cells.take(injector, c, used, idc[injector]);
        claimedSize = size;
        readyBits[w] &= ~bit;
        classInjected[c] += used;
        final long credit = classCredit[c] - used;
        classCredit[c] = credit;
        if (credit <= 0)
        {
            final int next = c + 1 == classes ? 0 : c + 1;
            classPointer = next;
            classCredit[next] += classWeight[next];
        }
        if (cells.occ(injector) >= highMark[injector])
        {
            // a high injector's timer-demoted bit is clear already
            highBits[w] &= ~bit;
            priorityChanges++;
        }
    }

    /** @return true when any injector has a packet ready. */
    private boolean anyReady()
    {
        for (final long bits : readyBits)
        {
            if (bits != 0)
            {
                return true;
            }
        }
        return false;
    }

    /**
     * The weighted round robin from class {@code c}: each class is refused at most once per selection; a class in
     * debt gets its weight on every visit, so the loop ends with an injection or when every class was refused.
     */
    private int selectFrom(final int start, final long stamp)
    {
        final long[] classCredit = this.classCredit;
        final int classes = this.classes;
        int refused = 0;
        int c = start;
        while (refused < classes)
        {
            if (refusedStamp[c] == stamp)
            {
                // already refused in this selection: not examined again (one stall per selection), no surplus
                if (classCredit[c] > 0)
                {
                    classCredit[c] = 0;
                }
            }
            else if (classCredit[c] > 0)
            {
                final int injector = anyReady(c) ? chooseWithin(c) : NONE;
                if (injector != NONE)
                {
                    inject(c, injector, cells.cellsFor(readySize[injector]));
                    return injector;
                }
                // not enabled: forfeit a surplus, keep a debt
                classCredit[c] = 0;
                refusedStamp[c] = stamp;
                refused++;
            }
            c = c + 1 == classes ? 0 : c + 1;
            classPointer = c;
            classCredit[c] += classWeight[c];
        }
        return NONE;
    }

    private boolean anyReady(final int c)
    {
        final int base = wordBase[c];
        final int end = base + Math.max(1, (memberCount[c] + 63) >>> 6);
        for (int w = base; w < end; w++)
        {
            if (readyBits[w] != 0)
            {
                return true;
            }
        }
        return false;
    }

    private int chooseWithin(final int c)
    {
        final int start = roundRobin[c] ? classStart[c] : 0;
        final int chosen = chooseByScan(c, start);
        if (chosen < 0)
        {
            return NONE;
        }
        final int injector = classMembers[c][chosen];
        final CellBuffer cells = this.cells;
        if (cells.cellsFor(readySize[injector]) > cells.available(c))
        {
            // refused for lack of cells: the class is not enabled, and the injector keeps its place (head of
            // line), so smaller packets of the class cannot starve it while its class's cells drain
            stalls[injector]++;
            totalStalls++;
            if (roundRobin[c])
            {
                classStart[c] = chosen;
            }
            return NONE;
        }
        if (roundRobin[c])
        {
            classStart[c] = chosen + 1 == memberCount[c] ? 0 : chosen + 1;
        }
        return injector;
    }

    /**
     * Stage 2 in full: the ready injectors from the start point in order, each refreshed when visited, until one is
     * high; else the first ready one.
     */
    private int chooseByScan(final int c, final int start)
    {
        final int n = memberCount[c];
        // a high-priority ready injector in order from the start point (each one visited is refreshed first)
        int chosen = firstHigh(c, start, n);
        if (chosen < 0 && start > 0)
        {
            chosen = firstHigh(c, 0, start);
        }
        if (chosen < 0)
        {
            // every ready injector is low now: the first one from the start point
            chosen = nextSet(c, start, n, false);
            if (chosen < 0 && start > 0)
            {
                chosen = nextSet(c, 0, start, false);
            }
        }
        return chosen;
    }

    /**
     * The first position in [from, to) of class {@code c} whose injector is ready and high after its refresh:
     * only ready injectors that are high or timer-demoted can be, and a refresh of any other changes nothing.
     */
    private int firstHigh(final int c, final int from, final int to)
    {
        int p = from;
        while (p < to)
        {
            final int q = nextSet(c, p, to, true);
            if (q < 0)
            {
                return -1;
            }
            final int i = classMembers[c][q];
            refresh(i);
            if ((highBits[slot[i] >>> 6] & (1L << slot[i])) != 0)
            {
                return q;
            }
            p = q + 1;
        }
        return -1;
    }

    /**
     * The first position in [from, to) of class {@code c} with its bit set: in the ready bits, or with
     * {@code candidates} in ready and (high or timer-demoted).
     */
    private int nextSet(final int c, final int from, final int to, final boolean candidates)
    {
        final int base = wordBase[c];
        final int lastWord = (to - 1) >>> 6;
        int w = from >>> 6;
        long bits = bitsAt(base + w, candidates) & (-1L << from);
        while (true)
        {
            if (w == lastWord)
            {
                final int rest = to & 63;
                if (rest != 0)
                {
                    bits &= (1L << rest) - 1;
                }
                return bits == 0 ? -1 : (w << 6) + Long.numberOfTrailingZeros(bits);
            }
            if (bits != 0)
            {
                return (w << 6) + Long.numberOfTrailingZeros(bits);
            }
            w++;
            bits = bitsAt(base + w, candidates);
        }
    }

    private long bitsAt(final int w, final boolean candidates)
    {
        final long ready = readyBits[w];
        return candidates ? ready & (highBits[w] | timerLowBits[w]) : ready;
    }

    /**
     * The injector is being considered: an expired timer demotes it (it loses this selection); a low injector
     * at or below its low mark (only possible after a timer demotion) is judged by its marks again.
     */
    private void refresh(final int i)
    {
        if ((highBits[slot[i] >>> 6] & (1L << slot[i])) != 0)
        {
            if (now - highSince[i] >= timerNs[i])
            {
                demoteByTimer(i);
            }
        }
        else if (cells.occ(i) <= lowMark[i])
        {
            raise(i);
            highSince[i] = now;
            priorityChanges++;
        }
    }

    private void inject(final int c, final int injector, final int used)
    {
        final int size = readySize[injector];
        // stage 2 checked the class has the cells
        claimedCell = cells.take(injector, c, used, idc[injector]);
        claimedSize = size;
        readyBits[slot[injector] >>> 6] &= ~(1L << slot[injector]);
        classInjected[c] += used;
        final long credit = classCredit[c] - used;
        classCredit[c] = credit;
        if (credit <= 0)
        {
            final int next = c + 1 == classes ? 0 : c + 1;
            classPointer = next;
            classCredit[next] += classWeight[next];
        }
        evaluate(injector);
    }

    /**
     * Called by {@link CellBuffer#reclaim}: the injector's OCC dropped.
     *
     * @param injector whose cells were reclaimed.
     */
    @Override
    public void onRelease(final int injector)
    {
        evaluate(injector);
    }

    private void evaluate(final int i)
    {
        // seed 004 Fig. 4A: timer expiry, then the high mark, then the low mark; in between keep. A high injector
        // can only be demoted (timer, high mark), a low one only raised (low mark, below the high mark)
        final int at = slot[i];
        final int w = at >>> 6;
        final long b = 1L << at;
        if ((highBits[w] & b) != 0)
        {
            if (now - highSince[i] >= timerNs[i])
            {
                demoteByTimer(i);
            }
            else if (cells.occ(i) >= highMark[i])
            {
                // a high injector's timer-demoted bit is clear already
                highBits[w] &= ~b;
                priorityChanges++;
            }
        }
        else if (cells.occ(i) <= lowMark[i])
        {
            raise(i);
            highSince[i] = now;
            priorityChanges++;
        }
    }

    private void raise(final int i)
    {
        final int at = slot[i];
        final int w = at >>> 6;
        final long b = 1L << at;
        highBits[w] |= b;
        timerLowBits[w] &= ~b;
    }

    private void demoteByTimer(final int i)
    {
        final int at = slot[i];
        final int w = at >>> 6;
        final long b = 1L << at;
        highBits[w] &= ~b;
        timerLowBits[w] |= b;
        priorityChanges++;
        timerDemotions++;
    }

    /**
     * Advance the injected clock and apply any expired priority timer now (otherwise timers are applied when an
     * injector is evaluated or considered). O(injectors): for figures and tests, not the per-packet path.
     *
     * @param nowNs the injected clock.
     */
    public void tick(final long nowNs)
    {
        now = nowNs;
        for (int i = 0; i < injectors; i++)
        {
            if (isHigh(i) && now - highSince[i] >= timerNs[i])
            {
                demoteByTimer(i);
            }
        }
    }

    /** @return the first cell claimed by the last successful {@link #select}, or {@link CellBuffer#NO_CELL}. */
    public int claimedCell()
    {
        return claimedCell;
    }

    /** @return the size in bytes of the packet claimed by the last successful {@link #select}. */
    public int claimedSize()
    {
        return claimedSize;
    }

    /**
     * @param injector which.
     * @return true when it has high priority.
     */
    public boolean isHigh(final int injector)
    {
        return (highBits[slot[injector] >>> 6] & (1L << slot[injector])) != 0;
    }

    /**
     * @param injector which.
     * @return true when it has a packet ready.
     */
    public boolean isReady(final int injector)
    {
        return (readyBits[slot[injector] >>> 6] & (1L << slot[injector])) != 0;
    }

    /**
     * @param injector which.
     * @return true when its current command is immediate data.
     */
    public boolean isIdc(final int injector)
    {
        return idc[injector];
    }

    /** @return priority changes (either way, timer demotions and resets included). */
    public long priorityChanges()
    {
        return priorityChanges;
    }

    /** @return demotions by the priority timer. */
    public long timerDemotions()
    {
        return timerDemotions;
    }

    /**
     * @param injector which.
     * @return times it had a packet ready but its class lacked the cells.
     */
    public long stalls(final int injector)
    {
        return stalls[injector];
    }

    /** @return stalls of all injectors. */
    public long stalls()
    {
        return totalStalls;
    }

    /**
     * @param bufferClass which.
     * @return cells injected by its injectors.
     */
    public long classInjectedCells(final int bufferClass)
    {
        return classInjected[bufferClass];
    }

    /**
     * @param bufferClass which.
     * @return its fraction of all injected cells (0 when nothing was injected).
     */
    public double classShare(final int bufferClass)
    {
        long total = 0;
        for (final long cells : classInjected)
        {
            total += cells;
        }
        return total == 0 ? 0.0 : (double)classInjected[bufferClass] / total;
    }

    /** @return the buffer. */
    public CellBuffer cells()
    {
        return cells;
    }
}
