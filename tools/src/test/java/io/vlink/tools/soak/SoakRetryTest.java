package io.vlink.tools.soak;

import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.LinkKey;
import io.vlink.nic.status.CountersFileReader;
import io.vlink.nic.status.PortCounters;
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

/**
 * The soak with link-level retry: the wire's faults act below the retry layer and cost retransmissions, not packets
 * (the no-loss invariant holds with nothing lost to a fault, the summary shows the retransmissions), over loopback
 * (deterministic: the same run every time), over UDP with 1 % of data packets and FCPs lost on the wire, and over UDP
 * with a key while a stranger floods port B's socket with garbage until it overflows.
 */
class SoakRetryTest
{
    private static final long MAX_FLOOD = 1_000_000;

    @TempDir
    File dir;

    private SoakRunner.Options options(final long packets, final String faults)
    {
        final SoakRunner.Options options = new SoakRunner.Options();
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
        final SoakRunner.Options options = options(20_000, faults);
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

        final SoakRunner.Options again = options(20_000, faults);
        again.clock = new SteppingClock(SoakRunnerTest.STEP_NS);
        assertEquals(result.toJson(), SoakRunner.run(again, null).result.toJson(), "the same run");
    }

    @Test
    @Tag("long")
    void onePercentOfDataAndFcpsLostOnTheUdpWireLosesNothing()
    {
        final SoakRunner.Options options = options(6_000, "drop-data=0.01,drop-fcp=0.01");
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
    void aStrangersGarbageFloodAtPortBOverflowsItsSocketAndLosesNothing() throws Exception
    {
        final SoakRunner.Options options = options(6_000, "");
        options.udp = true;
        options.udpKey = LinkKey.random();
        options.udpPorts = new int[]{freePort(), freePort()};
        final InetSocketAddress portB = new InetSocketAddress(InetAddress.getLoopbackAddress(), options.udpPorts[1]);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong flood = new AtomicLong();
        final AtomicLong retransmitsSeen = new AtomicLong();
        final int dataVls = options.qos.dataVls();
        final Thread stranger = new Thread(() -> flood(portB, dataVls, done, flood, retransmitsSeen), "stranger");
        stranger.start();
        final SoakResult result;
        try
        {
            result = SoakRunner.run(options, null).result;
        }
        finally
        {
            done.set(true);
            stranger.join(10_000);
        }
        assertFalse(stranger.isAlive());
        assertNothingLost(result);
        assertTrue(retransmitsSeen.get() > 0, "the flood (" + flood.get() + " datagrams) overflowed port B's " +
            "socket and what the kernel dropped was sent again: " + result.retryText());
        assertTrue(result.retransmits > 0);
    }

    /**
     * The stranger: bursts of garbage at port B (a bounded loop), until engine A has sent something again (read from
     * its counters file, as {@code vlink stat} would), the run is over, or the bound is reached.
     */
    private void flood(
        final InetSocketAddress target, final int dataVls, final AtomicBoolean done, final AtomicLong flood,
        final AtomicLong retransmits)
    {
        final SplittableRandom random = new SplittableRandom(772);
        final ByteBuffer garbage = ByteBuffer.allocateDirect(1200);
        CountersFileReader reader = null;
        PortCounters portA = null;
        try (DatagramChannel channel = DatagramChannel.open())
        {
            channel.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            while (!done.get() && flood.get() < MAX_FLOOD && 0 == retransmits.get())
            {
                for (int i = 0; i < 5_000; i++)
                {
                    garbage.clear();
                    garbage.putLong(0, random.nextLong());
                    channel.send(garbage, target);
                }
                flood.addAndGet(5_000);
                if (null == portA)
                {
                    final File[] files = dir.listFiles((d, name) -> name.startsWith("soak-a-") && name.endsWith(".counters"));
                    if (null != files && 1 == files.length)
                    {
                        reader = CountersFileReader.open(files[0]);
                        portA = PortCounters.attach(reader.counters(), 0, dataVls);
                    }
                }
                if (null != portA)
                {
                    retransmits.set(portA.linkRetransmits.get());
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // the engine closed its file under the reader, or the socket failed: the flood is over
        }
        finally
        {
            if (null != reader)
            {
                reader.close();
            }
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
