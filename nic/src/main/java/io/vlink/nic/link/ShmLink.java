package io.vlink.nic.link;

import io.vlink.nic.status.LinkCounters;
import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Two cache lines before the transmitting thread's fields.
 */
abstract class ShmLinkPad1
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The transmitting thread's fields (its ring's positions are in its {@link RingProducer}): the peer incarnation it
 * last saw and the session its frames are stamped with.
 */
abstract class ShmLinkProducer extends ShmLinkPad1
{
    long txPeer;
    long txSession;
}

/**
 * Two cache lines between the transmitting and the receiving thread's fields.
 */
abstract class ShmLinkPad2 extends ShmLinkProducer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * The receiving thread's fields (its ring's head is in its {@link RingConsumer}): its heartbeat, the peer incarnation
 * it last saw and the session frames must carry to be delivered.
 */
abstract class ShmLinkConsumer extends ShmLinkPad2
{
    long heartbeat;
    long rxPeer;
    long rxSession;
}

/**
 * Two cache lines between the receiving thread's fields and the fields both threads read.
 */
abstract class ShmLinkPad3 extends ShmLinkConsumer
{
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15;
}

/**
 * A link between two processes on one host through a memory-mapped file: one single-producer single-consumer
 * frame ring per direction, with the discipline of the {@link LoopbackLink}'s rings (a frame is written once, in
 * place, and read in place; the tail published with one release per commit, the head returned with one release per
 * poll; the two sides are the same {@link RingProducer} and {@link RingConsumer}, with a 16-byte record header that
 * adds the session), plus what two processes that do not trust each other need:
 * <ul>
 *     <li><b>Bounds.</b> Every position, length and type read from the file is checked before it is used: the
 *     peer's tail must be 64-aligned and at most one ring ahead of the head, a record must be a known type with a
 *     length of 1 to {@link #maxFrameLength()} that ends before the ring's end and before the tail, a padding record
 *     must run exactly to the ring's end. Anything else is dropped and counted ({@code link_length_drops}) by skipping
 *     to the peer's tail; nothing read from the file can make this end read or write outside the mapping.</li>
 *     <li><b>Incarnations and sessions.</b> Each end draws a random non-zero 64-bit incarnation when it attaches and
 *     publishes it last. The session is a mix of both ends' incarnations; every record carries the session its
 *     producer saw, and a frame of any other session (the peer's or this end's previous incarnation) is dropped and
 *     counted ({@code link_session_drops}). Frames flow only while both ends are attached: without a peer
 *     {@link #tryClaim} back-pressures. An end that attaches skips every frame already in its receive ring.</li>
 *     <li><b>Liveness.</b> Each end advances a heartbeat word once per {@link #poll} (the receive agent's duty
 *     cycle): {@link #peerHeartbeat()} stops moving when the peer is silent.</li>
 *     <li><b>Ownership.</b> Each end records the process (PID and start time) that holds it; an end held by a
 *     process that is gone (or whose PID was reused) is taken over; an end held by a live process is refused.</li>
 * </ul>
 * File layout (little-endian; docs/engine.md has the diagram):
 * <pre>
 *    0  magic "VLSM", version, ring capacity            (written before the file appears at its path)
 *  128  end A: owner PID, owner start (epoch ms), incarnation   256 end A: heartbeat
 *  384  end B: owner PID, owner start (epoch ms), incarnation   512 end B: heartbeat
 *  640  ring A-to-B tail   768 ring A-to-B head   896 ring B-to-A tail   1024 ring B-to-A head
 * 4096  ring A-to-B records (capacity bytes), then ring B-to-A records (capacity bytes)
 * </pre>
 * A record is a 16-byte header (frame length, frame type, session) and the frame, aligned to 64 bytes: a record
 * shares no cache line with the next, so the transmitting side never writes a line the peer may still be reading, and
 * a 64-byte message's frame (106 bytes with its header) is two lines. After each commit the transmitting side writes
 * a zero into each line of the next 128 bytes of free space: the lines the next record will take are then its own,
 * not the peer's (which read them a ring ago), before it writes the frame and reads it back for the CRCs. A frame
 * that would not fit before the end of the ring is preceded by a padding record (length to the end, type 0).
 * <p>
 * The file is made whole under a temporary name and linked to its path, so a file at the path is always complete.
 * Attaching and detaching take the file's lock (and a lock of this process, as two ends may live in one process),
 * so a file is never removed while an end attaches to it: the last end to close removes it, and a file whose ends
 * are both held by processes that are gone is removed and made anew by the next end to open it.
 * <p>
 * Threading: one thread transmits ({@link #tryClaim}, {@link #commit}, {@link #abort}), one receives
 * ({@link #poll}); {@link #peerIncarnation()} and {@link #peerHeartbeat()} may be read from any thread while open.
 */
