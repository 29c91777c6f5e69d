package io.vlink.core.credit;

import java.util.Arrays;

/**
 * When each data VL needs a flow-control packet (docs/flow-control.md, "FCPs"; IBA flow control "Frequency of FCP
 * Transmission"), on a clock the caller reads once per duty cycle and passes in.
 * <ul>
 *   <li><b>Periodic:</b> an FCP for every data VL at least once per period, by default 65,536 symbol times at the
 *   link's data rate ({@link LineRate}): 5.24 us at 4x EDR. The period restarts whenever an FCP for the VL goes
 *   out, so a VL sending early FCPs sends no extra periodic ones.</li>
 *   <li><b>Early:</b> as soon as the VL's FCCL has moved at least {@code earlyThresholdBlocks} past the FCCL of
 *   its last FCP. FCCL moves when the upper layer frees space (and, while more than 2048 blocks are free, as
 *   blocks arrive): this is "space freed that matters", the credit the peer does not know about yet, so a
 *   receiver that drains quickly re-opens the window at once.</li>
 *   <li>When the link comes up ({@link #reset(long)}) or changes the Op it sends ({@link #makeAllDue(long)}),
 *   every VL is due at once.</li>
 * </ul>
 * Use, once per duty cycle: {@code while ((vl = schedule.poll(nowNs)) != NONE) { send the FCP for vl;
 * schedule.onFcpSent(vl, nowNs, fccl); }}. A VL left unsent stays due. {@link #poll(long)} starts its scan one
 * VL after the last one it returned, so VLs due together take turns. Once a scan finds nothing, polls answer at
 * once, without reading any FCCL, until the earliest period ends or the source's {@link FcclSource#changes()} moves:
 * an idle duty cycle costs a comparison. When the count moves first, a poll reads only the FCCLs of the VLs that
 * moved ({@link FcclSource#takeChangedVls()}): a packet received or released costs one VL's check, not every VL's.
 * Single-threaded and allocation-free.
 */
public final class FcpSchedule
{
    /** {@link #poll(long)}: no VL needs an FCP now. */
    public static final int NONE = -1;
    /** Early-FCP threshold by default: one 4 KB packet's worth of credit. */
    public static final int DEFAULT_EARLY_THRESHOLD_BLOCKS = 64;

    private final int dataVls;
    private final long periodNs;
    private final int earlyThresholdBlocks;
    private final FcclSource fcclSource;
    private final long[] dueNs;
    private final int[] advertisedFccl;
    private int nextVl;
    // after a full scan found nothing: the earliest due time and the source's change count it saw. Until the clock
    // reaches that time or the count moves, no VL can be due, and poll answers without reading any FCCL.
    private boolean quiet;
    private long quietUntilNs;
    private long quietChanges;
    // the VLs whose FCCL may have moved since that scan and that no poll has read since (a superset is safe): when
    // the count moves before that time, only these can be due
    private int changedVls;

    /**
     * @param dataVls              the port's data VLs: 1, 2, 4, 8 or 15.
     * @param periodNs             the longest gap between two FCPs for one VL, in ns (see {@link #periodNs(LineRate)}).
     * @param earlyThresholdBlocks FCCL advance that sends an FCP early: 1..2048 blocks.
     * @param fcclSource           each VL's current FCCL, normally the port's {@link CreditReceiver}.
     */
    public FcpSchedule(
        final int dataVls, final long periodNs, final int earlyThresholdBlocks, final FcclSource fcclSource)
    {
        this.dataVls = Credits.requireDataVls(dataVls);
        if (periodNs <= 0)
        {
            throw new IllegalArgumentException("FCP period must be positive: " + periodNs + " ns");
        }
        if (earlyThresholdBlocks < 1 || earlyThresholdBlocks > Credits.MAX_CREDIT)
        {
            throw new IllegalArgumentException("early FCP threshold must be 1..2048 blocks: " + earlyThresholdBlocks);
        }
        this.periodNs = periodNs;
        this.earlyThresholdBlocks = earlyThresholdBlocks;
        this.fcclSource = fcclSource;
        dueNs = new long[dataVls];
        advertisedFccl = new int[dataVls];
    }

    /**
     * @param rate the link's rate.
     * @return 65,536 symbol times at that rate, in ns: the longest an FCP may wait.
     */
    public static long periodNs(final LineRate rate)
    {
        return rate.nanosOf(LineRate.FCP_INTERVAL_SYMBOLS);
    }

