package io.vlink.nic;

import io.vlink.core.credit.LinkState;
import io.vlink.core.inject.InjectionConfig;
import io.vlink.nic.agent.ThreadingMode;
import io.vlink.nic.link.ShmLink;
import io.vlink.nic.test.Deadline;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

/**
 * The engine's configuration is concluded once by {@code build()} into an immutable {@link EngineConfiguration}:
 * a builder changed afterwards changes nothing the engine does; system properties give defaults that an explicit
 * setter overrides; every value out of range is refused naming the setting, the value and the range.
 */
class EngineConfigurationTest
{
    private static final String[] PROPERTIES =
    {
        EngineConfiguration.IDLE_PROP_NAME, EngineConfiguration.THREADING_PROP_NAME,
        EngineConfiguration.BURST_PROP_NAME, EngineConfiguration.CAPTURE_LENGTH_PROP_NAME,
        EngineConfiguration.FCP_PERIOD_PROP_NAME, EngineConfiguration.QUEUE_DEPTH_PROP_NAME,
        EngineConfiguration.MAX_QUEUE_PAIRS_PROP_NAME,
        EngineConfiguration.RETRY_PROP_NAME,
        EngineConfiguration.REPLAY_BUFFER_PROP_NAME,
        EngineConfiguration.RETRY_TIMEOUT_PROP_NAME,
    };

    @TempDir
    File dir;

    @AfterEach
    void clearProperties()
    {
        for (final String property : PROPERTIES)
        {
            System.clearProperty(property);
        }
    }

    @Test
    void changingTheBuilderAfterBuildChangesNothingTheEngineDoes()
    {
        final EngineBuilder builder = Engine.builder().name("frozen").directory(dir).threading(ThreadingMode.INVOKER)
            .queueDepth(4).maxQueuePairs(2).idcThreshold(100).burst(16);
        try (Engine engine = builder.build())
        {
            builder.name("changed").queueDepth(1024).maxQueuePairs(10).idcThreshold(200).burst(1)
                .threading(ThreadingMode.SHARED).mtu(256);

            final Port a = engine.port(0);
            final Port b = engine.port(1);
            Deadline.await(10, "active", () -> b.linkState() == LinkState.ACTIVE, engine::invoke);
            final QueuePair qp = a.createQueuePair(1, 0, 1);
            assertEquals(4, qp.capacity(), "the queue depth the engine was built with");
            assertEquals(100, qp.inlineCapacity(), "the immediate-data limit the engine was built with");
            assertEquals(4096, a.mtu());
            a.createQueuePair(2, 0, 2);
            final IllegalStateException full = assertThrows(IllegalStateException.class, () -> a.createQueuePair(3, 0, 3));
            assertTrue(full.getMessage().startsWith("port 0 has its 2 queue pairs already"), full.getMessage());

            // four messages fill the queue: the fifth is back-pressured, as a depth of 4 says
            final UnsafeBuffer message = new UnsafeBuffer(new byte[100]);
            for (int i = 0; i < 4; i++)
            {
                assertEquals(i, qp.offer(message, 0, 100));
            }
            assertEquals(QueuePair.BACK_PRESSURED, qp.offer(message, 0, 100));
            assertThrows(IllegalArgumentException.class, () -> qp.offer(new UnsafeBuffer(new byte[101]), 0, 101));

            final EngineConfiguration config = engine.configuration();
            assertEquals("frozen", config.name());
            assertEquals(ThreadingMode.INVOKER, config.threading());
            assertEquals(16, config.burst());
            assertEquals(4, config.queueDepth());
        }
        // the builder itself is reusable: the next engine has the new settings
        try (Engine engine = builder.threading(ThreadingMode.INVOKER).build())
        {
            assertEquals("changed", engine.name());
            assertEquals(1024, engine.port(0).createQueuePair(1, 0, 1).capacity());
            assertEquals(256, engine.port(0).mtu());
        }
    }

