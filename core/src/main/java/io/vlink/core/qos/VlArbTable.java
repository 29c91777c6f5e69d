package io.vlink.core.qos;

import java.util.Arrays;

/**
 * One VLArbitration table (high or low): 1..64 entries of {@code VL:weight}, VL 0..14, weight 0..255 in
 * 64-byte blocks (IBA VL arbitration, "The Arbitration Elements"; OpenSM's manual). Immutable. A table read from an
 * {@code opensm.conf} holds what OpenSM programs on the port ({@link QosReader}: the port's capacity of entries, VLs
 * masked to its operational VLs); one built from code holds what it was given. An entry with weight 0 or for a VL the
 * port lacks stays in the table (the arbiter skips it, docs/arbitration.md).
 */
public final class VlArbTable
{
    /** A table holds at most 64 entries. */
    public static final int MAX_ENTRIES = 64;
    /** The largest VL a table entry may name (VL15 is never arbitrated by the tables). */
    public static final int MAX_VL = 14;
    /** Weights are 8 bits. */
    public static final int MAX_WEIGHT = 255;

    private final byte[] vls;
    private final byte[] weights;

    private VlArbTable(final byte[] vls, final byte[] weights)
    {
        this.vls = vls;
        this.weights = weights;
    }

    static VlArbTable copyOf(final int[] vls, final int[] weights, final int count)
    {
        final byte[] v = new byte[count];
        final byte[] w = new byte[count];
        for (int i = 0; i < count; i++)
        {
            v[i] = (byte)vls[i];
            w[i] = (byte)weights[i];
        }
        return new VlArbTable(v, w);
    }

    /**
     * @param text OpenSM's form, e.g. {@code 0:0,1:64,2:128}.
     * @return the table.
     * @throws IllegalArgumentException naming the offending entry when the text is not a valid table.
     */
    public static VlArbTable parse(final String text)
    {
        return QosSyntax.table("table", text, QosConfig::refuse, null);
    }

    /**
     * @param vlWeightPairs {@code vl, weight, vl, weight, ...}.
     * @return the table.
     * @throws IllegalArgumentException when a VL or weight is out of range or there are not 1..64 pairs.
     */
    public static VlArbTable of(final int... vlWeightPairs)
    {
        if ((vlWeightPairs.length & 1) != 0 || vlWeightPairs.length == 0 ||
            vlWeightPairs.length > 2 * MAX_ENTRIES)
        {
            throw new IllegalArgumentException("a table is 1..64 (vl, weight) pairs, got " + vlWeightPairs.length +
                " numbers");
        }
        final int count = vlWeightPairs.length / 2;
        final int[] v = new int[count];
        final int[] w = new int[count];
        for (int i = 0; i < count; i++)
        {
            v[i] = vlWeightPairs[2 * i];
            w[i] = vlWeightPairs[2 * i + 1];
            if (v[i] < 0 || v[i] > MAX_VL)
            {
                throw new IllegalArgumentException("entry " + i + ": VL " + v[i] + " is out of range 0..14");
            }
            if (w[i] < 0 || w[i] > MAX_WEIGHT)
            {
                throw new IllegalArgumentException("entry " + i + ": weight " + w[i] + " is out of range 0..255");
            }
        }
        return copyOf(v, w, count);
    }

    /**
     * @return the number of entries as configured (1..64).
     */
    public int size()
    {
        return vls.length;
    }

    /**
     * @param index entry index.
     * @return the entry's VL (0..14).
     */
    public int vl(final int index)
    {
        return vls[index];
    }

    /**
     * @param index entry index.
     * @return the entry's weight in 64-byte blocks (0..255).
     */
    public int weight(final int index)
    {
        return weights[index] & 0xFF;
    }

    /**
     * @param dataVls the port's data VLs.
     * @return whether any entry is valid on such a port: weight non-zero and VL below {@code dataVls}.
     */
    public boolean hasValidEntry(final int dataVls)
    {
        for (int i = 0; i < vls.length; i++)
        {
            if (isValid(i, dataVls))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * An entry is valid when its weight is non-zero, its VL is below {@code data_vls} and it is not 15
     * (docs/arbitration.md); invalid entries are skipped.
     *
     * @param index   entry index.
     * @param dataVls the port's data VLs.
     * @return whether the arbiter uses this entry.
     */
    public boolean isValid(final int index, final int dataVls)
    {
        final int vl = vls[index];
        return weights[index] != 0 && vl < dataVls && vl != 15;
    }

    /**
     * @return OpenSM's form: {@code vl:weight,vl:weight,...}.
     */
    @Override
    public String toString()
    {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < vls.length; i++)
        {
            if (i > 0)
            {
                sb.append(',');
            }
            sb.append(vl(i)).append(':').append(weight(i));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof VlArbTable && Arrays.equals(vls, ((VlArbTable)o).vls) &&
            Arrays.equals(weights, ((VlArbTable)o).weights);
    }

    @Override
    public int hashCode()
    {
        return 31 * Arrays.hashCode(vls) + Arrays.hashCode(weights);
    }
}
