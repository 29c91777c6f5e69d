package io.vlink.nic;

import io.vlink.nic.agent.ThreadingMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.function.Executable;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every argument is checked where it is given, with a message that says what is wrong and how to fix it: queue pair
 * numbers (24 bits, no silent truncation, one per port), ports by index, and the configured queue-pair limit.
 */
class ArgumentValidationTest
{
    @TempDir
    File dir;

    @Test
    void queuePairNumbersAre24BitsAndUniqueOnAPort()
    {
        try (Engine engine = engine("qpn").build())
        {
            final Port a = engine.port(0);
            assertEquals("QPN 16777216 is out of range: use 0..16777215 (0xFFFFFF, 24 bits in the BTH)",
                refused(() -> a.createQueuePair(1 << 24, 0, 1)));
            assertEquals("QPN -1 is out of range: use 0..16777215 (0xFFFFFF, 24 bits in the BTH)",
                refused(() -> a.createQueuePair(-1, 0, 1)));
            assertEquals("remote QPN 16777216 is out of range: use 0..16777215 (0xFFFFFF, 24 bits in the BTH)",
                refused(() -> a.createQueuePair(1, 0, 1 << 24)));
            assertEquals("SL 16 is out of range: use 0..15", refused(() -> a.createQueuePair(1, 16, 1)));

            final QueuePair highest = a.createQueuePair(Port.MAX_QPN, 0, Port.MAX_QPN);
            assertEquals(Port.MAX_QPN, highest.qpn());
            assertEquals(Port.MAX_QPN, highest.remoteQpn());
            assertEquals("QPN 16777215 is already a queue pair of port 0: give each queue pair of a port its own QPN",
                refused(() -> a.createQueuePair(Port.MAX_QPN, 3, 5)));
            // the same number on the other port is another queue pair
            assertEquals(Port.MAX_QPN, engine.port(1).createQueuePair(Port.MAX_QPN, 0, 1).qpn());
        }
    }

    @Test
    void theQueuePairLimitIsTheConfiguredOne()
    {
        try (Engine engine = engine("limit").maxQueuePairs(3).build())
        {
            final Port a = engine.port(0);
            for (int qpn = 0; qpn < 3; qpn++)
            {
                a.createQueuePair(qpn, qpn, qpn);
            }
            final IllegalStateException full = assertThrows(IllegalStateException.class, () -> a.createQueuePair(3, 0, 3));
            assertEquals("port 0 has its 3 queue pairs already: raise Engine.builder().maxQueuePairs(n) (at most 4096) " +
                "or property vlink.max.queue.pairs", full.getMessage());
        }
        try (Engine engine = engine("many").maxQueuePairs(200).build())
        {
            for (int qpn = 0; qpn < 200; qpn++)
            {
                engine.port(0).createQueuePair(qpn, qpn & 15, qpn);
            }
        }
    }

    @Test
    void aPortOutOfRangeNamesTheValidRange()
    {
        try (Engine engine = engine("ports").build())
        {
            assertEquals("port 2: this engine has ports 0..1 (loopback: two ports)", refused(() -> engine.port(2)));
            assertEquals("port -1: this engine has ports 0..1 (loopback: two ports)", refused(() -> engine.port(-1)));
        }
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        try (Engine engine = engine("udp-ports")
            .udp(new InetSocketAddress(loopback, 0), new InetSocketAddress(loopback, 9), 1, 2).build())
        {
            assertEquals("port 1: this engine has port 0 only (UDP: one port)", refused(() -> engine.port(1)));
        }
    }

    private EngineBuilder engine(final String name)
    {
        return Engine.builder().name(name).directory(dir).threading(ThreadingMode.INVOKER);
    }

    private static String refused(final Executable call)
    {
        return assertThrows(IllegalArgumentException.class, call).getMessage();
    }
}
