package io.vlink.tools.soak;

import io.vlink.core.qos.LowBurst;
import io.vlink.core.qos.QosConfig;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@link PeerChannel} of a soak whose peer runs on another host ({@code vlink soak --peer HOST:PORT} joining a
 * {@code vlink soak --serve}): each side holds the channel's memory, and this line copies over one TCP connection what
 * the other side wrote into it, so that the soak ({@link SoakPeer}) and the peer ({@link SoakReceiver}) run as they
 * do over the file they share on one host.
 * <p>
 * Each side's writer thread sends, each millisecond, what its side writes: the soak its command words; the peer its
 * words, its snapshot (read whole), its port's counter values (their metadata once, and again when counters are
 * added) and, once it has finished, its results. The words are read before what they announce and applied after it,
 * so the order each side's program wrote in is the order the other side sees. The reader thread of each side is the
 * only writer of the other side's half of the local copy, through the channel's own methods (the snapshot's seqlock,
 * results length after bytes, ordered words). A line is gone when the connection closes or fails, or when nothing
 * arrived for {@value #SILENCE_MS} ms (the other side writes every millisecond): {@link #gone()} says why.
 * <p>
 * At the start the soak (port A) sends the run ({@link Hello}) and its UDP port; the peer answers with its UDP port
 * (or why it refuses), and the soak measures the offset of the peer's monotonic clock from its own over
 * {@value #PINGS} round trips, the one with the shortest round trip counting: the peer's latencies are then on the
 * soak's clock, within half that round trip.
 */
final class PeerLine implements AutoCloseable
{
    /** {@code vlink soak --serve}'s TCP port and its UDP port, unless {@code --port} says otherwise. */
    static final int DEFAULT_PORT = 18516;
    /** Nothing heard for this long: the other side is gone (it writes every millisecond). */
    static final int SILENCE_MS = 10_000;

    private static final int MAGIC = 0x564C534B;
    private static final int PROTOCOL = 2;
    private static final int CONNECT_TIMEOUT_MS = 10_000;
    private static final int PINGS = 16;
    private static final long PERIOD_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private static final byte WORDS = 1;
    private static final byte SNAPSHOT = 2;
    private static final byte COUNTERS_METADATA = 3;
    private static final byte COUNTER_VALUES = 4;
    private static final byte RESULT = 5;

    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;
    private final PeerChannel channel;
    /** This side is the soak's (port A): it sends the command words. */
    private final boolean soak;
    private final String remote;
    private final InetSocketAddress remoteUdp;
    private final InetSocketAddress localUdp;
    private final long clockOffsetNs;
    private final Thread reader;
    private final Thread writer;
    private volatile String gone;
    private volatile boolean closing;
    /** The peer's side: its engine's counters, which it sends; read and replaced under {@link #countersLock}. */
    private CountersReader counters;
    private final Object countersLock = new Object();
    /** The peer's side: the counters' metadata and values as last copied, sent outside the lock. */
    private byte[] metadataCopy = new byte[0];
    private long[] valuesCopy = new long[0];
    /** The soak's side: a copy of the peer's counters, once their metadata arrived. */
    private volatile CountersReader mirror;
    private UnsafeBuffer mirrorValues;

    private PeerLine(
        final Socket socket, final DataInputStream in, final DataOutputStream out, final boolean soak,
        final InetSocketAddress localUdp, final InetSocketAddress remoteUdp, final long clockOffsetNs)
    {
        this.socket = socket;
        this.in = in;
        this.out = out;
        this.soak = soak;
        this.localUdp = localUdp;
        this.remoteUdp = remoteUdp;
        this.clockOffsetNs = clockOffsetNs;
        this.remote = address(socket.getInetAddress(), socket.getPort());
        // both copies start as the file does (the link up); the soak's words then come from the soak
        this.channel = PeerChannel.over(new UnsafeBuffer(ByteBuffer.allocateDirect(PeerChannel.LENGTH))).started();
        reader = new Thread(this::read, "vlink-soak-line-in");
        writer = new Thread(this::write, "vlink-soak-line-out");
        reader.setDaemon(true);
        writer.setDaemon(true);
    }

    /**
     * The soak's side: connect to a serving peer, send the run and take its answer.
     *
     * @param server the peer's {@code HOST:PORT}.
     * @param hello  the run.
     * @return the line, running.
     * @throws IllegalStateException when the peer cannot be reached or refuses (the reason in one line).
     */
    static PeerLine join(final InetSocketAddress server, final Hello hello)
    {
        final String where = server.getHostString() + ":" + server.getPort();
        final Socket socket = new Socket();
        try
        {
            socket.connect(server, CONNECT_TIMEOUT_MS);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(SILENCE_MS);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            final InetSocketAddress localUdp = freeUdpAddress(socket.getLocalAddress());
            hello.udpPort = localUdp.getPort();
            out.writeInt(MAGIC);
            out.writeInt(PROTOCOL);
            hello.write(out);
            out.flush();
            if (in.readInt() != MAGIC)
            {
                throw new IllegalStateException("the peer at " + where + " is not a vlink soak --serve");
            }
            if (!in.readBoolean())
            {
                throw new IllegalStateException("the peer at " + where + " refused the soak: " + in.readUTF());
            }
            final InetSocketAddress remoteUdp = new InetSocketAddress(socket.getInetAddress(), in.readInt());
            long bestRoundTripNs = Long.MAX_VALUE;
            long offsetNs = 0;
            for (int i = 0; i < PINGS; i++)
            {
                final long sentNs = System.nanoTime();
                out.writeLong(sentNs);
                out.flush();
                final long peerNs = in.readLong();
                final long backNs = System.nanoTime();
                if (backNs - sentNs < bestRoundTripNs)
                {
                    bestRoundTripNs = backNs - sentNs;
                    offsetNs = peerNs - (sentNs + (backNs - sentNs) / 2);
                }
            }
            out.writeLong(offsetNs);
            out.flush();
            final PeerLine line = new PeerLine(socket, in, out, true, localUdp, remoteUdp, offsetNs);
            line.start();
            return line;
        }
        catch (final IOException ex)
        {
            closeQuietly(socket);
            throw new IllegalStateException("could not join the peer at " + where + ": " + reason(ex), ex);
        }
        catch (final RuntimeException ex)
        {
            closeQuietly(socket);
            throw ex;
        }
    }

    /**
     * The peer's side: take the next soak that joins, and its run.
     *
     * @param server   where soaks join; its port is the UDP port of this side's end of the link too.
     * @param served   this side's key (a soak must have the same, or none when this side has none) and {@code --retry}
     *                 (when given, a soak must run the same; when not, the soak's is taken).
     * @param accepted the run, filled in from the soak's.
     * @return the line, running.
     * @throws IOException when the connection fails before the run is agreed.
     */
    static PeerLine accept(final ServerSocket server, final SoakSettings served, final Hello accepted) throws IOException
    {
        final Socket socket = server.accept();
        try
        {
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(SILENCE_MS);
            final DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            final DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            final String from = address(socket.getInetAddress(), socket.getPort());
            if (in.readInt() != MAGIC)
            {
                throw new IOException("what connected from " + from + " is not a vlink soak");
            }
            final int protocol = in.readInt();
            out.writeInt(MAGIC);
            final String refusal;
            if (protocol != PROTOCOL)
            {
                refusal = "it speaks version " + protocol + " of the soak's line, this peer " + PROTOCOL +
                    ": run the same vlink on both hosts";
            }
            else
            {
                accepted.read(in);
                refusal = refusal(accepted, served, new InetSocketAddress(socket.getLocalAddress(),
                    server.getLocalPort()));
            }
            if (null != refusal)
            {
                out.writeBoolean(false);
                out.writeUTF(refusal);
                out.flush();
                throw new IOException("refused the soak from " + from + ": " + refusal);
            }
            out.writeBoolean(true);
            out.writeInt(server.getLocalPort());
            out.flush();
            for (int i = 0; i < PINGS; i++)
            {
                in.readLong();
                out.writeLong(System.nanoTime());
                out.flush();
            }
            final long offsetNs = in.readLong();
            final PeerLine line = new PeerLine(socket, in, out, false,
                new InetSocketAddress(socket.getLocalAddress(), server.getLocalPort()),
                new InetSocketAddress(socket.getInetAddress(), accepted.udpPort), offsetNs);
            line.start();
            return line;
        }
        catch (final IOException | RuntimeException ex)
        {
            closeQuietly(socket);
            throw ex;
        }
    }

    private static String refusal(final Hello hello, final SoakSettings served, final InetSocketAddress udp)
    {
        final boolean keyed = null != served.udpKey;
        if (hello.keyed != keyed)
        {
            return hello.keyed ? "the soak authenticates the link (--key) and this peer does not: give both the " +
                "same --key FILE" : "this peer authenticates the link (--key) and the soak does not: give both the " +
                "same --key FILE";
        }
        if (keyed && hello.keyCheck != served.udpKey.check())
        {
            // each MAC would fail at the other end: the link would never train
            return String.format(java.util.Locale.ROOT, "the soak's key and this peer's differ (key check values " +
                "%016x and %016x): give both the same --key FILE", hello.keyCheck, served.udpKey.check());
        }
        if (null != served.retry && served.retry != hello.retry)
        {
            return "the soak runs link-level retry " + (hello.retry ? "on" : "off") + " and this peer --retry " +
                (served.retry ? "on" : "off") + ": give both the same --retry, or none to this peer (it takes the soak's)";
        }
        try (DatagramSocket probe = new DatagramSocket(udp))
        {
            return null;
        }
        catch (final IOException ex)
        {
            return "this peer cannot bind its end of the link, UDP " + address(udp.getAddress(), udp.getPort()) + ": " +
                reason(ex);
        }
    }

    private void start()
    {
        reader.start();
        writer.start();
    }

    /**
     * @return the local copy of the channel.
     */
    PeerChannel channel()
    {
        return channel;
    }

    /**
     * @return the other side's {@code HOST:PORT} (its TCP end).
     */
    String remote()
    {
        return remote;
    }

    /**
     * @return this side's end of the UDP link.
     */
    InetSocketAddress localUdp()
    {
        return localUdp;
    }

    /**
     * @return the other side's end of the UDP link.
     */
    InetSocketAddress remoteUdp()
    {
        return remoteUdp;
    }

    /**
     * @return the peer's monotonic clock minus the soak's, in ns.
     */
    long clockOffsetNs()
    {
        return clockOffsetNs;
    }

    /**
     * @return null while the line is up; else why it is not, in words.
     */
    String gone()
    {
        return gone;
    }

    /**
     * The peer's side: its engine's counters, sent from now on; null before the engine closes (its memory goes): this
     * returns once the writer no longer reads them.
     *
     * @param counters the engine's counters, or null.
     */
    void counters(final CountersReader counters)
    {
        synchronized (countersLock)
        {
            this.counters = counters;
        }
    }

    /**
     * @return the soak's side: the copy of the peer's counters, or null before their metadata arrived.
     */
    CountersReader mirror()
    {
        return mirror;
    }

    /**
     * Send what is left (the last words) and close this side's end; wait a little for the other side to close its
     * own, so that nothing this side sent is lost to a reset.
     */
    @Override
    public void close()
    {
        closing = true;
        LockSupport.unpark(writer);
        try
        {
            writer.join(TimeUnit.SECONDS.toMillis(5));
            reader.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            closeQuietly(socket);
        }
    }

    /**
     * @param timeoutMs the most to wait.
     * @return whether the other side closed its end (or the line failed) within the time.
     */
    boolean awaitGone(final long timeoutMs)
    {
        try
        {
            reader.join(timeoutMs);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        return !reader.isAlive();
    }

    private void write()
    {
        final long[] words = new long[soak ? PeerChannel.PARENT_WORDS.length : PeerChannel.PEER_WORDS.length];
        final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
        final boolean[] resultsSent = {false};
        final int[] metadataSent = {0};
        try
        {
            while (!closing && null == gone)
            {
                tick(words, snapshot, resultsSent, metadataSent);
                LockSupport.parkNanos(PERIOD_NS);
            }
            if (null == gone)
            {
                // the last words (the soak's done, the peer's results) go out before this end closes
                tick(words, snapshot, resultsSent, metadataSent);
                socket.shutdownOutput();
            }
        }
        catch (final IOException ex)
        {
            fail(closing ? "closed" : "the connection failed: " + reason(ex));
        }
    }

    private void tick(final long[] words, final long[] snapshot, final boolean[] resultsSent, final int[] metadataSent)
        throws IOException
    {
        final int[] offsets = soak ? PeerChannel.PARENT_WORDS : PeerChannel.PEER_WORDS;
        // the words first: what they announce was written before them, and is read after them
        for (int i = 0; i < offsets.length; i++)
        {
            words[i] = channel.get(offsets[i]);
        }
        if (!soak)
        {
            if (!resultsSent[0] && 0 != words[words.length - 1])
            {
                for (final int offset : PeerChannel.RESULTS)
                {
                    final byte[] bytes = channel.result(offset);
                    out.writeByte(RESULT);
                    out.writeInt(offset);
                    out.writeInt(bytes.length);
                    out.write(bytes);
                }
                resultsSent[0] = true;
            }
            if (channel.read(snapshot))
            {
                out.writeByte(SNAPSHOT);
                for (final long value : snapshot)
                {
                    out.writeLong(value);
                }
            }
            writeCounters(metadataSent);
        }
        out.writeByte(WORDS);
        for (final long word : words)
        {
            out.writeLong(word);
        }
        out.flush();
    }

    private void writeCounters(final int[] metadataSent) throws IOException
    {
        final int allocated;
        int metadataCapacity = 0;
        int valuesCapacity = 0;
        // copied under the lock, so that the engine's memory is not read once it closes; sent outside it
        synchronized (countersLock)
        {
            if (null == counters)
            {
                return;
            }
            int count = metadataSent[0];
            while (count <= counters.maxCounterId() &&
                CountersReader.RECORD_ALLOCATED == counters.getCounterState(count))
            {
                count++;
            }
            allocated = count;
            if (allocated != metadataSent[0])
            {
                metadataCapacity = counters.metaDataBuffer().capacity();
                valuesCapacity = counters.valuesBuffer().capacity();
                metadataCopy = new byte[allocated * CountersReader.METADATA_LENGTH];
                counters.metaDataBuffer().getBytes(0, metadataCopy);
                valuesCopy = new long[allocated];
            }
            for (int id = 0; id < allocated; id++)
            {
                valuesCopy[id] = counters.getCounterValue(id);
            }
        }
        if (allocated != metadataSent[0])
        {
            out.writeByte(COUNTERS_METADATA);
            out.writeInt(metadataCapacity);
            out.writeInt(valuesCapacity);
            out.writeInt(metadataCopy.length);
            out.write(metadataCopy);
            metadataSent[0] = allocated;
        }
        out.writeByte(COUNTER_VALUES);
        out.writeInt(allocated);
        for (int id = 0; id < allocated; id++)
        {
            out.writeLong(valuesCopy[id]);
        }
    }

    private void read()
    {
        final int[] offsets = soak ? PeerChannel.PEER_WORDS : PeerChannel.PARENT_WORDS;
        final long[] snapshot = new long[PeerChannel.SNAPSHOT_LONGS];
        try
        {
            while (true)
            {
                final byte type = in.readByte();
                switch (type)
                {
                    case WORDS:
                        for (final int offset : offsets)
                        {
                            channel.put(offset, in.readLong());
                        }
                        break;
                    case SNAPSHOT:
                        for (int i = 0; i < snapshot.length; i++)
                        {
                            snapshot[i] = in.readLong();
                        }
                        channel.publish(snapshot);
                        break;
                    case COUNTERS_METADATA:
                        readMetadata();
                        break;
                    case COUNTER_VALUES:
                        final int count = in.readInt();
                        for (int id = 0; id < count; id++)
                        {
                            mirrorValues.putLongOrdered(CountersReader.counterOffset(id), in.readLong());
                        }
                        break;
                    case RESULT:
                        final int offset = in.readInt();
                        final byte[] bytes = new byte[in.readInt()];
                        in.readFully(bytes);
                        channel.putResult(offset, bytes);
                        break;
                    default:
                        throw new IOException("a frame of unknown type " + type);
                }
            }
        }
        catch (final EOFException ex)
        {
            fail("it closed the connection");
        }
        catch (final SocketTimeoutException ex)
        {
            fail("nothing heard from it for " + TimeUnit.MILLISECONDS.toSeconds(SILENCE_MS) + " s");
        }
        catch (final IOException ex)
        {
            fail(closing ? "closed" : "the connection failed: " + reason(ex));
        }
        catch (final RuntimeException ex)
        {
            fail("it sent what this side cannot read: " + ex);
        }
    }

    private void readMetadata() throws IOException
    {
        final int metadataCapacity = in.readInt();
        final int valuesCapacity = in.readInt();
        final byte[] metadata = new byte[in.readInt()];
        in.readFully(metadata);
        if (null == mirrorValues)
        {
            mirrorValues = new UnsafeBuffer(ByteBuffer.allocateDirect(valuesCapacity));
        }
        final UnsafeBuffer metadataBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(metadataCapacity));
        metadataBuffer.putBytes(0, metadata);
        mirror = new CountersReader(metadataBuffer, mirrorValues);
    }

    private void fail(final String why)
    {
        if (null == gone)
        {
            gone = why;
        }
        LockSupport.unpark(writer);
    }

    private static InetSocketAddress freeUdpAddress(final InetAddress address)
    {
        try (DatagramSocket socket = new DatagramSocket(0, address))
        {
            return new InetSocketAddress(address, socket.getLocalPort());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("no free UDP port on " + address.getHostAddress(), ex);
        }
    }

    static String address(final InetAddress address, final int port)
    {
        final String host = address.getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }

    static String reason(final Exception ex)
    {
        return null == ex.getMessage() ? ex.getClass().getSimpleName() : ex.getMessage();
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ex)
        {
            // closing: nothing to do about it
        }
    }

    /**
     * What the soak tells the peer at the start: the run (the options the receiving side needs) and the soak's UDP
     * port. The peer's own command line gives its threads, idle strategy, directory and key.
     */
    static final class Hello
    {
        int udpPort;
        boolean keyed;
        /** The soak's key's check value ({@code LinkKey.check()}), 0 without a key. */
        long keyCheck;
        /** Whether the soak's link runs link-level retry: the peer's must do the same. */
        boolean retry = true;
        double seconds;
        long packets;
        int sizeMin;
        int sizeMax;
        long seed;
        String faults = "";
        QosConfig qos = QosConfig.seedExample();

        /**
         * @param options the soak's.
         * @return the run they describe.
         */
        static Hello of(final SoakSettings options)
        {
            final Hello hello = new Hello();
            hello.keyed = null != options.udpKey;
            hello.keyCheck = hello.keyed ? options.udpKey.check() : 0;
            // the link to a peer on another host is UDP, whatever the soak's --link says
            hello.retry = null != options.retry ? options.retry : true;
            hello.seconds = options.seconds;
            hello.packets = options.packets;
            hello.sizeMin = options.sizeMin;
            hello.sizeMax = options.sizeMax;
            hello.seed = options.seed;
            hello.faults = options.faults.toString();
            hello.qos = options.qos;
            return hello;
        }

        /**
         * @param options the peer's: the run goes into them.
         */
        void applyTo(final SoakSettings options)
        {
            options.udp = true;
            options.retry = retry;
            options.seconds = seconds;
            options.packets = packets;
            options.sizeMin = sizeMin;
            options.sizeMax = sizeMax;
            options.seed = seed;
            options.faults = FaultSpec.parse(faults);
            options.qos = qos;
        }

        private void write(final DataOutputStream out) throws IOException
        {
            out.writeInt(udpPort);
            out.writeBoolean(keyed);
            out.writeLong(keyCheck);
            out.writeBoolean(retry);
            out.writeDouble(seconds);
            out.writeLong(packets);
            out.writeInt(sizeMin);
            out.writeInt(sizeMax);
            out.writeLong(seed);
            out.writeUTF(faults);
            out.writeInt(qos.dataVls());
            out.writeInt(qos.highLimit());
            out.writeUTF(qos.high().toString());
            out.writeUTF(qos.low().toString());
            final StringBuilder sl2vl = new StringBuilder();
            for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
            {
                sl2vl.append(0 == sl ? "" : ",").append(qos.sl2vl(sl));
            }
            out.writeUTF(sl2vl.toString());
            out.writeUTF(qos.lowBurst().label());
        }

        private void read(final DataInputStream in) throws IOException
        {
            udpPort = in.readInt();
            keyed = in.readBoolean();
            keyCheck = in.readLong();
            retry = in.readBoolean();
            seconds = in.readDouble();
            packets = in.readLong();
            sizeMin = in.readInt();
            sizeMax = in.readInt();
            seed = in.readLong();
            faults = in.readUTF();
            try
            {
                qos = QosConfig.builder().dataVls(in.readInt()).highLimit(in.readInt()).vlarbHigh(in.readUTF())
                    .vlarbLow(in.readUTF()).sl2vl(in.readUTF()).lowBurst(LowBurst.ofLabel(in.readUTF())).build();
                FaultSpec.parse(faults);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IOException("the soak's run is not one this peer can run: " + ex.getMessage(), ex);
            }
        }
    }
}