public final class ShmLink extends ShmLinkPad3 implements Link
{
    /** Which ring an end transmits on, and its default LIDs. */
    public enum Role
    {
        /** Transmits on the A-to-B ring; LID 1, peer LID 2 by default. The {@code vlink perf} server's end. */
        A(0, 1, 2),
        /** Transmits on the B-to-A ring; LID 2, peer LID 1 by default. */
        B(1, 2, 1);

        private final int end;
        private final int localLid;
        private final int remoteLid;

        Role(final int end, final int localLid, final int remoteLid)
        {
            this.end = end;
            this.localLid = localLid;
            this.remoteLid = remoteLid;
        }

        /**
         * @return this end's LID unless set otherwise.
         */
        public int localLid()
        {
            return localLid;
        }

        /**
         * @return the peer's LID unless set otherwise.
         */
        public int remoteLid()
        {
            return remoteLid;
        }

        /**
         * @return the other end.
         */
        public Role peer()
        {
            return this == A ? B : A;
        }

        /**
         * @param text {@code a} or {@code b}, any case.
         * @return the role.
         * @throws IllegalArgumentException naming the accepted values.
         */
        public static Role parse(final String text)
        {
            switch (text.trim().toLowerCase(java.util.Locale.ROOT))
            {
                case "a":
                    return A;
                case "b":
                    return B;
                default:
                    throw new IllegalArgumentException("unknown shm role '" + text + "': use a or b");
            }
        }
    }

    /** Default bytes of each direction's ring: 1 MiB, as the loopback's. */
    public static final int DEFAULT_CAPACITY = LoopbackLink.DEFAULT_CAPACITY;
    /** The smallest ring. */
    public static final int MIN_CAPACITY = 64 * 1024;
    /** The largest ring. */
    public static final int MAX_CAPACITY = 1 << 30;

    static final int MAGIC = 0x4D534C56; // "VLSM" in the file (little-endian)
    /** 2: records aligned to 64 bytes (1: to 8). */
    static final int VERSION = 2;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int CAPACITY_OFFSET = 8;
    static final int PAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    static final int ENDS_OFFSET = PAD;
    static final int END_LENGTH = 2 * PAD;
    static final int PID_OFFSET = 0;
    static final int START_OFFSET = 8;
    static final int INCARNATION_OFFSET = 16;
    static final int HEARTBEAT_OFFSET = PAD;
    static final int POSITIONS_OFFSET = ENDS_OFFSET + 2 * END_LENGTH;
    static final int RINGS_OFFSET = 4096;
    static final int HEADER_LENGTH = 16;
    static final int SESSION_OFFSET = RingConsumer.SESSION_OFFSET;
    /** Records start and end on a cache line. */
    static final int ALIGNMENT = BitUtil.CACHE_LINE_LENGTH;
    /** Bytes of free space after the tail whose lines the transmitting side writes after each commit. */
    static final int WRITE_AHEAD = 2 * BitUtil.CACHE_LINE_LENGTH;
    static final int PADDING = RingProducer.PADDING;

