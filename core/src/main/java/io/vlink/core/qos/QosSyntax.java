package io.vlink.core.qos;

/**
 * The value syntax of OpenSM's {@code qos_*} options (spec {@code qos-config.md}), shared by the file
 * reader and the builder so a value means the same thing whichever way it comes in. Every problem is
 * reported with its offset in the value text; nothing is folded into range the way OpenSM does.
 */
final class QosSyntax
{
    /** A number that did not parse. */
    static final long NOT_A_NUMBER = Long.MIN_VALUE;

    /**
     * Receives the problems found in one value.
     */
    interface Problems
    {
        /**
         * @param offset  where in the value text the offending part starts (0-based).
         * @param message what is wrong, naming the offending text, with a hint.
         */
        void error(int offset, String message);
    }

    private QosSyntax()
    {
    }

    /**
     * Parses a decimal (or {@code 0x} hexadecimal) integer with an optional minus sign.
     *
     * @param text the whole number, nothing around it.
     * @return the value, or {@link #NOT_A_NUMBER}.
     */
    static long number(final String text)
    {
        final int length = text.length();
        int i = 0;
        boolean negative = false;
        if (i < length && (text.charAt(i) == '-' || text.charAt(i) == '+'))
        {
            negative = text.charAt(i) == '-';
            i++;
        }
        int radix = 10;
        if (i + 1 < length && text.charAt(i) == '0' && (text.charAt(i + 1) == 'x' || text.charAt(i + 1) == 'X'))
        {
            radix = 16;
            i += 2;
        }
        if (i == length || length - i > 9)
        {
            return NOT_A_NUMBER;
        }
        long value = 0;
        for (; i < length; i++)
        {
            final int digit = Character.digit(text.charAt(i), radix);
            if (digit < 0)
            {
                return NOT_A_NUMBER;
            }
            value = value * radix + digit;
        }
        return negative ? -value : value;
    }

    /**
     * Parses a VLArbitration table: comma-separated {@code VL:weight}, whitespace allowed around
     * separators, VL 0..14, weight 0..255, at most 64 entries, one trailing comma tolerated.
     *
     * @param key           the option's key, named in messages.
     * @param text          the value.
     * @param problems      where problems go.
     * @param entryOffsets  if not null, receives each entry's offset in {@code text} (64 slots).
     * @return the table, or null when there was a problem.
     */
    static VlArbTable table(final String key, final String text, final Problems problems, final int[] entryOffsets)
    {
        final int[] vls = new int[VlArbTable.MAX_ENTRIES];
        final int[] weights = new int[VlArbTable.MAX_ENTRIES];
        int count = 0;
        boolean ok = true;
        int start = 0;
        final int length = text.length();
        while (start <= length)
        {
            int end = text.indexOf(',', start);
            final boolean last = end < 0;
            if (last)
            {
                end = length;
            }
            final int itemStart = skipSpace(text, start, end);
            final int itemEnd = trimEnd(text, itemStart, end);
            if (itemStart == itemEnd)
            {
                if (!(last && count > 0))
                {
                    problems.error(itemStart, key + ": empty entry at '" + excerpt(text, start) +
                        "': write comma-separated VL:weight entries, e.g. 0:4,1:64");
                    ok = false;
                }
            }
            else if (count == VlArbTable.MAX_ENTRIES)
            {
                problems.error(itemStart, key + ": more than " + VlArbTable.MAX_ENTRIES + " entries (entry 65 is '" +
                    text.substring(itemStart, itemEnd) + "'): a VLArbitration table holds at most 64");
                return null;
            }
            else
            {
                final String item = text.substring(itemStart, itemEnd);
                final int colon = item.indexOf(':');
                if (colon < 0)
                {
                    problems.error(itemStart, key + ": entry '" + item + "' has no ':': write each entry as VL:weight, " +
                        "e.g. 1:64");
                    ok = false;
                }
                else
                {
                    final int vlEnd = trimEnd(item, 0, colon);
                    final int weightStart = skipSpace(item, colon + 1, item.length());
                    final String vlText = item.substring(0, vlEnd);
                    final String weightText = item.substring(weightStart);
                    final long vl = number(vlText);
                    final long weight = number(weightText);
                    if (vl == NOT_A_NUMBER)
                    {
                        problems.error(itemStart, key + ": VL '" + vlText + "' in entry '" + item +
                            "' is not a number: write VL:weight with VL 0..14");
                        ok = false;
                    }
                    else if (vl < 0 || vl > VlArbTable.MAX_VL)
                    {
                        problems.error(itemStart, key + ": VL " + vlText + " in entry '" + item + "' is out of range: " +
                            "table VLs are 0..14 (VL15 carries subnet management and is never arbitrated by the tables)");
                        ok = false;
                    }
                    if (weight == NOT_A_NUMBER)
                    {
                        problems.error(itemStart + weightStart, key + ": weight '" + weightText + "' in entry '" + item +
                            "' is not a number: write VL:weight with weight 0..255 (64-byte blocks)");
                        ok = false;
                    }
                    else if (weight < 0 || weight > VlArbTable.MAX_WEIGHT)
                    {
                        problems.error(itemStart + weightStart, key + ": weight " + weightText + " in entry '" + item +
                            "' is out of range: weights are 0..255 (64-byte blocks; 0 disables the entry)");
                        ok = false;
                    }
                    if (ok)
                    {
                        vls[count] = (int)vl;
                        weights[count] = (int)weight;
                    }
                }
                if (entryOffsets != null)
                {
                    entryOffsets[count] = itemStart;
                }
                count++;
            }
            start = end + 1;
        }
        if (!ok)
        {
            return null;
        }
        if (count == 0)
        {
            problems.error(0, key + ": no entries: write comma-separated VL:weight entries, e.g. 0:4, " +
                "or (null) to leave it unset");
            return null;
        }
        return VlArbTable.copyOf(vls, weights, count);
    }