    @Test
    void aWholeInjectionConfigurationIsCopiedWhenBuilt()
    {
        final InjectionConfig injection = new InjectionConfig().shape(17, 9).sharedCells(500).idcThreshold(64);
        final EngineConfiguration config = Engine.builder().injection(injection).conclude();
        injection.sharedCells(7).idcThreshold(8);
        assertEquals(64, config.idcThreshold());
        assertEquals(64, config.injection().idcThreshold());
        assertNotSame(config.injection(), config.injection(), "each call hands out a copy");
    }

    @Test
    void systemPropertiesGiveTheDefaultsAndAnExplicitSetterWins()
    {
        System.setProperty(EngineConfiguration.IDLE_PROP_NAME, "backoff");
        System.setProperty(EngineConfiguration.THREADING_PROP_NAME, "split");
        System.setProperty(EngineConfiguration.BURST_PROP_NAME, "32");
        System.setProperty(EngineConfiguration.CAPTURE_LENGTH_PROP_NAME, "1048576");
        System.setProperty(EngineConfiguration.FCP_PERIOD_PROP_NAME, "2_000_000");
        System.setProperty(EngineConfiguration.QUEUE_DEPTH_PROP_NAME, "128");
        System.setProperty(EngineConfiguration.MAX_QUEUE_PAIRS_PROP_NAME, "100");

        final EngineConfiguration fromProperties = Engine.builder().conclude();
        assertEquals("backoff", fromProperties.idle());
        assertEquals(ThreadingMode.SPLIT, fromProperties.threading());
        assertEquals(32, fromProperties.burst());
        assertEquals(1048576, fromProperties.captureLength());
        assertEquals(2_000_000, fromProperties.fcpPeriodNs());
        assertEquals(128, fromProperties.queueDepth());
        assertEquals(100, fromProperties.maxQueuePairs());

        final EngineConfiguration explicit = Engine.builder().idle("yield").threading(ThreadingMode.INVOKER)
            .burst(8).capture(dir.toPath().resolve("x.pcap"), 65536).fcpPeriodNs(5_000).queueDepth(2).maxQueuePairs(3)
            .conclude();
        assertEquals("yield", explicit.idle());
        assertEquals(ThreadingMode.INVOKER, explicit.threading());
        assertEquals(8, explicit.burst());
        assertEquals(65536, explicit.captureLength());
        assertEquals(5_000, explicit.fcpPeriodNs());
        assertEquals(2, explicit.queueDepth());
        assertEquals(3, explicit.maxQueuePairs());

        clearProperties();
        final EngineConfiguration defaults = Engine.builder().conclude();
        assertEquals(EngineConfiguration.DEFAULT_IDLE, defaults.idle());
        assertEquals(EngineConfiguration.DEFAULT_THREADING, defaults.threading());
        assertEquals(EngineConfiguration.DEFAULT_BURST, defaults.burst());
        assertEquals(EngineConfiguration.DEFAULT_CAPTURE_LENGTH, defaults.captureLength());
        assertEquals(EngineConfiguration.DEFAULT_FCP_PERIOD_NS, defaults.fcpPeriodNs());
        assertEquals(EngineConfiguration.DEFAULT_QUEUE_DEPTH, defaults.queueDepth());
        assertEquals(EngineConfiguration.DEFAULT_MAX_QUEUE_PAIRS, defaults.maxQueuePairs());
    }

    @Test
    void aBadPropertyIsRefusedNamingIt()
    {
        System.setProperty(EngineConfiguration.BURST_PROP_NAME, "lots");
        assertEquals("system property vlink.burst 'lots' is not a whole number: use 1..4096 " +
            "(packets the arbiter sends per port per duty cycle)", refused(Engine.builder()));
        assertEquals(8, Engine.builder().burst(8).conclude().burst(), "an explicit setter wins over a bad property");
        System.setProperty(EngineConfiguration.BURST_PROP_NAME, "0");
        assertEquals("burst 0 (system property vlink.burst) is out of range: use 1..4096 " +
            "(packets the arbiter sends per port per duty cycle)", refused(Engine.builder()));
        System.setProperty(EngineConfiguration.IDLE_PROP_NAME, "busy");
        assertEquals("system property vlink.idle: unknown idle strategy 'busy': use spin, backoff, yield, sleep or noop",
            refused(Engine.builder().burst(1)));
        System.setProperty(EngineConfiguration.THREADING_PROP_NAME, "many");
        assertEquals("system property vlink.threading: unknown threading mode 'many': use dedicated, shared, split " +
            "or invoker", refused(Engine.builder().burst(1).idle("spin")));
    }

