package io.vlink.nic.link;

import org.agrona.DirectBuffer;

import java.nio.ByteOrder;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit MAC, fast on short inputs, which is what a per-datagram
 * authenticator needs (the JDK's HMAC costs a SHA-2 block or two of fixed work per call, plus its object churn).
 * Allocation-free; the key is two 64-bit words read little-endian from its 16 bytes, as the reference does.
 */
public final class SipHash
{
    private SipHash()
    {
    }

    /**
     * @param k0     the key's first 8 bytes, little-endian.
     * @param k1     the key's last 8 bytes, little-endian.
     * @param buffer the message.
     * @param offset its first byte.
     * @param length its length in bytes.
     * @return the 64-bit tag (its little-endian bytes are the reference implementation's output).
     */
    public static long hash(final long k0, final long k1, final DirectBuffer buffer, final int offset, final int length)
    {
        long v0 = k0 ^ 0x736f6d6570736575L;
        long v1 = k1 ^ 0x646f72616e646f6dL;
        long v2 = k0 ^ 0x6c7967656e657261L;
        long v3 = k1 ^ 0x7465646279746573L;
        final int end = offset + (length & ~7);
        for (int i = offset; i < end; i += 8)
        {
            final long m = buffer.getLong(i, ByteOrder.LITTLE_ENDIAN);
            v3 ^= m;
            for (int r = 0; r < 2; r++)
            {
                v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
                v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
                v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
                v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
            }
            v0 ^= m;
        }
        long b = ((long)length) << 56;
        for (int i = 0, left = length & 7; i < left; i++)
        {
            b |= (buffer.getByte(end + i) & 0xFFL) << (8 * i);
        }
        v3 ^= b;
        for (int r = 0; r < 2; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        v0 ^= b;
        v2 ^= 0xff;
        for (int r = 0; r < 4; r++)
        {
            v0 += v1; v1 = Long.rotateLeft(v1, 13); v1 ^= v0; v0 = Long.rotateLeft(v0, 32);
            v2 += v3; v3 = Long.rotateLeft(v3, 16); v3 ^= v2;
            v0 += v3; v3 = Long.rotateLeft(v3, 21); v3 ^= v0;
            v2 += v1; v1 = Long.rotateLeft(v1, 17); v1 ^= v2; v2 = Long.rotateLeft(v2, 32);
        }
        return v0 ^ v1 ^ v2 ^ v3;
    }
}
