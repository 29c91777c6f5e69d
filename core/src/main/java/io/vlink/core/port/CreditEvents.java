package io.vlink.core.port;

/**
 * What a port's receive half hands its credit half, in wire order: the FCPs it received (their words: length, LPCRC
 * and Op checked), the blocks it stored in each data VL's buffer, the peer's close. One order for all is what
 * {@code ABR := FCTBS} relies on: every block sent before an FCP has been reported (or lost) before the FCP.
 * <p>
 * Two hand-offs ship: the engine's {@link CreditEventRing} to its credit agent's thread (applied in the credit
 * agent's next duty cycle), and a port on one thread ({@link DirectPort}) that may apply each at once.
 */
public interface CreditEvents
{
    /**
     * @return events the receive half may hand over now: a poll takes no more frames than this, as each frame makes
     * at most one event.
     */
    int room();

    /**
     * @param word an FCP's first four bytes, LPCRC and Op already checked.
     */
    void onFcp(int word);

    /**
     * @param vl     a data VL.
     * @param blocks NP of the packets stored on the VL since its previous report, summed (at most
     *               {@link CreditEventRing#MAX_BLOCKS}; or one packet's, with chunks larger than a block).
     */
    void onAccepted(int vl, int blocks);

    /**
     * The peer said it is closing (a link-level notice): the link is down at once.
     */
    void onPeerClosed();
}
