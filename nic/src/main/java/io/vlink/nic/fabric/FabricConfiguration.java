package io.vlink.nic.fabric;

import io.vlink.core.fabric.Routes;
import io.vlink.core.fabric.Topology;
import io.vlink.core.qos.QosConfig;
import io.vlink.nic.ConfigurationRules;
import io.vlink.nic.Engine;
import io.vlink.nic.EngineBuilder;
import io.vlink.nic.EngineConfiguration;
import io.vlink.nic.PortSettings;
import io.vlink.nic.link.LoopbackLink;
import io.vlink.nic.status.CountersFileDescriptor;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.io.File;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.function.Supplier;

import static io.vlink.nic.ConfigurationRules.powerOfTwo;
import static io.vlink.nic.ConfigurationRules.range;

/**
 * How a fabric's nodes are built: concluded from a {@link Builder} by {@link Builder#build} (every default filled in,
 * every value checked), then frozen. Every port of the fabric, CA and switch alike, runs one {@link PortSettings} (the
 * builder's port settings, {@link PortSettings.Builder}: MTU, buffers, FCP period, link timeout, burst),
 * checked by the engine's rules (and taking the same system properties as defaults); each switch is built from a
 * {@link SwitchConfiguration} and each CA port's engine from an engine configuration, both concluded from this one.
 */
public final class FabricConfiguration
{
    private final String name;
    private final File directory;
    private final QosConfig ca;
    private final QosConfig external;
    private final QosConfig management;
    private final PortSettings port;
    private final long hoqLifetimeNs;
    private final int loopbackCapacity;
    private final Fabric.LinkWrapper wrapper;
    private final Predicate<Topology.Node> local;
    private final Fabric.RemoteLinks remoteLinks;
    private final NanoClock nanoClock;
    private final EpochClock epochClock;
    private final boolean switchThread;
    private final Supplier<IdleStrategy> switchIdle;

    private FabricConfiguration(final Builder b)
    {
        name = CountersFileDescriptor.validateName(b.name);
        directory = ConfigurationRules.directory(b.directory);
        if (b.ca.dataVls() != b.external.dataVls())
        {
            throw new IllegalArgumentException("CA ports have " + b.ca.dataVls() + " data VLs and switch ports " +
                b.external.dataVls() + ": a link runs one VL count at both ends; give qos_ca_max_vls and " +
                "qos_swe_max_vls the same value");
        }
        ca = b.ca;
        external = b.external;
        management = b.management;
        port = b.portSettings();
        hoqLifetimeNs = range("hoqLifetimeNs", b.hoqLifetimeNs, 1, SwitchConfiguration.NO_LIFETIME,
            "the head-of-queue lifetime (IBA's switch lifetime limit)");
        loopbackCapacity = range("loopbackCapacity", b.loopbackCapacity, EngineConfiguration.MIN_LOOPBACK_CAPACITY,
            EngineConfiguration.MAX_LOOPBACK_CAPACITY, "bytes of each direction's ring");
        powerOfTwo("loopbackCapacity", loopbackCapacity);
        wrapper = b.wrapper;
        local = b.local;
        remoteLinks = b.remoteLinks;
        nanoClock = b.nanoClock;
        epochClock = b.epochClock;
        switchThread = b.switchThread;
        switchIdle = b.switchIdle;
    }

    /**
     * @return the prefix of every node's counters file name.
     */
    public String name()
    {
        return name;
    }

    /**
     * @return where the nodes' counters files go.
     */
    public File directory()
    {
        return directory;
    }

    /**
     * @return CA ports' QoS ({@code qos_ca_*}).
     */
    public QosConfig ca()
    {
        return ca;
    }

    /**
     * @return switches' external ports' QoS ({@code qos_swe_*}).
     */
    public QosConfig external()
    {
        return external;
    }

    /**
     * @return switches' port 0 QoS ({@code qos_sw0_*}).
     */
    public QosConfig management()
    {
        return management;
    }

    /**
     * @return every port's link-layer settings, CA and switch alike.
     */
    public PortSettings portSettings()
    {
        return port;
    }

    /**
     * @return the switches' head-of-queue lifetime, or {@link SwitchConfiguration#NO_LIFETIME}.
     */
    public long hoqLifetimeNs()
    {
        return hoqLifetimeNs;
    }