    @Test
    void everyValueOutOfRangeIsRefusedNamingTheSettingTheValueAndTheRange()
    {
        assertEquals("burst 0 is out of range: use 1..4096 (packets the arbiter sends per port per duty cycle)",
            refused(Engine.builder().burst(0)));
        assertEquals("mtu 300 is not an InfiniBand MTU: use 256, 512, 1024, 2048 or 4096",
            refused(Engine.builder().mtu(300)));
        assertEquals("queueDepth 0 is out of range: use 1..65536 (messages each queue pair holds)",
            refused(Engine.builder().queueDepth(0)));
        assertEquals("maxQueuePairs 5000 is out of range: use 1..4096 (queue pairs each port may create)",
            refused(Engine.builder().maxQueuePairs(5000)));
        assertEquals("idcThreshold 300 is out of range: use 1..256 (immediate-data bytes a message may carry, " +
            "at most the MTU)", refused(Engine.builder().mtu(256).idcThreshold(300)));
        assertEquals("fcpPeriodNs 10 is out of range: use 1000..1000000000 (the longest gap between two FCPs of a VL)",
            refused(Engine.builder().fcpPeriodNs(10)));
        assertEquals("earlyFcpThresholdBlocks 300 is out of range: use 1..256 (freed blocks that send an FCP at " +
            "once, at most the VL buffer)", refused(Engine.builder().vlBufferBlocks(256).earlyFcpThresholdBlocks(300)));
        assertEquals("loopbackCapacity 100000 is not a power of two: use e.g. 65536 or 131072",
            refused(Engine.builder().loopbackCapacity(100_000)));
        assertEquals("rxEventRingLength 1024 is out of range: use 4096..268435456 (bytes of the receive-to-credit " +
            "event ring)", refused(Engine.builder().rxEventRingLength(1024)));
        assertEquals("vl15Packets 0 is out of range: use 1..64 (largest packets VL15 buffers)",
            refused(Engine.builder().vl15Packets(0)));
        assertEquals("tenure bytes 0 is out of range: use 1.. (a queue pair's turn in bytes)",
            refused(Engine.builder().tenure(0, 0)));
        assertEquals("slTable entry 1 (SL 16, weight 10): use SLs 0..15 and weights >= 0 bytes",
            refused(Engine.builder().slTable(new int[] {0, 16}, new int[] {10, 10})));
        assertEquals("engine name 'a b': use 1 to 64 letters, digits, '.', '_' or '-'",
            refused(Engine.builder().name("a b")));
        assertEquals("sharedCells 10 set beside a whole injection configuration: set the shared cells in the " +
            "injection configuration", refused(Engine.builder().sharedCells(10).injection(new InjectionConfig())));
        final File file = new File(dir, "file");
        assertTrue(assertDoesNotThrow(file::createNewFile));
        assertEquals("directory " + file + " is a file: give a directory (it is created when missing)",
            refused(Engine.builder().directory(file)));
        assertEquals("capture " + dir + " is a directory: give a file name",
            refused(Engine.builder().capture(dir.toPath())));
        final File missing = new File(dir, "missing");
        assertEquals("capture " + missing + "/x.pcap: directory " + missing + " does not exist; create it or give " +
            "another path", refused(Engine.builder().capture(missing.toPath().resolve("x.pcap"))));
        assertEquals(0, dir.listFiles((d, name) -> name.endsWith(".counters")).length, "nothing was started");
    }

