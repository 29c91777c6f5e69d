package io.vlink.core.credit;

/**
 * InfiniBand 4x link rates by the data rate they carry after line encoding: what "one symbol time", one byte at
 * the link's data rate, is worth (IBA flow control "Frequency of FCP Transmission": "the time required to transmit 8 bits
 * of information onto the link").
 * <table>
 *   <caption>Rates, their encoding, and the 65,536-symbol FCP interval</caption>
 *   <tr><th>rate</th><th>lanes x signalling, encoding</th><th>data</th><th>65,536 byte times</th></tr>
 *   <tr><td>4x SDR</td><td>4 x 2.5 Gbaud, 8b/10b</td><td>8 Gb/s</td><td>65.536 us</td></tr>
 *   <tr><td>4x DDR</td><td>4 x 5 Gbaud, 8b/10b</td><td>16 Gb/s</td><td>32.768 us</td></tr>
 *   <tr><td>4x QDR</td><td>4 x 10 Gbaud, 8b/10b</td><td>32 Gb/s</td><td>16.384 us</td></tr>
 *   <tr><td>4x FDR10</td><td>4 x 10.3125 Gbaud, 64b/66b</td><td>40 Gb/s</td><td>13.107 us</td></tr>
 *   <tr><td>4x FDR</td><td>4 x 14.0625 Gbaud, 64b/66b</td><td>54.545 Gb/s</td><td>9.612 us</td></tr>
 *   <tr><td>4x EDR</td><td>4 x 25.78125 Gbaud, 64b/66b</td><td>100 Gb/s</td><td>5.243 us</td></tr>
 *   <tr><td>4x HDR</td><td>4 x 50 Gb/s PAM4 lanes</td><td>200 Gb/s</td><td>2.621 us</td></tr>
 *   <tr><td>4x NDR</td><td>4 x 100 Gb/s PAM4 lanes</td><td>400 Gb/s</td><td>1.311 us</td></tr>
 *   <tr><td>4x XDR</td><td>4 x 200 Gb/s PAM4 lanes</td><td>800 Gb/s</td><td>0.655 us</td></tr>
 * </table>
 */
public enum LineRate
{
    SDR_4X("4x SDR", 8_000_000_000L),
    DDR_4X("4x DDR", 16_000_000_000L),
    QDR_4X("4x QDR", 32_000_000_000L),
    FDR10_4X("4x FDR10", 40_000_000_000L),
    /** 4 x 14.0625 Gbaud x 64/66, rounded to the bit. */
    FDR_4X("4x FDR", 54_545_454_545L),
    EDR_4X("4x EDR", 100_000_000_000L),
    HDR_4X("4x HDR", 200_000_000_000L),
    NDR_4X("4x NDR", 400_000_000_000L),
    XDR_4X("4x XDR", 800_000_000_000L);

    /** The longest an FCP may wait per data VL, in symbol (byte) times: IBA flow control. */
    public static final int FCP_INTERVAL_SYMBOLS = 65_536;

    private static final long NANOS_PER_SECOND = 1_000_000_000L;

    private final String label;
    private final long dataBitsPerSecond;

    LineRate(final String label, final long dataBitsPerSecond)
    {
        this.label = label;
        this.dataBitsPerSecond = dataBitsPerSecond;
    }

    /**
     * @return the usual name, e.g. {@code 4x EDR}.
     */
    public String label()
    {
        return label;
    }

    /**
     * @return the data rate after line encoding, in bits per second.
     */
    public long dataBitsPerSecond()
    {
        return dataBitsPerSecond;
    }

    /**
     * @param symbols symbol (byte) times.
     * @return how long they take at this rate in nanoseconds, rounded down.
     */
    public long nanosOf(final long symbols)
    {
        return nanosOf(symbols, dataBitsPerSecond);
    }

    /**
     * @param symbols           symbol (byte) times.
     * @param dataBitsPerSecond a data rate in bits per second.
     * @return how long the symbols take at that rate in nanoseconds, rounded down so a deadline computed from it
     * is never late.
     */
    public static long nanosOf(final long symbols, final long dataBitsPerSecond)
    {
        if (dataBitsPerSecond <= 0 || symbols < 0 || symbols > Long.MAX_VALUE / (8 * NANOS_PER_SECOND))
        {
            throw new IllegalArgumentException("symbols " + symbols + " at " + dataBitsPerSecond + " b/s");
        }
        return symbols * 8 * NANOS_PER_SECOND / dataBitsPerSecond;
    }

    /**
     * @param label a rate's label ({@code 4x EDR}) or name ({@code EDR_4X}), case-insensitive.
     * @return the rate, or null if there is none of that name.
     */
    public static LineRate byLabel(final String label)
    {
        for (final LineRate rate : values())
        {
            if (rate.label.equalsIgnoreCase(label) || rate.name().equalsIgnoreCase(label))
            {
                return rate;
            }
        }
        return null;
    }
}
