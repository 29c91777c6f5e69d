package io.vlink.core.port;

import io.vlink.core.credit.CreditControl;
import io.vlink.core.credit.Credits;
import io.vlink.core.credit.FcpSchedule;
import io.vlink.core.credit.LineRate;
import io.vlink.core.qos.QosConfig;
import io.vlink.core.wire.Sizes;

import java.util.Objects;

/**
 * What one port's datapath runs with, frozen: its QoS (data VLs, arbitration tables), MTU, each data VL's receive
 * buffer, the FCP schedule, the silence limit and the transmit burst. Built with {@link #builder()}; the engine and
 * the switch conclude theirs from their own validated configuration (their operators' ranges, defaults and system
 * properties are theirs), tests and the model checker set what they need.
 * <p>
 * Checked here: only what the datapath itself requires (positive sizes, a power-of-two chunk); the seeds' ranges are
 * the rule classes' own ({@link CreditControl}, {@link FcpSchedule}).
 */
public final class PortConfig
{
    /** The FCP interval IBA allows at most, less room for the largest packet ahead of the FCP and a poll. */
    public static final int DEFAULT_FCP_INTERVAL_SYMBOLS = LineRate.FCP_INTERVAL_SYMBOLS - 8_192;
    /** No byte budget per duty cycle: a burst is counted in packets only. */
    public static final int NO_BURST_BYTES = Integer.MAX_VALUE;
    /** Each FCP request and receive event takes this much of its ring: an 8-byte header and the word, aligned. */
    static final int RING_RECORD_LENGTH = 16;

    private final QosConfig qos;
    private final int mtu;
    private final int bufferBlocks;
    private final int chunkBytes;
    private final long fcpPeriodNs;
    private final int earlyFcpThresholdBlocks;
    private final boolean automatic;
    private final long silenceLimitNs;
    private final int burst;
    private final int burstBytes;
    private final int eventRingLength;

    private PortConfig(final Builder b)
    {
        qos = Objects.requireNonNull(b.qos, "qos");
        mtu = Sizes.checkMtu("mtu", b.mtu);
        bufferBlocks = positive("bufferBlocks", b.bufferBlocks);
        if (b.chunkBytes < Sizes.BLOCK_LENGTH || Integer.bitCount(b.chunkBytes) != 1)
        {
            throw new IllegalArgumentException("chunkBytes " + b.chunkBytes +
                ": the receive buffer's allocation granularity is a power of two of at least 64 bytes");
        }
        chunkBytes = b.chunkBytes;
        fcpPeriodNs = positive("fcpPeriodNs", b.fcpPeriodNs);
        earlyFcpThresholdBlocks = b.earlyFcpThresholdBlocks;
        automatic = b.automatic;
        silenceLimitNs = positive("silenceLimitNs", b.silenceLimitNs);
        burst = positive("burst", b.burst);
        burstBytes = positive("burstBytes", b.burstBytes);
        eventRingLength = b.eventRingLength;
        if (Integer.bitCount(eventRingLength) != 1 || eventRingLength < 1024)
        {
            throw new IllegalArgumentException("eventRingLength " + eventRingLength +
                ": a power of two of at least 1024 bytes");
        }
    }