    @Test
    void linkLevelRetryIsOnOverUdpOnlyUnlessSetAndItsSettingsAreChecked()
    {
        final InetSocketAddress a = new InetSocketAddress("127.0.0.1", 1);
        final InetSocketAddress b = new InetSocketAddress("127.0.0.1", 2);
        assertTrue(Engine.builder().udp(a, b, 1, 2).conclude().retry(), "over UDP");
        assertFalse(Engine.builder().conclude().retry(), "loopback");
        assertFalse(Engine.builder().shm(Path.of("x.shm"), ShmLink.Role.A).directory(dir).conclude().retry(), "shm");
        assertFalse(Engine.builder().udp(a, b, 1, 2).retry(false).conclude().retry());
        assertTrue(Engine.builder().retry(true).conclude().retry());
        final EngineConfiguration defaults = Engine.builder().conclude();
        assertEquals(4 << 20, defaults.replayBufferBytes());
        assertEquals(10_000_000L, defaults.retryTimeoutNs());

        System.setProperty(EngineConfiguration.RETRY_PROP_NAME, "off");
        System.setProperty(EngineConfiguration.REPLAY_BUFFER_PROP_NAME, "65536");
        System.setProperty(EngineConfiguration.RETRY_TIMEOUT_PROP_NAME, "2_000_000");
        final EngineConfiguration properties = Engine.builder().udp(a, b, 1, 2).conclude();
        assertFalse(properties.retry());
        assertEquals(65536, properties.replayBufferBytes());
        assertEquals(2_000_000L, properties.retryTimeoutNs());
        assertTrue(Engine.builder().udp(a, b, 1, 2).retry(true).conclude().retry(), "the setter wins");
        System.setProperty(EngineConfiguration.RETRY_PROP_NAME, "sometimes");
        assertEquals("system property vlink.retry 'sometimes': use true or false (link-level retry)",
            refused(Engine.builder()));
        System.clearProperty(EngineConfiguration.RETRY_PROP_NAME);

        assertEquals("replayBufferBytes 100000 is not a power of two: use e.g. 65536 or 131072",
            refused(Engine.builder().replayBufferBytes(100_000)));
        assertEquals("replayBufferBytes 1024 is out of range: use 65536..1073741824 (bytes of frames link-level " +
            "retry holds until acknowledged, a power of two)", refused(Engine.builder().replayBufferBytes(1024)));
        assertEquals("retryTimeoutNs 10 is out of range: use 100000..1000000000 (how long link-level retry waits " +
            "for an acknowledgement before it sends again)", refused(Engine.builder().retryTimeoutNs(10)));
    }

    @Test
    void lidsAreUnicastAndDifferentOnTheTwoEnds()
    {
        assertEquals("local LID 0 (0x0) is not a unicast LID: use 1 (0x1)..49151 (0xBFFF)",
            refused(Engine.builder().lids(0, 2)));
        assertEquals("remote LID 49152 (0xC000) is not a unicast LID: use 1 (0x1)..49151 (0xBFFF)",
            refused(Engine.builder().lids(1, 0xC000)));
        final InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        assertEquals("local and remote LID are both 7 (0x7): give each end of the link its own LID",
            refused(Engine.builder().udp(local, local, 7, 7)));
        final EngineConfiguration config = Engine.builder().lids(0x10, 0xBFFF).conclude();
        assertEquals(0x10, config.localLid());
        assertEquals(0xBFFF, config.remoteLid());
    }

    @Test
    void aLoopbackEnginesPortsCarryTheConfiguredLids()
    {
        try (Engine engine = Engine.builder().name("lids").directory(dir).threading(ThreadingMode.INVOKER)
            .lids(0x20, 0x30).build())
        {
            assertEquals(0x20, engine.port(0).localLid());
            assertEquals(0x30, engine.port(0).remoteLid());
            assertEquals(0x30, engine.port(1).localLid());
            assertEquals(0x20, engine.port(1).remoteLid());
        }
    }

    private static String refused(final EngineBuilder builder)
    {
        return assertThrows(IllegalArgumentException.class, builder::conclude).getMessage();
    }
}