    public long periodNs()
    {
        return periodNs;
    }

    public int earlyThresholdBlocks()
    {
        return earlyThresholdBlocks;
    }

    /**
     * The link came up: every VL is due now, and nothing has been advertised yet.
     *
     * @param nowNs the clock.
     */
    public void reset(final long nowNs)
    {
        Arrays.fill(advertisedFccl, 0);
        makeAllDue(nowNs);
        nextVl = 0;
    }

    /**
     * Every VL is due now (the Op changed: the peer should learn at once).
     *
     * @param nowNs the clock.
     */
    public void makeAllDue(final long nowNs)
    {
        Arrays.fill(dueNs, nowNs);
        quiet = false;
    }

    /**
     * @param nowNs the clock, read once per duty cycle.
     * @return a data VL that needs an FCP now, or {@link #NONE}.
     */
    public int poll(final long nowNs)
    {
        final long changes = fcclSource.changes();
        if (quiet && nowNs - quietUntilNs < 0 && FcclSource.UNCOUNTED != changes)
        {
            return changes == quietChanges ? NONE : pollChanged(changes);
        }
        // this scan reads every VL: what moved so far needs no other read (until a scan finds nothing the polls stay
        // here: the schedule is not quiet, or the clock, which only moves forward, has passed the quiet's end)
        fcclSource.takeChangedVls();
        int vl = nextVl;
        long earliestNs = dueNs[vl];
        for (int i = 0; i < dataVls; i++)
        {
            final long due = dueNs[vl];
            if (nowNs - due >= 0 ||
                ((fcclSource.fccl(vl) - advertisedFccl[vl]) & Credits.MASK) >= earlyThresholdBlocks)
            {
                nextVl = vl + 1 == dataVls ? 0 : vl + 1;
                return vl;
            }
            if (due - earliestNs < 0)
            {
                earliestNs = due;
            }
            vl = vl + 1 == dataVls ? 0 : vl + 1;
        }
        // nothing until the earliest period ends or an FCCL moves (the fields above are reset when an FCP goes out or
        // every VL is made due; a VL returned but left unsent stays due because the clock only moves forward and
        // the change count it was returned for differs from the one recorded here)
        quiet = true;
        quietUntilNs = earliestNs;
        quietChanges = changes;
        changedVls = 0;
        return NONE;
    }

    /**
     * A poll between a scan that found nothing and the earliest period's end, after the source's change count moved:
     * no period ends before then, and a VL whose FCCL did not move is as that scan found it, so only the VLs whose
     * FCCL moved are read, in the same order as a whole scan (from the VL after the last one returned). Each read and
     * found not due is forgotten; the one returned is kept, as a VL left unsent stays due.
     */
    private int pollChanged(final long changes)
    {
        int vls = (changedVls | fcclSource.takeChangedVls()) & ((1 << dataVls) - 1);
        changedVls = vls;
        // bits from nextVl up first, then the ones below it
        final int from = vls & (-1 << nextVl);
        vls = 0 != from ? from : vls;
        while (0 != vls)
        {
            final int vl = Integer.numberOfTrailingZeros(vls);
            if (((fcclSource.fccl(vl) - advertisedFccl[vl]) & Credits.MASK) >= earlyThresholdBlocks)
            {
                nextVl = vl + 1 == dataVls ? 0 : vl + 1;
                return vl;
            }
            changedVls &= ~(1 << vl);
            vls &= vls - 1;
            if (0 == vls)
            {
                vls = changedVls;
            }
        }
        quietChanges = changes;
        return NONE;
    }

    /**
     * An FCP for the VL went out: its period restarts and its FCCL is what the peer now knows.
     *
     * @param vl    the data VL.
     * @param nowNs the clock.
     * @param fccl  the FCCL the FCP carried.
     */
    public void onFcpSent(final int vl, final long nowNs, final int fccl)
    {
        dueNs[vl] = nowNs + periodNs;
        advertisedFccl[vl] = fccl & Credits.MASK;
        quiet = false;
    }

    /**
     * @param vl the data VL.
     * @return when its next periodic FCP is due, in the clock's ns.
     */
    public long dueNs(final int vl)
    {
        return dueNs[vl];
    }

    /**
     * @param vl the data VL.
     * @return the FCCL of its last FCP.
     */
    public int advertisedFccl(final int vl)
    {
        return advertisedFccl[vl];
    }
}
