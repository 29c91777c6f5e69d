package io.vlink.nic;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * UDP between two JVMs, the same checks as on loopback over a shorter run: both directions, 4 VLs, no
 * loss, no duplication, FIFO per VL, no discards.
 */
class UdpTwoJvmTest
{
    private static final int COUNT = 2_000;
    private static final int SECONDS = 60;

    @TempDir
    File dir;

    @Test
    void twoEnginesInTwoProcessesExchangeTrafficOverUdp() throws Exception
    {
        final int portA = freeUdpPort();
        final int portB = freeUdpPort();
        final List<String> command = new ArrayList<>();
        command.add(new File(System.getProperty("java.home"), "bin/java").getPath());
        command.add("--add-exports");
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(UdpPeer.class.getName());
        command.add(String.valueOf(portB));
        command.add(String.valueOf(portA));
        command.add(String.valueOf(COUNT));
        command.add(dir.getPath());
        command.add(String.valueOf(SECONDS));
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        try
        {
            final String here = UdpPeer.run(portA, portB, COUNT, dir, SECONDS, "udp-parent");
            assertTrue(child.waitFor(SECONDS + 30, TimeUnit.SECONDS), "the second JVM finished");
            final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            // the result is the last line (a newer JDK may print warnings about Unsafe first)
            final String there = output.substring(output.lastIndexOf('\n') + 1);
            assertTrue(here.startsWith("OK posted " + COUNT + " received " + COUNT), here);
            assertTrue(here.contains(" discards 0 foreign 0 "), here);
            System.out.println("parent: " + here + "\nchild: " + there);
            assertEquals(0, child.exitValue(), output);
            assertTrue(there.startsWith("OK posted " + COUNT + " received " + COUNT), there);
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    private static int freeUdpPort() throws Exception
    {
        try (DatagramChannel probe = DatagramChannel.open())
        {
            probe.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return ((InetSocketAddress)probe.getLocalAddress()).getPort();
        }
    }
}