    private static int positive(final String setting, final int value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(setting + " must be positive: " + value);
        }
        return value;
    }

    private static long positive(final String setting, final long value)
    {
        if (value <= 0)
        {
            throw new IllegalArgumentException(setting + " must be positive: " + value);
        }
        return value;
    }

    /**
     * @return a builder with every default (the QoS must be given).
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * @return a builder holding this configuration's values, to change some.
     */
    public Builder toBuilder()
    {
        return new Builder().qos(qos).mtu(mtu).bufferBlocks(bufferBlocks).chunkBytes(chunkBytes)
            .fcpPeriodNs(fcpPeriodNs).earlyFcpThresholdBlocks(earlyFcpThresholdBlocks).automatic(automatic)
            .silenceLimitNs(silenceLimitNs).burst(burst).burstBytes(burstBytes).eventRingLength(eventRingLength);
    }

    /**
     * @return the port's QoS: data VLs, VL arbitration tables and high limit.
     */
    public QosConfig qos()
    {
        return qos;
    }

    /**
     * @return the port's data VLs.
     */
    public int dataVls()
    {
        return qos.dataVls();
    }

    /**
     * @return payload bytes per packet: the receive checks refuse larger packets.
     */
    public int mtu()
    {
        return mtu;
    }

    /**
     * @return each data VL's receive buffer in 64-byte blocks: the credit it advertises.
     */
    public int bufferBlocks()
    {
        return bufferBlocks;
    }

    /**
     * @return the receive buffer's allocation granularity in bytes (64: exact block accounting).
     */
    public int chunkBytes()
    {
        return chunkBytes;
    }

    /**
     * @return the longest gap between two FCPs of a VL.
     */
    public long fcpPeriodNs()
    {
        return fcpPeriodNs;
    }

    /**
     * @return the FCCL advance that sends an FCP early.
     */
    public int earlyFcpThresholdBlocks()
    {
        return earlyFcpThresholdBlocks;
    }

    /**
     * @return whether received FCPs arm and activate the port (no subnet manager).
     */
    public boolean automatic()
    {
        return automatic;
    }

    /**
     * @return how long an Armed or Active port waits without hearing from its peer, or
     * {@link CreditControl#NO_SILENCE_LIMIT}.
     */
    public long silenceLimitNs()
    {
        return silenceLimitNs;
    }

    /**
     * @return the most packets the transmit half sends per duty cycle.
     */
    public int burst()
    {
        return burst;
    }

    /**
     * @return the most bytes of data packets the transmit half sends per duty cycle, or {@link #NO_BURST_BYTES}.
     */
    public int burstBytes()
    {
        return burstBytes;
    }

    /**
     * @return bytes of the ring from the receive half to the credit half (a power of two).
     */
    public int eventRingLength()
    {
        return eventRingLength;
    }

    /**
     * Records settings; {@link #build()} checks them and freezes them.
     */
    public static final class Builder
    {
        private QosConfig qos;
        private int mtu = Sizes.MAX_MTU;
        private int bufferBlocks = Credits.MAX_CREDIT;
        private int chunkBytes = Sizes.BLOCK_LENGTH;
        private long fcpPeriodNs = LineRate.EDR_4X.nanosOf(DEFAULT_FCP_INTERVAL_SYMBOLS);
        private int earlyFcpThresholdBlocks = FcpSchedule.DEFAULT_EARLY_THRESHOLD_BLOCKS;
        private boolean automatic = true;
        private long silenceLimitNs = CreditControl.NO_SILENCE_LIMIT;
        private int burst = 64;
        private int burstBytes = NO_BURST_BYTES;
        private int eventRingLength = 64 * 1024;

        private Builder()
        {
        }

        /**
         * @param qos data VLs, VL arbitration tables and high limit (required).
         * @return this.
         */
        public Builder qos(final QosConfig qos)
        {
            this.qos = qos;
            return this;
        }

        /**
         * @param mtu payload bytes per packet (default 4096).
         * @return this.
         */
        public Builder mtu(final int mtu)
        {
            this.mtu = mtu;
            return this;
        }

        /**
         * @param blocks each data VL's receive buffer in 64-byte blocks (default 2048).
         * @return this.
         */
        public Builder bufferBlocks(final int blocks)
        {
            this.bufferBlocks = blocks;
            return this;
        }

        /**
         * @param bytes the receive buffer's allocation granularity (default 64: exact).
         * @return this.
         */
        public Builder chunkBytes(final int bytes)
        {
            this.chunkBytes = bytes;
            return this;
        }

        /**
         * @param nanos the longest gap between two FCPs of a VL (default 57,344 symbol times at 4x EDR).
         * @return this.
         */
        public Builder fcpPeriodNs(final long nanos)
        {
            this.fcpPeriodNs = nanos;
            return this;
        }

        /**
         * @param rate    the line rate.
         * @param symbols when a VL's periodic FCP falls due, in symbol times after its last one: 1..65,536 (IBA's
         *                most; the default 57,344 leaves room for the largest packet ahead of the FCP and a poll).
         * @return this.
         */
        public Builder fcpInterval(final LineRate rate, final int symbols)
        {
            if (symbols < 1 || symbols > LineRate.FCP_INTERVAL_SYMBOLS)
            {
                throw new IllegalArgumentException("FCP interval must be 1..65536 symbol times: " + symbols);
            }
            this.fcpPeriodNs = rate.nanosOf(symbols);
            return this;
        }

        /**
         * @param blocks the FCCL advance that sends an FCP early (default 64).
         * @return this.
         */
        public Builder earlyFcpThresholdBlocks(final int blocks)
        {
            this.earlyFcpThresholdBlocks = blocks;
            return this;
        }

        /**
         * @param automatic whether received FCPs arm and activate the port (default true: no subnet manager).
         * @return this.
         */
        public Builder automatic(final boolean automatic)
        {
            this.automatic = automatic;
            return this;
        }

        /**
         * @param nanos how long an Armed or Active port waits without hearing from its peer (default none).
         * @return this.
         */
        public Builder silenceLimitNs(final long nanos)
        {
            this.silenceLimitNs = nanos;
            return this;
        }

        /**
         * @param packets the most packets sent per duty cycle (default 64).
         * @return this.
         */
        public Builder burst(final int packets)
        {
            this.burst = packets;
            return this;
        }

        /**
         * @param bytes the most bytes of data packets sent per duty cycle (default none).
         * @return this.
         */
        public Builder burstBytes(final int bytes)
        {
            this.burstBytes = bytes;
            return this;
        }

        /**
         * @param bytes the receive-to-credit ring (default 64 KiB, a power of two).
         * @return this.
         */
        public Builder eventRingLength(final int bytes)
        {
            this.eventRingLength = bytes;
            return this;
        }

        /**
         * @return the frozen configuration.
         * @throws IllegalArgumentException for a value the datapath cannot run with.
         */
        public PortConfig build()
        {
            return new PortConfig(this);
        }
    }
}
