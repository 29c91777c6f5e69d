package io.vlink.tools.soak;

/**
 * What the wire's receive side at port B destroyed, for the soak's accounting: the {@link FaultyLink} itself in one
 * process, the peer's published counts ({@link SoakPeer}) when port B runs in another.
 */
interface WireCounts
{
    /**
     * @param vl a data VL.
     * @return data packets lost on the VL.
     */
    long droppedData(int vl);

    /**
     * @param vl a data VL.
     * @return data packets on the VL that had a bit flipped.
     */
    long corruptedData(int vl);

    /**
     * @param vl a data VL.
     * @return data packets on the VL lost while the wire was cut for a link bounce.
     */
    long bounceLost(int vl);

    /**
     * @param vl a data VL.
     * @return data packets on the VL handed to the port while its link state did not take data.
     */
    long stateLost(int vl);

    /**
     * @return FCPs lost.
     */
    long droppedFcps();

    /**
     * @return FCPs with a bit flipped.
     */
    long corruptedFcps();
}
