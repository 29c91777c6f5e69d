package io.vlink.nic;

import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.fabric.Fabric;
import io.vlink.nic.fabric.FabricConfiguration;
import io.vlink.nic.fabric.Switch;
import io.vlink.nic.fabric.SwitchConfiguration;
import io.vlink.nic.status.CountersFileDescriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.function.UnaryOperator;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A switch and a fabric are built, as an engine, from a builder concluded once into an immutable configuration,
 * checked by the engine's rules ({@code ConfigurationRules}, one copy): the same mistake is refused in the same
 * words by all three builders, the same system properties give the defaults, and a builder changed after the build
 * changes nothing a switch runs.
 */
class SwitchAndFabricConfigurationTest
{
    private static final QosConfig QOS = QosConfig.opensmDefaults(2);

    @TempDir
    File dir;

    @AfterEach
    void clearProperties()
    {
        System.clearProperty(EngineConfiguration.BURST_PROP_NAME);
        System.clearProperty(EngineConfiguration.FCP_PERIOD_PROP_NAME);
        System.clearProperty(CountersFileDescriptor.DIR_PROP_NAME);
    }

    @Test
    void theSameMistakeIsRefusedInTheSameWordsByAnEngineASwitchAndAFabric()
    {
        final List<UnaryOperator<PortSettings.Builder<?>>> mistakes = List.of(
            b -> b.burst(0),
            b -> b.burst(4097),
            b -> b.mtu(300),
            b -> b.vlBufferBlocks(0),
            b -> b.vl15Packets(0),
            b -> b.fcpPeriodNs(0),
            b -> b.linkTimeoutNs(0),
            b -> b.earlyFcpThresholdBlocks(-1));
        for (final UnaryOperator<PortSettings.Builder<?>> mistake : mistakes)
        {
            final String engine = refused(() -> ((EngineBuilder)mistake.apply(Engine.builder())).conclude());
            assertEquals(engine, refused(() -> ((SwitchConfiguration.Builder)mistake.apply(aSwitch())).conclude()));
            assertEquals(engine, refused(() -> ((FabricConfiguration.Builder)mistake.apply(Fabric.builder()))
                .conclude()));
        }
        assertEquals("burst 0 is out of range: use 1..4096 (packets the arbiter sends per port per duty cycle)",
            refused(() -> aSwitch().burst(0).conclude()));
        assertEquals("hoqLifetimeNs 0 is out of range: use 1.. (the head-of-queue lifetime (IBA's switch lifetime " +
            "limit))", refused(() -> aSwitch().hoqLifetimeNs(0).conclude()));
        assertEquals(refused(() -> aSwitch().hoqLifetimeNs(0).conclude()),
            refused(() -> Fabric.builder().hoqLifetimeNs(0).conclude()));
    }

