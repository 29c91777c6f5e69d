package io.vlink.nic;

import io.vlink.core.capture.PcapReader;
import io.vlink.core.credit.LinkState;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.PacketChecker;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.test.Deadline;
import io.vlink.nic.test.EngineErrors;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Two engines linked over UDP in one process, one of them capturing: its capture holds what it sends
 * (interface 0, recorded by the arbiter) and what its peer sends (interface 1, recorded where it arrives), each
 * data packet with good CRCs.
 */
class UdpCaptureTest
{
    @TempDir
    File dir;

    @Test
    void theCaptureOfAUdpPortHoldsBothDirections() throws Exception
    {
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final int portA = freePort();
        final int portB = freePort();
        final Path capture = dir.toPath().resolve("udp.pcap");
        final Engine a = Engine.builder().name("udp-a").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(2))
            .udp(new InetSocketAddress(loopback, portA), new InetSocketAddress(loopback, portB), 1, 2)
            .capture(capture, 1024 * 1024).build();
        final Engine b = Engine.builder().name("udp-b").directory(dir).threading(ThreadingMode.INVOKER)
            .qos(QosConfig.opensmDefaults(2))
            .udp(new InetSocketAddress(loopback, portB), new InetSocketAddress(loopback, portA), 2, 1).build();
        try
        {
            final Runnable both = () ->
            {
                a.invoke();
                b.invoke();
            };
            Deadline.await(10, "active", () -> a.port(0).linkState() == LinkState.ACTIVE &&
                b.port(0).linkState() == LinkState.ACTIVE, both);
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            final QueuePair fromA = a.port(0).createQueuePair(1, 1, 1);
            final QueuePair fromB = b.port(0).createQueuePair(1, 1, 1);
            for (int i = 0; i < 10; i++)
            {
                assertTrue(fromA.offer(message, 0, 100) >= 0);
                assertTrue(fromB.offer(message, 0, 100) >= 0);
            }
            final int[] received = new int[2];
            Deadline.await(10, "both directions", () ->
            {
                received[0] += a.port(0).poll(packet -> { }, 16);
                received[1] += b.port(0).poll(packet -> { }, 16);
                return received[0] == 10 && received[1] == 10;
            }, both);
            EngineErrors.assertNone(a.countersFile());
        }
        finally
        {
            a.close();
            b.close();
        }

        final int[] data = new int[2];
        final PacketChecker checker = new PacketChecker(4096);
        try (PcapReader reader = PcapReader.open(capture))
        {
            while (reader.next())
            {
                if (reader.isData())
                {
                    data[reader.iface()]++;
                    assertEquals(PacketChecker.OK, PacketChecker.verdict(
                        checker.check(reader.buffer(), reader.packetOffset(), reader.packetLength())));
                }
            }
        }
        assertEquals(10, data[0], "what A sent");
        assertEquals(10, data[1], "what B sent, as A received it");
    }

    private static int freePort() throws Exception
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
