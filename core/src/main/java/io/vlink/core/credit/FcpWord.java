package io.vlink.core.credit;

/**
 * The first four bytes of a flow-control packet as one {@code int} (spec {@code wire.md}, "Flow-control packet";
 * seed 001 Table 25-3), the form in which the credit layer builds and applies FCPs:
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+-----------------------+-------+-----------------------+
 *  |  Op   |         FCTBS         |  VL   |         FCCL          |
 *  +-------+-----------------------+-------+-----------------------+
 * </pre>
 * {@code word = op << 28 | fctbs << 16 | vl << 12 | fccl}, big-endian on the wire. The 8-byte packet with its
 * LPCRC is the wire codec's business ({@code io.vlink.core.wire.Fcp} uses the same packing).
 */
public final class FcpWord
{
    /** Op 0: a normal FCP, sent in Armed and Active. */
    public static final int OP_NORMAL = 0;
    /** Op 1: a flow-control initialization packet, sent in Initialize. */
    public static final int OP_INIT = 1;

    /** {@link #validate(int, int)} result for a word the credit layer may apply. */
    public static final int VALID = -1;

    public static final int OP_SHIFT = 28;
    public static final int FCTBS_SHIFT = 16;
    public static final int VL_SHIFT = 12;
    /** VL15 carries no credits: an FCP for it is discarded. */
    public static final int VL15 = 15;

    private FcpWord()
    {
    }

    /**
     * @param op    0 normal, 1 initialization.
     * @param fctbs the sender's transmitter FCTBS for the VL (12 bits).
     * @param vl    the data VL.
     * @param fccl  the sender's receiver FCCL for the VL (12 bits).
     * @return the packed word.
     */
    public static int pack(final int op, final int fctbs, final int vl, final int fccl)
    {
        return op << OP_SHIFT | (fctbs & Credits.MASK) << FCTBS_SHIFT | (vl & 0xF) << VL_SHIFT | fccl & Credits.MASK;
    }

    public static int op(final int word)
    {
        return word >>> OP_SHIFT;
    }

    public static int fctbs(final int word)
    {
        return (word >>> FCTBS_SHIFT) & Credits.MASK;
    }

    public static int vl(final int word)
    {
        return (word >>> VL_SHIFT) & 0xF;
    }

    public static int fccl(final int word)
    {
        return word & Credits.MASK;
    }

    /**
     * What only the credit layer can check about an FCP whose LPCRC was good (spec {@code wire.md}): its Op is
     * defined and it names a data VL this port has.
     *
     * @param word    the FCP's first four bytes.
     * @param dataVls the port's data VLs (1, 2, 4, 8 or 15).
     * @return {@link #VALID}, or the {@link DiscardReason#id()} to count.
     */
    public static int validate(final int word, final int dataVls)
    {
        final int op = op(word);
        if (op != OP_NORMAL && op != OP_INIT)
        {
            return DiscardReason.FCP_RESERVED_OP.id();
        }
        final int vl = vl(word);
        if (vl == VL15)
        {
            return DiscardReason.FCP_VL15.id();
        }
        if (vl >= dataVls)
        {
            return DiscardReason.FCP_MISSING_VL.id();
        }
        return VALID;
    }

    /**
     * @param word the FCP's first four bytes.
     * @return a readable form, e.g. {@code op=0 fctbs=291 vl=3 fccl=1110} (allocates: diagnostics only).
     */
    public static String toString(final int word)
    {
        return "op=" + op(word) + " fctbs=" + fctbs(word) + " vl=" + vl(word) + " fccl=" + fccl(word);
    }
}
