package io.vlink.core.inject;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.LrhFlyweight;
import io.vlink.core.wire.PacketChecker;
import io.vlink.core.wire.Sizes;

import java.util.Arrays;

/**
 * The settings of the shared cell buffer and the injector arbiter (docs/injection.md, the HPE patent), with
 * the reference values of the real NIC as defaults: 96 injectors, 10 buffer classes, a shared pool of 624
 * cells of 256 bytes, immediate data up to 224 bytes, per-injector water marks of 4 and 8 cells.
 * <p>
 * A mutable builder: set what differs from the defaults, then hand it to {@link CellBuffer} and
 * {@link InjectorArbiter}, which copy what they need. Setters return {@code this}.
 */
public final class InjectionConfig
{
    /** How an injector is picked among injectors of equal priority within a class. */
    public enum Policy
    {
        /** Start after the injector picked last in this class (the default). */
        ROUND_ROBIN,
        /** Always start from the class's first injector. */
        FIRST_AVAILABLE
    }

    public static final int DEFAULT_CELL_SIZE = 256;
    public static final int DEFAULT_INJECTORS = 96;
    public static final int DEFAULT_CLASSES = 10;
    public static final int DEFAULT_SHARED_CELLS = 624;
    /** Ours: each class keeps room for one packet of a 4096-byte MTU with its headers (17 cells of 256 bytes). */
    public static final int DEFAULT_RESERVED_CELLS = 17;
    public static final int DEFAULT_IDC_THRESHOLD = 224;
    public static final int DEFAULT_LOW_MARK = 4;
    public static final int DEFAULT_HIGH_MARK = 8;
    /** Ours: the global IDC pair defaults to the same 4 and 8 cells. */
    public static final int DEFAULT_IDC_LOW_MARK = 4;
    public static final int DEFAULT_IDC_HIGH_MARK = 8;
    /** Ours: an injector held high for 100 microseconds of the injected clock drops to low. */
    public static final long DEFAULT_PRIORITY_TIMER_NS = 100_000L;
    /** Ours: every class gets 16 cells per turn of the class round robin. */
    public static final int DEFAULT_CLASS_WEIGHT = 16;
    /** A port's injector for subnet-management packets (VL15), after one injector per SL ({@link #forPort}). */
    public static final int PORT_SMP_INJECTOR = LrhFlyweight.SL_COUNT;
    /** A port's injectors: one per SL and one for SMPs ({@link #forPort}). */
    public static final int PORT_INJECTORS = PORT_SMP_INJECTOR + 1;
    /** The VL arbitration's decisions simulated to weigh a port's classes ({@link #forPort}), with packets of 64 bytes
     * up to the MTU. */
    private static final int PREDICTION_GRANTS = 8192;
    private static final int PREDICTION_SMALLEST = 64;
    /** The largest weight {@link #forPort} gives a class: 4,096 times the smallest. */
    private static final int MAX_PORT_WEIGHT = DEFAULT_CLASS_WEIGHT << 12;
    /** Ours: an engine's port shares 2,048 cells (512 KiB) among its classes unless told otherwise. */
    public static final int PORT_SHARED_CELLS = 2048;

    int cellSize = DEFAULT_CELL_SIZE;
    int injectors = DEFAULT_INJECTORS;
    int classes = DEFAULT_CLASSES;
    int sharedCells = DEFAULT_SHARED_CELLS;
    int idcThreshold = DEFAULT_IDC_THRESHOLD;
    int idcLowMark = DEFAULT_IDC_LOW_MARK;
    int idcHighMark = DEFAULT_IDC_HIGH_MARK;
    int[] injectorClass;
    int[] lowMark;
    int[] highMark;
    long[] priorityTimerNs;
    int[] reservedCells;
    int[] sharedLimit;
    int[] classWeight;
    Policy[] policy;

    public InjectionConfig()
    {
        sizeInjectors();
        sizeClasses();
    }

