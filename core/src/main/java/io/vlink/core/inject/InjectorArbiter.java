package io.vlink.core.inject;

/**
 * Injector arbitration of the HPE patent (docs/injection.md): which injector puts the next packet into the
 * shared {@link CellBuffer}.
 * <p>
 * <b>Priority</b> (the HPE patent, Fig. 4A). Each injector works on one command at a time, immediate data (IDC) or
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
 * <li>buffer classes by weighted round robin counted in cells: the class under the pointer keeps the turn while its
 * credit is positive; each packet subtracts its cells (the last may overdraw, the debt carries into the next turn,
 * so packet size cannot skew the shares); a new turn adds the class's weight; a class with no ready injector forfeits
 * a positive credit;</li>
 * <li>within the class, a high-priority injector with a packet ready, else a low-priority one; among equals the first
 * from the class's start point: after the previously chosen injector (round robin, the default) or the class's first
 * injector (first available).</li>
 * </ol>
 * <b>A class holds its turn for cells.</b> When the chosen injector's packet does not fit in the cells its class has
 * available, the class keeps its turn and its credit until it fits (a <em>stall</em> each selection), and the injector
 * keeps its place at the head of the class: the cells the wire frees go to it, never to a class with smaller packets,
 * so no class and no high-priority injector starves whatever the packet sizes. Meanwhile another class may inject a
 * packet that takes none of the cells the waiting class could use (its own reserved cells, or shared cells beyond the
 * waiting class's shared limit; {@link CellBuffer#fitsBeside}): the buffer is not left idle for a packet that could
 * go. Such a packet is not charged to its class's credit and is counted apart ({@link #besideCells}).
 * {@link InjectionBounds} gives the waits and the share slack this guarantees (docs/injection.md, "Guarantees").
 * <p>
 * The chosen injector's cells are claimed at once; its packet is then consumed (call {@link #ready} for its
 * next packet).
 * <p>
 * Figures: OCC per injector and IDC cells apart, cells per class (from the {@link CellBuffer}), priority
 * changes, timer demotions, stalls (selections in which the injector chosen in the class whose turn it is had a
 * packet ready and its class lacked the cells), cells injected per class (those beside a waiting class apart too) and
 * each class's share.
 * <p>
 * Single-threaded (the injecting thread of the {@link CellBuffer} contract), allocation-free after
 * construction. OCC changes reach the arbiter through {@link CellBuffer#reclaim}'s handler ({@link #select}
 * passes itself), so reclaim a buffer shared with an arbiter through the arbiter (or with it as the handler).
 * <p>
 * <b>Implementation.</b> Per class, bitmasks over the class's injectors (one word per 64): ready, high priority,
 * and "demoted by its timer" (the only low injectors a consideration may promote; cleared when an evaluation finds the
 * OCC above the low mark, which no consideration can then change), the three words of a group side
 * by side in one {@code long[]}. Stage 2 visits only ready injectors that are high or timer-demoted, from the start
 * point, with {@link Long#numberOfTrailingZeros}: the same injectors, in the same order, with the same side effects
 * as a scan of every member, because a consideration changes nothing for any other injector. The state a
 * selection reads is packed by owner (per class: one group of ints and one of longs; per injector: one group of
 * longs and one of ints), so a selection touches a few lines of a few arrays; a ready packet's cells are counted
 * when it is announced. A bit per class says whether it has a ready injector: a selection with none ready answers at
 * once, and stage 1's walk and the search beside a held turn pass the classes with none without their stage 2 (which
 * would find no injector and change nothing).
 */
public final class InjectorArbiter implements CellBuffer.ReleaseHandler
{
    /** Returned by {@link #select} when no injector can inject. */
    public static final int NONE = -1;

    // per word of the class bitmasks: its ready, high and timer-demoted words side by side. The first field of
    // each group here (ready, start, credit, high-since, slot) sits at the group's own index, which is used as it
    // is: an added offset of 0 would be a no-op that no test can tell from a subtracted one
    private static final int HIGH = 1;
    private static final int TIMER_LOW = 2;
    private static final int WORD_STRIDE = 4;

