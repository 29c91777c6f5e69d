package io.vlink.tools.soak;

import io.vlink.core.arb.SharePrediction;
import io.vlink.core.arb.VlArbiter;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.Link;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.File;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * What one soak runs with (docs/cli.md, {@code vlink soak}): the options a command or a test sets, and the
 * settings every soak shares (buffers, burst, warm-up), with the helpers the soak's parts share to read them.
 * {@link SoakRunner} runs it.
 */
public final class SoakSettings
{
    /** SMPs a second sent on VL15 as regular traffic. */
    public static final int VL15_RATE = 1000;
    /** Receive buffer of each data VL, in 64-byte blocks (the whole credit window). */
    public static final int VL_BUFFER_BLOCKS = 2048;
    /** The VL15 buffer, in packets. */
    public static final int VL15_PACKETS = 4;
    /**
     * Packets the arbiter sends per duty cycle: small enough that what is in flight over a credit round trip
     * (about three duty cycles) stays below one credit window of 4 KiB packets (2048 blocks = 32 packets), so that the
     * shares are set by the arbitration tables, not by the credit loop.
     */
    public static final int BURST = 8;
    /** The longest latency the histograms track. */
    static final long HIGHEST_LATENCY_NS = TimeUnit.MINUTES.toNanos(10);
    static final long SECOND_NS = TimeUnit.SECONDS.toNanos(1);
    /** The latency summary leaves out the first tenth of the run... */
    static final double WARMUP_FRACTION = 0.1;
    /** ...or its first 2 s, whichever is shorter. */
    static final long MAX_WARMUP_NS = TimeUnit.SECONDS.toNanos(2);

    public double seconds = 10;
    /** Data packets to offer over all driven VLs, then stop (0: as many as {@link #seconds} allow). */
    public long packets;
    public QosConfig qos = QosConfig.seedExample();
    public int sizeMin = 4096;
    public int sizeMax = 4096;
    /** Data packets a second over all driven VLs (shared evenly); 0: every VL backlogged. */
    public long rate;
    public boolean udp;
    /**
     * Port A linked to port B through a shared-memory file (ignored with {@link #udp}). With either link, port B
     * runs in a peer process started with {@link #peerCommand}, or without one, in a second engine of this
     * process.
     */
    public boolean shm;
    /**
     * With {@link #shm} or {@link #udp}: the main class and arguments that run the peer process's side ({@code io.vlink.tools.Vlink
     * soak ARGS}; the peer's file is appended as {@code --peer-of FILE}); null: both engines in this process.
     */
    public java.util.List<String> peerCommand;
    /**
     * With {@link #udp}: port B runs in a {@code vlink soak --serve} at this address, on another host (the run is
     * agreed over TCP to it, the link is UDP); {@link #peerCommand} is then not used.
     */
    public java.net.InetSocketAddress peer;
    /** With {@link #udp}: the key that authenticates every datagram, or null. */
    public io.vlink.nic.link.LinkKey udpKey;
    /**
     * Link-level retry on the ports' links (docs/engine.md): true, false, or null for the engine's default (on over
     * UDP, off over loopback and shm). With retry the wire's faults act below it and are repaired (docs/soak.md).
     */
    public Boolean retry;
    /** With {@link #udp}: the UDP ports of 127.0.0.1 for port A and port B, or null for two free ones. */
    public int[] udpPorts;
    public ThreadingMode threading = ThreadingMode.SHARED;
    public String idle = "backoff";
    public FaultSpec faults = FaultSpec.none();
    public long seed = 1;
    public Path capture;
    /** Where the engines' counters files go (null: the default directory). */
    public File directory;
    /**
     * Wraps each port's link under the fault injector, unseen by the soak's accounting: for tests that play an
     * engine bug (a packet silently lost or duplicated) and expect the soak to catch it.
     */
    public UnaryOperator<Link> tamper = UnaryOperator.identity();
    /** Whether a run in which some scheduled faults could not be injected may still pass. */
    public boolean allowFewerFaults;
    /** The most the drain waits for every packet to be accounted for. */
    public long drainTimeoutNs = TimeUnit.SECONDS.toNanos(15);
    /**
     * The clock of the whole run: the soak's schedules, deadlines and latencies, and the engines' (FCP schedules,
     * priority timers). A test gives a clock of its own with {@code ThreadingMode.INVOKER} for a run that is the
     * same every time.
     */
    public NanoClock clock = SystemNanoClock.INSTANCE;
    /**
     * Polled by the run loop: once true (Ctrl-C), traffic stops as if the time were over, and the drain, the
     * checks and the summary follow. Read from the soak's thread, set from any.
     */
    public BooleanSupplier stop = () -> false;

    /**
     * @return whether the links run link-level retry: {@link #retry}, else on over UDP only.
     */
    public boolean retryOn()
    {
        return null != retry ? retry : udp;
    }

    /**
     * {@code vlink soak --threads auto}: one shared engine thread with 4 or more processors, else invoker mode (the
     * soak's own thread runs the engine), which on a small machine beats an engine thread beside the soak's.
     *
     * @return the threading mode {@code auto} picks on this machine.
     */
    public static ThreadingMode autoThreading()
    {
        return Runtime.getRuntime().availableProcessors() >= 4 ? ThreadingMode.SHARED : ThreadingMode.INVOKER;
    }
    /**
     * @param qos a configuration.
     * @return per VL, why it is not driven (null when it is).
     */
    public static String[] notDrivenReasons(final QosConfig qos)
    {
        final boolean[] servable = SharePrediction.servableVls(qos);
        final String[] reasons = new String[VlArbiter.VL_COUNT];
        for (int vl = 0; vl < qos.dataVls(); vl++)
        {
            reasons[vl] = !servable[vl] ? "in neither arbitration table with a non-zero weight" :
                slOf(qos, vl) < 0 ? "no SL maps to it" : null;
        }
        return reasons;
    }
    /**
     * @param qos a configuration.
     * @param vl  a data VL.
     * @return the lowest SL that SL2VL maps to the VL, or -1.
     */
    static int slOf(final QosConfig qos, final int vl)
    {
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            if (qos.sl2vl(sl) == vl)
            {
                return sl;
            }
        }
        return -1;
    }
    /**
     * The warm-up the latency summary leaves out: the first 10 % of the run, at most {@link #MAX_WARMUP_NS}.
     *
     * @param seconds how long the run offers traffic.
     * @return the warm-up in ns.
     */
    static long warmupNs(final double seconds)
    {
        return Math.min(MAX_WARMUP_NS, (long)(seconds * SECOND_NS * WARMUP_FRACTION));
    }
    static String rate(final long perSecond)
    {
        if (perSecond >= 10_000_000)
        {
            return String.format(Locale.ROOT, "%.0fM", perSecond / 1e6);
        }
        if (perSecond >= 10_000)
        {
            return String.format(Locale.ROOT, "%.0fk", perSecond / 1e3);
        }
        return Long.toString(perSecond);
    }
    /**
     * @param ns nanoseconds.
     * @return a short human form: {@code 850ns}, {@code 12.3us}, {@code 4.56ms}, {@code 1.23s}.
     */
    public static String nanos(final long ns)
    {
        if (ns < 1_000)
        {
            return ns + "ns";
        }
        if (ns < 1_000_000)
        {
            return String.format(Locale.ROOT, "%.1fus", ns / 1e3);
        }
        if (ns < 1_000_000_000)
        {
            return String.format(Locale.ROOT, "%.2fms", ns / 1e6);
        }
        return String.format(Locale.ROOT, "%.2fs", ns / 1e9);
    }
}