    /**
     * @return an independent copy: changing either afterwards does not change the other (an engine keeps a copy of
     * the configuration it was built with).
     */
    public InjectionConfig copy()
    {
        final InjectionConfig copy = new InjectionConfig();
        copy.cellSize = cellSize;
        copy.injectors = injectors;
        copy.classes = classes;
        copy.sharedCells = sharedCells;
        copy.idcThreshold = idcThreshold;
        copy.idcLowMark = idcLowMark;
        copy.idcHighMark = idcHighMark;
        copy.injectorClass = injectorClass.clone();
        copy.lowMark = lowMark.clone();
        copy.highMark = highMark.clone();
        copy.priorityTimerNs = priorityTimerNs.clone();
        copy.reservedCells = reservedCells.clone();
        copy.sharedLimit = sharedLimit.clone();
        copy.classWeight = classWeight.clone();
        copy.policy = policy.clone();
        return copy;
    }

    /**
     * The injection configuration an engine's port runs unless it is given a whole one: one injector per SL
     * (injector {@code sl}) and one for SMPs ({@link #PORT_SMP_INJECTOR}); one buffer class per data VL and one for
     * VL15 (class {@code dataVls}), so that a backlog on one VL cannot take the cells every other VL needs. Each
     * class keeps room for its largest packet (the MTU and {@link PacketChecker#HEADERS_ALLOWANCE}) of its own and
     * may hold an equal share of the shared pool. An SL's injector is in its VL's class by the SL2VL table; an SL
     * that SL2VL maps to VL15 or a VL the port lacks (whose packets are dropped) is put in class 0. A data VL's class
     * weighs the VL's share of the link when every VL the tables serve is backlogged ({@link SharePrediction}, packets
     * of 64 bytes to the MTU), scaled so that the VL with the smallest share weighs {@link #DEFAULT_CLASS_WEIGHT} (at
     * most 4,096 times that): when the host rather than the link is the bottleneck, the cells still go to the VLs in
     * the proportions the link would send them. A VL the tables never serve, and VL15, weigh the default; marks and
     * timers are the defaults.
     *
     * @param qos          the port's data VLs and SL2VL table.
     * @param mtu          the port's MTU.
     * @param sharedCells  the shared pool's cells.
     * @param idcThreshold the most immediate-data bytes a message carries.
     * @return a new configuration.
     * @throws IllegalArgumentException for an MTU that is not an InfiniBand MTU or a negative pool.
     */
    public static InjectionConfig forPort(
        final QosConfig qos, final int mtu, final int sharedCells, final int idcThreshold)
    {
        Sizes.checkMtu("mtu", mtu);
        final int dataVls = qos.dataVls();
        final int classes = dataVls + 1;
        final InjectionConfig config = new InjectionConfig()
            .shape(PORT_INJECTORS, classes)
            .sharedCells(sharedCells)
            .idcThreshold(idcThreshold);
        final int cellSize = config.cellSize();
        final int reserved = (mtu + PacketChecker.HEADERS_ALLOWANCE + cellSize - 1) / cellSize;
        // each data VL's class weighs what the VL arbitration gives the VL when every VL is backlogged, scaled so that the
        // VL with the smallest share weighs the default (no turn shorter than the default's): the cells go to the classes
        // in the proportions the link sends them
        final boolean[] servable = SharePrediction.servableVls(qos);
        final double[] shares =
            SharePrediction.backlogged(qos, servable, PREDICTION_SMALLEST, mtu, 1, PREDICTION_GRANTS);
        double smallest = Double.MAX_VALUE;
        for (int vl = 0; vl < dataVls; vl++)
        {
            smallest = shares[vl] > 0 ? Math.min(smallest, shares[vl]) : smallest;
        }
        for (int c = 0; c < classes; c++)
        {
            final int weight = c < dataVls && shares[c] > 0 ?
                (int)Math.min(MAX_PORT_WEIGHT, Math.round(DEFAULT_CLASS_WEIGHT * shares[c] / smallest)) :
                DEFAULT_CLASS_WEIGHT;
            config.bufferClass(c, reserved, sharedCells / classes, weight, Policy.ROUND_ROBIN);
        }
        for (int sl = 0; sl < LrhFlyweight.SL_COUNT; sl++)
        {
            final int vl = qos.sl2vl(sl);
            config.injectorClass(sl, vl < dataVls ? vl : 0);
        }
        config.injectorClass(PORT_SMP_INJECTOR, dataVls);
        return config;
    }

