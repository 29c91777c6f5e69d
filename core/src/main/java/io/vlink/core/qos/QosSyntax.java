package io.vlink.core.qos;

import io.vlink.core.config.Diagnostic;

/**
 * The value syntax of OpenSM's {@code qos_*} options (docs/qos.md), shared by the file
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
        if (i == length)
        {
            return NOT_A_NUMBER;
        }
        // every digit counts, however many: a number too large for a long is out of range, not "not a number"
        long value = 0;
        for (; i < length; i++)
        {
            final int digit = Character.digit(text.charAt(i), radix);
            if (digit < 0)
            {
                return NOT_A_NUMBER;
            }
            value = value > (Long.MAX_VALUE - digit) / radix ? Long.MAX_VALUE : value * radix + digit;
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
        final int count = split(key, text, problems, VlArbTable.MAX_ENTRIES, "entry", "entries",
            "comma-separated VL:weight entries, e.g. 0:4,1:64", entryOffsets, (index, item, offset) ->
            {
                final int colon = item.indexOf(':');
                final String quoted = Diagnostic.excerpt(item);
                if (colon < 0)
                {
                    problems.error(offset, key + ": entry '" + quoted + "' has no ':': write each entry as VL:weight, " +
                        "e.g. 1:64");
                    return false;
                }
                final int vlEnd = trimEnd(item, 0, colon);
                final int weightStart = skipSpace(item, colon + 1, item.length());
                final String vlText = item.substring(0, vlEnd);
                final String weightText = item.substring(weightStart);
                final long vl = number(vlText);
                final long weight = number(weightText);
                boolean ok = true;
                if (vl == NOT_A_NUMBER)
                {
                    problems.error(offset, key + ": VL '" + Diagnostic.excerpt(vlText) + "' in entry '" +
                        quoted + "' is not a number: write VL:weight with VL 0..14");
                    ok = false;
                }
                else if (vl < 0 || vl > VlArbTable.MAX_VL)
                {
                    problems.error(offset, key + ": VL " + Diagnostic.excerpt(vlText) + " in entry '" + quoted + "' is out of range: " +
                        "table VLs are 0..14 (VL15 carries subnet management and is never arbitrated by the tables)");
                    ok = false;
                }
                if (weight == NOT_A_NUMBER)
                {
                    problems.error(offset + weightStart, key + ": weight '" + Diagnostic.excerpt(weightText) +
                        "' in entry '" + quoted + "' is not a number: write VL:weight with weight 0..255 (64-byte blocks)");
                    ok = false;
                }
                else if (weight < 0 || weight > VlArbTable.MAX_WEIGHT)
                {
                    problems.error(offset + weightStart, key + ": weight " + Diagnostic.excerpt(weightText) + " in entry '" + quoted +
                        "' is out of range: weights are 0..255 (64-byte blocks; 0 disables the entry)");
                    ok = false;
                }
                vls[index] = (int)vl;
                weights[index] = (int)weight;
                return ok;
            });
        return count < 0 ? null : VlArbTable.copyOf(vls, weights, count);
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
        final int count = split(key, text, problems, QosConfig.SL_COUNT, "value", "values",
            "comma-separated VLs for SL0, SL1, ..., e.g. 0,1,2,3", valueOffsets, (index, item, offset) ->
            {
                final long vl = number(item);
                if (vl == NOT_A_NUMBER)
                {
                    problems.error(offset, key + ": VL '" + Diagnostic.excerpt(item) + "' for SL" + index +
                        " is not a number: write VLs 0..15 (15 drops the SL's packets)");
                    return false;
                }
                if (vl < 0 || vl > 15)
                {
                    problems.error(offset, key + ": VL " + Diagnostic.excerpt(item) + " for SL" + index +
                        " is out of range: VLs are 0..15 (15 drops the SL's packets)");
                    return false;
                }
                vls[index] = (int)vl;
                return true;
            });
        if (count < 0)
        {
            return null;
        }
        final int[] result = new int[count];
        System.arraycopy(vls, 0, result, 0, count);
        return result;
    }

    /**
     * Parses one item of a list.
     */
    private interface ItemParser
    {
        /**
         * @param index  the item's index in the list.
         * @param item   the item, trimmed.
         * @param offset where the item starts in the value.
         * @return whether it was valid.
         */
        boolean parse(int index, String item, int offset);
    }

    /**
     * Splits a comma-separated list (whitespace around separators allowed, one trailing comma tolerated) and
     * hands each item to the parser.
     *
     * @return the number of items, or -1 when there was a problem.
     */
    private static int split(
        final String key,
        final String text,
        final Problems problems,
        final int max,
        final String noun,
        final String nouns,
        final String hint,
        final int[] offsets,
        final ItemParser parser)
    {
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
                    problems.error(itemStart, key + ": empty " + noun + " at '" + excerpt(text, start) + "': write " +
                        hint);
                    ok = false;
                }
            }
            else if (count == max)
            {
                problems.error(itemStart, key + ": more than " + max + " " + nouns + " (" + noun + " " + (max + 1) +
                    " is '" + Diagnostic.excerpt(text.substring(itemStart, itemEnd)) + "'): " + (max == QosConfig.SL_COUNT ?
                    "SL2VL maps the 16 SLs SL0..SL15" : "a VLArbitration table holds at most " + max));
                return -1;
            }
            else
            {
                ok &= parser.parse(count, text.substring(itemStart, itemEnd), itemStart);
                if (offsets != null)
                {
                    offsets[count] = itemStart;
                }
                count++;
            }
            start = end + 1;
        }
        if (!ok)
        {
            return -1;
        }
        if (count == 0)
        {
            problems.error(0, key + ": no " + nouns + ": write " + hint + ", or (null) to leave it unset");
            return -1;
        }
        return count;
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