    /**
     * Parses an SL2VL list: comma-separated VLs 0..15 for SL0, SL1, ... (at most 16; one trailing comma
     * tolerated). A shorter list is returned as it is: the caller warns and maps the missing SLs to VL0.
     *
     * @param key           the option's key, named in messages.
     * @param text          the value.
     * @param problems      where problems go.
     * @param valueOffsets  if not null, receives each value's offset in {@code text} (16 slots).
     * @return the VLs given, or null when there was a problem.
     */
    static int[] sl2vl(final String key, final String text, final Problems problems, final int[] valueOffsets)
    {
        final int[] vls = new int[QosConfig.SL_COUNT];
        int count = 0;
        boolean ok = true;
        int start = 0;
        final int length = text.length();
        while (start <= length)
        {
            int end = text.indexOf(',', start);
            final boolean last = end < 0;
            if (last)
            {
                end = length;
            }
            final int itemStart = skipSpace(text, start, end);
            final int itemEnd = trimEnd(text, itemStart, end);
            if (itemStart == itemEnd)
            {
                if (!(last && count > 0))
                {
                    problems.error(itemStart, key + ": empty value at '" + excerpt(text, start) +
                        "': write comma-separated VLs for SL0, SL1, ..., e.g. 0,1,2,3");
                    ok = false;
                }
            }
            else if (count == QosConfig.SL_COUNT)
            {
                problems.error(itemStart, key + ": more than 16 values (the 17th is '" +
                    text.substring(itemStart, itemEnd) + "'): SL2VL maps the 16 SLs SL0..SL15");
                return null;
            }
            else
            {
                final String item = text.substring(itemStart, itemEnd);
                final long vl = number(item);
                if (vl == NOT_A_NUMBER)
                {
                    problems.error(itemStart, key + ": VL '" + item + "' for SL" + count +
                        " is not a number: write VLs 0..15 (15 drops the SL's packets)");
                    ok = false;
                }
                else if (vl < 0 || vl > 15)
                {
                    problems.error(itemStart, key + ": VL " + item + " for SL" + count +
                        " is out of range: VLs are 0..15 (15 drops the SL's packets)");
                    ok = false;
                }
                else
                {
                    vls[count] = (int)vl;
                }
                if (valueOffsets != null)
                {
                    valueOffsets[count] = itemStart;
                }
                count++;
            }
            start = end + 1;
        }
        if (!ok)
        {
            return null;
        }
        if (count == 0)
        {
            problems.error(0, key + ": no values: write comma-separated VLs for SL0..SL15, or (null) to leave it unset");
            return null;
        }
        final int[] result = new int[count];
        System.arraycopy(vls, 0, result, 0, count);
        return result;
    }

    static int skipSpace(final String text, final int from, final int to)
    {
        int i = from;
        while (i < to && Character.isWhitespace(text.charAt(i)))
        {
            i++;
        }
        return i;
    }

    static int trimEnd(final String text, final int from, final int to)
    {
        int i = to;
        while (i > from && Character.isWhitespace(text.charAt(i - 1)))
        {
            i--;
        }
        return i;
    }

    private static String excerpt(final String text, final int from)
    {
        final int end = Math.min(text.length(), from + 12);
        return text.substring(Math.max(0, from - 1), end);
    }
}