    private void sizeInjectors()
    {
        injectorClass = new int[injectors];
        for (int i = 0; i < injectors; i++)
        {
            injectorClass[i] = i % classes;
        }
        lowMark = filled(injectors, DEFAULT_LOW_MARK);
        highMark = filled(injectors, DEFAULT_HIGH_MARK);
        priorityTimerNs = new long[injectors];
        Arrays.fill(priorityTimerNs, DEFAULT_PRIORITY_TIMER_NS);
    }

    private void sizeClasses()
    {
        reservedCells = filled(classes, DEFAULT_RESERVED_CELLS);
        sharedLimit = filled(classes, Integer.MAX_VALUE);
        classWeight = filled(classes, DEFAULT_CLASS_WEIGHT);
        policy = new Policy[classes];
        Arrays.fill(policy, Policy.ROUND_ROBIN);
    }

    private static int[] filled(final int n, final int value)
    {
        final int[] a = new int[n];
        Arrays.fill(a, value);
        return a;
    }

    /**
     * Set the number of injectors and buffer classes; resets every per-injector and per-class setting to its
     * default (injector {@code i} in class {@code i % classes}).
     *
     * @param injectors injectors (> 0).
     * @param classes   buffer classes (> 0).
     * @return this.
     */
    public InjectionConfig shape(final int injectors, final int classes)
    {
        if (injectors <= 0 || classes <= 0)
        {
            throw new IllegalArgumentException("injectors and classes must be > 0");
        }
        this.injectors = injectors;
        this.classes = classes;
        sizeInjectors();
        sizeClasses();
        return this;
    }

    /**
     * @param bytes cell size, a power of two >= 64.
     * @return this.
     */
    public InjectionConfig cellSize(final int bytes)
    {
        if (bytes < 64 || Integer.bitCount(bytes) != 1)
        {
            throw new IllegalArgumentException("cell size must be a power of two >= 64: " + bytes);
        }
        cellSize = bytes;
        return this;
    }

    /**
     * @param cells cells of the shared pool (>= 0).
     * @return this.
     */
    public InjectionConfig sharedCells(final int cells)
    {
        sharedCells = nonNegative(cells, "shared cells");
        return this;
    }

    /**
     * @param bytes a command's payload up to this size is immediate data (IDC), larger is DMA.
     * @return this.
     */
    public InjectionConfig idcThreshold(final int bytes)
    {
        idcThreshold = nonNegative(bytes, "IDC threshold");
        return this;
    }

    /**
     * @param low  the global IDC low mark in cells.
     * @param high the global IDC high mark in cells.
     * @return this.
     */
    public InjectionConfig idcMarks(final int low, final int high)
    {
        checkMarks(low, high);
        idcLowMark = low;
        idcHighMark = high;
        return this;
    }

    /**
     * @param low  every injector's own low mark (DMA commands) in cells.
     * @param high every injector's own high mark in cells.
     * @return this.
     */
    public InjectionConfig marks(final int low, final int high)
    {
        checkMarks(low, high);
        Arrays.fill(lowMark, low);
        Arrays.fill(highMark, high);
        return this;
    }

    /**
     * @param injector which.
     * @param low      its own low mark (DMA commands) in cells.
     * @param high     its own high mark.
     * @return this.
     */
    public InjectionConfig marks(final int injector, final int low, final int high)
    {
        checkMarks(low, high);
        lowMark[injector] = low;
        highMark[injector] = high;
        return this;
    }

    /**
     * @param nanos how long (injected clock) any injector may hold high priority; {@code Long.MAX_VALUE} = never
     *              demoted by the timer.
     * @return this.
     */
    public InjectionConfig priorityTimerNs(final long nanos)
    {
        Arrays.fill(priorityTimerNs, positive(nanos));
        return this;
    }

    /**
     * @param injector which.
     * @param nanos    its priority timer.
     * @return this.
     */
    public InjectionConfig priorityTimerNs(final int injector, final long nanos)
    {
        priorityTimerNs[injector] = positive(nanos);
        return this;
    }

