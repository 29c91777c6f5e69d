package io.vlink.core.wire;

import io.vlink.core.crc.Crc16;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import static java.nio.ByteOrder.BIG_ENDIAN;
import static java.nio.ByteOrder.LITTLE_ENDIAN;

/**
 * Codec of the 8-byte link-level flow-control packet (docs/wire.md, "Flow-control packet"; IBA flow control,
 * Table 25-3).
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +-------+-----------------------+-------+-----------------------+
 *  |  Op   |     FCTBS (12)        |  VL   |      FCCL (12)        |
 *  +-------+-------+---------------+-------+-----------------------+
 *  | LPCRC (low byte first)        |       reserved (0)            |
 *  +-------------------------------+-------------------------------+
 * </pre>
 * The credit layer holds an FCP as one packed {@code int} word, its first four bytes read big-endian:
 * {@code op << 28 | fctbs << 16 | vl << 12 | fccl}. The static helpers build and split words; {@link #encode}
 * writes one with its LPCRC; {@link #decode} checks one and returns the word together with a verdict in a
 * {@code long}, so receiving an FCP neither allocates nor throws. Whether the VL is a data VL of the port is the
 * credit layer's decision: the codec only exposes it.
 */
public final class Fcp
{
    public static final int WORD_OFFSET = 0;
    public static final int LPCRC_OFFSET = WORD_OFFSET + 4;
    public static final int RESERVED_OFFSET = LPCRC_OFFSET + 2;
    public static final int LENGTH = RESERVED_OFFSET + 2;

    /** Op 0: a normal FCP (LinkArm, LinkActive). */
    public static final int OP_NORMAL = 0;
    /** Op 1: a flow-control initialization FCP (LinkInitialize). */
    public static final int OP_INIT = 1;

    /** The FCP is well formed: LPCRC matches, Op is 0 or 1. */
    public static final int OK = 0;
    /** Fewer than 8 bytes were received. */
    public static final int TOO_SHORT = 1;
    /** The LPCRC does not match bytes 0-3: discard. */
    public static final int BAD_LPCRC = 2;
    /** The Op is neither 0 nor 1: discard (IBA flow control: "Any packet received with a reserved operand ... discarded"). */
    public static final int RESERVED_OP = 3;

    /** 12-bit FCTBS and FCCL fields (and their counters) roll over at 4096. */
    public static final int MASK_12 = 0xFFF;

    private Fcp()
    {
    }

    /**
     * @param op    0 normal, 1 init (4 bits).
     * @param fctbs flow control total blocks sent (12 bits).
     * @param vl    the data VL (4 bits).
     * @param fccl  flow control credit limit (12 bits).
     * @return the packed word {@code op << 28 | fctbs << 16 | vl << 12 | fccl}; each field is masked to its width.
     */
    public static int word(final int op, final int fctbs, final int vl, final int fccl)
    {
        return (op & 0xF) << 28 | (fctbs & MASK_12) << 16 | (vl & 0xF) << 12 | (fccl & MASK_12);
    }

    public static int op(final int word)
    {
        return word >>> 28;
    }

    public static int fctbs(final int word)
    {
        return (word >>> 16) & MASK_12;
    }

    public static int vl(final int word)
    {
        return (word >>> 12) & 0xF;
    }

    public static int fccl(final int word)
    {
        return word & MASK_12;
    }

    /**
     * Writes an FCP: the word big-endian in bytes 0-3, its LPCRC low byte first in bytes 4-5, zeros in 6-7.
     *
     * @param buffer to write into.
     * @param offset of the first byte.
     * @param word   the packed fields ({@link #word(int, int, int, int)}).
     * @return {@link #LENGTH}, the bytes written.
     */
    public static int encode(final MutableDirectBuffer buffer, final int offset, final int word)
    {
        // one big-endian store: the word in bytes 0-3; the LPCRC byte-reversed lands low byte first in bytes 4-5,
        // and zeros in the reserved bytes 6-7
        final long lpcrc = Integer.reverseBytes(Crc16.ofWord(word)) & 0xFFFF_FFFFL;
        buffer.putLong(offset + WORD_OFFSET, (long)word << 32 | lpcrc, BIG_ENDIAN);
        return LENGTH;
    }

    /**
     * Checks a received FCP: its length, its LPCRC, then its Op (a damaged Op is reported as a bad LPCRC). The
     * reserved bytes 6-7 are ignored, as the spec says.
     *
     * @param buffer holding the FCP.
     * @param offset of its first byte.
     * @param length bytes received.
     * @return {@code (long)verdict << 32 | word}: split it with {@link #verdict(long)} and {@link #word(long)}. The
     * word is valid whenever at least 4 bytes were received, so a decoder can show a bad FCP's fields.
     */
    public static long decode(final DirectBuffer buffer, final int offset, final int length)
    {
        if (length < LENGTH)
        {
            final int word = length >= 4 ? buffer.getInt(offset + WORD_OFFSET, BIG_ENDIAN) : 0;
            return result(TOO_SHORT, word);
        }
        // one load for the whole FCP: the word is the high half, the LPCRC the byte-reversed low half's low 16 bits
        final long bytes = buffer.getLong(offset + WORD_OFFSET, BIG_ENDIAN);
        final int word = (int)(bytes >>> 32);
        final int lpcrc = Integer.reverseBytes((int)bytes) & 0xFFFF;
        final int verdict = lpcrc != Crc16.ofWord(word) ? BAD_LPCRC : (word >>> 29) != 0 ? RESERVED_OP : OK;
        return result(verdict, word);
    }

    /**
     * @param result of {@link #decode(DirectBuffer, int, int)}.
     * @return {@link #OK}, {@link #TOO_SHORT}, {@link #BAD_LPCRC} or {@link #RESERVED_OP}.
     */
    public static int verdict(final long result)
    {
        return (int)(result >>> 32);
    }

    /**
     * @param result of {@link #decode(DirectBuffer, int, int)}.
     * @return the packed word.
     */
    public static int word(final long result)
    {
        return (int)result;
    }

    /**
     * @param buffer holding an FCP.
     * @param offset of its first byte.
     * @return the LPCRC carried in bytes 4-5.
     */
    public static int lpcrc(final DirectBuffer buffer, final int offset)
    {
        return buffer.getShort(offset + LPCRC_OFFSET, LITTLE_ENDIAN) & 0xFFFF;
    }

    /**
     * @param verdict a verdict code.
     * @return its name, for logs and tools.
     */
    public static String verdictName(final int verdict)
    {
        switch (verdict)
        {
            case OK:
                return "ok";
            case TOO_SHORT:
                return "too short";
            case BAD_LPCRC:
                return "bad LPCRC";
            case RESERVED_OP:
                return "reserved op";
            default:
                return "verdict " + verdict;
        }
    }

    /**
     * @param word a packed FCP word.
     * @return the fields as text, for logs.
     */
    public static String toString(final int word)
    {
        return "FCP{op=" + op(word) + " fctbs=" + fctbs(word) + " vl=" + vl(word) + " fccl=" + fccl(word) + "}";
    }

    private static long result(final int verdict, final int word)
    {
        return (long)verdict << 32 | (word & 0xFFFF_FFFFL);
    }
}
