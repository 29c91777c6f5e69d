package io.vlink.core.qos;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;

/**
 * A port's effective QoS settings (docs/qos.md, OpenSM's manual): its data VLs, the high and low
 * VLArbitration tables, VLHighLimit, the SL2VL table and the low-table burst policy. Immutable.
 * <p>
 * Built from code with {@link #builder()} (e.g. {@code QosConfig.builder().dataVls(8).highLimit(6)
 * .vlarbHigh("0:4").vlarbLow("0:0,1:64").build()}), taken ready-made ({@link #seedExample()},
 * {@link #opensmDefaults(int)}), or read from an {@code opensm.conf} as OpenSM 3.3.23 programs it on a port by
 * {@link #read(Path, PortType, boolean)} and {@link #read(Path, PortType, QosPort, QosReader.Mode, boolean)}.
 */
public final class QosConfig
{
    /** SL2VL maps 16 service levels. */
    public static final int SL_COUNT = 16;
    /** VLHighLimit 255: the high table's bandwidth is unbounded (IBA VL arbitration). */
    public static final int HIGH_LIMIT_UNBOUNDED = 255;
    /** The data-VL counts a port can have (OperVLs). */
    private static final int[] DATA_VL_COUNTS = {1, 2, 4, 8, 15};

    /** OpenSM's hard-coded defaults (docs/qos.md). */
    static final int DEFAULT_MAX_VLS = 15;
    static final int DEFAULT_HIGH_LIMIT = 0;
    static final String DEFAULT_VLARB_HIGH = "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,13:0,14:0";
    static final String DEFAULT_VLARB_LOW = "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,13:4,14:4";
    static final String DEFAULT_SL2VL = "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7";
    static final int DEFAULT_MAX_OP_VLS = 5;

    private final int dataVls;
    private final int highLimit;
    private final VlArbTable high;
    private final VlArbTable low;
    private final byte[] sl2vl;
    private final LowBurst lowBurst;

    private QosConfig(final Builder builder)
    {
        this.dataVls = builder.dataVls;
        this.highLimit = builder.highLimit;
        this.high = builder.high;
        this.low = builder.low;
        this.sl2vl = builder.sl2vl.clone();
        this.lowBurst = builder.lowBurst;
    }

    /**
     * @return a builder starting from OpenSM's defaults with 15 data VLs and the {@code weight} burst policy.
     */
    public static Builder builder()
    {
        return new Builder();
    }

    /**
     * The QoS example of OpenSM's manual on a channel adapter with 8 data VLs: {@code qos_ca_high_limit 6},
     * {@code qos_ca_vlarb_high 0:4}, {@code qos_ca_vlarb_low 0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64},
     * OpenSM's default SL2VL. This is the embedded default of {@code vlink soak} (docs/cli.md).
     *
     * @return the configuration.
     */
    public static QosConfig seedExample()
    {
        return builder()
            .dataVls(8)
            .highLimit(6)
            .vlarbHigh("0:4")
            .vlarbLow("0:0,1:64,2:128,3:192,4:0,5:64,6:64,7:64")
            .build();
    }

    /**
     * @param dataVls 1, 2, 4, 8 or 15.
     * @return OpenSM's hard-coded defaults (limit 0, the 15-entry default tables, default SL2VL) on a port
     * with that many data VLs.
     */
    public static QosConfig opensmDefaults(final int dataVls)
    {
        return builder().dataVls(dataVls).build();
    }

    /**
     * @param maxVls      the port's VL capability cap (1..15).
     * @param maxOpVlsVls the VL count {@code max_op_vls} allows (1, 2, 4, 8 or 15).
     * @return the largest of 1, 2, 4, 8, 15 not above either.
     */
    public static int dataVlsFor(final int maxVls, final int maxOpVlsVls)
    {
        final int cap = Math.min(maxVls, maxOpVlsVls);
        int result = 1;
        for (final int n : DATA_VL_COUNTS)
        {
            if (n <= cap)
            {
                result = n;
            }
        }
        return result;
    }

    /**
     * @param maxOpVls OpenSM's {@code max_op_vls} code 1..5.
     * @return the VLs it allows: 1, 2, 4, 8 or 15.
     */
    public static int vlsOfMaxOpVls(final int maxOpVls)
    {
        return DATA_VL_COUNTS[maxOpVls - 1];
    }

    /**
     * @param n a data-VL count.
     * @return whether a port can have that many data VLs (1, 2, 4, 8 or 15).
     */
    public static boolean isDataVlCount(final int n)
    {
        return n == 1 || n == 2 || n == 4 || n == 8 || n == 15;
    }

    /**
     * @return the port's data VLs: 1, 2, 4, 8 or 15 (VL0 .. VL(n-1)).
     */
    public int dataVls()
    {
        return dataVls;
    }

    /**
     * @return VLHighLimit, 0..255 in 4 KB units; 255 = unbounded, 0 = one packet.
     */
    public int highLimit()
    {
        return highLimit;
    }

    /**
     * @return the high-priority table as configured.
     */
    public VlArbTable high()
    {
        return high;
    }

    /**
     * @return the low-priority table as configured.
     */
    public VlArbTable low()
    {
        return low;
    }

    /**
     * @param sl a service level 0..15.
     * @return the VL the SL's packets go on (15, or a VL not below {@link #dataVls()}, means dropped).
     */
    public int sl2vl(final int sl)
    {
        return sl2vl[sl];
    }

    /**
     * @return the low-table burst policy.
     */
    public LowBurst lowBurst()
    {
        return lowBurst;
    }

