package io.vlink.tools.perf;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The two sides of {@code vlink perf} over an in-memory pair of queues (no engine, no process): the server runs what
 * the client asked for and says so, both count the same measured messages, warm-up is by time and not counted, and
 * a message lost while the link stays up ends the run within the peer timeout, naming the loss.
 */
class PerfPeerTest
{
    /** One end of an in-memory link: what one side offers, the other polls, in order. */
    private static final class MemoryTransport implements PerfTransport
    {
        final ConcurrentLinkedQueue<byte[]> in;
        final ConcurrentLinkedQueue<byte[]> out;
        final int lid;
        /** Drop the data message of this number (counting data messages offered from 1), or 0 for none. */
        volatile long dropData;
        /**
         * Ready only once a poll has delivered a message, as an Armed port goes Active on the first data packet it
         * receives: the poll that brings the peer's first message is the one that makes the link ready.
         */
        volatile boolean readyOnFirstMessage;
        private boolean delivered;
        long dataOffered;
        private final UnsafeBuffer view = new UnsafeBuffer(0, 0);

        MemoryTransport(final ConcurrentLinkedQueue<byte[]> in, final ConcurrentLinkedQueue<byte[]> out, final int lid)
        {
            this.in = in;
            this.out = out;
            this.lid = lid;
        }

        @Override
        public boolean ready()
        {
            return !readyOnFirstMessage || delivered;
        }

        @Override
        public Address address(final int sl)
        {
            return new Address(lid, 1 + sl, 0);
        }

        @Override
        public int mtu()
        {
            return 4096;
        }

        @Override
        public int maxInline(final int sl)
        {
            return 224;
        }

        @Override
        public boolean offer(final DirectBuffer message, final int length, final int sl)
        {
            final byte[] bytes = new byte[length];
            message.getBytes(0, bytes);
            if (PerfPeer.DATA == bytes[0] && ++dataOffered == dropData)
            {
                return true; // lost on the wire
            }
            out.add(bytes);
            return true;
        }

        @Override
        public int poll(final MessageHandler handler)
        {
            int count = 0;
            byte[] message;
            while (count < 64 && null != (message = in.poll()))
            {
                view.wrap(message);
                handler.onMessage(view, 0);
                count++;
                delivered = true;
            }
            return count;
        }

        @Override
        public boolean flushed()
        {
            return true;
        }

        @Override
        public int duty()
        {
            return 0;
        }

        @Override
        public String peerGone()
        {
            return null;
        }

        @Override
        public String describe()
        {
            return "memory";
        }

        @Override
        public String diagnosis()
        {
            return "in memory: nothing is lost but what the test drops";
        }

        @Override
        public void close()
        {
        }
    }

    /** What a side was told. */
    private static final class Recorder implements PerfPeer.Listener
    {
        final List<PerfPeer.Connected> connected = new ArrayList<>();
        final List<Long> warming = new ArrayList<>();
        final List<PerfRow> rows = new ArrayList<>();

        @Override
        public void connected(final PerfPeer.Connected run)
        {
            connected.add(run);
        }

        @Override
        public void warming(final long warmupNs)
        {
            warming.add(warmupNs);
        }

        @Override
        public void row(final PerfRow row)
        {
            rows.add(row);
        }
    }

    private final ConcurrentLinkedQueue<byte[]> toServer = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<byte[]> toClient = new ConcurrentLinkedQueue<>();
    private final MemoryTransport clientEnd = new MemoryTransport(toClient, toServer, 2);
    private final MemoryTransport serverEnd = new MemoryTransport(toServer, toClient, 1);
    private final Recorder serverSide = new Recorder();
    private final AtomicReference<Throwable> serverFailure = new AtomicReference<>();

