package io.vlink.tools.perf;

import io.vlink.nic.link.Link;
import io.vlink.nic.link.RetryLink;
import io.vlink.nic.link.ShmLink;
import org.agrona.DirectBuffer;

/**
 * What {@code vlink perf} sends its messages through: the engine over a link ({@link EngineTransport}) or the bare
 * mapped rings without the engine ({@link RingTransport}), so that both are measured by the same loops.
 * Single-threaded: the application's thread offers, polls and (in invoker mode) runs the engine.
 */
public interface PerfTransport extends AutoCloseable
{
    /** Receives the messages {@link #poll} delivers. */
    @FunctionalInterface
    interface MessageHandler
    {
        /**
         * @param buffer holds the message.
         * @param offset the message's first byte (its kind).
         */
        void onMessage(DirectBuffer buffer, int offset);
    }

    /**
     * What perftest prints as a side's {@code address}: its port's LID, and the queue pair's number and first PSN.
     *
     * @param lid the port's LID.
     * @param qpn the queue pair's number.
     * @param psn the PSN of its first packet.
     */
    record Address(int lid, int qpn, int psn)
    {
    }

    /**
     * @return whether both ends can exchange messages (the link is up).
     */
    boolean ready();

    /**
     * @param sl the SL the run sends on (its queue pair is made now if it is not yet).
     * @return this side's address on it, or null when there is no queue pair (the bare rings).
     */
    Address address(int sl);

    /**
     * @return the path MTU in bytes, or 0 when there is none (the bare rings).
     */
    int mtu();

    /**
     * @param sl the SL the run sends on.
     * @return the most bytes a message is copied as at post time (larger ones are sent by reference).
     */
    int maxInline(int sl);

    /**
     * Send one message once, if there is room.
     *
     * @param message the message's bytes, from offset 0.
     * @param length  its length: 1 to {@link PerfPeer#MAX_SIZE}.
     * @param sl      the SL it goes on.
     * @return whether it was taken.
     */
    boolean offer(DirectBuffer message, int length, int sl);

    /**
     * @param handler receives each message.
     * @return messages delivered.
     */
    int poll(MessageHandler handler);

    /**
     * @return whether every message taken is on the wire (so the transport may close without losing it).
     */
    boolean flushed();

    /**
     * @return work done by the engine's duty cycle on this thread (invoker mode), else 0.
     */
    int duty();

    /**
     * Called when nothing arrives for a while, so it may cost a system call.
     *
     * @return why the peer is gone (it detached, restarted or its process ended), or null when it may be there.
     */
    String peerGone();

    /**
     * @return the link, as the report's preamble says it.
     */
    String describe();

    /**
     * Called when nothing arrived for the peer timeout while the link stayed up, so that the stall explains itself.
     *
     * @return one line: what this side's link and port say about where a message may have gone (the link state,
     * whether the link layer retransmits, packets sent and received, credits, discards by reason).
     */
    String diagnosis();

    @Override
    void close();

    /**
     * What a link says about a peer that was there.
     *
     * @param link the link.
     * @param known the peer's incarnation when the link came up ({@link Link#UNKNOWN_INCARNATION}: not known).
     * @return why the peer is gone, or null when the link does not say it is.
     */
    static String gone(final Link link, final long known)
    {
        final long now = link.peerIncarnation();
        if (Link.UNKNOWN_INCARNATION != known && now != known)
        {
            return Link.UNKNOWN_INCARNATION == now ? "its end of the link closed" :
                "it restarted (a new incarnation of its end of the link)";
        }
        final Link wire = link instanceof RetryLink ? ((RetryLink)link).wire() : link;
        if (wire instanceof ShmLink && !((ShmLink)wire).peerProcessAlive())
        {
            return "its process ended";
        }
        return null;
    }
}
