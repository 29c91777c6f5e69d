package io.vlink.nic;

import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;

import static io.vlink.nic.ConfigurationRules.intSetting;
import static io.vlink.nic.ConfigurationRules.longSetting;
import static io.vlink.nic.ConfigurationRules.range;
import static io.vlink.nic.EngineConfiguration.BURST_PROP_NAME;
import static io.vlink.nic.EngineConfiguration.DEFAULT_BURST;
import static io.vlink.nic.EngineConfiguration.DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS;
import static io.vlink.nic.EngineConfiguration.DEFAULT_FCP_PERIOD_NS;
import static io.vlink.nic.EngineConfiguration.DEFAULT_LINK_TIMEOUT_NS;
import static io.vlink.nic.EngineConfiguration.DEFAULT_MTU;
import static io.vlink.nic.EngineConfiguration.DEFAULT_VL15_PACKETS;
import static io.vlink.nic.EngineConfiguration.DEFAULT_VL_BUFFER_BLOCKS;
import static io.vlink.nic.EngineConfiguration.FCP_PERIOD_PROP_NAME;
import static io.vlink.nic.EngineConfiguration.LINK_TIMEOUT_PROP_NAME;
import static io.vlink.nic.EngineConfiguration.MAX_BURST;
import static io.vlink.nic.EngineConfiguration.MAX_FCP_PERIOD_NS;
import static io.vlink.nic.EngineConfiguration.MAX_VL15_PACKETS;
import static io.vlink.nic.EngineConfiguration.MAX_VL_BUFFER_BLOCKS;
import static io.vlink.nic.EngineConfiguration.MIN_FCP_PERIOD_NS;
import static io.vlink.nic.EngineConfiguration.MIN_LINK_TIMEOUT_NS;
import static io.vlink.nic.EngineConfiguration.MIN_LINK_TIMEOUT_PERIODS;

/**
 * The settings of a port's link layer, frozen, shared by an engine's ports and a switch's: MTU, each data VL's receive
 * buffer, the VL15 buffer, the FCP period, the link timeout, the early-FCP threshold and the burst. Concluded once, by
 * one set of rules ({@link #conclude}), from what a builder was given, else the system property an operator sets
 * ({@code vlink.fcp.period.ns}, {@code vlink.link.timeout.ns}, {@code vlink.burst}), else the default
 * ({@link EngineConfiguration}'s constants); docs/engine.md has the table.
 */
public final class PortSettings
{
    private final int mtu;
    private final int vlBufferBlocks;
    private final int vl15Packets;
    private final long fcpPeriodNs;
    private final long linkTimeoutNs;
    private final int earlyFcpThresholdBlocks;
    private final int burst;

    private PortSettings(
        final int mtu,
        final int vlBufferBlocks,
        final int vl15Packets,
        final long fcpPeriodNs,
        final long linkTimeoutNs,
        final int earlyFcpThresholdBlocks,
        final int burst)
    {
        this.mtu = mtu;
        this.vlBufferBlocks = vlBufferBlocks;
        this.vl15Packets = vl15Packets;
        this.fcpPeriodNs = fcpPeriodNs;
        this.linkTimeoutNs = linkTimeoutNs;
        this.earlyFcpThresholdBlocks = earlyFcpThresholdBlocks;
        this.burst = burst;
    }