    /**
     * @return a builder holding this configuration's values, to derive a variant.
     */
    public Builder toBuilder()
    {
        final Builder builder = new Builder();
        builder.dataVls = dataVls;
        builder.highLimit = highLimit;
        builder.high = high;
        builder.low = low;
        builder.sl2vl = sl2vl.clone();
        builder.lowBurst = lowBurst;
        return builder;
    }

    static void refuse(final int offset, final String message)
    {
        throw new IllegalArgumentException(message);
    }

    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder("QosConfig{dataVls=").append(dataVls)
            .append(", highLimit=").append(highLimit)
            .append(", high=").append(high)
            .append(", low=").append(low)
            .append(", sl2vl=");
        for (int sl = 0; sl < SL_COUNT; sl++)
        {
            sb.append(sl == 0 ? "" : ",").append(sl2vl[sl]);
        }
        return sb.append(", lowBurst=").append(lowBurst).append('}').toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        if (!(o instanceof QosConfig))
        {
            return false;
        }
        final QosConfig that = (QosConfig)o;
        return dataVls == that.dataVls && highLimit == that.highLimit && high.equals(that.high) &&
            low.equals(that.low) && Arrays.equals(sl2vl, that.sl2vl) && lowBurst == that.lowBurst;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(dataVls, highLimit, high, low, Arrays.hashCode(sl2vl), lowBurst);
    }

    /**
     * Builds a {@link QosConfig} from code. Starts from OpenSM's defaults with 15 data VLs. Every setter
     * refuses an out-of-range value with {@link IllegalArgumentException}: nothing is folded into range.
     */
    public static final class Builder
    {
        private int dataVls = DEFAULT_MAX_VLS;
        private int highLimit = DEFAULT_HIGH_LIMIT;
        private VlArbTable high = VlArbTable.parse(DEFAULT_VLARB_HIGH);
        private VlArbTable low = VlArbTable.parse(DEFAULT_VLARB_LOW);
        private byte[] sl2vl = toBytes(QosSyntax.sl2vl("sl2vl", DEFAULT_SL2VL, QosConfig::refuse, null));
        private LowBurst lowBurst = LowBurst.WEIGHT;

        private Builder()
        {
        }

        /**
         * @param dataVls 1, 2, 4, 8 or 15.
         * @return this.
         */
        public Builder dataVls(final int dataVls)
        {
            if (!isDataVlCount(dataVls))
            {
                throw new IllegalArgumentException("data VLs must be 1, 2, 4, 8 or 15, got " + dataVls);
            }
            this.dataVls = dataVls;
            return this;
        }

        /**
         * @param highLimit VLHighLimit 0..255 (4 KB units; 255 = unbounded, 0 = one packet).
         * @return this.
         */
        public Builder highLimit(final int highLimit)
        {
            if (highLimit < 0 || highLimit > HIGH_LIMIT_UNBOUNDED)
            {
                throw new IllegalArgumentException("VLHighLimit must be 0..255, got " + highLimit);
            }
            this.highLimit = highLimit;
            return this;
        }

        /**
         * @param table the high-priority table.
         * @return this.
         */
        public Builder vlarbHigh(final VlArbTable table)
        {
            this.high = Objects.requireNonNull(table, "table");
            return this;
        }

        /**
         * @param text OpenSM's form, e.g. {@code 0:4}.
         * @return this.
         */
        public Builder vlarbHigh(final String text)
        {
            return vlarbHigh(VlArbTable.parse(text));
        }

        /**
         * @param table the low-priority table.
         * @return this.
         */
        public Builder vlarbLow(final VlArbTable table)
        {
            this.low = Objects.requireNonNull(table, "table");
            return this;
        }

        /**
         * @param text OpenSM's form, e.g. {@code 0:0,1:64,2:128}.
         * @return this.
         */
        public Builder vlarbLow(final String text)
        {
            return vlarbLow(VlArbTable.parse(text));
        }

        /**
         * @param vls the VLs of SL0, SL1, ... (1..16 values, 0..15 each); SLs not given map to VL0, as in OpenSM.
         * @return this.
         */
        public Builder sl2vl(final int... vls)
        {
            if (vls.length == 0 || vls.length > SL_COUNT)
            {
                throw new IllegalArgumentException("SL2VL takes 1..16 VLs, got " + vls.length);
            }
            final byte[] map = new byte[SL_COUNT];
            for (int sl = 0; sl < vls.length; sl++)
            {
                if (vls[sl] < 0 || vls[sl] > 15)
                {
                    throw new IllegalArgumentException("SL" + sl + ": VL " + vls[sl] + " is out of range 0..15");
                }
                map[sl] = (byte)vls[sl];
            }
            this.sl2vl = map;
            return this;
        }

        /**
         * @param text OpenSM's form, e.g. {@code 0,1,2,3}.
         * @return this.
         */
        public Builder sl2vl(final String text)
        {
            return sl2vl(QosSyntax.sl2vl("sl2vl", text, QosConfig::refuse, null));
        }

        /**
         * @param lowBurst the low-table burst policy.
         * @return this.
         */
        public Builder lowBurst(final LowBurst lowBurst)
        {
            this.lowBurst = Objects.requireNonNull(lowBurst, "lowBurst");
            return this;
        }

        /**
         * @return the immutable configuration.
         */
        public QosConfig build()
        {
            return new QosConfig(this);
        }

        private static byte[] toBytes(final int[] vls)
        {
            final byte[] map = new byte[SL_COUNT];
            for (int i = 0; i < vls.length; i++)
            {
                map[i] = (byte)vls[i];
            }
            return map;
        }
    }
}
