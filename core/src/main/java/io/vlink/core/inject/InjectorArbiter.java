package io.vlink.core.inject;

import java.util.Arrays;

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
 * construction.
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
    private final int[][] classMembers;
    private final int[] classWeight;
    private final boolean[] roundRobin;

    private final boolean[] idc;
    private final boolean[] high;
    private final long[] highSince;
    private final int[] readySize;
    private final int[] classReady;
    private final int[] classStart;
    private final long[] classCredit;
    private final long[] refusedStamp;
    private long selections;
    private int classPointer;
    private int readyCount;
    private long now;

    private int claimedCell = CellBuffer.NO_CELL;
    private int claimedSize;
    private long priorityChanges;
    private long timerDemotions;
    private final long[] stalls;
    private long totalStalls;
    private final long[] classInjected;
    private long totalInjected;

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
        final int[] members = new int[classes];
        for (int i = 0; i < injectors; i++)
        {
            members[injectorClass[i]]++;
        }
        classMembers = new int[classes][];
        for (int c = 0; c < classes; c++)
        {
            classMembers[c] = new int[members[c]];
            members[c] = 0;
            roundRobin[c] = config.policy[c] == InjectionConfig.Policy.ROUND_ROBIN;
        }
        for (int i = 0; i < injectors; i++)
        {
            final int c = injectorClass[i];
            classMembers[c][members[c]++] = i;
        }

        idc = new boolean[injectors];
        high = new boolean[injectors];
        highSince = new long[injectors];
        readySize = new int[injectors];
        classReady = new int[classes];
        classStart = new int[classes];
        classCredit = new long[classes];
        refusedStamp = new long[classes];
        stalls = new long[injectors];
        classInjected = new long[classes];
        Arrays.fill(high, true);
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
            if (!high[i])
            {
                high[i] = true;
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
        if (readySize[injector] == 0)
        {
            classReady[injectorClass[injector]]++;
            readyCount++;
        }
        readySize[injector] = size;
    }

    /**
     * The injector has no packet ready (any announced one is withdrawn).
     *
     * @param injector which.
     */
    public void idle(final int injector)
    {
        if (readySize[injector] != 0)
        {
            readySize[injector] = 0;
            classReady[injectorClass[injector]]--;
            readyCount--;
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
        cells.reclaim(this);
        claimedCell = CellBuffer.NO_CELL;
        if (readyCount == 0)
        {
            return NONE;
        }
        // each class is refused at most once per selection; a class in debt gets its weight on every visit,
        // so the loop ends: with an injection, or when every class has been refused
        final long stamp = ++selections;
        int refused = 0;
        int c = classPointer;
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
                final int injector = classReady[c] == 0 ? NONE : chooseWithin(c);
                if (injector != NONE)
                {
                    inject(c, injector);
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

    private int chooseWithin(final int c)
    {
        final int[] members = classMembers[c];
        final int n = members.length;
        final int start = roundRobin[c] ? classStart[c] : 0;
        int chosen = -1;
        int firstLow = -1;
        for (int k = 0; k < n; k++)
        {
            int p = start + k;
            if (p >= n)
            {
                p -= n;
            }
            final int i = members[p];
            if (readySize[i] == 0)
            {
                continue;
            }
            refresh(i);
            if (high[i])
            {
                chosen = p;
                break;
            }
            if (firstLow < 0)
            {
                firstLow = p;
            }
        }
        if (chosen < 0)
        {
            chosen = firstLow;
        }
        if (chosen < 0)
        {
            return NONE;
        }
        final int injector = members[chosen];
        if (cells.cellsFor(readySize[injector]) > cells.available(c))
        {
            // refused for lack of cells: the class is not enabled, and the injector keeps its place (head of
            // line), so smaller packets of the class cannot starve it while its class's cells drain
            stalls[injector]++;
            totalStalls++;
            classStart[c] = chosen;
            return NONE;
        }
        classStart[c] = chosen + 1 == n ? 0 : chosen + 1;
        return injector;
    }

    /**
     * The injector is being considered: an expired timer demotes it (it loses this selection); a low injector
     * at or below its low mark (only possible after a timer demotion) is judged by its marks again.
     */
    private void refresh(final int i)
    {
        if (high[i])
        {
            if (now - highSince[i] >= timerNs[i])
            {
                demoteByTimer(i);
            }
        }
        else if (cells.occ(i) <= (idc[i] ? idcLow : ownLow[i]))
        {
            high[i] = true;
            highSince[i] = now;
            priorityChanges++;
        }
    }

    private void inject(final int c, final int injector)
    {
        final int size = readySize[injector];
        final int used = cells.cellsFor(size);
        // stage 2 checked the class has the cells
        final int first = cells.take(injector, c, used, idc[injector]);
        claimedCell = first;
        claimedSize = size;
        readySize[injector] = 0;
        classReady[c]--;
        readyCount--;
        classInjected[c] += used;
        totalInjected += used;
        classCredit[c] -= used;
        if (classCredit[c] <= 0)
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
        // seed 004 Fig. 4A: timer expiry, then the high mark, then the low mark; in between keep
        if (high[i] && now - highSince[i] >= timerNs[i])
        {
            demoteByTimer(i);
            return;
        }
        final int occ = cells.occ(i);
        final boolean isIdc = idc[i];
        if (occ >= (isIdc ? idcHigh : ownHigh[i]))
        {
            if (high[i])
            {
                high[i] = false;
                priorityChanges++;
            }
        }
        else if (occ <= (isIdc ? idcLow : ownLow[i]))
        {
            if (!high[i])
            {
                high[i] = true;
                highSince[i] = now;
                priorityChanges++;
            }
        }
    }

    private void demoteByTimer(final int i)
    {
        high[i] = false;
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
            if (high[i] && now - highSince[i] >= timerNs[i])
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
        return high[injector];
    }

    /**
     * @param injector which.
     * @return true when it has a packet ready.
     */
    public boolean isReady(final int injector)
    {
        return readySize[injector] != 0;
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
        return totalInjected == 0 ? 0.0 : (double)classInjected[bufferClass] / totalInjected;
    }

    /** @return the buffer. */
    public CellBuffer cells()
    {
        return cells;
    }
}