    private Thread serve(final PerfPeer.Settings serverDefaults)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                new PerfPeer(serverDefaults).server(() -> serverEnd, serverSide, reason ->
                {
                    throw new PeerVanishedException(reason);
                });
            }
            catch (final Throwable ex)
            {
                serverFailure.set(ex);
            }
        });
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static PerfPeer.Settings settings(final boolean bandwidth, final long iterations, final long warmupMs,
        final int... sizes)
    {
        final PerfPeer.Settings settings = new PerfPeer.Settings();
        settings.bandwidth = bandwidth;
        settings.iterations = iterations;
        settings.warmupNs = TimeUnit.MILLISECONDS.toNanos(warmupMs);
        settings.sizes = sizes;
        settings.sl = 3;
        settings.peerTimeoutNs = TimeUnit.SECONDS.toNanos(20);
        return settings;
    }

    @Test
    @Timeout(60)
    void theServerRunsAndReportsTheClientsRunWithTheSameCountsAndBothAddresses() throws Exception
    {
        // the server's own defaults differ from the client's run in everything the client says
        final Thread server = serve(settings(true, 999, 5000, 2));
        final Recorder clientSide = new Recorder();
        final PerfPeer.Settings run = settings(false, 200, 100, 2, 64, 4096);
        new PerfPeer(run).client(clientEnd, clientSide);
        server.join(TimeUnit.SECONDS.toMillis(30));
        assertNull(serverFailure.get());
        assertFalse(server.isAlive());

        final PerfPeer.Connected atServer = serverSide.connected.get(0);
        assertFalse(atServer.run().bandwidth, "the client's test");
        assertEquals(200, atServer.run().iterations, "the client's -n");
        assertEquals(TimeUnit.MILLISECONDS.toNanos(100), atServer.run().warmupNs, "the client's warm-up");
        assertEquals(3, atServer.run().sl, "the client's SL");
        assertEquals(new PerfTransport.Address(1, 4, 0), atServer.local());
        assertEquals(new PerfTransport.Address(2, 4, 0), atServer.remote(), "the client's own address");
        final PerfPeer.Connected atClient = clientSide.connected.get(0);
        assertEquals(atServer.local(), atClient.remote());
        assertEquals(atServer.remote(), atClient.local());

        assertEquals(List.of(TimeUnit.MILLISECONDS.toNanos(100)), clientSide.warming, "one warm-up line, first size");
        assertEquals(clientSide.warming, serverSide.warming);
        assertEquals(3, clientSide.rows.size());
        assertEquals(3, serverSide.rows.size());
        for (int i = 0; i < 3; i++)
        {
            assertEquals(new int[] {2, 64, 4096}[i], serverSide.rows.get(i).bytes);
            assertEquals(200, clientSide.rows.get(i).iterations, "warm-up not counted");
            assertEquals(200, serverSide.rows.get(i).iterations, "the server times as many round trips");
            assertTrue(clientSide.rows.get(i).warmupMessages > 0, "warmed by time");
            assertEquals(clientSide.rows.get(i).warmupMessages, serverSide.rows.get(i).warmupMessages);
        }
    }

    @Test
    @Timeout(60)
    void bandwidthCountsOnlyTheMeasuredMessagesOnBothSides() throws Exception
    {
        final Thread server = serve(settings(false, 1, 1, 2));
        final Recorder clientSide = new Recorder();
        assertEquals(0, new PerfPeer(settings(true, 5000, 50, 64, 4096)).client(clientEnd, clientSide));
        server.join(TimeUnit.SECONDS.toMillis(30));
        assertNull(serverFailure.get());
        assertTrue(serverSide.connected.get(0).run().bandwidth);
        for (int i = 0; i < 2; i++)
        {
            assertEquals(5000, clientSide.rows.get(i).iterations);
            assertEquals(5000, serverSide.rows.get(i).iterations, "the warm-up's messages are not counted");
            assertEquals(clientSide.rows.get(i).warmupMessages, serverSide.rows.get(i).warmupMessages);
        }
    }

    /**
     * The server's link became ready in the very poll that brought the client's SETUP (its port was Armed, and the
     * SETUP was the first data packet it received, which makes it Active): the SETUP is kept, not cleared as a former
     * client's leftover. Over UDP under load this left both sides waiting for each other until the peer timeout.
     */
    @Test
    @Timeout(60)
    void aSetupThatArrivesInThePollThatMakesTheServersLinkReadyIsServed() throws Exception
    {
        serverEnd.readyOnFirstMessage = true;
        final Thread server = serve(settings(false, 1, 1, 2));
        final PerfPeer.Settings run = settings(false, 50, 10, 2);
        run.peerTimeoutNs = TimeUnit.SECONDS.toNanos(2);
        final Recorder clientSide = new Recorder();
        new PerfPeer(run).client(clientEnd, clientSide);
        server.join(TimeUnit.SECONDS.toMillis(30));
        assertNull(serverFailure.get());
        assertEquals(1, serverSide.connected.size());
        assertEquals(50, serverSide.rows.get(0).iterations);
        assertEquals(50, clientSide.rows.get(0).iterations);
    }

    @Test
    @Timeout(60)
    void aLostMessageEndsTheRunWithinThePeerTimeoutAndSaysItWasLost() throws Exception
    {
        serve(settings(false, 1, 1, 2));
        final PerfPeer.Settings run = settings(false, 1000, 0, 2);
        run.peerTimeoutNs = TimeUnit.MILLISECONDS.toNanos(500);
        clientEnd.dropData = 10;
        final long start = System.nanoTime();
        final PeerVanishedException ex = assertThrows(PeerVanishedException.class,
            () -> new PerfPeer(run).client(clientEnd, new Recorder()));
        assertTrue(ex.lost(), ex.getMessage());
        assertTrue(ex.getMessage().contains("while the link stayed up: a message was lost"), ex.getMessage());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "bounded by the peer timeout");
    }
}
