package io.vlink.core.credit;

import io.vlink.core.wire.Fcp;
import io.vlink.core.wire.LrhFlyweight;

/**
 * What only the credit layer can check about a received FCP, and how the wire codec's verdicts map to
 * {@link DiscardReason}s. The FCP word itself ({@code op << 28 | fctbs << 16 | vl << 12 | fccl}) and its bytes
 * with the LPCRC are {@link Fcp}'s.
 */
public final class FcpCheck
{
    /** {@link #validate(int, int)} result for a word the credit layer may apply. */
    public static final int VALID = -1;
    /** VL15 carries no credits: an FCP for it is discarded. */
    public static final int VL15 = LrhFlyweight.VL15;

    private FcpCheck()
    {
    }

    /**
     * Checks an FCP whose LPCRC was good (docs/wire.md): its Op is defined and it names a data VL this port
     * has.
     *
     * @param word    the FCP's first four bytes.
     * @param dataVls the port's data VLs (1, 2, 4, 8 or 15).
     * @return {@link #VALID}, or the {@link DiscardReason#id()} to count.
     */
    public static int validate(final int word, final int dataVls)
    {
        final int op = Fcp.op(word);
        if (op != Fcp.OP_NORMAL && op != Fcp.OP_INIT)
        {
            return DiscardReason.FCP_RESERVED_OP.id();
        }
        final int vl = Fcp.vl(word);
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
     * @param verdict a verdict of {@link Fcp#decode}: {@link Fcp#TOO_SHORT}, {@link Fcp#BAD_LPCRC} or
     *                {@link Fcp#RESERVED_OP}.
     * @return the reason to count the discard under.
     */
    public static DiscardReason discardReason(final int verdict)
    {
        switch (verdict)
        {
            case Fcp.TOO_SHORT:
                return DiscardReason.FCP_TOO_SHORT;
            case Fcp.RESERVED_OP:
                return DiscardReason.FCP_RESERVED_OP;
            default:
                return DiscardReason.FCP_BAD_LPCRC;
        }
    }

    /**
     * A link frame as it came off the wire, before the credit layer sees its word.
     *
     * @param decoded what {@link Fcp#decode} returned for it.
     * @param length  the frame's length.
     * @return {@link #VALID}, or the {@link DiscardReason#id()} of a malformed frame: longer than an FCP's 8 bytes
     * (whatever its first 8), or refused by {@link Fcp#decode}.
     */
    public static int malformed(final long decoded, final int length)
    {
        if (length > Fcp.LENGTH)
        {
            return DiscardReason.FCP_TOO_LONG.id();
        }
        final int verdict = Fcp.verdict(decoded);
        return Fcp.OK == verdict ? VALID : discardReason(verdict).id();
    }

    /**
     * @param malformed a reason {@link #malformed} returned.
     * @return whether it shows damage on the way (a bad LPCRC, a wrong length), which a link with retry asks for
     * again, rather than what the peer sent on purpose (a reserved Op).
     */
    public static boolean isDamage(final int malformed)
    {
        return DiscardReason.FCP_RESERVED_OP.id() != malformed;
    }
}
