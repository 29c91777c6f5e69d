package io.vlink.nic.link;

import io.vlink.core.config.ConfigException;
import io.vlink.core.config.Diagnostic;
import io.vlink.core.config.Findings;
import io.vlink.core.config.LineReader;
import io.vlink.core.config.Result;
import io.vlink.core.config.TextLines;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * A pre-shared 128-bit key that authenticates a UDP link's datagrams with SipHash-2-4. Both ends read the same key
 * file: 32 hexadecimal digits on one line (whitespace and {@code #} comment lines around it are ignored), as
 * {@code head -c 16 /dev/urandom | xxd -p -c 32} writes it. The file must not be readable by group or others.
 */
public final class LinkKey
{
    /** The largest key file read: a key and a few comment lines. */
    public static final int MAX_FILE_BYTES = 4096;

    private final long k0;
    private final long k1;

    private LinkKey(final long k0, final long k1)
    {
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * @param k0 the key's first 8 bytes, little-endian.
     * @param k1 its last 8 bytes, little-endian.
     * @return the key.
     */
    public static LinkKey of(final long k0, final long k1)
    {
        return new LinkKey(k0, k1);
    }

    /**
     * @return a fresh random key, for {@link #format()} into a new key file.
     */
    public static LinkKey random()
    {
        final SecureRandom random = new SecureRandom();
        return new LinkKey(random.nextLong(), random.nextLong());
    }

    /**
     * Read a key file.
     *
     * @param file the key file.
     * @return the key.
     * @throws ConfigException {@code FILE:LINE:COL: error: ...} when the file cannot be read or holds no valid key;
     *                         a key file others may read is refused too (the key authenticates the link).
     */
    public static LinkKey read(final Path file)
    {
        final String name = file.toString();
        try
        {
            if (Files.isDirectory(file))
            {
                throw error(name, 0, 0, "cannot read: is a directory");
            }
            if (Files.size(file) > MAX_FILE_BYTES)
            {
                throw error(name, 0, 0, "larger than " + MAX_FILE_BYTES + " bytes; a key file holds 32 hex digits");
            }
            try
            {
                final Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
                if (permissions.contains(PosixFilePermission.OTHERS_READ) ||
                    permissions.contains(PosixFilePermission.GROUP_READ))
                {
                    throw error(name, 0, 0, "readable by others; make it private: chmod 600 " + name);
                }
            }
            catch (final UnsupportedOperationException ignore)
            {
                // not a POSIX file system: nothing to check
            }
        }
        catch (final IOException ex)
        {
            throw new ConfigException(Diagnostic.cannotRead(name, ex));
        }
        // a pipe or a device has no size to check first: the reading stops at the limit
        return TextLines.read(file, MAX_FILE_BYTES, MAX_FILE_BYTES, new KeyReader(name)).orThrow();
    }

    /**
     * @param name the file name findings are reported against.
     * @param text the file's text.
     * @return the key.
     * @throws ConfigException when the text holds no valid key.
     */
    public static LinkKey parse(final String name, final String text)
    {
        return TextLines.parse(name, text, new KeyReader(name)).orThrow();
    }

    /**
     * A reader to feed any source of lines through {@link TextLines} (a stream, a pipe), as {@link #read(Path)} reads
     * a file once its permissions are checked.
     *
     * @param name the name findings are reported against.
     * @return a fresh reader of one key file.
     */
    public static LineReader<LinkKey> reader(final String name)
    {
        return new KeyReader(name);
    }

    /** One key line among blank and {@code #} comment lines; the first mistake is the finding. */
    private static final class KeyReader implements LineReader<LinkKey>
    {
        private final String name;
        private LinkKey key;
        private Diagnostic error;

        KeyReader(final String name)
        {
            this.name = name;
        }

        @Override
        public void line(final int number, final String text)
        {
            final String line = text.strip();
            if (null != error || line.isEmpty() || line.startsWith("#"))
            {
                return;
            }
            final int column = text.indexOf(line.charAt(0)) + 1;
            if (null != key)
            {
                error = finding(number, column, "a second key; a key file holds one key of 32 hex digits");
                return;
            }
            if (line.length() != 32)
            {
                error = finding(number, column, "a key is 32 hex digits (128 bits), this line has " + line.length() +
                    " characters; make one with: head -c 16 /dev/urandom | xxd -p -c 32");
                return;
            }
            for (int c = 0; c < line.length(); c++)
            {
                if (!HexFormat.isHexDigit(line.charAt(c)))
                {
                    error = finding(number, column + c, "not a hex digit; a key is 32 hex digits (0-9, a-f)");
                    return;
                }
            }
            final byte[] raw = HexFormat.of().parseHex(line);
            key = new LinkKey(le(raw, 0), le(raw, 8));
        }

        @Override
        public Result<LinkKey> finish()
        {
            final Findings findings = new Findings();
            if (null != error)
            {
                findings.add(error);
            }
            else if (null == key)
            {
                findings.add(finding(0, 0, "no key; a key file holds 32 hex digits on one line"));
            }
            return Result.of(key, findings);
        }

        private Diagnostic finding(final int line, final int column, final String message)
        {
            return new Diagnostic(name, line, column, Diagnostic.Severity.ERROR, message);
        }
    }

    /**
     * @return the key as a key file's line: 32 hex digits.
     */
    public String format()
    {
        final byte[] raw = new byte[16];
        for (int i = 0; i < 8; i++)
        {
            raw[i] = (byte)(k0 >>> (8 * i));
            raw[8 + i] = (byte)(k1 >>> (8 * i));
        }
        return HexFormat.of().formatHex(raw);
    }

    /**
     * A key check value, as key ceremonies compare one: the SipHash-2-4 MAC of the 16 bytes
     * {@code "vlink key check\0"} under the key. Two ends that print or exchange it tell whether they hold the same
     * key without showing it (SipHash is a pseudo-random function: one MAC of a fixed message gives nothing of the
     * key away).
     *
     * @return the check value.
     */
    public long check()
    {
        final org.agrona.concurrent.UnsafeBuffer message = new org.agrona.concurrent.UnsafeBuffer(
            "vlink key check\0".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        return SipHash.hash(k0, k1, message, 0, message.capacity());
    }

    long k0()
    {
        return k0;
    }

    long k1()
    {
        return k1;
    }

    /**
     * @return a description that never shows the key.
     */
    @Override
    public String toString()
    {
        return "LinkKey[128 bits]";
    }

    private static long le(final byte[] raw, final int offset)
    {
        long value = 0;
        for (int i = 7; i >= 0; i--)
        {
            value = (value << 8) | (raw[offset + i] & 0xFF);
        }
        return value;
    }

    private static ConfigException error(final String file, final int line, final int column, final String message)
    {
        return new ConfigException(new Diagnostic(file, line, column, Diagnostic.Severity.ERROR, message));
    }
}
