package io.vlink.core.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Structure-aware mutations of valid inputs, driven by a seeded {@link Random} so that a failing case is named by
 * its seed. Bytes: bit flips, truncations, splices, duplicated and removed chunks, interesting values (0, -1,
 * the largest lengths) written over 1, 2 or 4 bytes, length fields that lie. Text: duplicated, removed and
 * swapped lines, random or huge tokens in valid lines, unicode, NUL bytes, CRLF and lone CR, very long lines.
 */
public final class Mutator
{
    private static final int[] INTERESTING_32 = {
        0, 1, -1, 0x7F, 0x80, 0xFF, 0x100, 0x7FFF, 0x8000, 0xFFFF, 0x10000, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFF0};
    private static final String[] TOKENS = {
        "", "0", "-1", "1", "15", "16", "255", "256", "4096", "8188", "8192", "65535", "2147483647", "2147483648",
        "4294967296", "9223372036854775807", "9223372036854775808", "99999999999999999999999999999", "-0", "+1",
        "0x", "0x10", "0xFFFFFFFFFFFFFFFFFF", "1e9", "NaN", "(null)", "\"", "\"\"", "#", ":", ",", ",,", "0:", ":0",
        "0:4,,1:4", "=", "key=value", "before", "before 0", "\u0000", "\t", "\u00e9", "\u4e2d\u6587", "\ud83d\ude00",
        "\ud800", "\u0660", "\uff11", "\u200b", "\r", "qos_", "qos_ca_", "qos-ulps", "end-qos-ulps", "port-groups",
        "max_op_vls", "qos_vlarb_low", "packets", "grants", "slat", "qp", "message"};

    private final Random random;

    public Mutator(final long seed)
    {
        this.random = new Random(seed);
    }

    public Random random()
    {
        return random;
    }

    /**
     * @param original a valid input (not modified).
     * @param rounds   how many mutations to stack.
     * @return a mutated copy.
     */
    public byte[] mutate(final byte[] original, final int rounds)
    {
        byte[] bytes = original.clone();
        for (int i = 0; i < rounds; i++)
        {
            bytes = mutateOnce(bytes);
        }
        return bytes;
    }

    private byte[] mutateOnce(final byte[] bytes)
    {
        final int n = bytes.length;
        switch (random.nextInt(9))
        {
            case 0:
                if (n > 0)
                {
                    final int bit = random.nextInt(n * 8);
                    bytes[bit >>> 3] ^= (byte)(1 << (bit & 7));
                }
                return bytes;
            case 1:
                return Arrays.copyOf(bytes, n == 0 ? 0 : random.nextInt(n));
            case 2:
                if (n > 0)
                {
                    bytes[random.nextInt(n)] = (byte)random.nextInt(256);
                }
                return bytes;
            case 3:
            {
                // a 1-, 2- or 4-byte field set to an interesting value, either byte order: a length that lies
                final int width = 1 << random.nextInt(3);
                if (n >= width)
                {
                    final int at = random.nextInt(n - width + 1);
                    final int value = INTERESTING_32[random.nextInt(INTERESTING_32.length)];
                    final boolean bigEndian = random.nextBoolean();
                    for (int i = 0; i < width; i++)
                    {
                        final int shift = 8 * (bigEndian ? width - 1 - i : i);
                        bytes[at + i] = (byte)(value >>> shift);
                    }
                }
                return bytes;
            }
            case 4:
            {
                // splice: a chunk of the input copied over another place
                if (n > 1)
                {
                    final int from = random.nextInt(n);
                    final int to = random.nextInt(n);
                    final int length = random.nextInt(Math.min(n - from, n - to)) + 1;
                    System.arraycopy(bytes.clone(), from, bytes, to, length);
                }
                return bytes;
            }
            case 5:
            {
                // a chunk duplicated in place
                if (n > 0)
                {
                    final int from = random.nextInt(n);
                    final int length = 1 + random.nextInt(Math.min(n - from, 64));
                    final byte[] out = new byte[n + length];
                    System.arraycopy(bytes, 0, out, 0, from + length);
                    System.arraycopy(bytes, from, out, from + length, n - from);
                    return out;
                }
                return bytes;
            }
            case 6:
            {
                // a chunk removed
                if (n > 0)
                {
                    final int from = random.nextInt(n);
                    final int length = 1 + random.nextInt(Math.min(n - from, 64));
                    final byte[] out = new byte[n - length];
                    System.arraycopy(bytes, 0, out, 0, from);
                    System.arraycopy(bytes, from + length, out, from, n - from - length);
                    return out;
                }
                return bytes;
            }
            case 7:
            {
                // random bytes inserted
                final int at = n == 0 ? 0 : random.nextInt(n + 1);
                final byte[] insert = new byte[1 + random.nextInt(16)];
                random.nextBytes(insert);
                final byte[] out = new byte[n + insert.length];
                System.arraycopy(bytes, 0, out, 0, at);
                System.arraycopy(insert, 0, out, at, insert.length);
                System.arraycopy(bytes, at, out, at + insert.length, n - at);
                return out;
            }
            default:
                if (n > 0)
                {
                    bytes[random.nextInt(n)] = random.nextBoolean() ? 0 : (byte)0xFF;
                }
                return bytes;
        }
    }