    // per class, ints: round robin start point; its member count under round robin, else 0; its word when it has
    // at most 64 injectors, else -1 (the fast path); first member in members[]; member count; weight; first word
    private static final int WRAP = 1;
    private static final int FAST_WORD = 2;
    private static final int MEMBER_BASE = 3;
    private static final int MEMBER_COUNT = 4;
    private static final int WEIGHT = 5;
    private static final int WORD_BASE = 6;
    private static final int WORDS = 7;
    private static final int CLASS_INTS = 8;
    // per class, longs: credit in cells, the weights it was granted, the cells it injected beside a class waiting for
    // cells (not charged to its credit) and the surplus it forfeited (so the cells it injected are granted - forfeited -
    // credit + beside, with nothing counted per turn packet)
    private static final int GRANTED = 1;
    private static final int BESIDE = 2;
    private static final int FORFEITED = 3;
    private static final int CLASS_LONGS = 4;

    // per injector, longs: when it became high, its priority timer, its ready packet (cells << 32 | bytes), the
    // marks of its current command (high << 32 | low)
    private static final int TIMER = 1;
    private static final int PACKET = 2;
    private static final int MARKS = 3;
    private static final int INJECTOR_LONGS = 4;
    // per injector, ints: its word << 6 | its bit there (1L << slot: a shift takes the low 6 bits); 1 for IDC; its class
    private static final int IDC = 1;
    private static final int CLASS = 2;
    private static final int INJECTOR_INTS = 4;

    private final CellBuffer cells;
    private final int injectors;
    private final int classes;
    private final int cellMask;
    private final int cellShift;
    private final int[] ownLow;
    private final int[] ownHigh;
    private final int idcLow;
    private final int idcHigh;

    private final long[] bits;
    private final int[] classInt;
    private final long[] classLong;
    private final long[] injectorLong;
    private final int[] injectorInt;
    // the injectors of each class in class order, the classes one after the other
    private final int[] members;
    // a bit per class with a ready injector (bit c of word c >>> 6, and a word more than the classes need, so that a
    // search may start past the last class): an idle selection, stage 1's walk and the search beside a waiting class
    // pass the classes that have none
    private final long[] readyClasses;

    private int classPointer;
    // the class where the search for an injection beside a waiting class starts: after the last that injected so (the
    // class count after the last class, which the search takes as 0)
    private int besidePointer;
    private long now;

    private int claimedCell = CellBuffer.NO_CELL;
    private int claimedSize;
    private long priorityChanges;
    private long timerDemotions;
    private final long[] stalls;
    private long totalStalls;

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
        cellMask = config.cellSize - 1;
        cellShift = Integer.numberOfTrailingZeros(config.cellSize);
        final int[] injectorClass = config.injectorClass;
        ownLow = config.lowMark.clone();
        ownHigh = config.highMark.clone();
        idcLow = config.idcLowMark;
        idcHigh = config.idcHighMark;