    /**
     * @return each direction's ring of every cable made in this process.
     */
    public int loopbackCapacity()
    {
        return loopbackCapacity;
    }

    /**
     * @return what wraps each end of every cable.
     */
    public Fabric.LinkWrapper linkWrapper()
    {
        return wrapper;
    }

    /**
     * @return which nodes run in this process.
     */
    public Predicate<Topology.Node> local()
    {
        return local;
    }

    /**
     * @return what makes the link of a cable whose other end runs elsewhere, or null when every node runs here.
     */
    public Fabric.RemoteLinks remoteLinks()
    {
        return remoteLinks;
    }

    /**
     * @return every node's clock.
     */
    public NanoClock nanoClock()
    {
        return nanoClock;
    }

    /**
     * @return the counters files' clock.
     */
    public EpochClock epochClock()
    {
        return epochClock;
    }

    /**
     * @return whether the switches run on a thread of their own.
     */
    public boolean switchThread()
    {
        return switchThread;
    }

    /**
     * @return how the switch thread waits.
     */
    public Supplier<IdleStrategy> switchIdle()
    {
        return switchIdle;
    }

    /**
     * @param switchName the switch's counters file name.
     * @param ports      its external ports.
     * @param lid        its LID.
     * @param lft        its forwarding table.
     * @return the switch's configuration, its ports' settings this fabric's.
     */
    SwitchConfiguration switchConfiguration(final String switchName, final int ports, final int lid, final int[] lft)
    {
        return Switch.builder().name(switchName).directory(directory).ports(ports, lid, lft)
            .qos(external, management).mtu(port.mtu()).vlBufferBlocks(port.vlBufferBlocks())
            .vl15Packets(port.vl15Packets()).fcpPeriodNs(port.fcpPeriodNs()).linkTimeoutNs(port.linkTimeoutNs())
            .earlyFcpThresholdBlocks(port.earlyFcpThresholdBlocks()).burst(port.burst()).hoqLifetimeNs(hoqLifetimeNs)
            .clocks(nanoClock, epochClock).conclude();
    }

    /**
     * @param engineName the engine's name.
     * @return a builder of a CA port's engine, its port's settings this fabric's (the link and LIDs are the caller's).
     */
    EngineBuilder engine(final String engineName)
    {
        return Engine.builder().name(engineName).directory(directory).qos(ca).mtu(port.mtu())
            .vlBufferBlocks(port.vlBufferBlocks()).vl15Packets(port.vl15Packets()).fcpPeriodNs(port.fcpPeriodNs())
            .linkTimeoutNs(port.linkTimeoutNs()).earlyFcpThresholdBlocks(port.earlyFcpThresholdBlocks())
            .burst(port.burst()).loopbackCapacity(loopbackCapacity).clocks(nanoClock, epochClock);
    }

    /**
     * Records how a fabric's nodes are built.
     */
    public static final class Builder extends PortSettings.Builder<Builder>
    {
        String name = "fabric";
        File directory;
        QosConfig ca = QosConfig.opensmDefaults(8);
        QosConfig external = QosConfig.opensmDefaults(8);
        QosConfig management = QosConfig.opensmDefaults(8);
        long hoqLifetimeNs = SwitchConfiguration.NO_LIFETIME;
        int loopbackCapacity = LoopbackLink.DEFAULT_CAPACITY;
        Fabric.LinkWrapper wrapper = (node, port, link) -> link;
        Predicate<Topology.Node> local = node -> true;
        Fabric.RemoteLinks remoteLinks;
        NanoClock nanoClock = SystemNanoClock.INSTANCE;
        EpochClock epochClock = SystemEpochClock.INSTANCE;
        boolean switchThread;
        Supplier<IdleStrategy> switchIdle = YieldingIdleStrategy::new;

        Builder()
        {
        }

        /**
         * @param name prefix of every node's counters file name (letters, digits, '.', '_', '-').
         * @return this.
         */
        public Builder name(final String name)
        {
            this.name = Objects.requireNonNull(name, "name");
            return this;
        }