    /**
     * Fill every default (explicit, else system property, else constant) and check every value.
     *
     * @param mtu                     payload bytes per packet, or null.
     * @param vlBufferBlocks          each data VL's receive buffer in blocks, or null.
     * @param vl15Packets             the VL15 receive buffer in largest packets, or null.
     * @param fcpPeriodNs             the longest gap between two FCPs of a VL, or null.
     * @param linkTimeoutNs           how long an Armed or Active port waits without hearing its peer, or null.
     * @param earlyFcpThresholdBlocks freed blocks that send an FCP at once, or null.
     * @param burst                   packets sent per port per duty cycle, or null.
     * @return the settings.
     * @throws IllegalArgumentException naming the setting, its value and its range, for the first one out of range.
     */
    static PortSettings conclude(
        final Integer mtu,
        final Integer vlBufferBlocks,
        final Integer vl15Packets,
        final Long fcpPeriodNs,
        final Long linkTimeoutNs,
        final Integer earlyFcpThresholdBlocks,
        final Integer burst)
    {
        final int checkedMtu = Sizes.checkMtu("mtu", null == mtu ? DEFAULT_MTU : mtu);
        final int buffer = range("vlBufferBlocks", orElse(vlBufferBlocks, DEFAULT_VL_BUFFER_BLOCKS), 1,
            MAX_VL_BUFFER_BLOCKS, "each data VL's receive buffer in 64-byte blocks");
        final int vl15 = range("vl15Packets", orElse(vl15Packets, DEFAULT_VL15_PACKETS), 1, MAX_VL15_PACKETS,
            "largest packets VL15 buffers");
        final long period = longSetting("fcpPeriodNs", fcpPeriodNs, FCP_PERIOD_PROP_NAME, DEFAULT_FCP_PERIOD_NS,
            MIN_FCP_PERIOD_NS, MAX_FCP_PERIOD_NS, "the longest gap between two FCPs of a VL");
        final long timeout = longSetting("linkTimeoutNs", linkTimeoutNs, LINK_TIMEOUT_PROP_NAME,
            DEFAULT_LINK_TIMEOUT_NS, Math.max(MIN_LINK_TIMEOUT_NS, MIN_LINK_TIMEOUT_PERIODS * period), Long.MAX_VALUE,
            "how long an Armed or Active port waits without hearing from its peer (at least " +
            MIN_LINK_TIMEOUT_PERIODS + " FCP periods)");
        final int early = range("earlyFcpThresholdBlocks",
            orElse(earlyFcpThresholdBlocks, DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS), 1, buffer,
            "freed blocks that send an FCP at once, at most the VL buffer");
        final int checkedBurst = intSetting("burst", burst, BURST_PROP_NAME, DEFAULT_BURST, 1, MAX_BURST,
            "packets the arbiter sends per port per duty cycle");
        return new PortSettings(checkedMtu, buffer, vl15, period, timeout, early, checkedBurst);
    }

    private static int orElse(final Integer value, final int defaultValue)
    {
        return null == value ? defaultValue : value;
    }

    /**
     * @param qos             the port's QoS.
     * @param burstBytes      the most bytes a burst sends, or {@link PortConfig#NO_BURST_BYTES}.
     * @param eventRingLength bytes of the receive-to-credit ring.
     * @return what the port's datapath runs with.
     */
    PortConfig portConfig(final QosConfig qos, final int burstBytes, final int eventRingLength)
    {
        return PortConfig.builder().qos(qos).mtu(mtu).bufferBlocks(vlBufferBlocks).fcpPeriodNs(fcpPeriodNs)
            .earlyFcpThresholdBlocks(earlyFcpThresholdBlocks).silenceLimitNs(linkTimeoutNs).burst(burst)
            .burstBytes(burstBytes).eventRingLength(eventRingLength).build();
    }

    /**
     * @return payload bytes per packet.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return each data VL's receive buffer in 64-byte blocks.
     */
    public int vlBufferBlocks()
    {
        return vlBufferBlocks;
    }

    /**
     * @return the VL15 receive buffer in largest packets.
     */
    public int vl15Packets()
    {
        return vl15Packets;
    }

    /**
     * @return the longest gap between two FCPs of a VL, ns.
     */
    public long fcpPeriodNs()
    {
        return fcpPeriodNs;
    }

    /**
     * @return how long an Armed or Active port waits without hearing from its peer, ns.
     */
    public long linkTimeoutNs()
    {
        return linkTimeoutNs;
    }

    /**
     * @return blocks freed that send an FCP at once.
     */
    public int earlyFcpThresholdBlocks()
    {
        return earlyFcpThresholdBlocks;
    }

    /**
     * @return packets sent per port per duty cycle.
     */
    public int burst()
    {
        return burst;
    }
}
