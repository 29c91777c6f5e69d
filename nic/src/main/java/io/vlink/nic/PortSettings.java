package io.vlink.nic;

import io.vlink.core.port.PortConfig;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;
import io.vlink.nic.agent.IdleStrategies;

import static io.vlink.nic.ConfigurationRules.intSetting;
import static io.vlink.nic.ConfigurationRules.longSetting;
import static io.vlink.nic.ConfigurationRules.range;

/**
 * The settings of a port's link layer, frozen, shared by an engine's ports and a switch's: MTU, each data VL's receive
 * buffer, the VL15 buffer, the FCP period, the link timeout, the early-FCP threshold and the burst. Concluded once, by
 * one set of rules ({@link #conclude}), from what a builder was given, else the system property an operator sets
 * ({@code vlink.fcp.period.ns}, {@code vlink.link.timeout.ns}, {@code vlink.burst}), else the default
 * (the constants here, which {@link EngineConfiguration} repeats for applications); docs/engine.md has the table.
 */
public final class PortSettings
{
    /** System property: packets the arbiter sends per port per duty cycle. */
    public static final String BURST_PROP_NAME = "vlink.burst";
    /** System property: the longest gap between two FCPs of a VL, in nanoseconds. */
    public static final String FCP_PERIOD_PROP_NAME = "vlink.fcp.period.ns";
    /** System property: how long an Armed or Active port waits without hearing from its peer, in ns. */
    public static final String LINK_TIMEOUT_PROP_NAME = "vlink.link.timeout.ns";
    public static final int DEFAULT_MTU = 4096;
    public static final int DEFAULT_VL_BUFFER_BLOCKS = 2048;
    public static final int MAX_VL_BUFFER_BLOCKS = 1 << 20;
    public static final int DEFAULT_VL15_PACKETS = 4;
    public static final int MAX_VL15_PACKETS = 64;
    public static final long DEFAULT_FCP_PERIOD_NS = 1_000_000;
    public static final long MIN_FCP_PERIOD_NS = 1_000;
    public static final long MAX_FCP_PERIOD_NS = 1_000_000_000;
    /** 200 default FCP periods: well under a second, far above any idle strategy's sleep or a young-GC pause. */
    public static final long DEFAULT_LINK_TIMEOUT_NS = 200_000_000;
    /** 100 times the longest sleep of any idle strategy: a peer that merely sleeps is never taken for dead. */
    public static final long MIN_LINK_TIMEOUT_NS = 100 * Math.max(IdleStrategies.BACKOFF_MAX_PARK_NS, IdleStrategies.SLEEP_NS);
    /** The least link timeout in FCP periods: a peer is declared silent only after several FCPs were due. */
    public static final int MIN_LINK_TIMEOUT_PERIODS = 4;
    public static final int DEFAULT_EARLY_FCP_THRESHOLD_BLOCKS = 64;
    public static final int DEFAULT_BURST = 64;
    public static final int MAX_BURST = 4096;

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
    public static PortSettings conclude(
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
    public PortConfig portConfig(final QosConfig qos, final int burstBytes, final int eventRingLength)
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

    /**
     * Records the settings of a port's link layer: the part of an engine's, a switch's and a fabric's builders they
     * share, concluded by the same rules ({@link PortSettings#conclude}). A setting not given takes its system
     * property, else its default.
     *
     * @param <B> the builder's own type, which every setter returns.
     */
    public abstract static class Builder<B extends Builder<B>>
    {
        private Integer mtu;
        private Integer vlBufferBlocks;
        private Integer vl15Packets;
        private Long fcpPeriodNs;
        private Long linkTimeoutNs;
        private Integer earlyFcpThresholdBlocks;
        private Integer burst;

        protected Builder()
        {
        }

        @SuppressWarnings("unchecked")
        private B self()
        {
            return (B)this;
        }

        /**
         * @param mtu 256, 512, 1024, 2048 or 4096 bytes of payload (default 4096).
         * @return this.
         */
        public B mtu(final int mtu)
        {
            this.mtu = mtu;
            return self();
        }

        /**
         * @param blocks each data VL's receive buffer, in 64-byte blocks: the credit it advertises (default 2048: the
         *               whole credit window).
         * @return this.
         */
        public B vlBufferBlocks(final int blocks)
        {
            this.vlBufferBlocks = blocks;
            return self();
        }

        /**
         * @param packets the VL15 receive buffer, in largest packets (default 4).
         * @return this.
         */
        public B vl15Packets(final int packets)
        {
            this.vl15Packets = packets;
            return self();
        }

        /**
         * @param nanos the longest gap between two FCPs of a VL (default: property {@code vlink.fcp.period.ns},
         *              else 1 ms: 65,536 symbol times are notional in software; a receiver that frees space sends
         *              an FCP at once anyway, docs/flow-control.md).
         * @return this.
         */
        public B fcpPeriodNs(final long nanos)
        {
            this.fcpPeriodNs = nanos;
            return self();
        }

        /**
         * @param nanos how long an Armed or Active port waits without hearing from its peer (no FCP, no packet)
         *              before the link goes down and re-initializes (counted {@code link_downed}); default: property
         *              {@code vlink.link.timeout.ns}, else 200 ms; at least 4 FCP periods and 10 ms.
         * @return this.
         */
        public B linkTimeoutNs(final long nanos)
        {
            this.linkTimeoutNs = nanos;
            return self();
        }

        /**
         * @param blocks blocks the consumer frees that send an FCP at once (default 64).
         * @return this.
         */
        public B earlyFcpThresholdBlocks(final int blocks)
        {
            this.earlyFcpThresholdBlocks = blocks;
            return self();
        }

        /**
         * @param packets most packets a port sends per duty cycle (default: property {@code vlink.burst}, else 64; an
         *                engine's receive agent takes twice as many frames, its injection agent four times as many
         *                packets): what each duty cycle's fixed costs (clock, counters, ring positions) are spread
         *                over. A most, never a wait: a lone packet is not held back to fill a burst. Every rule
         *                is applied per packet, so the burst changes when packets go, not what is granted (1 sends
         *                packet by packet). With large packets keep it below a VL's receive buffer over a packet's
         *                blocks where the arbitration shares matter (docs/engine.md, "Burst").
         * @return this.
         */
        public B burst(final int packets)
        {
            this.burst = packets;
            return self();
        }

        /**
         * @return the port settings, every default filled in and every value checked.
         * @throws IllegalArgumentException naming the setting, its value and its range.
         */
        public PortSettings portSettings()
        {
            return conclude(mtu, vlBufferBlocks, vl15Packets, fcpPeriodNs, linkTimeoutNs, earlyFcpThresholdBlocks,
                burst);
        }
    }
}