        classInt = new int[classes * CLASS_INTS];
        classLong = new long[classes * CLASS_LONGS];
        for (int i = 0; i < injectors; i++)
        {
            classInt[injectorClass[i] * CLASS_INTS + MEMBER_COUNT]++;
        }
        int words = 0;
        int base = 0;
        for (int c = 0; c < classes; c++)
        {
            final int k = c * CLASS_INTS;
            final int count = classInt[k + MEMBER_COUNT];
            final boolean roundRobin = config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN;
            final int classWords = Math.max(1, (count + 63) >>> 6);
            classInt[k + WRAP] = roundRobin ? count : 0;
            classInt[k + FAST_WORD] = count <= 64 ? words : -1;
            classInt[k + MEMBER_BASE] = base;
            classInt[k + WEIGHT] = config.classWeight[c];
            classInt[k + WORD_BASE] = words;
            classInt[k + WORDS] = classWords;
            words += classWords;
            base += count;
        }
        bits = new long[words * WORD_STRIDE];
        members = new int[injectors];
        injectorLong = new long[injectors * INJECTOR_LONGS];
        injectorInt = new int[injectors * INJECTOR_INTS];
        final int[] position = new int[classes];
        for (int i = 0; i < injectors; i++)
        {
            final int k = injectorClass[i] * CLASS_INTS;
            final int p = position[injectorClass[i]]++;
            members[classInt[k + MEMBER_BASE] + p] = i;
            final int at = (classInt[k + WORD_BASE] + (p >>> 6)) << 6 | (p & 63);
            injectorInt[i * INJECTOR_INTS] = at;
            injectorInt[i * INJECTOR_INTS + CLASS] = injectorClass[i];
            injectorLong[i * INJECTOR_LONGS + TIMER] = config.priorityTimerNs[i];
            injectorLong[i * INJECTOR_LONGS + MARKS] = marks(ownLow[i], ownHigh[i]);
            bits[(at >>> 6) * WORD_STRIDE + HIGH] |= 1L << at;
        }
        readyClasses = new long[(classes >>> 6) + 1];
        stalls = new long[injectors];
        classLong[0] = config.classWeight[0];
        classLong[GRANTED] = config.classWeight[0];
    }

    private static long marks(final int low, final int high)
    {
        return (long)high << 32 | (low & 0xFFFF_FFFFL);
    }

    /**
     * Reset (the HPE patent: a reset makes every injector high priority); timers restart at {@code nowNs}.
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
            injectorLong[i * INJECTOR_LONGS] = nowNs;
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
        final int k = injector * INJECTOR_INTS + IDC;
        if ((injectorInt[k] != 0) != isIdc)
        {
            injectorInt[k] = isIdc ? 1 : 0;
            injectorLong[injector * INJECTOR_LONGS + MARKS] =
                isIdc ? marks(idcLow, idcHigh) : marks(ownLow[injector], ownHigh[injector]);
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
        // its cells counted once here, not at every selection that looks at it
        injectorLong[injector * INJECTOR_LONGS + PACKET] = (long)((size + cellMask) >>> cellShift) << 32 | size;
        final int ik = injector * INJECTOR_INTS;
        final int at = injectorInt[ik];
        bits[(at >>> 6) * WORD_STRIDE] |= 1L << at;
        final int c = injectorInt[ik + CLASS];
        readyClasses[c >>> 6] |= 1L << c;
    }

    /**
     * The injector has no packet ready (any announced one is withdrawn).
     *
     * @param injector which.
     */
    public void idle(final int injector)
    {
        final int ik = injector * INJECTOR_INTS;
        unready(injectorInt[ik + CLASS], injectorInt[ik]);
    }

    /** The injector at {@code at} (its word and bit) of class {@code c} is no longer ready. */
    private void unready(final int c, final int at)
    {
        final int k = (at >>> 6) * WORD_STRIDE;
        final long word = bits[k] & ~(1L << at);
        bits[k] = word;
        if (word == 0)
        {
            final int ck = c * CLASS_INTS;
            final int base = classInt[ck + WORD_BASE];
            for (int w = base + classInt[ck + WORDS] - 1; w >= base; w--)
            {
                if (bits[w * WORD_STRIDE] != 0)
                {
                    return;
                }
            }
            readyClasses[c >>> 6] &= ~(1L << c);
        }
    }

    /** The fast path's clear of the ready bit {@code bit} at {@code wk} of class {@code c}, whose one word it is. */
    private void unreadyInWord(final int c, final int wk, final long bit)
    {
        final long word = bits[wk] & ~bit;
        bits[wk] = word;
        if (word == 0)
        {
            readyClasses[c >>> 6] &= ~(1L << c);
        }
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
            reclaim(cells, returned);
        }
        final int c = classPointer;
        final int ck = c * CLASS_INTS;
        final int w = classInt[ck + FAST_WORD];
        if (w >= 0 && classLong[c * CLASS_LONGS] > 0)
        {
            // the common case: the class under the pointer has credit and at most 64 injectors; its first
            // candidate (ready, and high or timer-demoted) from the start point is chosen at once when it is high
            // with its timer running and its packet fits. Nothing has changed yet otherwise: the full path decides
            final long[] bits = this.bits;
            final int wk = w * WORD_STRIDE;
            final long high = bits[wk + HIGH];
            final long candidates = bits[wk] & (high | bits[wk + TIMER_LOW]);
            if (candidates != 0)
            {
                final long after = candidates & (-1L << classInt[ck]);
                final int q = Long.numberOfTrailingZeros(after != 0 ? after : candidates);
                final int i = members[classInt[ck + MEMBER_BASE] + q];
                final int ik = i * INJECTOR_LONGS;
                if ((high & (1L << q)) != 0 && nowNs - injectorLong[ik] < injectorLong[ik + TIMER])
                {
                    final long packet = injectorLong[ik + PACKET];
                    final int used = (int)(packet >>> 32);
                    if (cells.fits(c, used))
                    {
                        final int wrap = classInt[ck + WRAP];
                        if (wrap != 0)
                        {
                            classInt[ck] = q + 1 == wrap ? 0 : q + 1;
                        }
                        injectHigh(c, wk, 1L << q, i, (int)packet, used);
                        return i;
                    }
                }
            }
            else if (bits[wk] != 0)
            {
                // every ready injector of the class is low by its marks (not timer-demoted: those are candidates),
                // which a consideration cannot change (its OCC would have been re-evaluated on the way down), so
                // stage 2 takes the first ready one from the start point, as the full path would
                final long ready = bits[wk];
                final long after = ready & (-1L << classInt[ck]);
                return injectLow(c, ck, wk, Long.numberOfTrailingZeros(after != 0 ? after : ready));
            }
        }
        if (nextReadyClass(0) < 0)
        {
            // what the full path would answer, without its visit of every class (an idle port, the end of a burst)
            claimedCell = CellBuffer.NO_CELL;
            return NONE;
        }
        return selectSlowly(c);
    }

    /**
     * The fast path's claim for a low injector at position {@code q} of class {@code c} when its packet fits;
     * otherwise the full path decides (and counts the stall).
     */
    private int injectLow(final int c, final int ck, final int wk, final int q)
    {
        final int i = members[classInt[ck + MEMBER_BASE] + q];
        final long packet = injectorLong[i * INJECTOR_LONGS + PACKET];
        final int used = (int)(packet >>> 32);
        final CellBuffer cells = this.cells;
        if (!cells.fits(c, used))
        {
            // what selectSlowly(c) would find with nothing else to look at: the class under the pointer has credit, and
            // its stage 2 choice is this injector (every ready one is low by its marks, so the scan refreshes none and
            // takes the first ready one from the start point, as here); the packet does not fit: the class holds
            claimedCell = CellBuffer.NO_CELL;
            return holdTurn(c, ck, q, i);
        }
        final int wrap = classInt[ck + WRAP];
        if (wrap != 0)
        {
            classInt[ck] = q + 1 == wrap ? 0 : q + 1;
        }
        claimedCell = cells.take(i, c, used, injectorInt[i * INJECTOR_INTS + IDC] != 0);
        claimedSize = (int)packet;
        unreadyInWord(c, wk, 1L << q);
        charge(c, used);
        // no evaluation: a low injector that is not timer-demoted has its OCC above its low mark (every OCC drop
        // and command change evaluates it), and the claim only raised its OCC, so its priority cannot change
        return i;
    }

    /** The reclaim, with this arbiter as its handler: each packet's injector re-evaluated as its OCC drops. */
    private void reclaim(final CellBuffer cells, final int returned)
    {
        for (int k = 0; k < returned; k++)
        {
            evaluate(cells.reclaimOne());
        }
        cells.reclaimed();
    }

    /**
     * Everything the fast path of {@link #select} does not decide: stage 1's weighted round robin from class
     * {@code start} and stage 2 in full. A class with no credit is passed (the next is granted its weight), a class
     * with no ready injector forfeits a positive credit and is passed; the first class with credit and a ready
     * injector has the turn: its chosen injector's packet is injected when it fits, else the class <em>holds</em> the
     * turn (a stall) and another class may inject beside it: a packet that takes none of the cells the waiting class
     * could use ({@link CellBuffer#fitsBeside}: its own reserved cells, or shared cells beyond the waiting class's
     * shared limit), so the buffer is not left idle. The classes are tried in turn from the one after the last that
     * injected so, each with its stage 2 choice (head of line: a smaller packet behind it does not go); such a packet
     * is not charged to its class's credit (it takes nothing from the turns of the others) and is counted apart
     * ({@link #besideCells}). A class in debt gets its weight on every visit and some class has a ready injector (the
     * caller checked), so the loop ends.
     * <p>
     * One method on purpose: larger than C2's limit for inlining a hot callee ({@code FreqInlineSize}, 325 bytes of
     * bytecode), it is compiled on its own and stays out of {@code select}'s code, whose fast path then has the
     * registers to itself (inlined, this path cost the one-cell selection ~20%).
     */
    private int selectSlowly(final int start)
    {
        claimedCell = CellBuffer.NO_CELL;
        final long[] classLong = this.classLong;
        final int[] classInt = this.classInt;
        int c = start;
        while (true)
        {
            final int k = c * CLASS_LONGS;
            final long credit = classLong[k];
            if (credit > 0)
            {
                if ((readyClasses[c >>> 6] & 1L << c) != 0)
                {
                    final int ck = c * CLASS_INTS;
                    // stage 2: a high-priority ready injector from the start point, else a low one
                    final int chosen = choose(c);
                    final int injector = members[classInt[ck + MEMBER_BASE] + chosen];
                    final int used = (int)(injectorLong[injector * INJECTOR_LONGS + PACKET] >>> 32);
                    if (used <= cells.available(c))
                    {
                        claim(c, chosen, injector);
                        charge(c, used);
                        return injector;
                    }
                    return holdTurn(c, ck, chosen, injector);
                }
                // no ready injector: forfeit the surplus
                classLong[k] = 0;
                classLong[k + FORFEITED] += credit;
            }
            c = c + 1 == classes ? 0 : c + 1;
            classPointer = c;
            grant(c);
        }
    }

    /**
     * The class {@code c} whose turn it is chose {@code injector} (at position {@code chosen}) and its packet does not
     * fit: the class holds its turn and its credit until it fits (the cells it can use are kept for it), and its injector
     * keeps its place (head of line), so nothing of its own class overtakes it. Beside it: the other classes in turn
     * from the one after the last that injected so, each with its stage 2 choice (head of line), the first whose packet
     * takes none of the cells {@code c} could use.
     *
     * @return the injector that injects beside the waiting class, or {@link #NONE}.
     */
    private int holdTurn(final int c, final int ck, final int chosen, final int injector)
    {
        stalls[injector]++;
        totalStalls++;
        if (classInt[ck + WRAP] != 0)
        {
            classInt[ck] = chosen;
        }
        // the classes with a ready injector, in turn from the besidePointer round to it: [from, classes), then [0, from)
        final int from = besidePointer;
        int d = nextReadyClass(from);
        boolean wrapped = false;
        while (true)
        {
            if (d < 0 || wrapped && d >= from)
            {
                if (wrapped)
                {
                    return NONE;
                }
                wrapped = true;
                d = nextReadyClass(0);
            }
            else
            {
                if (d != c)
                {
                    final int other = beside(c, d);
                    if (other != NONE)
                    {
                        return other;
                    }
                }
                d = nextReadyClass(d + 1);
            }
        }
    }

    /**
     * Class {@code d}, which has a ready injector, beside the waiting class {@code c}: its stage 2 choice (head of line)
     * injects when its packet takes none of the cells {@code c} could use.
     *
     * @return the injector that injected, or {@link #NONE}.
     */
    private int beside(final int c, final int d)
    {
        final int next = choose(d);
        final int other = members[classInt[d * CLASS_INTS + MEMBER_BASE] + next];
        final int cells = (int)(injectorLong[other * INJECTOR_LONGS + PACKET] >>> 32);
        if (this.cells.fitsBeside(d, cells, c))
        {
            claim(d, next, other);
            classLong[d * CLASS_LONGS + BESIDE] += cells;
            // the class count after the last class: its search starts in the spare word, finds none and wraps to 0
            besidePointer = d + 1;
            return other;
        }
        return NONE;
    }

    /**
     * Stage 2's choice in class {@code c} from its start point, or -1 when no injector of it is ready. A class of at most
     * 64 injectors is decided off its one word ({@link #chooseInWord}); a larger one by the scan.
     */
    private int choose(final int c)
    {
        final int ck = c * CLASS_INTS;
        final int start = classInt[ck + WRAP] != 0 ? classInt[ck] : 0;
        final int w = classInt[ck + FAST_WORD];
        return w >= 0 ? chooseInWord(c, ck, w * WORD_STRIDE, start) : chooseByScan(c, start);
    }

    /**
     * Stage 2 of a class of at most 64 injectors, the scan's rule on its one word: the ready injectors that are high or
     * timer-demoted (the only ones a consideration can find high) from the start point round to it, each refreshed when
     * visited, until one is high; else (none visited, or every one visited now low) the first ready one from the start
     * point; -1 when none is ready.
     */
    private int chooseInWord(final int c, final int ck, final int wk, final int start)
    {
        final long ready = bits[wk];
        if (ready == 0)
        {
            return -1;
        }
        final long from = -1L << start;
        final long candidates = ready & (bits[wk + HIGH] | bits[wk + TIMER_LOW]);
        final int base = classInt[ck + MEMBER_BASE];
        // from the start point to the end of the word, then from its beginning to the start point
        for (long visit = candidates & from; visit != 0; visit &= visit - 1)
        {
            final int q = Long.numberOfTrailingZeros(visit);
            if (refreshedHigh(members[base + q]))
            {
                return q;
            }
        }
        for (long visit = candidates & ~from; visit != 0; visit &= visit - 1)
        {
            final int q = Long.numberOfTrailingZeros(visit);
            if (refreshedHigh(members[base + q]))
            {
                return q;
            }
        }
        final long after = ready & from;
        return Long.numberOfTrailingZeros(after != 0 ? after : ready);
    }

    /** Stage 2's injection: the start point moves past the chosen one (round robin), its cells are claimed. */
    private void claim(final int c, final int chosen, final int injector)
    {
        final int ck = c * CLASS_INTS;
        if (classInt[ck + WRAP] != 0)
        {
            classInt[ck] = chosen + 1 == classInt[ck + MEMBER_COUNT] ? 0 : chosen + 1;
        }
        final long packet = injectorLong[injector * INJECTOR_LONGS + PACKET];
        claimedCell = cells.take(injector, c, (int)(packet >>> 32), injectorInt[injector * INJECTOR_INTS + IDC] != 0);
        claimedSize = (int)packet;
        unready(c, injectorInt[injector * INJECTOR_INTS]);
        evaluate(injector);
    }

    /**
     * The claim for the fast path's injector: high with its timer running at this {@code now}, so its
     * evaluation after the claim (timer, then marks) can only find its OCC at or above the high mark.
     */
    private void injectHigh(
        final int c, final int wk, final long bit, final int injector, final int size, final int used)
    {
        final CellBuffer cells = this.cells;
        claimedCell = cells.take(injector, c, used, injectorInt[injector * INJECTOR_INTS + IDC] != 0);
        claimedSize = size;
        unreadyInWord(c, wk, bit);
        charge(c, used);
        if (cells.occ(injector) >= (int)(injectorLong[injector * INJECTOR_LONGS + MARKS] >>> 32))
        {
            // a high injector's timer-demoted bit is clear already
            bits[wk + HIGH] &= ~bit;
            priorityChanges++;
        }
    }

    /** Stage 1's accounting of an injection: the class's credit; a spent credit ends its turn. */
    private void charge(final int c, final int used)
    {
        final long[] classLong = this.classLong;
        final int k = c * CLASS_LONGS;
        final long credit = classLong[k] - used;
        classLong[k] = credit;
        if (credit <= 0)
        {
            final int next = c + 1 == classes ? 0 : c + 1;
            classPointer = next;
            grant(next);
        }
    }

    /** A new turn of class {@code c}: its weight is added to its credit. */
    private void grant(final int c)
    {
        final int weight = classInt[c * CLASS_INTS + WEIGHT];
        final int k = c * CLASS_LONGS;
        classLong[k] += weight;
        classLong[k + GRANTED] += weight;
    }

    /** @return the first class from {@code from} on (at most the class count) with a ready injector, or -1. */
    private int nextReadyClass(final int from)
    {
        final long[] readyClasses = this.readyClasses;
        int w = from >>> 6;
        long word = readyClasses[w] & (-1L << from);
        while (word == 0)
        {
            if (++w == readyClasses.length)
            {
                return -1;
            }
            word = readyClasses[w];
        }
        return (w << 6) + Long.numberOfTrailingZeros(word);
    }

    /**
     * Stage 2 in full, over the class's words: the ready injectors from the start point in order, each refreshed when
     * visited, until one is high; else the first ready one; -1 when none is ready.
     */
    private int chooseByScan(final int c, final int start)
    {
        final int n = classInt[c * CLASS_INTS + MEMBER_COUNT];
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
        final int base = classInt[c * CLASS_INTS + MEMBER_BASE];
        int p = from;
        while (p < to)
        {
            final int q = nextSet(c, p, to, true);
            if (q < 0)
            {
                return -1;
            }
            if (refreshedHigh(members[base + q]))
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
        final int base = classInt[c * CLASS_INTS + WORD_BASE];
        final int lastWord = (to - 1) >>> 6;
        int w = from >>> 6;
        long word = bitsAt(base + w, candidates) & (-1L << from);
        while (true)
        {
            if (w == lastWord)
            {
                final int rest = to & 63;
                if (rest != 0)
                {
                    word &= (1L << rest) - 1;
                }
                return word == 0 ? -1 : (w << 6) + Long.numberOfTrailingZeros(word);
            }
            if (word != 0)
            {
                return (w << 6) + Long.numberOfTrailingZeros(word);
            }
            w++;
            word = bitsAt(base + w, candidates);
        }
    }

    private long bitsAt(final int w, final boolean candidates)
    {
        final int k = w * WORD_STRIDE;
        final long ready = bits[k];
        return candidates ? ready & (bits[k + HIGH] | bits[k + TIMER_LOW]) : ready;
    }

    /** @return whether injector {@code i} is high once {@link #refresh refreshed}. */
    private boolean refreshedHigh(final int i)
    {
        refresh(i);
        return isHigh(i);
    }

    /**
     * The injector is being considered: an expired timer demotes it (it loses this selection); a low injector
     * at or below its low mark (only possible after a timer demotion) is judged by its marks again.
     */
    private void refresh(final int i)
    {
        final int ik = i * INJECTOR_LONGS;
        if (isHigh(i))
        {
            if (now - injectorLong[ik] >= injectorLong[ik + TIMER])
            {
                demoteByTimer(i);
            }
        }
        else if (cells.occ(i) <= (int)injectorLong[ik + MARKS])
        {
            raise(i);
            injectorLong[ik] = now;
            priorityChanges++;
        }
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
        // HPE patent, Fig. 4A: timer expiry, then the high mark, then the low mark; in between keep. A high injector
        // can only be demoted (timer, high mark), a low one only raised (low mark, below the high mark)
        final int at = injectorInt[i * INJECTOR_INTS];
        final int wk = (at >>> 6) * WORD_STRIDE;
        final long b = 1L << at;
        final long[] bits = this.bits;
        final long[] injectorLong = this.injectorLong;
        final int ik = i * INJECTOR_LONGS;
        final long marks = injectorLong[ik + MARKS];
        if ((bits[wk + HIGH] & b) != 0)
        {
            if (now - injectorLong[ik] >= injectorLong[ik + TIMER])
            {
                demoteByTimer(i);
            }
            else if (cells.occ(i) >= (int)(marks >>> 32))
            {
                // a high injector's timer-demoted bit is clear already
                bits[wk + HIGH] &= ~b;
                priorityChanges++;
            }
        }
        else if (cells.occ(i) <= (int)marks)
        {
            bits[wk + HIGH] |= b;
            bits[wk + TIMER_LOW] &= ~b;
            injectorLong[ik] = now;
            priorityChanges++;
        }
        else
        {
            // low with its OCC above its low mark: no consideration can raise it now (only an OCC drop or a command
            // change, which evaluate it), so a timer demotion stops making it a candidate of stage 2's visit
            bits[wk + TIMER_LOW] &= ~b;
        }
    }

    private void raise(final int i)
    {
        final int at = injectorInt[i * INJECTOR_INTS];
        final int wk = (at >>> 6) * WORD_STRIDE;
        final long b = 1L << at;
        bits[wk + HIGH] |= b;
        bits[wk + TIMER_LOW] &= ~b;
    }

    private void demoteByTimer(final int i)
    {
        final int at = injectorInt[i * INJECTOR_INTS];
        final int wk = (at >>> 6) * WORD_STRIDE;
        final long b = 1L << at;
        bits[wk + HIGH] &= ~b;
        bits[wk + TIMER_LOW] |= b;
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
            final int ik = i * INJECTOR_LONGS;
            if (isHigh(i) && now - injectorLong[ik] >= injectorLong[ik + TIMER])
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
        final int at = injectorInt[injector * INJECTOR_INTS];
        return (bits[(at >>> 6) * WORD_STRIDE + HIGH] & (1L << at)) != 0;
    }

    /**
     * @param injector which.
     * @return true when it has a packet ready.
     */
    public boolean isReady(final int injector)
    {
        final int at = injectorInt[injector * INJECTOR_INTS];
        return (bits[(at >>> 6) * WORD_STRIDE] & (1L << at)) != 0;
    }

    /**
     * @param injector which.
     * @return true when its current command is immediate data.
     */
    public boolean isIdc(final int injector)
    {
        return injectorInt[injector * INJECTOR_INTS + IDC] != 0;
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
     * @return selections in which it was chosen at its class's turn and its class lacked the cells (the class held its
     * turn).
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
        final int k = bufferClass * CLASS_LONGS;
        return classLong[k + GRANTED] - classLong[k + FORFEITED] - classLong[k] + classLong[k + BESIDE];
    }

    /**
     * @param bufferClass which.
     * @return cells its injectors injected beside another class that held its turn waiting for cells (in cells that
     * class could not use; part of {@link #classInjectedCells}, not charged to its turns).
     */
    public long besideCells(final int bufferClass)
    {
        return classLong[bufferClass * CLASS_LONGS + BESIDE];
    }

    /**
     * @param bufferClass which.
     * @return its fraction of all injected cells (0 when nothing was injected).
     */
    public double classShare(final int bufferClass)
    {
        long total = 0;
        for (int c = 0; c < classes; c++)
        {
            total += classInjectedCells(c);
        }
        return total == 0 ? 0.0 : (double)classInjectedCells(bufferClass) / total;
    }

    /** @return the buffer. */
    public CellBuffer cells()
    {
        return cells;
    }
}
