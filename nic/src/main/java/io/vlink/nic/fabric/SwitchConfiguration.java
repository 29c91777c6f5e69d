package io.vlink.nic.fabric;

import io.vlink.core.fabric.Routes;
import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.ConfigurationRules;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.PortSettings;
import io.vlink.nic.status.CountersFileDescriptor;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.io.File;
import java.util.Objects;

import static io.vlink.nic.ConfigurationRules.range;

/**
 * The settings a switch runs with: concluded from a {@link Builder} by {@link Builder#build()} (every default filled
 * in, every value checked), then frozen; the switch reads only this, and a builder changed afterwards changes nothing
 * built. Its ports' link-layer settings are a {@link PortSettings}, checked by the same rules as an engine's ports'
 * (and taking the same system properties as their defaults); docs/fabric.md, "The switch engine".
 */
public final class SwitchConfiguration
{
    /** No head-of-queue lifetime: a head waits as long as it must. */
    public static final long NO_LIFETIME = Long.MAX_VALUE;
    /** The most external ports a switch has. */
    public static final int MAX_PORTS = 254;

    private final String name;
    private final File directory;
    private final int ports;
    private final int lid;
    private final int[] lft;
    private final QosConfig external;
    private final QosConfig management;
    private final PortSettings port;
    private final PortConfig portConfig;
    private final long hoqLifetimeNs;
    private final NanoClock nanoClock;
    private final EpochClock epochClock;

    private SwitchConfiguration(final Builder b)
    {
        name = CountersFileDescriptor.validateName(b.name);
        directory = ConfigurationRules.directory(b.directory);
        ports = range("ports", b.ports, 1, MAX_PORTS, "the switch's external ports");
        lid = ConfigurationRules.lid("lid", b.lid);
        lft = Objects.requireNonNull(b.lft, "lft: the forwarding table (Routes.lft)").clone();
        external = Objects.requireNonNull(b.external, "qos: the external ports' QoS");
        management = Objects.requireNonNull(b.management, "qos: port 0's QoS");
        port = b.portSettings();
        hoqLifetimeNs = range("hoqLifetimeNs", b.hoqLifetimeNs, 1, NO_LIFETIME,
            "the head-of-queue lifetime (IBA's switch lifetime limit)");
        nanoClock = b.nanoClock;
        epochClock = b.epochClock;
        // a switch port applies what it receives at once, with no ring between its halves; no byte budget a burst
        portConfig = port.portConfig(external, PortConfig.NO_BURST_BYTES, EngineConfiguration.MIN_RX_EVENT_RING_LENGTH);
    }

    /**
     * @return the switch's name, its counters file's.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return where the counters file goes.
     */
    public File directory()
    {
        return directory;
    }

    /**
     * @return N, the external ports.
     */
    public int ports()
    {
        return ports;
    }

    /**
     * @return the switch's LID (its port 0's).
     */
    public int lid()
    {
        return lid;
    }

    /**
     * @return a copy of the output port per DLID.
     */
    public int[] lft()
    {
        return lft.clone();
    }

    int lft(final int dlid)
    {
        return dlid < lft.length ? lft[dlid] : Routes.NO_ROUTE;
    }

    /**
     * @return the external ports' QoS ({@code qos_swe_*}).
     */
    public QosConfig external()
    {
        return external;
    }

    /**
     * @return port 0's QoS ({@code qos_sw0_*}).
     */
    public QosConfig management()
    {
        return management;
    }

    /**
     * @return the external ports' link-layer settings.
     */
    public PortSettings portSettings()
    {
        return port;
    }

    /**
     * @return what each external port's datapath runs with.
     */
    public PortConfig portConfig()
    {
        return portConfig;
    }

    /**
     * @return the head-of-queue lifetime, or {@link #NO_LIFETIME}.
     */
    public long hoqLifetimeNs()
    {
        return hoqLifetimeNs;
    }

    /**
     * @return the clock of the FCP schedules, the link timeouts and the head-of-queue lifetime.
     */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * @return the counters file's clock.
     */
    public EpochClock epochClock()
    {
        return epochClock;
    }

    /**
     * Records a switch's settings; {@link #build()} concludes and starts nothing but the switch object (attach its
     * links, then {@link Switch#start()}).
     */
    public static final class Builder extends PortSettings.Builder<Builder>
    {
        String name;
        File directory;
        int ports;
        int lid;
        int[] lft;
        QosConfig external;
        QosConfig management;
        long hoqLifetimeNs = NO_LIFETIME;
        NanoClock nanoClock = SystemNanoClock.INSTANCE;
        EpochClock epochClock = SystemEpochClock.INSTANCE;

        Builder()
        {
        }

        /**
         * @param name the switch's name, its counters file's (letters, digits, '.', '_', '-').
         * @return this.
         */
        public Builder name(final String name)
        {
            this.name = name;
            return this;
        }

        /**
         * @param directory where the counters file goes (default: property {@code vlink.dir}, else
         *                  {@code /dev/shm/vlink-${user.name}} on Linux, else
         *                  {@code ${java.io.tmpdir}/vlink-${user.name}}).
         * @return this.
         */
        public Builder directory(final File directory)
        {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * @param ports N, the external ports (1..254).
         * @param lid   the switch's LID (its port 0's).
         * @param lft   the output port per DLID ({@link Routes#lft}); {@link Routes#NO_ROUTE} for none.
         * @return this.
         */
        public Builder ports(final int ports, final int lid, final int[] lft)
        {
            this.ports = ports;
            this.lid = lid;
            this.lft = lft;
            return this;
        }

        /**
         * @param external   the external ports' QoS ({@code qos_swe_*}): VL arbitration, SL2VL, data VLs.
         * @param management port 0's QoS ({@code qos_sw0_*}): its SL2VL.
         * @return this.
         */
        public Builder qos(final QosConfig external, final QosConfig management)
        {
            this.external = external;
            this.management = management;
            return this;
        }

        /**
         * @param nanos the head-of-queue lifetime (IBA's switch lifetime limit), or {@link #NO_LIFETIME}.
         * @return this.
         */
        public Builder hoqLifetimeNs(final long nanos)
        {
            this.hoqLifetimeNs = nanos;
            return this;
        }

        /**
         * @param nanoClock  the clock of the FCP schedules, the link timeouts and the head-of-queue lifetime.
         * @param epochClock the counters file's clock.
         * @return this.
         */
        public Builder clocks(final NanoClock nanoClock, final EpochClock epochClock)
        {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            this.epochClock = Objects.requireNonNull(epochClock, "epochClock");
            return this;
        }

        /**
         * Check the settings without building anything.
         *
         * @return the frozen configuration.
         * @throws IllegalArgumentException naming the setting, its value and its range.
         */
        public SwitchConfiguration conclude()
        {
            return new SwitchConfiguration(this);
        }

        /**
         * @return the switch, its counters file made; attach its links, then {@link Switch#start()}.
         */
        public Switch build()
        {
            return new Switch(conclude());
        }
    }
}