        /**
         * @param directory where the nodes' counters files go (default: property {@code vlink.dir}, else
         *                  {@code /dev/shm/vlink-${user.name}} on Linux, else
         *                  {@code ${java.io.tmpdir}/vlink-${user.name}}, as an engine's).
         * @return this.
         */
        public Builder directory(final File directory)
        {
            this.directory = Objects.requireNonNull(directory, "directory");
            return this;
        }

        /**
         * @param ca         CA ports' QoS ({@code qos_ca_*}).
         * @param external   switches' external ports' QoS ({@code qos_swe_*}).
         * @param management switches' port 0 QoS ({@code qos_sw0_*}).
         * @return this.
         */
        public Builder qos(final QosConfig ca, final QosConfig external, final QosConfig management)
        {
            this.ca = Objects.requireNonNull(ca, "ca");
            this.external = Objects.requireNonNull(external, "external");
            this.management = Objects.requireNonNull(management, "management");
            return this;
        }

        /**
         * @param nanos the switches' head-of-queue lifetime (IBA's switch lifetime limit); default none.
         * @return this.
         */
        public Builder hoqLifetimeNs(final long nanos)
        {
            this.hoqLifetimeNs = nanos;
            return this;
        }

        /**
         * @param bytes each direction's ring of every cable (a power of two, at least 64 KiB).
         * @return this.
         */
        public Builder loopbackCapacity(final int bytes)
        {
            this.loopbackCapacity = bytes;
            return this;
        }

        /**
         * @param wrapper wraps each end of every cable.
         * @return this.
         */
        public Builder linkWrapper(final Fabric.LinkWrapper wrapper)
        {
            this.wrapper = Objects.requireNonNull(wrapper, "wrapper");
            return this;
        }

        /**
         * @param local       which nodes run in this process (default: all).
         * @param remoteLinks makes the link of every cable whose other end is not local.
         * @return this.
         */
        public Builder local(final Predicate<Topology.Node> local, final Fabric.RemoteLinks remoteLinks)
        {
            this.local = Objects.requireNonNull(local, "local");
            this.remoteLinks = Objects.requireNonNull(remoteLinks, "remoteLinks");
            return this;
        }

        /**
         * @param nanoClock  every node's clock (FCP schedules, link timeouts, head-of-queue lifetime).
         * @param epochClock the counters files' clock.
         * @return this.
         */
        public Builder clocks(final NanoClock nanoClock, final EpochClock epochClock)
        {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            this.epochClock = Objects.requireNonNull(epochClock, "epochClock");
            return this;
        }

        /**
         * @param dedicated whether every switch of this process runs on one thread of its own (named
         *                  {@code vlink-NAME-switches}), the CA engines on the caller's ({@link Fabric#invoke()});
         *                  default false: every node on the caller's thread. One thread for all the switches, not one
         *                  each: on a small machine the caller and the switches are the two halves of the work. On a
         *                  busy machine one thread may be left off the CPU while the other runs: give
         *                  {@link #linkTimeoutNs} more than the engine's 200 ms, or the ports on the running thread
         *                  take the others for gone.
         * @return this.
         */
        public Builder switchThread(final boolean dedicated)
        {
            this.switchThread = dedicated;
            return this;
        }

        /**
         * @param idle how the switch thread waits when no switch had work (default: {@code yield}: the switches' work
         *             comes in bursts a few microseconds apart, and a thread that parks, as {@code backoff} does after
         *             a short spin, wakes too late for the next; the fabric soak ran at a quarter of its rate or
         *             less with it).
         * @return this.
         */
        public Builder switchIdle(final Supplier<IdleStrategy> idle)
        {
            this.switchIdle = Objects.requireNonNull(idle, "idle");
            return this;
        }

        /**
         * Check the settings without building anything.
         *
         * @return the frozen configuration.
         * @throws IllegalArgumentException naming the setting, its value and its range.
         */
        public FabricConfiguration conclude()
        {
            return new FabricConfiguration(this);
        }

        /**
         * Build and start every node. A failure leaves nothing behind.
         *
         * @param topology the fabric.
         * @param routes   its forwarding tables.
         * @return the running fabric.
         * @throws IllegalArgumentException for a setting out of range, a router or a cable between two CAs.
         */
        public Fabric build(final Topology topology, final Routes routes)
        {
            return Fabric.build(topology, routes, conclude());
        }
    }
}
