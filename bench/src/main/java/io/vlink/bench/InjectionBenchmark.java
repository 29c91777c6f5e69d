package io.vlink.bench;

import io.vlink.core.inject.CellBuffer;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.inject.InjectorArbiter;
import io.vlink.core.sched.SlScheduler;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

import java.util.concurrent.TimeUnit;

/**
 * The host side of the transmit path (docs/injection.md): one SL/QP scheduling step, one injector selection and
 * one cell allocation + release, against a trivial baseline in the same run. Each op is one operation of the
 * steady state, with what keeps the state steady: a selection includes the reclaim of the previous packet (inside
 * {@code select}), the sending side's {@code free} of its packet and the injector's next {@code ready} (without
 * them the next selection would find no cells or no ready injector); a cell round trip is one claim, one free
 * and one reclaim.
 * <p>
 * The state is steady (docs/performance.md, "Injection"): one packet in flight, so no class ever lacks
 * cells; the clock advances 50 ns an op, so an injector that stays high is demoted by its 100 us priority timer
 * once per 2000 selections and promoted again at its next consideration (the HPE patent's perturbation): a
 * constant share of selections takes the slow path, the same in every iteration (docs/performance.md). Run
 * to run differences on a shared 2-vCPU machine come from the neighbour on the other hyperthread: prefer
 * {@code -f 3} and read each figure against the same run's {@code baseline}.
 * <pre>
 * bench/run InjectionBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1 -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class InjectionBenchmark
{
    private SlScheduler scheduler;
    private InjectionConfig config;
    private CellBuffer cells;
    private InjectorArbiter arbiter;
    private CellBuffer smallCells;
    private InjectorArbiter smallArbiter;
    private CellBuffer allocCells;
    private long now;
    private long counter;
    private int injector;

    @Setup(Level.Trial)
    public void setup()
    {
        // the scheduler a port builds (SlScheduler.forPort): 4 SLs (one listed twice), 16 QPs, MTU 2048, tenure
        // 8 KiB, mixed message lengths
        scheduler = SlScheduler.forPort(
            new int[] {0, 1, 0, 2, 3}, new int[] {4096, 2048, 4096, 8192, 1024}, 2048, 8192, 0, 16, 16);
        for (int q = 0; q < 16; q++)
        {
            final int qp = scheduler.createQp(q, q & 3);
            for (int m = 0; m < 8; m++)
            {
                scheduler.post(qp, 100 + 997 * (q + m), m);
            }
        }

        // what an engine's port runs (InjectionConfig.forPort with the engine's defaults): 17 injectors (one per SL,
        // one for SMPs), 9 classes (8 data VLs and VL15), 2048 shared cells, marks 4 and 8, every injector ready
        config = InjectionConfig.forPort(QosConfig.opensmDefaults(8), 4096, InjectionConfig.PORT_SHARED_CELLS,
            InjectionConfig.DEFAULT_IDC_THRESHOLD);
        cells = new CellBuffer(config);
        arbiter = new InjectorArbiter(config, cells);
        for (int i = 0; i < config.injectors(); i++)
        {
            arbiter.command(i, (i & 1) == 0);
            arbiter.ready(i, 64 + 37 * i);
        }

        // the same shape with every packet one cell (immediate data): the selection without the chain walk
        smallCells = new CellBuffer(config);
        smallArbiter = new InjectorArbiter(config, smallCells);
        for (int i = 0; i < config.injectors(); i++)
        {
            smallArbiter.command(i, true);
            smallArbiter.ready(i, 200);
        }

        allocCells = new CellBuffer(config);
    }

    @Benchmark
    public long baseline()
    {
        return ++counter;
    }

    /** One call of the three steps; a message that ends is queued again so the QPs never run dry. */
    @Benchmark
    public int slStep()
    {
        final SlScheduler s = scheduler;
        final int bytes = s.next();
        if (s.packetEndOfMessage())
        {
            s.post(s.packetQp(), 100 + (int)(s.packetHandle() * 997 & 8191), s.packetHandle());
        }
        return bytes;
    }

    /**
     * One two-stage selection with its cell claim; the packet is freed at once (reclaimed by the next selection)
     * and the injector announces its next packet.
     */
    @Benchmark
    public int injectorSelect()
    {
        final InjectorArbiter a = arbiter;
        final int i = a.select(now += 50);
        if (i >= 0)
        {
            cells.free(a.claimedCell());
            a.ready(i, a.claimedSize());
        }
        return i;
    }

    /** As {@link #injectorSelect} with 200-byte packets (one cell each). */
    @Benchmark
    public int injectorSelectOneCell()
    {
        final InjectorArbiter a = smallArbiter;
        final int i = a.select(now += 50);
        if (i >= 0)
        {
            smallCells.free(a.claimedCell());
            a.ready(i, 200);
        }
        return i;
    }

    /** Claim the cells of a 1000-byte packet (4 cells), hand them back, reclaim. */
    @Benchmark
    public int cellAllocRelease()
    {
        final CellBuffer c = allocCells;
        final int first = c.claim(injector, 1000, false);
        c.free(first);
        c.reclaim(null);
        injector = injector + 1 == 96 ? 0 : injector + 1;
        return first;
    }
}