    /** How often {@link #open} starts again when the file changed under it (made, reclaimed or removed). */
    private static final int OPEN_ATTEMPTS = 16;
    /** A recorded start time may differ this much from the one the OS reports for the same process. */
    private static final long START_TOLERANCE_MS = 1_000;
    /** Attaching and detaching in this process: file locks are per process, two ends may share one. */
    private static final Object PROCESS_LOCK = new Object();
    /** This process, as an end's owner words record it. */
    private static final long OWN_PID = ProcessHandle.current().pid();
    private static final long OWN_START_MS = startMs(ProcessHandle.current());

    private final Path file;
    private final Object fileKey;
    private final FileChannel channel;
    private final MappedByteBuffer mapped;
    private final UnsafeBuffer header;
    private final UnsafeBuffer transmitBuffer;
    private final UnsafeBuffer receiveBuffer;
    private final Role role;
    private final int capacity;
    private final int maxFrameLength;
    private final int ownEnd;
    private final int peerEnd;
    private final int tailIndex;
    private final int peerIncarnationIndex;
    private final int peerHeartbeatIndex;
    private final int heartbeatIndex;
    private final long incarnation;
    private final LinkCounters counters;
    private final RingProducer producer;
    private final RingConsumer consumer;
    private volatile boolean closed;
    // receiving thread: a peer was attached since the last close notice
    private boolean peerAttached;

    private ShmLink(
        final Path file,
        final Object fileKey,
        final FileChannel channel,
        final MappedByteBuffer mapped,
        final UnsafeBuffer region,
        final Role role,
        final int capacity,
        final long incarnation,
        final LinkCounters counters)
    {
        this.file = file;
        this.fileKey = fileKey;
        this.channel = channel;
        this.mapped = mapped;
        this.header = new UnsafeBuffer(region, 0, RINGS_OFFSET);
        this.role = role;
        this.capacity = capacity;
        this.maxFrameLength = RingConsumer.maxFrameLength(capacity);
        this.ownEnd = role.end;
        this.peerEnd = role.peer().end;
        this.transmitBuffer = new UnsafeBuffer(region, RINGS_OFFSET + ownEnd * capacity, capacity);
        this.receiveBuffer = new UnsafeBuffer(region, RINGS_OFFSET + peerEnd * capacity, capacity);
        this.tailIndex = tailIndex(ownEnd);
        this.peerIncarnationIndex = endIndex(peerEnd) + INCARNATION_OFFSET;
        this.peerHeartbeatIndex = endIndex(peerEnd) + HEARTBEAT_OFFSET;
        this.heartbeatIndex = endIndex(ownEnd) + HEARTBEAT_OFFSET;
        this.incarnation = incarnation;
        this.counters = counters;
        this.producer = new RingProducer(transmitBuffer, capacity, header, tailIndex, headIndex(ownEnd), HEADER_LENGTH,
            ALIGNMENT, WRITE_AHEAD);
        this.consumer = new RingConsumer(receiveBuffer, capacity, header, tailIndex(peerEnd), headIndex(peerEnd),
            HEADER_LENGTH, ALIGNMENT, counters.framesReceived(), counters.lengthDrops(), counters.sessionDrops());
    }

    /**
     * An end over memory the caller holds instead of a file: for the stress tests, whose two ends on one region stand
     * for the two processes. Not attached: {@link #takeEnd()} attaches it, {@link #close()} detaches it (and nothing
     * else: no file, no lock, no unmapping).
     *
     * @param region      {@link #fileLength(int)} bytes, zeroed or left by earlier ends.
     * @param role        which end this is.
     * @param capacity    bytes of each direction's ring (a power of two; a frame is at most an eighth).
     * @param incarnation this end's incarnation (non-zero).
     * @param counters    the port's counters.
     * @return the end, not attached.
     */
    public static ShmLink over(
        final UnsafeBuffer region, final Role role, final int capacity, final long incarnation,
        final LinkCounters counters)
    {
        if (Integer.bitCount(capacity) != 1 || region.capacity() < fileLength(capacity) || 0 == incarnation)
        {
            throw new IllegalArgumentException("a region of " + fileLength(capacity) + " bytes for rings of " +
                capacity + " (a power of two), and a non-zero incarnation");
        }
        return new ShmLink(null, null, null, null, region, role, capacity, incarnation, counters);
    }

