package io.vlink.tools.soak;

import io.vlink.core.credit.LinkState;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.PortCounters;
import org.agrona.CloseHelper;
import org.agrona.IoUtil;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * The parent's side of a two-process soak: the peer that runs port B ({@link SoakReceiver}), either a process this
 * one starts with this JVM's binary, class path and flags ({@code --link shm} and {@code --link udp}: they talk
 * through a {@link PeerChannel} file) or a {@code vlink soak --serve} on another host ({@code --peer HOST:PORT}: the
 * channel copied over a {@link PeerLine}); and what the parent reads of it (its port's counters, live, from its
 * counters file or their copy; its receive counts and wire faults through the channel) and tells it (hold or
 * receive, arm, cut, link down and up, the verdict, done).
 * <p>
 * Every wait is bounded, and every read checks (at most every 20 ms) that the peer still runs: a peer process that
 * exited or was killed ends the soak with one line naming its exit and the last line it wrote on stderr; a peer on
 * another host whose line closed, failed or went silent, with one line naming its address and what happened. Closing
 * stops the peer (asked; a process is killed after 5 s and reaped) and removes the channel and the stderr file.
 */
final class SoakPeer implements WireCounts, AutoCloseable
{
    /** The link's file is {@code NAME.shm}, the channel {@code NAME.peer}, the peer's stderr {@code NAME.peer.err}. */
    static final String SHM_SUFFIX = ".shm";
    static final String PEER_SUFFIX = ".peer";

    /** How much of the end of the peer's stderr is read for its last words. */
    private static final int ERROR_TAIL_BYTES = 64 * 1024;
    private static final long ALIVE_CHECK_NS = TimeUnit.MILLISECONDS.toNanos(20);
    private static final long ANSWER_DEADLINE_NS = TimeUnit.SECONDS.toNanos(15);
    private static final long EXIT_DEADLINE_MS = 5_000;

    /** The peer process this one started, or null for a peer on another host. */
    private final Process process;
    /** The line to a peer on another host, or null. */
    private final PeerLine line;
    private final PeerChannel channel;
    private final File errFile;
    private final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
    private final long[] receivedBytes = new long[io.vlink.core.arb.VlArbiter.VL_COUNT];
    private CountersFileReader counters;
    private PortCounters port;
    private long nextAliveCheckNs;
    private boolean holding;
    private boolean finished;
    private String errors = "";

    private SoakPeer(final Process process, final PeerLine line, final PeerChannel channel, final File errFile)
    {
        this.process = process;
        this.line = line;
        this.channel = channel;
        this.errFile = errFile;
    }

    /**
     * Join a {@code vlink soak --serve} on another host.
     *
     * @param server its {@code HOST:PORT}.
     * @param hello  the run.
     * @return the peer, its line running.
     * @throws IllegalStateException when it cannot be reached or refuses.
     */
    static SoakPeer join(final InetSocketAddress server, final PeerLine.Hello hello)
    {
        final PeerLine line = PeerLine.join(server, hello);
        return new SoakPeer(null, line, line.channel(), null);
    }

    /**
     * @return the line to a peer on another host, or null.
     */
    PeerLine line()
    {
        return line;
    }

    /**
     * Start the peer process.
     *
     * @param command   the main class and the soak's arguments ({@link SoakSettings#peerCommand}).
     * @param directory where the link's file, the channel and the peer's counters file go.
     * @param name      the base name of the link's file ({@code NAME.shm}) and the channel ({@code NAME.peer}).
     * @param setup     writes what the peer reads as it starts into the channel (the UDP ports).
     * @return the running peer.
     */
    static SoakPeer start(
        final List<String> command, final File directory, final String name, final Consumer<PeerChannel> setup)
    {
        IoUtil.ensureDirectoryExists(directory, "vlink counters directory");
        final File peerFile = new File(directory, name + PEER_SUFFIX);
        final File errFile = new File(directory, name + PEER_SUFFIX + ".err");
        final PeerChannel channel = PeerChannel.create(peerFile);
        setup.accept(channel);
        final List<String> line = new ArrayList<>();
        line.add(ProcessHandle.current().info().command()
            .orElse(new File(System.getProperty("java.home"), "bin/java").getPath()));
        line.addAll(jvmFlags());
        line.add("-cp");
        line.add(System.getProperty("java.class.path"));
        line.addAll(command);
        line.add("--peer-of");
        line.add(peerFile.getAbsolutePath());
        try
        {
            final Process process = new ProcessBuilder(line)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(errFile)
                .start();
            return new SoakPeer(process, null, channel, errFile);
        }
        catch (final IOException ex)
        {
            channel.close();
            IoUtil.deleteIfExists(peerFile);
            IoUtil.deleteIfExists(errFile);
            throw new UncheckedIOException("could not start the peer process: " + ex.getMessage(), ex);
        }
    }

