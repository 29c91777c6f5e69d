package io.vlink.core.credit;

/**
 * The settings of one port's flow control, with fluent setters and defaults (read once, when a
 * {@link CreditPort} is built).
 * <table>
 *   <caption>Settings</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>dataVls</td><td>1</td><td>data VLs: 1, 2, 4, 8 or 15</td></tr>
 *   <tr><td>bufferBlocks</td><td>3072</td><td>each data VL's receive buffer in 64-byte blocks (the IBA flow-control
 *   example: 192 KB)</td></tr>
 *   <tr><td>chunkBytes</td><td>64</td><td>the receive buffer's allocation granularity</td></tr>
 *   <tr><td>vl15Packets</td><td>1</td><td>SMPs the VL15 receive buffer holds (IBA's minimum)</td></tr>
 *   <tr><td>lineRate</td><td>4x EDR</td><td>gives the FCP period</td></tr>
 *   <tr><td>fcpIntervalSymbols</td><td>57,344</td><td>when a VL's periodic FCP falls due, in symbol times after
 *   its last one (1..65,536)</td></tr>
 *   <tr><td>earlyFcpThresholdBlocks</td><td>64</td><td>FCCL advance that sends an FCP early</td></tr>
 *   <tr><td>automatic</td><td>true</td><td>received FCPs arm and activate the link ({@link LinkStateMachine})</td></tr>
 * </table>
 * The default FCP interval leaves 8,192 symbol times of the 65,536 IBA allows: an FCP that falls due while
 * a packet is on the wire waits for it (up to 8,190 byte times for the largest PktLen) and for the next duty
 * cycle's poll, and must still leave within 65,536 symbol times.
 */
public final class CreditConfig
{
    /** 65,536 less room for the largest packet ahead of the FCP and a poll: see the class comment. */
    public static final int DEFAULT_FCP_INTERVAL_SYMBOLS = LineRate.FCP_INTERVAL_SYMBOLS - 8_192;

    private int dataVls = 1;
    private int bufferBlocks = 3072;
    private int chunkBytes = 64;
    private int vl15Packets = 1;
    private LineRate lineRate = LineRate.EDR_4X;
    private int fcpIntervalSymbols = DEFAULT_FCP_INTERVAL_SYMBOLS;
    private int earlyFcpThresholdBlocks = FcpSchedule.DEFAULT_EARLY_THRESHOLD_BLOCKS;
    private boolean automatic = true;

    public CreditConfig dataVls(final int dataVls)
    {
        this.dataVls = Credits.requireDataVls(dataVls);
        return this;
    }

    public int dataVls()
    {
        return dataVls;
    }

    public CreditConfig bufferBlocks(final int bufferBlocks)
    {
        this.bufferBlocks = bufferBlocks;
        return this;
    }

    public int bufferBlocks()
    {
        return bufferBlocks;
    }

    public CreditConfig chunkBytes(final int chunkBytes)
    {
        this.chunkBytes = chunkBytes;
        return this;
    }

    public int chunkBytes()
    {
        return chunkBytes;
    }

    public CreditConfig vl15Packets(final int vl15Packets)
    {
        this.vl15Packets = vl15Packets;
        return this;
    }

    public int vl15Packets()
    {
        return vl15Packets;
    }

    public CreditConfig lineRate(final LineRate lineRate)
    {
        if (null == lineRate)
        {
            throw new IllegalArgumentException("line rate required");
        }
        this.lineRate = lineRate;
        return this;
    }

    public LineRate lineRate()
    {
        return lineRate;
    }

    public CreditConfig fcpIntervalSymbols(final int fcpIntervalSymbols)
    {
        if (fcpIntervalSymbols < 1 || fcpIntervalSymbols > LineRate.FCP_INTERVAL_SYMBOLS)
        {
            throw new IllegalArgumentException("FCP interval must be 1..65536 symbol times: " + fcpIntervalSymbols);
        }
        this.fcpIntervalSymbols = fcpIntervalSymbols;
        return this;
    }

    public int fcpIntervalSymbols()
    {
        return fcpIntervalSymbols;
    }

    /**
     * @return the FCP period in ns: {@link #fcpIntervalSymbols()} at {@link #lineRate()}.
     */
    public long fcpPeriodNs()
    {
        return lineRate.nanosOf(fcpIntervalSymbols);
    }

    public CreditConfig earlyFcpThresholdBlocks(final int earlyFcpThresholdBlocks)
    {
        this.earlyFcpThresholdBlocks = earlyFcpThresholdBlocks;
        return this;
    }

    public int earlyFcpThresholdBlocks()
    {
        return earlyFcpThresholdBlocks;
    }

    public CreditConfig automatic(final boolean automatic)
    {
        this.automatic = automatic;
        return this;
    }

    public boolean automatic()
    {
        return automatic;
    }
}
