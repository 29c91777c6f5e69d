package io.vlink.core.qos;

/**
 * How OpenSM 3.3.23 reads the values of its {@code qos_*} options and what it programs from them (osm_qos.c,
 * osm_subnet.c), quirks included; {@link QosReader} compares it with what the file says and reports each difference.
 * <ul>
 *     <li>Numbers are C's {@code strtoul}/{@code strtol} with base 0: leading whitespace skipped, {@code 0x} is hex, a
 *     leading {@code 0} is octal ({@code 010} is 8, {@code 08} is 0 followed by the text {@code 8}), a minus sign
 *     wraps around, no digits reads 0.</li>
 *     <li>A VLArbitration table is read as 64 entries, each a number, one character skipped whatever it is, a number,
 *     one character skipped: {@code 0 :8} is therefore VL 0, weight 0 (the {@code :} is not a number), and every later
 *     entry shifts. A VL is taken modulo 15, a weight modulo 256; entries past the text are 0:0.</li>
 *     <li>An SL2VL list is read as 16 numbers the same way, each kept modulo 16; SLs past the text map to VL0.</li>
 *     <li>Each programmed VL is masked to the port's operational VLs ({@code vl & (2^(code-1) - 1)}, code the
 *     OperationalVLs code), VL15 in an SL2VL table aside. A VLArbitration table is programmed as the port's capacity
 *     holds it: the first 32 entries (or fewer), and above 32 the next {@code cap % 32} of the second block, the rest
 *     of that block 0:0 (so a 64-entry port gets 0:0 for entries 32-63).</li>
 * </ul>
 */
final class OpenSmQos
{
    /** OpenSM parses 64 VLArbitration entries from every table option. */
    static final int TABLE_ENTRIES = 64;
    /** Entries in one VLArbitration block. */
    private static final int BLOCK = 32;
    /** The longest line OpenSM reads at once ({@code fgets(line, 1023, ...)}): the rest is read as another line. */
    static final int MAX_LINE = 1022;

    private OpenSmQos()
    {
    }

    /** A value as C's base-0 conversions read it: the number and where reading stopped. */
    static final class Read
    {
        long value;
        int end;
    }

    /**
     * C's {@code strtoul(text + from, &end, 0)}.
     *
     * @param text the value.
     * @param from where to start.
     * @param read receives the value (an unsigned long in a Java long) and the end (from, when no digits).
     * @return {@code read}.
     */
    static Read strtoul(final String text, final int from, final Read read)
    {
        return convert(text, from, read, false);
    }

    /**
     * C's {@code strtol(text, NULL, 0)} on a 64-bit machine, saturating at the limits.
     *
     * @param text the value.
     * @return the number.
     */
    static long strtol(final String text)
    {
        return convert(text, 0, new Read(), true).value;
    }

    private static Read convert(final String text, final int from, final Read read, final boolean signed)
    {
        int i = from;
        final int length = text.length();
        while (i < length && isSpace(text.charAt(i)))
        {
            i++;
        }
        boolean negative = false;
        if (i < length && (text.charAt(i) == '+' || text.charAt(i) == '-'))
        {
            negative = text.charAt(i) == '-';
            i++;
        }
        int radix = 10;
        if (i < length && text.charAt(i) == '0')
        {
            if (i + 2 < length && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X') &&
                digit(text.charAt(i + 2), 16) >= 0)
            {
                radix = 16;
                i += 2;
            }
            else
            {
                radix = 8;
            }
        }
        final int digitsStart = i;
        long value = 0;
        boolean overflow = false;
        while (i < length)
        {
            final int digit = digit(text.charAt(i), radix);
            if (digit < 0)
            {
                break;
            }
            if (!overflow)
            {
                final long limit = Long.divideUnsigned(-1L - digit, radix);
                if (Long.compareUnsigned(value, limit) > 0)
                {
                    overflow = true;
                }
                else
                {
                    value = value * radix + digit;
                }
            }
            i++;
        }
        if (i == digitsStart)
        {
            read.value = 0;
            read.end = from;
            return read;
        }
        read.end = i;
        if (signed)
        {
            if (overflow || value < 0)
            {
                read.value = negative ? Long.MIN_VALUE : Long.MAX_VALUE;
            }
            else
            {
                read.value = negative ? -value : value;
            }
        }
        else
        {
            read.value = overflow ? -1L : negative ? -value : value;
        }
        return read;
    }