    /**
     * @param lines  a valid file's lines (not modified).
     * @param rounds how many mutations to stack.
     * @return mutated lines.
     */
    public List<String> mutateLines(final List<String> lines, final int rounds)
    {
        final List<String> out = new ArrayList<>(lines);
        for (int i = 0; i < rounds; i++)
        {
            mutateLinesOnce(out);
        }
        return out;
    }

    /**
     * @param lines  a valid file's lines.
     * @param rounds how many mutations to stack.
     * @return the mutated file, lines joined by LF (some mutations put CRLF, lone CR or NUL inside).
     */
    public String mutateText(final List<String> lines, final int rounds)
    {
        return String.join("\n", mutateLines(lines, rounds)) + (random.nextBoolean() ? "\n" : "");
    }

    private void mutateLinesOnce(final List<String> lines)
    {
        if (lines.isEmpty())
        {
            lines.add(token());
            return;
        }
        final int at = random.nextInt(lines.size());
        final String line = lines.get(at);
        switch (random.nextInt(11))
        {
            case 0:
                lines.add(random.nextInt(lines.size() + 1), line);
                break;
            case 1:
                lines.remove(at);
                break;
            case 2:
                lines.set(at, replaceWord(line, token()));
                break;
            case 3:
                lines.set(at, insertAt(line, token()));
                break;
            case 4:
                lines.set(at, replaceWord(line, hugeNumber()));
                break;
            case 5:
                lines.set(at, line + (random.nextBoolean() ? "\r" : "\u0000"));
                break;
            case 6:
                lines.set(at, line + " " + "9".repeat(1 + random.nextInt(4)).repeat(random.nextInt(3000) + 1));
                break;
            case 7:
            {
                final int other = random.nextInt(lines.size());
                lines.set(at, lines.get(other));
                lines.set(other, line);
                break;
            }
            case 8:
                lines.set(at, line.isEmpty() ? line : line.substring(0, random.nextInt(line.length())));
                break;
            case 9:
            {
                // a word of this line joined to a word of another line
                final String other = lines.get(random.nextInt(lines.size()));
                lines.set(at, line.substring(0, random.nextInt(line.length() + 1)) +
                    other.substring(random.nextInt(other.length() + 1)));
                break;
            }
            default:
                lines.set(at, new String(mutate(line.getBytes(StandardCharsets.ISO_8859_1), 1),
                    StandardCharsets.ISO_8859_1));
        }
    }

    private String token()
    {
        return TOKENS[random.nextInt(TOKENS.length)];
    }

    private String hugeNumber()
    {
        switch (random.nextInt(4))
        {
            case 0:
                return Long.toString(random.nextLong());
            case 1:
                return Integer.toString(Integer.MAX_VALUE - random.nextInt(3));
            case 2:
                return "1" + "0".repeat(10 + random.nextInt(40));
            default:
                return "0x" + Long.toHexString(random.nextLong());
        }
    }

    private String replaceWord(final String line, final String word)
    {
        final String[] words = line.split(" ", -1);
        words[random.nextInt(words.length)] = word;
        return String.join(" ", words);
    }

    private String insertAt(final String line, final String word)
    {
        final int at = random.nextInt(line.length() + 1);
        return line.substring(0, at) + word + line.substring(at);
    }
}