    /**
     * Attach to the file as one end of the link, making the file when there is none (or when the one there is
     * stale: no live process holds either end).
     *
     * @param file     the link's file; its directory must exist.
     * @param role     which end this is.
     * @param capacity bytes of each direction's ring when this end makes the file (a power of two, 64 KiB..1 GiB);
     *                 an existing file keeps its own.
     * @param counters the port's counters (frames, drops, back-pressure).
     * @return the attached end.
     * @throws IllegalStateException when the end is held by a live process, or the file is not a link file.
     * @throws UncheckedIOException  when the file cannot be made, mapped or locked.
     */
    public static ShmLink open(final Path file, final Role role, final int capacity, final LinkCounters counters)
    {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(counters, "counters");
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1)
        {
            throw new IllegalArgumentException("shm ring capacity " + capacity +
                " must be a power of two from 64 KiB to 1 GiB");
        }
        final Path path = file.toAbsolutePath();
        try
        {
            for (int attempt = 0; attempt < OPEN_ATTEMPTS; attempt++)
            {
                if (!Files.exists(path))
                {
                    create(path, capacity);
                }
                final ShmLink link = attach(path, role, counters);
                if (null != link)
                {
                    return link;
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("shm link " + path + ": " + ex.getMessage(), ex);
        }
        throw new IllegalStateException("shm link " + path + ": the file kept changing while attaching (" +
            OPEN_ATTEMPTS + " attempts); is something else removing it?");
    }

    /** Make a whole file under a temporary name, then link it to the path: a file at the path is always complete. */
    private static void create(final Path path, final int capacity) throws IOException
    {
        final Path parent = path.getParent();
        if (null == parent || !Files.isDirectory(parent))
        {
            throw new NoSuchFileException(String.valueOf(parent), null, "directory does not exist: create it first");
        }
        final Path temporary = parent.resolve(path.getFileName() + "." + ProcessHandle.current().pid() + "." +
            Long.toHexString(System.nanoTime()) + ".tmp");
        try (FileChannel channel = FileChannel.open(temporary,
            StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            final MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength(capacity));
            try
            {
                final UnsafeBuffer header = new UnsafeBuffer(mapped, 0, RINGS_OFFSET);
                header.putInt(CAPACITY_OFFSET, capacity);
                header.putInt(VERSION_OFFSET, VERSION);
                header.putIntVolatile(MAGIC_OFFSET, MAGIC);
            }
            finally
            {
                IoUtil.unmap(mapped);
            }
            try
            {
                Files.createLink(path, temporary);
            }
            catch (final FileAlreadyExistsException ex)
            {
                // another end made it first: attach to theirs
            }
        }
        finally
        {
            Files.deleteIfExists(temporary);
        }
    }

    /** Attach under the locks; null when the file changed under us (start again). */
    private static ShmLink attach(final Path path, final Role role, final LinkCounters counters) throws IOException
    {
        final Object before = fileKey(path);
        if (null == before)
        {
            return null;
        }
        final FileChannel channel;
        try
        {
            channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
        MappedByteBuffer mapped = null;
        boolean attached = false;
        try
        {
            synchronized (PROCESS_LOCK)
            {
                try (FileLock ignored = channel.lock())
                {
                    if (!before.equals(fileKey(path)))
                    {
                        return null; // removed or replaced while we waited for the lock
                    }
                    final long size = channel.size();
                    if (size < RINGS_OFFSET)
                    {
                        throw notALinkFile(path, "it is " + size + " bytes, shorter than the link's header");
                    }
                    mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, RINGS_OFFSET);
                    final UnsafeBuffer header = new UnsafeBuffer(mapped);
                    final int capacity = checkHeader(path, header, size);
                    final long[] owners = new long[2];
                    final boolean[] live = new boolean[2];
                    for (int end = 0; end < 2; end++)
                    {
                        owners[end] = header.getLongVolatile(endIndex(end) + PID_OFFSET);
                        live[end] = isLive(owners[end], header.getLongVolatile(endIndex(end) + START_OFFSET));
                    }
                    if (!live[0] && !live[1] && (0 != owners[0] || 0 != owners[1]))
                    {
                        // stale: left by processes that are gone; made anew (under the lock, so nobody attaches)
                        Files.deleteIfExists(path);
                        return null;
                    }
                    if (live[role.end])
                    {
                        throw new IllegalStateException("shm link " + path + ": end " + role + " is held by process " +
                            owners[role.end] + (owners[role.end] == ProcessHandle.current().pid() ? " (this one)" : "") +
                            "; close it first or use end " + role.peer());
                    }
                    IoUtil.unmap(mapped);
                    mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, fileLength(capacity));
                    final ShmLink link = new ShmLink(
                        path, before, channel, mapped, new UnsafeBuffer(mapped), role, capacity, Incarnations.next(), counters);
                     link.takeEnd();
                    attached = true;
                    return link;
                }
            }
        }
        finally
        {
            if (!attached)
            {
                if (null != mapped)
                {
                    IoUtil.unmap(mapped);
                }
                channel.close();
            }
        }
    }