    private static int digit(final char c, final int radix)
    {
        final int d = c < 128 ? Character.digit(c, 16) : -1;
        return d >= 0 && d < radix ? d : -1;
    }

    private static boolean isSpace(final char c)
    {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
    }

    /**
     * OpenSM's {@code parse_one_unsigned}: a number, then one character skipped.
     *
     * @return the position after.
     */
    private static int one(final String text, final int from, final Read read)
    {
        strtoul(text, from, read);
        return read.end < text.length() ? read.end + 1 : read.end;
    }

    /**
     * OpenSM's {@code qos_build_config} reading of one VLArbitration option.
     *
     * @param text    the option's value, as OpenSM stores it.
     * @param vls     receives 64 VLs (modulo 15).
     * @param weights receives 64 weights (modulo 256).
     * @param starts  receives where in the text each entry's reading began.
     */
    static void table(final String text, final int[] vls, final int[] weights, final int[] starts)
    {
        final Read read = new Read();
        int p = 0;
        for (int i = 0; i < TABLE_ENTRIES; i++)
        {
            starts[i] = p;
            p = one(text, p, read);
            vls[i] = (int)Long.remainderUnsigned(read.value, 15);
            p = one(text, p, read);
            weights[i] = (int)(read.value & 0xFF);
        }
    }

    /**
     * OpenSM's reading of an SL2VL option: 16 VLs, each modulo 16.
     *
     * @param text   the option's value, as OpenSM stores it.
     * @param vls    receives 16 VLs.
     * @param starts receives where in the text each value's reading began.
     */
    static void sl2vl(final String text, final int[] vls, final int[] starts)
    {
        final Read read = new Read();
        int p = 0;
        for (int sl = 0; sl < QosConfig.SL_COUNT; sl++)
        {
            starts[sl] = p;
            p = one(text, p, read);
            vls[sl] = (int)(read.value & 0xF);
        }
    }

    /**
     * @param operationalVls 1, 2, 4, 8 or 15.
     * @return OpenSM's VL mask for a port with those operational VLs.
     */
    static int mask(final int operationalVls)
    {
        return (1 << (QosPort.code(operationalVls) - 1)) - 1;
    }

    /**
     * @param cap a port's table capacity, 1..64.
     * @param i   an entry index below the capacity.
     * @return whether OpenSM writes entry i of the parsed table there (else it writes 0:0).
     */
    static boolean programs(final int cap, final int i)
    {
        return i < Math.min(cap, BLOCK) || (cap > BLOCK && i < BLOCK + cap % BLOCK);
    }

    /**
     * @param vls     the parsed VLs.
     * @param weights the parsed weights.
     * @param cap     the port's capacity for this table.
     * @param mask    {@link #mask(int)}.
     * @return the table OpenSM programs: {@code cap} entries.
     */
    static VlArbTable program(final int[] vls, final int[] weights, final int cap, final int mask)
    {
        final int[] v = new int[cap];
        final int[] w = new int[cap];
        for (int i = 0; i < cap; i++)
        {
            if (programs(cap, i))
            {
                v[i] = vls[i] & mask;
                w[i] = weights[i];
            }
        }
        return VlArbTable.copyOf(v, w, cap);
    }

    /**
     * @param vl   a parsed SL2VL value, 0..15.
     * @param mask {@link #mask(int)}.
     * @return what OpenSM programs: VL15 as it is, any other VL masked.
     */
    static int programSl2Vl(final int vl, final int mask)
    {
        return vl == 15 ? 15 : vl & mask;
    }

    /**
     * OpenSM's {@code clean_val}: surrounding whitespace removed, then one pair of matching quotes (double or single).
     *
     * @param text the rest of the line after the key.
     * @return the value OpenSM stores.
     */
    static String clean(final String text)
    {
        int start = 0;
        int end = text.length();
        while (start < end && isSpace(text.charAt(start)))
        {
            start++;
        }
        while (end > start + 1 && isSpace(text.charAt(end - 1)))
        {
            end--;
        }
        if (end > start && (text.charAt(start) == '"' && text.charAt(end - 1) == '"' ||
            text.charAt(start) == '\'' && text.charAt(end - 1) == '\''))
        {
            start++;
            end = Math.max(start, end - 1);
        }
        return text.substring(start, end);
    }
}
