package io.vlink.core.arb;

import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.qos.VlArbTable;
import io.vlink.core.wire.Sizes;

import java.util.Objects;

/**
 * The VL arbiter: decides, at each packet boundary, what goes on the wire next (spec
 * docs/arbitration.md; IBA VL arbitration, "Detailed Description of VL Arbitration"; OpenSM's manual).
 * <ol>
 *     <li>VL15 (never credit-checked), then flow-control packets, then data VLs; preemptive between packets.</li>
 *     <li>A port with one data VL sends VL0 whenever it has a packet and credits ({@code from=single}).</li>
 *     <li>Otherwise the high and low VLArbitration tables, each with a pointer and a remaining weight, the
 *     high-priority counter in dwords ({@code VLHighLimit * 1024}; 0 = one packet, 255 = unbounded), weight
 *     overdraw, invalid entries skipped (never remapped), a low turn under the {@code weight} burst policy,
 *     and work conservation (step 4).</li>
 * </ol>
 * <p>
 * Use: call {@link #next()} once per packet boundary. It asks the {@link ArbiterSource} given at construction,
 * decides, <em>charges</em> the chosen packet against the tables and the counter, and returns a grant code:
 * <ul>
 *     <li>{@link #GRANT_VL15}: the caller MUST send one VL15 packet now.</li>
 *     <li>{@link #GRANT_FCP}: the caller MUST send one flow-control packet now.</li>
 *     <li>a data grant ({@link #isData(int)}; {@link #vl(int)} and {@link #source(int)} = {@link #FROM_HIGH},
 *     {@link #FROM_LOW} or {@link #FROM_SINGLE}): the caller MUST send the head packet of that VL now, the
 *     one whose size {@link ArbiterSource#headSize(int)} just returned ({@link #lastSize()}); it has been
 *     charged already.</li>
 *     <li>{@link #GRANT_NONE}: nothing can be sent; nothing was charged.</li>
 * </ul>
 * Single-threaded and allocation-free: tables are compacted to their valid entries when installed, the state
 * is a handful of ints, and a decision with every VL backlogged makes four calls on the source. The arbiter
 * counts nothing: the caller, which sends the packets, counts them (the simulator's {@link SimulatedPort}
 * does), so a decision costs no counter stores.
 * <p>
 * {@link #replace(QosConfig)} installs new tables and limit from the start state; call it on the arbiter's
 * thread between two calls of {@link #next()}, which is a packet boundary. It does not allocate.
 */
public final class VlArbiter
{
    /** Nothing can be sent. */
    public static final int GRANT_NONE = 0;
    /** Source bits of a data grant chosen from the high-priority table. */
    public static final int FROM_HIGH = 0x10;
    /** Source bits of a data grant chosen from the low-priority table. */
    public static final int FROM_LOW = 0x20;
    /** Source bits of a data grant on a port with a single data VL. */
    public static final int FROM_SINGLE = 0x30;
    /** Send one VL15 packet. */
    public static final int GRANT_VL15 = 0x40 | 15;
    /** Send one flow-control packet. */
    public static final int GRANT_FCP = 0x50;
    /** A flow-control packet is 8 bytes. */
    public static final int FCP_SIZE = 8;
    /** VLs 0..15. */
    public static final int VL_COUNT = 16;

    private static final int SOURCE_MASK = 0xF0;
    private static final int VL_MASK = 0x0F;
    /** VLHighLimit counts 4 KB, the counter counts dwords: 1024 dwords per unit (IBA VL arbitration). */
    private static final int DWORDS_PER_LIMIT_UNIT = 1024;

    private final ArbiterSource source;

    private boolean single;
    private boolean lowTurn;
    private boolean lowBurstWeight;
    private int highCounter;
    private int highLimitDwords;
    /** -1 to charge high packets against the counter, 0 when VLHighLimit is 255 (unbounded). */
    private int highChargeMask;

    private final Table high = new Table();
    private final Table low = new Table();

    private int dataVls;
    private int lastSize;
    /** Bit v set when VL v is the VL of an entry of either table: the VLs the walk of a decision asks about. */
    private int tableVls;

    /**
     * @param config the port's QoS settings.
     * @param source what the arbiter asks at each packet boundary.
     */
    public VlArbiter(final QosConfig config, final ArbiterSource source)
    {
        this.source = Objects.requireNonNull(source, "source");
        replace(config);
    }

    /**
     * @param grant a grant code.
     * @return the VL of a data or VL15 grant.
     */
    public static int vl(final int grant)
    {
        return grant & VL_MASK;
    }

    /**
     * @param grant a grant code.
     * @return {@link #FROM_HIGH}, {@link #FROM_LOW}, {@link #FROM_SINGLE} for data grants; the grant's kind
     * bits otherwise.
     */
    public static int source(final int grant)
    {
        return grant & SOURCE_MASK;
    }

    /**
     * @param grant a grant code.
     * @return whether the grant is for a data VL's head packet.
     */
    public static boolean isData(final int grant)
    {
        final int kind = grant & SOURCE_MASK;
        return kind >= FROM_HIGH && kind <= FROM_SINGLE;
    }