    private static int checkHeader(final Path path, final UnsafeBuffer header, final long size)
    {
        final int magic = header.getIntVolatile(MAGIC_OFFSET);
        if (MAGIC != magic)
        {
            throw notALinkFile(path, "bad magic 0x" + Integer.toHexString(magic));
        }
        final int version = header.getInt(VERSION_OFFSET);
        if (VERSION != version)
        {
            throw notALinkFile(path, "version " + version + ", this vlink reads version " + VERSION);
        }
        final int capacity = header.getInt(CAPACITY_OFFSET);
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1 ||
            size != fileLength(capacity))
        {
            throw notALinkFile(path, "ring capacity " + capacity + " with a file of " + size + " bytes");
        }
        return capacity;
    }

    private static IllegalStateException notALinkFile(final Path path, final String why)
    {
        return new IllegalStateException("shm link " + path + " is not a vlink shm link file (" + why +
            "): remove it or choose another path");
    }

    /**
     * Attach (under the locks, for a file): take this end, position the rings, publish the incarnation last, so that
     * a peer that sees it (and only then stamps frames with the new session) finds this end's head already past
     * everything it sent before.
     */
    public void takeEnd()
    {
        final int end = endIndex(ownEnd);
        header.putLongVolatile(end + INCARNATION_OFFSET, 0);
        header.putLongVolatile(end + PID_OFFSET, OWN_PID);
        header.putLongVolatile(end + START_OFFSET, OWN_START_MS);
        // transmit: go on from what the previous holder of this end published (an unpublished claim is lost)
        producer.reset(BitUtil.align(Math.max(0, header.getLongVolatile(tailIndex)), ALIGNMENT));
        // receive: whatever the peer wrote before this incarnation existed was not meant for it
        consumer.skipToTail();
        heartbeat = header.getLongVolatile(heartbeatIndex);
        header.putLongVolatile(end + INCARNATION_OFFSET, incarnation);
    }

    /**
     * Detach (under the locks, for a file): the incarnation first, after every commit of the transmitting thread, so
     * that the peer's receiver, once it sees it cleared, finds every frame this end committed by reading the tail
     * again; then the owner.
     */
    private void releaseEnd()
    {
        final int end = endIndex(ownEnd);
        header.putLongVolatile(end + INCARNATION_OFFSET, 0);
        header.putLongVolatile(end + START_OFFSET, 0);
        header.putLongVolatile(end + PID_OFFSET, 0);
    }

    /**
     * The session of two incarnations: what every record is stamped with.
     *
     * @param incarnationA end A's incarnation (0: not attached).
     * @param incarnationB end B's incarnation (0: not attached).
     * @return the session, or 0 when an end is not attached.
     */
    static long session(final long incarnationA, final long incarnationB)
    {
        if (0 == incarnationA || 0 == incarnationB)
        {
            return 0;
        }
        final long mixed = (incarnationA * 0x9E3779B97F4A7C15L) ^ Long.rotateLeft(incarnationB, 31);
        return 0 == mixed ? 1 : mixed;
    }

    private long sessionWith(final long peerIncarnation)
    {
        return Role.A == role ? session(incarnation, peerIncarnation) : session(peerIncarnation, incarnation);
    }

    static boolean isLive(final long pid, final long startMs)
    {
        if (0 == pid)
        {
            return false;
        }
        final Optional<ProcessHandle> process = ProcessHandle.of(pid);
        if (process.isEmpty() || !process.get().isAlive())
        {
            return false;
        }
        final long started = startMs(process.get());
        // a reused PID: the process holding it now is not the one that attached
        return 0 == started || 0 == startMs || Math.abs(started - startMs) <= START_TOLERANCE_MS;
    }

    private static long startMs(final ProcessHandle process)
    {
        final Optional<Instant> started = process.info().startInstant();
        return started.map(Instant::toEpochMilli).orElse(0L);
    }

    private static Object fileKey(final Path path) throws IOException
    {
        try
        {
            final BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class);
            final Object key = attributes.fileKey();
            return null != key ? key : attributes.creationTime();
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
    }

    static int endIndex(final int end)
    {
        return ENDS_OFFSET + end * END_LENGTH;
    }

    static int tailIndex(final int ring)
    {
        return POSITIONS_OFFSET + ring * 2 * PAD;
    }

    static int headIndex(final int ring)
    {
        return POSITIONS_OFFSET + ring * 2 * PAD + PAD;
    }

    public static long fileLength(final int capacity)
    {
        return RINGS_OFFSET + 2L * capacity;
    }

    /**
     * @return the link's file.
     */
    public Path file()
    {
        return file;
    }

    /**
     * @return which end this is.
     */
    public Role role()
    {
        return role;
    }

    /**
     * @return bytes of each direction's ring (the file's, whoever made it).
     */
    public int capacity()
    {
        return capacity;
    }

    @Override
    public long incarnation()
    {
        return incarnation;
    }

    @Override
    public long peerIncarnation()
    {
        return closed ? UNKNOWN_INCARNATION : header.getLongVolatile(peerIncarnationIndex);
    }

    @Override
    public long peerHeartbeat()
    {
        return closed ? NO_HEARTBEAT : header.getLongVolatile(peerHeartbeatIndex);
    }

    /**
     * Whether a live process holds the peer's end (a system call: for a watchdog, not for every duty cycle).
     *
     * @return false when no process holds it, or the one that did has ended.
     */
    public boolean peerProcessAlive()
    {
        if (closed)
        {
            return false;
        }
        final int peer = endIndex(peerEnd);
        return isLive(header.getLongVolatile(peer + PID_OFFSET), header.getLongVolatile(peer + START_OFFSET));
    }

    /**
     * @return this end's heartbeat: polls so far (receiving thread).
     */
    public long heartbeat()
    {
        return heartbeat;
    }

    @Override
    public int maxFrameLength()
    {
        return maxFrameLength;
    }

    @Override
    public int tryClaim(final int frameType, final int length)
    {
        RingProducer.checkFrame(frameType, length, maxFrameLength);
        if (!session())
        {
            counters.backPressure().incrementRelease();
            return BACK_PRESSURED;
        }
        final int at = producer.claim(frameType, length);
        if (BACK_PRESSURED == at)
        {
            counters.backPressure().incrementRelease();
            return BACK_PRESSURED;
        }
        transmitBuffer.putLong(at + SESSION_OFFSET, txSession);
        return at + HEADER_LENGTH;
    }

    /** Transmitting thread: the session to stamp frames with; false while the peer is not attached. */
    private boolean session()
    {
        final long peer = header.getLongAcquire(peerIncarnationIndex);
        if (peer != txPeer)
        {
            txPeer = peer;
            txSession = sessionWith(peer);
        }
        return 0 != peer;
    }

    @Override
    public boolean hasRoomFor(final int length)
    {
        return session() && producer.hasRoomFor(length);
    }

    @Override
    public AtomicBuffer buffer()
    {
        return transmitBuffer;
    }

    @Override
    public void commit(final int offset)
    {
        producer.commit();
        counters.framesSent().incrementRelease();
    }

    @Override
    public void abort(final int offset)
    {
        producer.abort();
    }

    @Override
    public int poll(final FrameHandler handler, final int frameLimit)
    {
        // the tail first: a frame of a new peer incarnation is visible only with the incarnation published before it
        final long available = consumer.available();
        final long peer = header.getLongAcquire(peerIncarnationIndex);
        if (peer != rxPeer && UNKNOWN_INCARNATION != peer)
        {
            // a peer that detached keeps its session: what it committed before closing is still delivered
            rxPeer = peer;
            rxSession = sessionWith(peer);
        }
        header.putLongRelease(heartbeatIndex, ++heartbeat);
        final int frames = consumer.poll(handler, frameLimit, available, rxSession);
        if (UNKNOWN_INCARNATION == peer)
        {
            // the peer detached (a clean close clears its incarnation after its last commit): once everything it
            // committed was read (the tail read again, after the incarnation), tell the link layer, once
            if (peerAttached && consumer.drained())
            {
                peerAttached = false;
                handler.onPeerClosed();
            }
        }
        else
        {
            peerAttached = true;
        }
        return frames;
    }

    /**
     * Detach: clear this end's incarnation and owner, and remove the file when the peer is not attached either.
     * Idempotent. Call once the transmitting and receiving threads stopped using the link.
     */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (null == channel)
        {
            releaseEnd(); // an end over memory (over): no file
            return;
        }
        try
        {
            synchronized (PROCESS_LOCK)
            {
                try (FileLock ignored = channel.lock())
                {
                    releaseEnd();
                    final int peer = endIndex(peerEnd);
                    final boolean peerLive = isLive(
                        header.getLongVolatile(peer + PID_OFFSET), header.getLongVolatile(peer + START_OFFSET));
                    // the path still names this end's file unless another end found it stale and made it anew
                    if (!peerLive && fileKey.equals(fileKey(file)))
                    {
                        Files.deleteIfExists(file);
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("shm link " + file + ": cannot detach: " + ex.getMessage(), ex);
        }
        finally
        {
            IoUtil.unmap(mapped);
            try
            {
                channel.close();
            }
            catch (final IOException ignore)
            {
                // closing: nothing left to do with the file
            }
        }
    }

    /**
     * Test support: make this end look as if its process had died (an owner start time of 1970), without detaching.
     */
    void playDead()
    {
        header.putLongVolatile(endIndex(ownEnd) + START_OFFSET, 1);
    }

    /**
     * Test support: unmap without detaching, as a process that died would leave the file.
     */
    void abandon()
    {
        closed = true;
        playDead();
        IoUtil.unmap(mapped);
        try
        {
            channel.close();
        }
        catch (final IOException ignore)
        {
            // as a process that died
        }
    }

    /**
     * @return the header of the mapped file, for tests that write what a hostile peer would.
     */
    UnsafeBuffer headerBuffer()
    {
        return header;
    }

    /**
     * @return this end's receive ring, for tests that write what a hostile peer would.
     */
    UnsafeBuffer receiveRing()
    {
        return receiveBuffer;
    }
}