    @Test
    void theEnginesSystemPropertiesGiveASwitchAndAFabricTheirDefaultsAndASetterWins() throws IOException
    {
        System.setProperty(EngineConfiguration.BURST_PROP_NAME, "32");
        System.setProperty(EngineConfiguration.FCP_PERIOD_PROP_NAME, "2_000_000");
        System.setProperty(CountersFileDescriptor.DIR_PROP_NAME, dir.getPath());

        final SwitchConfiguration sw = aSwitch().conclude();
        assertEquals(32, sw.portSettings().burst());
        assertEquals(2_000_000, sw.portSettings().fcpPeriodNs());
        assertEquals(dir, sw.directory(), "vlink stat finds a switch's counters where it finds an engine's");
        final FabricConfiguration fabric = Fabric.builder().conclude();
        assertEquals(32, fabric.portSettings().burst());
        assertEquals(2_000_000, fabric.portSettings().fcpPeriodNs());
        assertEquals(dir, fabric.directory(), "and a fabric's");
        assertEquals(dir, Engine.builder().conclude().directory());

        assertEquals(8, aSwitch().burst(8).conclude().portSettings().burst());
        assertEquals(8, Fabric.builder().burst(8).conclude().portSettings().burst());

        System.setProperty(EngineConfiguration.BURST_PROP_NAME, "0");
        final String engine = refused(() -> Engine.builder().conclude());
        assertEquals("burst 0 (system property vlink.burst) is out of range: use 1..4096 " +
            "(packets the arbiter sends per port per duty cycle)", engine);
        assertEquals(engine, refused(() -> aSwitch().conclude()));
        assertEquals(engine, refused(() -> Fabric.builder().conclude()));
        System.clearProperty(EngineConfiguration.BURST_PROP_NAME);

        final File file = new File(dir, "a-file");
        Files.writeString(file.toPath(), "x");
        System.setProperty(CountersFileDescriptor.DIR_PROP_NAME, file.getPath());
        final String notADirectory = refused(() -> Engine.builder().conclude());
        assertEquals("directory " + file + " (system property vlink.dir) is a file: give a directory (it is " +
            "created when missing)", notADirectory);
        assertEquals(notADirectory, refused(() -> aSwitch().conclude()));
        assertEquals(notADirectory, refused(() -> Fabric.builder().conclude()));
    }

    @Test
    void changingTheBuilderOrTheTableAfterTheBuildChangesNothingASwitchRuns()
    {
        final int[] lft = {-1, 0, 1, 2};
        final SwitchConfiguration.Builder builder = aSwitch().ports(2, 1, lft).burst(16).hoqLifetimeNs(4_000_000)
            .directory(dir);
        try (Switch sw = builder.build())
        {
            builder.burst(1).hoqLifetimeNs(1).mtu(256).name("changed");
            lft[2] = 0;
            final SwitchConfiguration config = sw.configuration();
            assertEquals(16, config.portSettings().burst());
            assertEquals(4_000_000, config.hoqLifetimeNs());
            assertEquals("sw", config.name());
            assertArrayEquals(new int[]{-1, 0, 1, 2}, config.lft(), "the table the switch was built with");
            config.lft()[1] = 2;
            assertArrayEquals(new int[]{-1, 0, 1, 2}, config.lft(), "a copy each call");
            assertSame(config, sw.configuration());
        }
    }

    @Test
    void everySwitchOfAFabricRunsTheFabricsFrozenSettings()
    {
        final Topology topology = FabricHarness.topology("net.2sw2path4hca");
        final FabricConfiguration.Builder builder = Fabric.builder().name("frozen").directory(dir).burst(8)
            .hoqLifetimeNs(3_000_000).vlBufferBlocks(256);
        try (FabricHarness h = new FabricHarness(topology, builder))
        {
            builder.burst(64).hoqLifetimeNs(1).vlBufferBlocks(512);
            assertEquals(2, h.fabric.switches().size());
            for (final Switch sw : h.fabric.switches())
            {
                assertEquals(8, sw.configuration().portSettings().burst(), sw.name());
                assertEquals(3_000_000, sw.configuration().hoqLifetimeNs(), sw.name());
                assertEquals(256, sw.configuration().portSettings().vlBufferBlocks(), sw.name());
                assertEquals(dir, sw.configuration().directory(), sw.name());
            }
            assertEquals(8, h.fabric.configuration().portSettings().burst());
            for (final Fabric.Endpoint endpoint : h.fabric.endpoints())
            {
                assertEquals(8, endpoint.engine().configuration().burst(), endpoint.name());
                assertEquals(256, endpoint.engine().configuration().vlBufferBlocks(), endpoint.name());
            }
        }
    }

    private static SwitchConfiguration.Builder aSwitch()
    {
        return Switch.builder().name("sw").ports(2, 1, new int[]{-1, 0, 1, 2}).qos(QOS, QOS);
    }

    private static String refused(final Executable conclude)
    {
        return assertThrows(IllegalArgumentException.class, conclude).getMessage();
    }
}
