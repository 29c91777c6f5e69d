package io.vlink.nic.link;

import java.security.SecureRandom;

/**
 * Where a link end's incarnation comes from (the shm link's, the UDP link's nonce): a random non-zero 64-bit number
 * drawn when the end opens, so that a peer tells a restarted end from the one it knew.
 */
final class Incarnations
{
    private Incarnations()
    {
    }

    /**
     * @return a fresh incarnation: random, never {@link Link#UNKNOWN_INCARNATION} (0).
     */
    static long next()
    {
        final SecureRandom random = new SecureRandom();
        long incarnation;
        do
        {
            incarnation = random.nextLong();
        }
        while (Link.UNKNOWN_INCARNATION == incarnation);
        return incarnation;
    }
}