    /**
     * @param grant a grant code.
     * @return {@code high}, {@code low}, {@code single}, {@code vl15}, {@code fcp} or {@code none}: the
     * simulator's {@code from=} words.
     */
    public static String describe(final int grant)
    {
        switch (grant & SOURCE_MASK)
        {
            case FROM_HIGH:
                return "high";
            case FROM_LOW:
                return "low";
            case FROM_SINGLE:
                return "single";
            case GRANT_VL15 & SOURCE_MASK:
                return "vl15";
            case GRANT_FCP:
                return "fcp";
            default:
                return "none";
        }
    }

    /**
     * Installs new tables, limit, data VLs and burst policy, from the start state: both pointers at entry 0
     * with its full weight, the counter at its limit, no low turn (spec: "tables replaced at a packet
     * boundary"). Allocation-free.
     *
     * @param config the new settings.
     */
    public void replace(final QosConfig config)
    {
        dataVls = config.dataVls();
        single = dataVls == 1;
        lowBurstWeight = config.lowBurst() == LowBurst.WEIGHT;
        final int limit = config.highLimit();
        highChargeMask = limit == QosConfig.HIGH_LIMIT_UNBOUNDED ? 0 : -1;
        highLimitDwords = limit * DWORDS_PER_LIMIT_UNIT;
        highCounter = highLimitDwords;
        lowTurn = false;

        // Invalid entries are skipped, never remapped: keeping only the valid ones is the same walk.
        high.install(config.high(), dataVls);
        low.install(config.low(), dataVls);
        tableVls = high.vls() | low.vls();
    }

    /**
     * Decides what goes on the wire at this packet boundary and charges it. See the class comment for what
     * the caller must do with each grant.
     *
     * @return the grant code.
     */
    public int next()
    {
        return next(false);
    }

    /**
     * {@link #next()} for a caller that knows a packet is queued (on VL15 or a data VL) or an FCP waits: the same
     * decision, without first asking each VL the tables name whether any has a head packet (the shortcut that makes an
     * idle port's decision cheap, and a busy port's dearer). Whatever is queued, the grant and the state it leaves are
     * those of {@link #next()}: that shortcut leads to the outcome the walk of the tables would reach.
     *
     * @return the grant code.
     */
    public int nextQueued()
    {
        return next(true);
    }

    private int next(final boolean queued)
    {
        final ArbiterSource source = this.source;
        // Priority: VL15 > flow-control packets > data (IBA VL arbitration, "Overall Arbitration Scheme").
        if (source.hasVl15())
        {
            lastSize = 0;
            return GRANT_VL15;
        }
        if (source.hasFcp())
        {
            lastSize = FCP_SIZE;
            return GRANT_FCP;
        }
        if (single)
        {
            return nextSingle(source);
        }
        if (!queued && !anyHeadPacket(source))
        {
            // Nothing at the head of any VL the tables name: the walk below would end with no grant, the low turn
            // over and the counter reset (steps 1 to 4). The same outcome, asking each VL once rather than every
            // entry of both tables: an idle port's decision.
            idle();
            return GRANT_NONE;
        }

        // Step 1: a low turn in progress (burst policy "weight") continues while its entry can send.
        if (lowTurn)
        {
            final int vl = low.vl[low.ptr];
            final int size = source.headSize(vl);
            if (size > 0 && source.canSend(vl, size))
            {
                return sendLow(vl, size);
            }
            lowTurn = false;
        }

        if (highCounter >= 0)
        {
            // Step 2: the counter has not expired: the high table.
            final int vl = high.choose(source);
            if (vl >= 0)
            {
                return sendHigh(vl, high.size);
            }
            // Step 3: the high table had nothing: reset the counter, the low table. Step 4 would ask the high
            // table again, which just had nothing (the source does not change within a decision).
            highCounter = highLimitDwords;
            final int lowVl = low.choose(source);
            return lowVl >= 0 ? sendLow(lowVl, low.size) : GRANT_NONE;
        }

        // Step 3: the counter expired: reset it and choose from the low table.
        highCounter = highLimitDwords;
        final int lowVl = low.choose(source);
        if (lowVl >= 0)
        {
            return sendLow(lowVl, low.size);
        }
        // Step 4: work conserving: the high table although the low table just had its chance.
        final int highVl = high.choose(source);
        return highVl >= 0 ? sendHigh(highVl, high.size) : GRANT_NONE;
    }

    /**
     * The packet boundary of a port that has nothing at all to send (no VL15 packet, no FCP, no packet on any VL),
     * known by the caller without asking the source: the state {@link #next()} would leave, which returns
     * {@link #GRANT_NONE} then. The low turn is over and the high-priority counter back at its limit. Allocation-free.
     */
    public void idle()
    {
        lowTurn = false;
        highCounter = highLimitDwords;
    }

    private boolean anyHeadPacket(final ArbiterSource source)
    {
        int vls = tableVls;
        while (0 != vls)
        {
            if (source.headSize(Integer.numberOfTrailingZeros(vls)) > 0)
            {
                return true;
            }
            vls &= vls - 1;
        }
        return false;
    }