    /**
     * @param peerFile a channel's file.
     * @return the link's file beside it.
     */
    static File linkFile(final File peerFile)
    {
        final String name = peerFile.getName();
        final String base = name.endsWith(PEER_SUFFIX) ? name.substring(0, name.length() - PEER_SUFFIX.length()) : name;
        return new File(peerFile.getAbsoluteFile().getParentFile(), base + SHM_SUFFIX);
    }

    /**
     * @param directory where the soak's files go.
     * @param name      their base name.
     * @return the link's file.
     */
    static File linkFile(final File directory, final String name)
    {
        return new File(directory, name + SHM_SUFFIX);
    }

    /**
     * This JVM's own flags (the module exports vlink needs, heap, system properties) minus a debugger's agent, and on
     * JDK 24 and later the flag that keeps the JDK's warning about Chronicle Bytes' use of {@code sun.misc.Unsafe} (a
     * capture) off stderr.
     */
    private static List<String> jvmFlags()
    {
        final List<String> flags = new ArrayList<>();
        boolean unsafeAccess = false;
        for (final String flag : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (flag.startsWith("-agentlib:jdwp") || flag.startsWith("-Xrunjdwp"))
            {
                continue;
            }
            unsafeAccess |= flag.startsWith("--sun-misc-unsafe-memory-access");
            flags.add(flag);
        }
        if (!unsafeAccess && Runtime.version().feature() >= 24)
        {
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        return flags;
    }

    /**
     * @return the peer's process id (on another host: as it said).
     */
    long pid()
    {
        return null != process ? process.pid() : channel.get(PeerChannel.PEER_PID);
    }

    /**
     * @return the peer's {@code HOST:PORT} on another host, or null for a peer process of this host.
     */
    String address()
    {
        return null != line ? line.remote() : null;
    }

    /**
     * @return whether Ctrl-C reached the peer on another host: the soak stops as if it reached this process.
     */
    boolean stopped()
    {
        return 0 != channel.get(PeerChannel.STOP);
    }

    /**
     * The soak's verdict, for a peer that shows it (a {@code vlink soak --serve}).
     *
     * @param ok          whether every invariant held.
     * @param interrupted whether Ctrl-C stopped the soak.
     */
    void verdict(final boolean ok, final boolean interrupted)
    {
        channel.put(PeerChannel.INTERRUPTED_RUN, interrupted ? 1 : 0);
        channel.put(PeerChannel.VERDICT, ok ? PeerChannel.VERDICT_OK : PeerChannel.VERDICT_FAILED);
    }

    /**
     * The peer's port B counters, live; available once the link is up (the peer has built its engine then).
     *
     * @param dataVls the port's data VLs.
     * @return the counters.
     */
    PortCounters attach(final int dataVls)
    {
        if (null == port)
        {
            if (0 == channel.get(PeerChannel.READY))
            {
                throw new IllegalStateException(name() + " has not built its engine");
            }
            if (null != line)
            {
                // the counters' metadata is sent before the ready word
                port = PortCounters.attach(line.mirror(), 0, dataVls);
            }
            else
            {
                counters = CountersFileReader.open(new File(channel.countersPath()));
                port = PortCounters.attach(counters.counters(), 0, dataVls);
            }
        }
        return port;
    }

    /**
     * Mirror what the peer received into the parent's {@link SoakTraffic} (its receive counts; the bytes since the
     * last call are added to the interval and phase counts), and tell the peer whether to receive.
     *
     * @param traffic   the parent's traffic, whose receive half mirrors the peer's.
     * @param receiving false while the receiver is stalled (the peer polls nothing).
     * @return packets newly delivered.
     * @throws IllegalStateException when the peer process is gone.
     */
    int receive(final SoakTraffic traffic, final boolean receiving)
    {
        checkAlive();
        if (holding == receiving)
        {
            holding = !receiving;
            channel.put(PeerChannel.HOLD, holding ? 1 : 0);
        }
        return mirror(traffic);
    }

    private int mirror(final SoakTraffic traffic)
    {
        if (!channel.read(snapshot))
        {
            return 0;
        }
        long work = 0;
        for (int vl = 0; vl < receivedBytes.length; vl++)
        {
            final long delivered = snapshot[PeerChannel.at(PeerChannel.DELIVERED, vl)];
            work += delivered - traffic.delivered[vl];
            traffic.delivered[vl] = delivered;
            final long bytes = snapshot[PeerChannel.at(PeerChannel.RECEIVED_BYTES, vl)];
            traffic.intervalBytes[vl] += bytes - receivedBytes[vl];
            traffic.phaseBytes[vl] += bytes - receivedBytes[vl];
            receivedBytes[vl] = bytes;
            traffic.receivedBytes[vl] = bytes;
            traffic.outOfOrder[vl] = snapshot[PeerChannel.at(PeerChannel.OUT_OF_ORDER, vl)];
            traffic.duplicated[vl] = snapshot[PeerChannel.at(PeerChannel.DUPLICATED, vl)];
            traffic.damaged[vl] = snapshot[PeerChannel.at(PeerChannel.DAMAGED, vl)];
            traffic.gaps[vl] = snapshot[PeerChannel.at(PeerChannel.GAPS, vl)];
            traffic.expected[vl] = snapshot[PeerChannel.at(PeerChannel.EXPECTED, vl)];
        }
        final long vl15 = snapshot[PeerChannel.scalar(PeerChannel.VL15_DELIVERED)];
        work += vl15 - traffic.vl15Delivered;
        traffic.vl15Delivered = vl15;
        return (int)Math.min(Integer.MAX_VALUE, work);
    }

    private void checkAlive()
    {
        final long nowNs = System.nanoTime();
        if (nowNs - nextAliveCheckNs >= 0)
        {
            if (null != process && !process.isAlive())
            {
                throw new IllegalStateException(deathNotice());
            }
            if (null != line && null != line.gone())
            {
                throw new IllegalStateException("the peer at " + line.remote() + " (port B) went away" +
                    (finished ? "" : " before the soak ended") + ": " + line.gone());
            }
            nextAliveCheckNs = nowNs + ALIVE_CHECK_NS;
        }
    }

    private String name()
    {
        return null != line ? "the peer at " + line.remote() : "the peer process " + process.pid();
    }

    private String deathNotice()
    {
        final int exit = process.exitValue();
        final String how = exit > 128 ? "was killed (signal " + (exit - 128) + ")" : "exited with " + exit;
        final String said = lastErrorLine();
        return "the peer process " + process.pid() + " (port B) " + how + (finished ? "" : " before the soak ended") +
            (said.isEmpty() ? "" : "; its last words: " + said);
    }

    /**
     * @return the peer's last non-blank line on stderr, read from the last {@value #ERROR_TAIL_BYTES} bytes of its
     * file (a peer that wrote gigabytes costs no more).
     */
    private String lastErrorLine()
    {
        try (RandomAccessFile in = new RandomAccessFile(errFile, "r"))
        {
            final long length = in.length();
            final byte[] tail = new byte[(int)Math.min(length, ERROR_TAIL_BYTES)];
            in.seek(length - tail.length);
            in.readFully(tail);
            final String[] lines = new String(tail, StandardCharsets.UTF_8).split("\\R");
            for (int i = lines.length - 1; i >= 0; i--)
            {
                if (!lines[i].isBlank())
                {
                    return lines[i].strip();
                }
            }
            return "";
        }
        catch (final IOException ex)
        {
            return "";
        }
    }

    /**
     * @return port B's link state, as the peer last published it.
     */
    LinkState linkState()
    {
        return SoakReceiver.linkState(channel.get(PeerChannel.LINK_STATE));
    }

    /**
     * Tell the peer to hold (poll nothing), and wait until it does.
     *
     * @param duty runs this process's engine in invoker mode while it waits.     *
     * @throws IllegalStateException when the peer dies or does not answer within 15 s.
     */
    void hold(final IntSupplier duty)
    {
        holding = true;
        channel.put(PeerChannel.HOLD, 1);
        awaitPeer(PeerChannel.HELD, "hold its receiving", duty);
    }

    private void awaitPeer(final int word, final String what, final IntSupplier duty)
    {
        final long deadlineNs = System.nanoTime() + ANSWER_DEADLINE_NS;
        while (0 == channel.get(word))
        {
            checkAlive();
            if (System.nanoTime() - deadlineNs > 0)
            {
                throw new IllegalStateException(name() + " did not " + what + " within 15 s");
            }
            // this process's engine runs meanwhile (invoker mode): its silence would take the link down
            if (0 == duty.getAsInt())
            {
                Thread.yield();
            }
        }
    }

    /**
     * @param up whether port B's link goes up (down: the peer calls {@code Port.down()}).
     */
    void link(final boolean up)
    {
        channel.put(PeerChannel.LINK_UP, up ? 1 : 0);
    }

    void arm(final boolean armed)
    {
        channel.put(PeerChannel.ARMED, armed ? 1 : 0);
    }

    void cut(final boolean cut)
    {
        channel.put(PeerChannel.CUT, cut ? 1 : 0);
    }

    void steadyFrom(final long deliveredNs)
    {
        channel.put(PeerChannel.STEADY_FROM_NS, deliveredNs);
    }

    /**
     * @return the latency p99 of the peer's last whole second (0: none delivered).
     */
    long intervalP99()
    {
        return channel.get(PeerChannel.INTERVAL_P99_NS);
    }

    /**
     * @return the longest time the peer's loop did not turn (its process stopped or starved), in ns.
     */
    long longestPauseNs()
    {
        return channel.get(PeerChannel.LONGEST_PAUSE_NS);
    }

    /**
     * The end of the run: the peer stops receiving and publishes its results; the parent's traffic gets the final
     * counts and its recorder the peer's latencies.
     *
     * @param traffic the parent's traffic.
     * @param latency the parent's recorder.
     * @param duty    runs this process's engine in invoker mode while it waits.
     * @throws IllegalStateException when the peer dies or does not answer within 15 s.
     */
    void finish(final SoakTraffic traffic, final LatencyRecorder latency, final IntSupplier duty)
    {
        channel.put(PeerChannel.DONE, 1);
        awaitPeer(PeerChannel.FINISHED, "report its results", duty);
        finished = true;
        mirror(traffic);
        latency.merge(channel.totalHistogram(), channel.steadyHistogram(),
            snapshot[PeerChannel.scalar(PeerChannel.CLAMPED)]);
        errors = channel.errors();
    }

    /**
     * @return the peer engine's error log, as it reported it at the end ("" when empty or not finished).
     */
    String errors()
    {
        return errors;
    }

    @Override
    public long droppedData(final int vl)
    {
        return snapshot[PeerChannel.at(PeerChannel.DROPPED_DATA, vl)];
    }

    @Override
    public long corruptedData(final int vl)
    {
        return snapshot[PeerChannel.at(PeerChannel.CORRUPTED_DATA, vl)];
    }

    @Override
    public long bounceLost(final int vl)
    {
        return snapshot[PeerChannel.at(PeerChannel.BOUNCE_LOST, vl)];
    }

    @Override
    public long stateLost(final int vl)
    {
        return snapshot[PeerChannel.at(PeerChannel.STATE_LOST, vl)];
    }

    @Override
    public long droppedFcps()
    {
        return snapshot[PeerChannel.scalar(PeerChannel.DROPPED_FCPS)];
    }

    @Override
    public long corruptedFcps()
    {
        return snapshot[PeerChannel.scalar(PeerChannel.CORRUPTED_FCPS)];
    }

    /**
     * Stop the peer (it closes its engine and exits once told; killed if it has not within 5 s), reap it, and remove
     * the channel and the stderr file.
     */
    @Override
    public void close()
    {
        channel.put(PeerChannel.DONE, 2);
        if (null != line)
        {
            // the peer closes its end once it has seen the done word
            line.awaitGone(EXIT_DEADLINE_MS);
            line.close();
            return;
        }
        try
        {
            if (!process.waitFor(EXIT_DEADLINE_MS, TimeUnit.MILLISECONDS))
            {
                process.destroyForcibly();
                process.waitFor(EXIT_DEADLINE_MS, TimeUnit.MILLISECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        finally
        {
            CloseHelper.quietClose(counters);
            if (!process.isAlive() && 0 != process.exitValue() && !channel.countersPath().isEmpty())
            {
                // a peer that died could not remove its counters file
                IoUtil.deleteIfExists(new File(channel.countersPath()));
            }
            channel.close();
            IoUtil.deleteIfExists(channel.file());
            IoUtil.deleteIfExists(errFile);
        }
    }
}