    /**
     * @param injector which.
     * @param bufferClass its buffer class.
     * @return this.
     */
    public InjectionConfig injectorClass(final int injector, final int bufferClass)
    {
        if (bufferClass < 0 || bufferClass >= classes)
        {
            throw new IllegalArgumentException("class must be 0.." + (classes - 1) + ": " + bufferClass);
        }
        injectorClass[injector] = bufferClass;
        return this;
    }

    /**
     * @param bufferClass which.
     * @param reserved    cells only this class may use.
     * @param sharedLimit cells of the shared pool this class may hold at once (its share).
     * @param weight      cells per turn of the class round robin (> 0).
     * @param policy      among injectors of equal priority.
     * @return this.
     */
    public InjectionConfig bufferClass(
        final int bufferClass, final int reserved, final int sharedLimit, final int weight, final Policy policy)
    {
        reservedCells[bufferClass] = nonNegative(reserved, "reserved cells");
        this.sharedLimit[bufferClass] = nonNegative(sharedLimit, "shared limit");
        classWeight[bufferClass] = (int)positive(weight);
        this.policy[bufferClass] = policy;
        return this;
    }

    /**
     * @param reserved reserved cells of every class.
     * @return this.
     */
    public InjectionConfig reservedCells(final int reserved)
    {
        Arrays.fill(reservedCells, nonNegative(reserved, "reserved cells"));
        return this;
    }

    /**
     * @param bufferClass which.
     * @param weight      cells per turn (> 0).
     * @return this.
     */
    public InjectionConfig classWeight(final int bufferClass, final int weight)
    {
        classWeight[bufferClass] = (int)positive(weight);
        return this;
    }

    /**
     * @param policy every class's policy among equals.
     * @return this.
     */
    public InjectionConfig policy(final Policy policy)
    {
        Arrays.fill(this.policy, policy);
        return this;
    }

    /**
     * @param injector which.
     * @return its buffer class.
     */
    public int classOf(final int injector)
    {
        return injectorClass[injector];
    }

    /**
     * @param injector which.
     * @return its own low mark (DMA commands), in cells.
     */
    public int lowMark(final int injector)
    {
        return lowMark[injector];
    }

    /** @return the global low mark of immediate-data commands, in cells. */
    public int idcLowMark()
    {
        return idcLowMark;
    }

    /**
     * @param bufferClass which.
     * @return its weight: cells per turn of the class round robin.
     */
    public int weight(final int bufferClass)
    {
        return classWeight[bufferClass];
    }

    /** @return cell size in bytes. */
    public int cellSize()
    {
        return cellSize;
    }

    /** @return injectors. */
    public int injectors()
    {
        return injectors;
    }

    /** @return buffer classes. */
    public int classes()
    {
        return classes;
    }

    /** @return every cell of the buffer: the reserved cells of all classes plus the shared pool. */
    public int totalCells()
    {
        long total = sharedCells;
        for (final int r : reservedCells)
        {
            total += r;
        }
        if (total > Integer.MAX_VALUE / Math.max(cellSize, 1))
        {
            throw new IllegalArgumentException("buffer too large: " + total + " cells");
        }
        return (int)total;
    }

    /** @return the IDC threshold in bytes. */
    public int idcThreshold()
    {
        return idcThreshold;
    }

    /**
     * @param payloadBytes a command's payload size.
     * @return true when the command is immediate data (payload inline), false for DMA.
     */
    public boolean isIdc(final int payloadBytes)
    {
        return payloadBytes <= idcThreshold;
    }

    private static void checkMarks(final int low, final int high)
    {
        if (low < 0 || high <= low)
        {
            throw new IllegalArgumentException("marks need 0 <= low < high: " + low + ", " + high);
        }
    }

    private static int nonNegative(final int value, final String what)
    {
        if (value < 0)
        {
            throw new IllegalArgumentException(what + " must be >= 0: " + value);
        }
        return value;
    }

    private static long positive(final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException("must be > 0: " + value);
        }
        return value;
    }
}
