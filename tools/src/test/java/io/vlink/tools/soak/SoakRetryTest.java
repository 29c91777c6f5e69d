package io.vlink.tools.soak;

import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.LinkKey;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.PortCounters;
import org.agrona.CloseHelper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The soak with link-level retry: the wire's faults act below the retry layer and cost retransmissions, not packets
 * (the no-loss invariant holds with nothing lost to a fault, the summary shows the retransmissions), over loopback
 * (deterministic: the same run every time), over UDP with 1 % of data packets and FCPs lost on the wire (and, with
 * retry off, the same drops lost, as the seed's link layer loses them), and over UDP with a key while a stranger floods
 * port B's socket with garbage until the kernel drops datagrams there.
 */
class SoakRetryTest
{
    /** The stranger's datagrams: at least this many (a few seconds' worth)... */
    private static final long MIN_FLOOD = 200_000;
    /** ...and at most this many, whatever happens. */
    private static final long MAX_FLOOD = 2_000_000;

    @TempDir
    File dir;

    private SoakSettings options(final long packets, final String faults)
    {
        final SoakSettings options = new SoakSettings();
        options.seconds = 3600;
        options.packets = packets;
        options.threading = ThreadingMode.INVOKER;
        options.sizeMin = 512;
        options.sizeMax = 512;
        options.seed = 7;
        options.faults = FaultSpec.parse(faults);
        options.directory = dir;
        options.retry = true;
        return options;
    }

    private static void assertNothingLost(final SoakResult result)
    {
        assertTrue(result.ok(), String.join("; ", result.violations));
        for (final SoakResult.Vl vl : result.vls)
        {
            assertEquals(vl.sentPackets, vl.receivedPackets, "VL" + vl.vl);
            assertEquals(0, vl.faultLost, "VL" + vl.vl + ": nothing destroyed by a fault");
            assertEquals(0, vl.lost);
        }
        assertTrue(result.retry);
        assertEquals(0, result.retryFailures);
    }

    @Test
    void everyWireFaultBelowRetryCostsRetransmissionsNotPacketsAndTheRunIsTheSameEveryTime()
    {
        final String faults = "drop-data=0.01,corrupt-data=0.005,drop-fcp=0.01,corrupt-fcp=0.005";
        final SoakSettings options = options(20_000, faults);
        options.clock = new SteppingClock(SoakRunnerTest.STEP_NS);
        final SoakResult result = SoakRunner.run(options, null).result;
        assertNothingLost(result);
        final long dropped = result.faultsInjected.get(FaultKind.DROP_DATA);
        final long corrupted = result.faultsInjected.get(FaultKind.CORRUPT_DATA);
        assertTrue(dropped > 100 && corrupted > 50, dropped + " dropped, " + corrupted + " corrupted");
        assertNull(result.faultsDetected.get(FaultKind.DROP_DATA), "a lost packet is sent again: nothing to detect");
        final long badCrc = result.faultsDetected.get(FaultKind.CORRUPT_DATA);
        assertTrue(badCrc > 0 && badCrc <= corrupted, "damaged packets found by the CRC check and asked for again");
        assertTrue(result.retransmits >= dropped + badCrc, result.retryText());
        assertTrue(result.replayRequests > 0);
        assertTrue(result.discards.containsKey("data_bad_crc") && result.discards.containsKey("fcp_bad_lpcrc"));
        assertTrue(result.toJson().contains("\"link_retry\": {\"on\": true, \"retransmits\": " + result.retransmits),
            result.toJson());

        final SoakSettings again = options(20_000, faults);
        again.clock = new SteppingClock(SoakRunnerTest.STEP_NS);
        assertEquals(result.toJson(), SoakRunner.run(again, null).result.toJson(), "the same run");
    }

    @Test
    @Tag("long")
    void onePercentOfDataAndFcpsLostOnTheUdpWireLosesNothing()
    {
        final SoakSettings options = options(6_000, "drop-data=0.01,drop-fcp=0.01");
        options.udp = true;
        options.retry = null;
        assertTrue(options.retryOn(), "on by default over UDP");
        final SoakResult result = SoakRunner.run(options, null).result;
        assertNothingLost(result);
        assertEquals("udp", result.link);
        assertTrue(result.faultsInjected.get(FaultKind.DROP_DATA) > 20);
        assertTrue(result.retransmits >= result.faultsInjected.get(FaultKind.DROP_DATA), result.retryText());
    }

    @Test
    @Tag("long")
    void withRetryOffTheSameOnePercentIsLost()
    {
        final SoakSettings options = options(6_000, "drop-data=0.01,drop-fcp=0.01");
        options.udp = true;
        options.retry = false;
        final SoakResult result = SoakRunner.run(options, null).result;
        assertTrue(result.ok(), "the soak accounts for every packet the wire destroyed: " + result.violations);
        assertFalse(result.retry);
        long lost = 0;
        for (final SoakResult.Vl vl : result.vls)
        {
            lost += vl.faultLost;
        }
        assertEquals(result.faultsInjected.get(FaultKind.DROP_DATA), lost, "every dropped packet is a lost one");
        assertTrue(lost > 20, lost + " lost");
        assertEquals(0, result.retransmits);
    }

    @Test
    @Tag("long")
    void aStrangersGarbageFloodAtPortBOverflowsItsSocketAndLosesNothing() throws Exception
    {
        final Flood flood = new Flood();
        assertTrue(flood.options.retryOn(), "on by default over UDP");
        final SoakResult result = flood.run();
        assertTrue(flood.kernelDrops.get() > 0, "the kernel dropped datagrams at port B: " + flood);
        assertNothingLost(result);
        assertTrue(result.retransmits > 0, "what the kernel dropped was sent again: " + result.retryText());
    }

    /**
     * A soak over UDP with a key (retry as the engine's default) while a stranger, from a socket of its own (no
     * spoofing needed), sends bursts of garbage at port B: from when engine A's frames flow (read from its counters
     * file, as {@code vlink stat} would), at least {@link #MIN_FLOOD} datagrams and until the kernel has dropped
     * datagrams at port B ({@code /proc/net/udp}) and engine A has sent something again; then the soak stops offering,
     * drains and checks. Bounded: at most {@link #MAX_FLOOD} datagrams, and the soak's {@code seconds}. (With retry
     * off the same flood loses thousands of packets: docs/performance.md, "Link-level retry".)
     */
    private final class Flood
    {
        final AtomicBoolean over = new AtomicBoolean();
        final AtomicLong sent = new AtomicLong();
        final AtomicLong kernelDrops = new AtomicLong(-1);
        final AtomicLong retransmits = new AtomicLong();
        final SoakSettings options = options(0, "");

        Flood() throws IOException
        {
            options.seconds = 60;
            options.udp = true;
            options.retry = null;
            options.udpKey = LinkKey.random();
            options.udpPorts = new int[]{freePort(), freePort()};
            options.stop = over::get;
        }

        SoakResult run() throws InterruptedException
        {
            assumeTrue(UdpDrops.readable(), "the kernel's per-socket drop counts (/proc/net/udp)");
            final Thread stranger = new Thread(this::flood, "stranger");
            stranger.start();
            try
            {
                return SoakRunner.run(options, null).result;
            }
            finally
            {
                over.set(true);
                stranger.join(10_000);
                assertFalse(stranger.isAlive());
            }
        }

        private void flood()
        {
            final InetSocketAddress portB = new InetSocketAddress(InetAddress.getLoopbackAddress(), options.udpPorts[1]);
            final SplittableRandom random = new SplittableRandom(772);
            final ByteBuffer garbage = ByteBuffer.allocateDirect(1200);
            CountersFileReader reader = null;
            try (DatagramChannel channel = DatagramChannel.open())
            {
                channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                // engine A's counters, as vlink stat reads them (once the engine has written them): the flood
                // starts once its frames flow
                PortCounters portA = null;
                while (!over.get() && null == portA)
                {
                    final File[] files = dir.listFiles((d, name) -> name.startsWith("soak-a-") && name.endsWith(".counters"));
                    if (null != files && 1 == files.length)
                    {
                        try
                        {
                            reader = CountersFileReader.open(files[0]);
                            portA = PortCounters.attach(reader.counters(), 0, options.qos.dataVls());
                        }
                        catch (final IllegalStateException starting)
                        {
                            CloseHelper.quietClose(reader);
                            reader = null;
                        }
                    }
                    Thread.yield();
                }
                if (null == portA)
                {
                    return;
                }
                while (!over.get() && portA.linkFramesSent().get() < 1_000)
                {
                    Thread.yield();
                }
                while (!over.get() && sent.get() < MAX_FLOOD &&
                    (sent.get() < MIN_FLOOD || kernelDrops.get() <= 0 || 0 == retransmits.get()))
                {
                    for (int i = 0; i < 5_000; i++)
                    {
                        garbage.clear();
                        garbage.putLong(0, random.nextLong());
                        channel.send(garbage, portB);
                    }
                    sent.addAndGet(5_000);
                    kernelDrops.set(UdpDrops.of(options.udpPorts[1]));
                    retransmits.set(portA.linkRetransmits().get());
                }
            }
            catch (final IOException | RuntimeException ex)
            {
                // the engine closed its file under the reader, or the socket failed: the flood is over
            }
            finally
            {
                over.set(true);
                if (null != reader)
                {
                    reader.close();
                }
            }
        }

        @Override
        public String toString()
        {
            return sent.get() + " garbage datagrams sent, " + kernelDrops.get() + " dropped by the kernel at port B, " +
                retransmits.get() + " retransmissions seen at port A";
        }
    }

    private static int freePort() throws IOException
    {
        try (DatagramSocket socket = new DatagramSocket(0, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }
}