    private int nextSingle(final ArbiterSource source)
    {
        final int size = source.headSize(0);
        if (size > 0 && source.canSend(0, size))
        {
            lastSize = size;
            return FROM_SINGLE;
        }
        return GRANT_NONE;
    }

    /**
     * A high packet: the table entry is charged its blocks and the counter its dwords (not when VLHighLimit
     * is 255).
     */
    private int sendHigh(final int vl, final int size)
    {
        highCounter -= Sizes.dwords(size) & highChargeMask;
        high.charge(Sizes.blocks(size));
        lastSize = size;
        return FROM_HIGH | vl;
    }

    private int sendLow(final int vl, final int size)
    {
        // Burst policy "weight": the entry keeps the turn until its weight is used up; "packet": one packet.
        lowTurn = !low.charge(Sizes.blocks(size)) && lowBurstWeight;
        lastSize = size;
        return FROM_LOW | vl;
    }

    /**
     * @return the size of the packet the last data grant charged ({@link #FCP_SIZE} after an FCP grant, 0 after
     * a VL15 grant: the caller knows its VL15 packet).
     */
    public int lastSize()
    {
        return lastSize;
    }

    /**
     * @return the port's data VLs as installed.
     */
    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @return the high-priority counter in dwords (below zero = expired).
     */
    public int highCounter()
    {
        return highCounter;
    }

    /**
     * @return whether a low turn is in progress (burst policy {@code weight}).
     */
    public boolean lowTurnInProgress()
    {
        return lowTurn;
    }

    /**
     * @return the index, in the configured high table, of the entry under the high pointer (-1 when the table
     * has no valid entry).
     */
    public int highPointer()
    {
        return high.pointer();
    }

    /**
     * @return the remaining weight of the entry under the high pointer, in blocks.
     */
    public int highRemaining()
    {
        return high.remaining;
    }

    /**
     * @return the index, in the configured low table, of the entry under the low pointer (-1 when the table
     * has no valid entry).
     */
    public int lowPointer()
    {
        return low.pointer();
    }

    /**
     * @return the remaining weight of the entry under the low pointer, in blocks.
     */
    public int lowRemaining()
    {
        return low.remaining;
    }

    /**
     * One VLArbitration table's state: its valid entries (compacted when installed), the pointer and the
     * remaining weight of the entry under it.
     */
    private static final class Table
    {
        final int[] vl = new int[VlArbTable.MAX_ENTRIES];
        final int[] weight = new int[VlArbTable.MAX_ENTRIES];
        final int[] entry = new int[VlArbTable.MAX_ENTRIES];
        int count;
        int ptr;
        int remaining;
        /** The head packet's size of the entry {@link #choose(ArbiterSource)} found. */
        int size;

        void install(final VlArbTable table, final int dataVls)
        {
            count = 0;
            for (int i = 0; i < table.size(); i++)
            {
                if (table.isValid(i, dataVls))
                {
                    vl[count] = table.vl(i);
                    weight[count] = table.weight(i);
                    entry[count] = i;
                    count++;
                }
            }
            ptr = 0;
            remaining = count == 0 ? 0 : weight[0];
        }

        /** @return bit v set when an entry's VL is v. */
        int vls()
        {
            int vls = 0;
            for (int i = 0; i < count; i++)
            {
                vls |= 1 << vl[i];
            }
            return vls;
        }

        /**
         * Choosing from a table (spec): the entry under the pointer if it has weight left and its VL can send,
         * else the first later valid entry whose VL can send, which becomes current with its full weight. When
         * nothing can send, the pointer and the remaining weight stay as they are.
         *
         * @return the VL of the entry that can send (then {@link #ptr} is that entry and {@link #size} its head
         * packet's size), or -1.
         */
        int choose(final ArbiterSource source)
        {
            final int count = this.count;
            if (count == 0)
            {
                return -1;
            }
            int index = ptr;
            if (remaining > 0)
            {
                final int vl = this.vl[index];
                final int size = source.headSize(vl);
                if (size > 0 && source.canSend(vl, size))
                {
                    this.size = size;
                    return vl;
                }
            }
            for (int k = 1; k < count; k++)
            {
                if (++index == count)
                {
                    index = 0;
                }
                final int vl = this.vl[index];
                final int size = source.headSize(vl);
                if (size > 0 && source.canSend(vl, size))
                {
                    ptr = index;
                    remaining = weight[index];
                    this.size = size;
                    return vl;
                }
            }
            return -1;
        }

        /**
         * Sending subtracts the packet's blocks from the current entry's weight, which may go negative
         * (overdraw, IBA VL arbitration: 127 - 64 - 64 = -1); at zero or below the pointer moves on and the next
         * entry's weight is reloaded.
         *
         * @return whether the entry's weight is used up (the pointer moved on).
         */
        boolean charge(final int blocks)
        {
            final int left = remaining - blocks;
            if (left <= 0)
            {
                final int next = ptr + 1 == count ? 0 : ptr + 1;
                ptr = next;
                remaining = weight[next];
                return true;
            }
            remaining = left;
            return false;
        }

        int pointer()
        {
            return count == 0 ? -1 : entry[ptr];
        }
    }
}
